"""A second user module: helpers that the converted functions in test_calls_and_idioms.py call."""


def clip_positive(x):
    if x > 0:
        return x
    return 0.0 * x


def halve_until_small(x):
    while x > 1.0:
        x = x / 2
    return x

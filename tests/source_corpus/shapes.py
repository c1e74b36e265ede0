"""Functions whose source is awkward to find or parse; tests/test_source.py converts each one."""

import functools

import autograph_lite

pair = (lambda x: x * 2 if x > 0 else -x, lambda x: x + 1 if x > 0 else x - 1)

spread = lambda x: (
    x * 3
    if x > 0
    else x
)


def decorated_elsewhere(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args)

    return wrapper


@autograph_lite.jit
def jitted_by_decorator(x):
    if x > 0:
        return x * 2
    return x


class Holder:
    def method(self, x):
        text = """a string
whose lines are less indented
than the method"""
        if x > 0:
            x = x + len(text)
        return x


def outer(scale):
    def inner(x):
        if x > scale:
            return x - scale
        return x + scale

    return inner


def signature_over_lines(
    x,
    offset=1.0,
):
    if x > 0:
        return x + offset
    return x - offset
def defined_right_after(x):
    return x * 5


def continued_at_column_zero(x):
    total = x + \
1.0
    if total > 2:
        total = total * 2
    return total


def bound_by_walrus(x):
    if (doubled := x * 2) > 1:
        x = doubled + 1
    return x + doubled

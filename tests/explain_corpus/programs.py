"""Functions whose conversion report tests/test_explain.py checks, line by line."""


import autograph_lite


def branches(x, threshold):
    y = 0
    if x > threshold:  # mark: branches-if
        y = x * 2.0
    return y


def loops(xs, n):
    total = 0.0
    for i in range(n):  # mark: loops-range
        total = total + i
    for row in xs:  # mark: loops-rows
        total = total + row.sum()
    for layer in autograph_lite.unroll(range(2)):  # mark: loops-unroll
        total = total * 2
    return total


def search(xs):
    for i in range(xs.shape[0]):  # mark: search-for
        if xs[i] > 0:
            return i
    return -1


def search_value(xs):
    for i in range(xs.shape[0]):  # mark: search-value-for
        if xs[i] > 0:
            return xs[i]
    return -1.0


def python_iterables(x, scales):
    for scale in scales:  # mark: python-for
        x = x * scale
    return x

"""A program found by the generated-program fuzzer (tests/test_generated_programs.py).

exception: RecursionError: maximum recursion depth exceeded while calling a Python object
on inputs (np.int32(0), np.float32(0.0), np.array([0.0, 0.0, 0.0], dtype=np.float32))
eager:     AssertionError()
"""

import numpy as np
import jax.numpy as jnp


MOVES2 = [lambda v: v * 0.5]


TABLE4 = (0,)


TABLE8 = (0.0,)


def f(a, b, c):
    s0 = {"a": 1.0, "b": 1.0}
    s1 = MOVES2[(0 % 1)](1.0)
    g3 = lambda: (TABLE4[(0 % 1)] or 0)
    c5 = 0
    def inc6():
        nonlocal c5
        c5 += 1
        return c5
    w7 = 0
    while w7 < 2 and (TABLE8[(a % 1)] in (0,)):
        w7 = w7 + 1
        v9 = a
        assert (0 < a)
    return s0, s1


INPUTS = [
    (np.int32(0), np.float32(0.0), np.array([0.0, 0.0, 0.0], dtype=np.float32), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

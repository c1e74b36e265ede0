"""A program found by the generated-program fuzzer (tests/test_generated_programs.py).

exception: ValueError: check N
on inputs (np.int32(0),)
eager:     AssertionError()
"""

import numpy as np
import jax.numpy as jnp


def f(a):
    s0 = a
    for i1 in range(a):
        v2 = (0 < a)
        for i3 in range(3):
            v4 = ((0 % 2 == 0) and ((((0 < 0) and (0 < 0)) and (0 < 0)) and (0 < 0)))
            v5 = 0
    v6 = 0
    v7 = 0
    v8 = a
    if (a not in range(0, 0)):
        assert (0 < a)
        raise ValueError("check 9")
    return s0


INPUTS = [
    (np.int32(0), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

"""A program found by the generated-program fuzzer (tests/test_generated_programs.py).

exception: AssertionError: 
on inputs (np.float32(0.0),)
eager:     (4, 4)
"""

import numpy as np
import jax.numpy as jnp


def f(a):
    s0 = 1
    s1 = (jnp.reshape(0, (1,)) if (s0 < jnp.where(((0 < 0) and (0 < 0)), 0, 0)) else jnp.reshape(0, (1,)))[0]
    s1 = ((s1 * 2) + s0)
    if s1:
        v2 = 0
        v3 = 0
        s0 = ((s0 * 2) + (s0 + s0))
    else:
        assert (s0 < s0)
    return s0, s0


INPUTS = [
    (np.float32(0.0), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

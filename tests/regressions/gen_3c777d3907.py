"""A program found by the generated-program fuzzer (tests/test_generated_programs.py).

exception: TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[].
on inputs (np.int32(0),)
eager:     0
"""

import numpy as np
import jax.numpy as jnp


def f(a):
    s0 = 0
    s0 = ((s0 * 2) + 0)
    v1 = 0
    v2 = 0
    v3 = (a in (0,))
    return s0


INPUTS = [
    (np.int32(0), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

"""A program found by the generated-program fuzzer (tests/test_generated_programs.py).

exception: UnboundLocalError: cannot access local variable '_' where it is not associated with a value
on inputs (np.int32(0), np.array([0.0, 0.0, 0.0], dtype=np.float32))
eager:     (0, 0)
"""

import numpy as np
import jax.numpy as jnp


def f(a, b):
    s0 = 0
    s1 = 0
    if ((jnp.reshape(0, (1,)) < a) and (jnp.reshape(0, (1,)) < a))[0]:
        v2 = 0
    else:
        v3 = 0
        return s0, s0
    del s0
    return s1, s1


INPUTS = [
    (np.int32(0), np.array([0.0, 0.0, 0.0], dtype=np.float32), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

"""A program found by the generated-program fuzzer (tests/test_generated_programs.py).

exception mismatch convert
on inputs (np.array([0.0, 0.0, 0.0], dtype=np.float32),)
eager:     UnboundLocalError("cannot access local variable 's0' where it is not associated with a value")
converted: Undefined('s0')
"""

import numpy as np
import jax.numpy as jnp


def f(a):
    s0 = jnp.arange(3)
    del s0
    for r1 in a:
        v2 = (jnp.arange(3) + jnp.arange(3))
        w3 = 0
        while w3 < 2 and (0 < 0):
            w3 = w3 + 1
            s0 = jnp.clip(v2, -1000, 1000)
    return s0


INPUTS = [
    (np.array([0.0, 0.0, 0.0], dtype=np.float32), ),
]
MAYBE_UNDEFINED = ('s0',)  # read where they may be unassigned
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

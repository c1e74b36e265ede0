"""A program found by the generated-program fuzzer (tests/test_generated_programs.py).

exception mismatch convert
on inputs (np.int32(0), np.array([0, 0, 0], dtype=np.int32))
eager:     UnboundLocalError("cannot access local variable 'v2' where it is not associated with a value")
converted: 0
"""

import numpy as np
import jax.numpy as jnp


def f(a, b):
    s0 = 0
    del s0
    for i1 in range(a):
        v2 = 0
    del v2
    return 0


INPUTS = [
    (np.int32(0), np.array([0, 0, 0], dtype=np.int32), ),
]
MAYBE_UNDEFINED = ('v2',)  # read where they may be unassigned
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

"""A program found by the generated-program fuzzer (tests/test_generated_programs.py), features
+minmax_builtins,+special_floats,-vectors,-while,-static_range, seed 9: `max(0.5, nan)` is 0.5 in
Python (a NaN never wins after the first value) and was NaN under jit (jnp.maximum); runtime/builtins.py.

mismatch jit[cpu] first call
on inputs (np.float32(np.nan), np.float32(-0.25))
eager:     (2.25, 2.25)
converted: (nan, nan)
"""

import numpy as np
import jax.numpy as jnp


def f(a, b):
    s0 = 0.5
    s1 = max(s0, a)
    if ((b >= 2) and (a != s0)):
        for i2 in range(4):
            c3 = False
            for i4 in range(2):
                if (4 in []):
                    s0 = jnp.clip(((s0 * (-1.5)) - s0), -1000, 1000)
                    c3 = True
            if not c3:
                break
    else:
        s0 = ((s0 * (-1.5)) - ((-2) or 2))
        s0 = ((s0 * 2.0) + min(1, (-1)))
    s1 = ((s1 * 0.5) + 2.0)
    for i5 in range(2):
        c6 = False
        for i7 in range(3):
            for i8 in range(3):
                if (s1 <= (-1.5) <= i7):
                    s0 = jnp.clip(((s0 * 2.0) - a), -1000, 1000)
                    c6 = True
        if c6:
            break
    return s1, s1


INPUTS = [
    (np.float32(np.nan), np.float32(-0.25), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

"""A helper updates its argument in place and returns the updated element (`a[k] += x; return a[k]`):
under jit the caller's array keeps its old value and no error is raised, so a later read of it
(`c[0]`) differs from eager Python on NumPy inputs.

Found by the generated-program fuzzer (tests/test_generated_programs.py, issue #13
effect features), reduced; the outcome below is the one at commit 633ccbd.

mismatch jit[cpu] first call
on inputs (np.int32(0), np.int32(1), np.array([0.0, 0.0, 1.0], dtype=np.float32))
eager:     -1.5
converted: -3.0
"""

import numpy as np
import jax.numpy as jnp

def bump_read(a, k, x):
    a[k] += x
    return a[k]

def f(a, b, c):
    s0 = bump_read(c, 0, -1.5)
    s0 = s0 * 2.0 - c[0]
    return s0



INPUTS = [
    (np.int32(0), np.int32(1), np.array([0.0, 0.0, 1.0], dtype=np.float32), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

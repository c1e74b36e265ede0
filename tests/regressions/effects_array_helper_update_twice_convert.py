"""A helper that updates its NumPy argument in place, called in the condition of an `if` in `for i2 in
range(1, a)`: convert(f) on NumPy inputs updates the caller's array once more than eager Python (the
trial trace of the loop body runs the helper too).

Found by the generated-program fuzzer (tests/test_generated_programs.py, issue #13
effect features), reduced; the outcome below is the one at commit 633ccbd.

arguments mismatch convert
on inputs (np.int32(5), np.float32(-6.5), np.array([-5.5, -4.5, 2.0, -8.0], dtype=np.float32))
eager:     (5, -6.5, [-5.5, -4.5, 2.0, 4.0])
converted: (5, -6.5, [-5.5, -4.5, 2.0, 7.0])
"""

import numpy as np
import jax.numpy as jnp

def bump_read(a, k, x):
    a[k] += x
    return a[k]

def f(a, b, c):
    s0 = 0
    for i2 in range(1, a):
        if jnp.all(c >= bump_read(c, 3, 3.0)):
            s0 = s0 + 1
    return s0



INPUTS = [
    (np.int32(5), np.float32(-6.5), np.array([-5.5, -4.5, 2.0, -8.0], dtype=np.float32), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

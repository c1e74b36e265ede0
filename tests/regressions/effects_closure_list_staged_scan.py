"""Lambdas appended to a list in a `for` over an array's rows (late binding: each sees the last row):
the loop is staged as a scan whose appended values are functions, and JAX raises a TypeError instead
of the loop running as Python.

Found by the generated-program fuzzer (tests/test_generated_programs.py, issue #13
effect features), reduced; the outcome below is the one at commit 633ccbd.

exception: TypeError: function scan_step at  traced for scan returned a value of type <class '_'> at output component [N][N], which is not a valid JAX type
on inputs (np.array([2, 1, 0, 3], dtype=np.int32), np.array([2, 0, 0, 2], dtype=np.int32))
eager:     [1.0, 1.0, 1.0, 1.0]
"""

import numpy as np
import jax.numpy as jnp

def f(a, b):
    s0 = jnp.ones(4)
    fs1 = []
    for i2 in s0:
        fs1.append(lambda: i2)
    return s0



INPUTS = [
    (np.array([2, 1, 0, 3], dtype=np.int32), np.array([2, 0, 0, 2], dtype=np.int32), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

"""A print in a static loop over an array's rows: convert(f) prints once more than eager Python (while
tracing the loop body aside).

Found by the generated-program fuzzer (tests/test_generated_programs.py, issue #13
effect features), reduced; the outcome below is the one at commit 633ccbd.

stdout mismatch convert
on inputs (np.array([5, 2, -3, -2], dtype=np.int32),)
eager:     'x =!\nx =!\nx =!\nx =!\n'
converted: 'x =!\nx =!\nx =!\nx =!\nx =!\n'
"""

import numpy as np
import jax.numpy as jnp

def f(a):
    s0 = a[::-1]
    for r2 in a:
        print('x =', sep='|', end='!\n')
    return s0



INPUTS = [
    (np.array([5, 2, -3, -2], dtype=np.int32), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

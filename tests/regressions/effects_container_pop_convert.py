"""`s0 = s0 + xs.pop(0)` in a static loop over an array's rows: convert(f) pops more than eager Python
does (the trial trace of the loop body pops too), so the sum differs.

Found by the generated-program fuzzer (tests/test_generated_programs.py, issue #13
effect features), reduced; the outcome below is the one at commit 633ccbd.

mismatch convert
on inputs (np.int32(2),)
eager:     [9.0, 9.0, 9.0]
converted: [7.0, 7.0, 7.0]
"""

import numpy as np
import jax.numpy as jnp
TABLE = [3, 1, 4, 1, 5, 9, 2, 6]

def f(a):
    s0 = jnp.ones(3) % 5
    xs2 = list(TABLE)
    for r3 in s0:
        s0 = s0 + (xs2.pop(0) if xs2 else 0) * 1.0
    return s0



INPUTS = [
    (np.int32(2), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

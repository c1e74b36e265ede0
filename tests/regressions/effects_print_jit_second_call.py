"""A print of Python values only runs while tracing: the second jit call (cached, nothing retraced)
prints nothing, where eager Python prints on every call.

Found by the generated-program fuzzer (tests/test_generated_programs.py, issue #13
effect features), reduced; the outcome below is the one at commit 633ccbd.

stdout mismatch jit[cpu] second call
on inputs (np.array([6.0, -2.75, 6.25], dtype=np.float32),)
eager:     '4 \n'
converted: ''
"""

import numpy as np
import jax.numpy as jnp

def f(a):
    s0 = jnp.max(a)
    print(-1 % 5, '')
    return s0



INPUTS = [
    (np.array([6.0, -2.75, 6.25], dtype=np.float32), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

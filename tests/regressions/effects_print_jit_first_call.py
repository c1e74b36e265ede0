"""An f-string of a traced array in a loop under jit prints the tracer (`JitTracer(float32[3])`), not
the run-time value.

Found by the generated-program fuzzer (tests/test_generated_programs.py, issue #13
effect features), reduced; the outcome below is the one at commit 633ccbd.

stdout mismatch jit[cpu] first call
on inputs (np.array([7.5, 7.0, 7.0], dtype=np.float32),)
eager:     '[7.5 7.  7. ] 3 False\n[7.5 7.  7. ] 3 True\n[7.5 7.  7. ] 3 True\n'
converted: 'JitTracer(float32[3]) 3 True\nJitTracer(float32[3]) 3 False\nJitTracer(float32[3]) 3 True\n'
"""

import numpy as np
import jax.numpy as jnp

def f(a):
    s0 = len(a)
    for r1 in a:
        v2 = a
        print(f'{v2} {len(a)}', jnp.all(v2 >= r1))
    return s0 or jnp.clip(len(a), -1, 2)



INPUTS = [
    (np.array([7.5, 7.0, 7.0], dtype=np.float32), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

"""An f-string with a format spec (`{x:.2f}`) of a traced value under jit: a TypeError from the
tracer's __format__ instead of the run-time value formatted as eager Python does.

Found by the generated-program fuzzer (tests/test_generated_programs.py, issue #13
effect features), reduced; the outcome below is the one at commit 633ccbd.

exception: TypeError: unsupported format string passed to DynamicJaxprTracer.__format__
on inputs (np.int32(-3),)
eager:     [0.0, 0.0, 0.0]
"""

import numpy as np
import jax.numpy as jnp

def f(a):
    s0 = jnp.zeros(3) // 2
    print('', len(s0), f'v: {jnp.sum(s0):.2f}', sep='')
    return s0



INPUTS = [
    (np.int32(-3), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

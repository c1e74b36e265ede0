"""`d.setdefault(2, <traced value>)` in a static loop: the trial trace of the loop body stores a tracer
in the dict, and the real run finds it there (UnexpectedTracerError).

Found by the generated-program fuzzer (tests/test_generated_programs.py, issue #13
effect features), reduced; the outcome below is the one at commit 633ccbd.

exception: UnexpectedTracerError: Encountered an unexpected tracer. A function transformed by JAX had a side effect, allowing for a reference to an intermediate value with type intN[] 
on inputs (np.array([1, 3, 2, 4], dtype=np.int32), np.int32(0), np.float32(0.75))
eager:     [-12.0, -11.5, -11.0, -10.5]
"""

import numpy as np
import jax.numpy as jnp

def f(a, b, c):
    s0 = jnp.arange(4) * 0.5
    xs2 = {0: 2, 1: 5}
    for r4, r5 in zip(s0, s0):
        s0 += xs2.setdefault(2, jnp.clip(a[-1], -3, -3)) * 1.0
    return s0



INPUTS = [
    (np.array([1, 3, 2, 4], dtype=np.int32), np.int32(0), np.float32(0.75), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

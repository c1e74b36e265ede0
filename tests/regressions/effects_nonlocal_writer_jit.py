"""A nested function that adds to a nonlocal counter, called in the body of a `while` loop with a
traced test: it runs once while tracing, not once per iteration, and the counter is silently wrong.

Found by the generated-program fuzzer (tests/test_generated_programs.py, issue #13
effect features), reduced; the outcome below is the one at commit 633ccbd.

mismatch jit[cpu] first call
on inputs (np.float32(5.75), np.array([5, -3, -3, 6], dtype=np.int32))
eager:     (10, 0)
converted: (4, 0)
"""

import numpy as np
import jax.numpy as jnp

def f(a, b):
    s0 = b[0]
    s1 = 0
    c2 = 2

    def inc3():
        nonlocal c2
        c2 = c2 + 2
        return c2
    w4 = 0
    while w4 < 4 and a:
        w4 = w4 + 1
        s0 = s0 + jnp.clip(inc3(), -100, 100)
    return (c2, s1)



INPUTS = [
    (np.float32(5.75), np.array([5, -3, -3, 6], dtype=np.int32), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

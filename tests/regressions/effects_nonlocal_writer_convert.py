"""A nested function that adds to a nonlocal counter, called in a static loop's body: convert(f) calls
it more often than eager Python (the trial trace of the body calls it too).

Found by the generated-program fuzzer (tests/test_generated_programs.py, issue #13
effect features), reduced; the outcome below is the one at commit 633ccbd.

mismatch convert
on inputs (np.int32(2), np.array([-2.5, -1.5, 1.25, 3.75], dtype=np.float32), np.float32(0.75))
eager:     20
converted: 24
"""

import numpy as np
import jax.numpy as jnp

def f(a, b, c):
    s0 = -2
    c1 = 3

    def inc2():
        nonlocal c1
        c1 += 1
        return c1
    for k3, r4 in enumerate(b):
        s0 += jnp.clip(inc2(), -100, 100)
    return s0



INPUTS = [
    (np.int32(2), np.array([-2.5, -1.5, 1.25, 3.75], dtype=np.float32), np.float32(0.75), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

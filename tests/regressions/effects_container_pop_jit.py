"""`xs.pop(0)` in the right operand of `and` whose left operand is traced: the converted `and`
evaluates both operands, so it pops where eager Python short-circuits (and the length of the list
differs).

Found by the generated-program fuzzer (tests/test_generated_programs.py, issue #13
effect features), reduced; the outcome below is the one at commit 633ccbd.

mismatch jit[cpu] first call
on inputs (np.array([-3.0, -7.5, -2.25, -6.5], dtype=np.float32), np.array([-1.25, -6.5, -2.25, 7.5], dtype=np.float32), np.float32(6.5))
eager:     (False, 4)
converted: (False, 3)
"""

import numpy as np
import jax.numpy as jnp

def f(a, b, c):
    xs1 = [1, 2, 3, 4]
    s0 = c < a[-1] and (xs1.pop(0) if xs1 else 0) <= len(b)
    return s0, len(xs1)



INPUTS = [
    (np.array([-3.0, -7.5, -2.25, -6.5], dtype=np.float32), np.array([-1.25, -6.5, -2.25, 7.5], dtype=np.float32), np.float32(6.5), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

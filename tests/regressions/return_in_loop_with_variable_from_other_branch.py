"""A `return` in one branch of a traced `if` inside a loop, a variable assigned in the other branch and
used after the `if`. Valid Python on every input; jit raises "'_ag_retval' is assigned only in the false
branch of the `if`" (an internal name). Both branches carry one placeholder each (_ag_retval unset in
the true branch, v unset in the false one) whose array leaves happen to line up (float32 and float32),
so lax.cond accepts the outputs, runtime/conditionals.py staged_cond never calls _adjust (it only
does on a TypeError), and _check_python_leaves rejects the Undefined placeholders.

Found by the generated-program fuzzer (tests/test_generated_programs.py), reduced by hand.

conversion_error: StagingTypeError: '_' is assigned only in the false branch of the `if`, and it is used after it. With a traced condition both branches run as one lax.cond, which must r
on inputs (np.array([1.0, 2.0, -5.0], dtype=np.float32),)
eager:     5.0
"""

import numpy as np
import jax.numpy as jnp


def f(b):
    s = 0.0
    for r in b:
        if r > 0:
            v = r + 1
        else:
            return s
        s = s + v
    return s


INPUTS = [
    (np.array([1.0, 2.0, -5.0], dtype=np.float32), ),
    (np.array([1.0, 2.0, 5.0], dtype=np.float32), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

"""The same placeholder mix-up as return_in_loop_with_variable_from_other_branch, without any `return`
inside the loop body: a `return` in one branch of a traced `if` in a `for ... else:` clause (the
clause is guarded by the returned flag, so the code after it is not lifted into the other branch).

Found by the generated-program fuzzer (tests/test_generated_programs.py), reduced by hand.

conversion_error: StagingTypeError: '_' is assigned only in the false branch of the `if`, and it is used after it. With a traced condition both branches run as one lax.cond, which must r
on inputs (np.array([1.0, 2.0, -5.0], dtype=np.float32),)
eager:     3.0
"""

import numpy as np
import jax.numpy as jnp


def f(b):
    s = jnp.sum(b)
    for i in range(3):
        s = s + 1
    else:
        if s > 0:
            v = s + 1
        else:
            return s
    return s + v


INPUTS = [
    (np.array([1.0, 2.0, -5.0], dtype=np.float32), ),
    (np.array([1.0, 2.0, 5.0], dtype=np.float32), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

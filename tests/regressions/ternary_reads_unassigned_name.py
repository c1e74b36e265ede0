"""A conditional expression whose taken branch never reads an unassigned name eagerly, but whose other
branch reads 't', unassigned on the `elif` path. A documented limitation, but the error blames the
expression, not the variable: "<expression value> is assigned only in the false branch of the
conditional expression" (runtime/conditionals.py if_exp / _check_python_leaves: an Undefined
branch value is a read of an unassigned name; it should say which, e.g. 't').

Found by the generated-program fuzzer (tests/test_generated_programs.py), reduced by hand.

conversion_error: StagingTypeError: <expression value> is assigned only in the false branch of the conditional expression, and it is used after it. With a traced condition both branches 
on inputs (np.array([1, 2, 3], dtype=np.int32), np.float32(-0.5))
eager:     2
"""

import numpy as np
import jax.numpy as jnp


def f(a, b):
    if b > 0:
        t = a[0]
    elif b > -1:
        pass
    else:
        return a[0]
    return t if b > 1 else a[1]


INPUTS = [
    (np.array([1, 2, 3], dtype=np.int32), np.float32(-0.5), ),
]
MAYBE_UNDEFINED = ('t',)  # read where they may be unassigned
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

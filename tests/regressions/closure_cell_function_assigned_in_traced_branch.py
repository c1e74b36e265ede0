"""A program found by the generated-program fuzzer (tests/test_generated_programs.py), features
+switch,+stacked_lists,+transform_arguments,+closures,+match,+break_continue,+return_in_loop,+with_try,
+indexing (seed 31), shrunk by hand. A false refusal (a located error where eager Python returns), never
a wrong value; present before the switch lowering (checked on bbc449d). Fixed: both branches now return
a stand-in (`values.OneBranchValue`) that raises a located error only if something reads it.

`g15` is assigned a function inside a traced `if` and read by a closure (`g18`) defined in the same
branch, so it is a cell variable; the converted branches pass every cell variable they assign out of
the `if` to keep the cell in step, even where no read after the `if` can see it. The other branch's
placeholder cannot stand for a function, so staging refuses:

conversion_error: StagingTypeError: 'g15' is the function <lambda> in the true branch of the `if` but
the function <lambda> in the false branch (a Python value differs).
on inputs (np.int32(-2),)
eager:     [0.0, 0.0, 0.0]
"""

import numpy as np
import jax.numpy as jnp


def f(a):
    s0 = jnp.zeros(3)
    if a == 6:
        g15 = lambda: a + 1.0
        for i17 in range(0, a, 2):
            def g18():
                return g15()
        return s0
    elif a == 1:
        return s0
    return s0


INPUTS = [(np.int32(-2),), (np.int32(6),)]
STATUS = "fixed"

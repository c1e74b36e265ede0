"""The target of a `for` over a traced range, read after the loop: autograph_lite's own StagingTypeError
("'i' is first assigned inside the staged loop") is caught by the `except TypeError` around
lax.fori_loop in runtime/loops.py (_staged_range) and re-translated by the carry check (now runtime/carry.py),
which pairs the carried arrays wrongly and blames 's' with i's type:
"'s' is i32[3] before the `for` loop but weakly typed i32[] after one iteration".
Acceptable outcomes: the eager result, or the documented error naming 'i'.

Found by the generated-program fuzzer (tests/test_generated_programs.py), reduced by hand.

conversion_error: StagingTypeError: '_' is iN[N] before the `for` loop but weakly typed iN[] after one iteration. A staged loop keeps one type per carried variable.
on inputs (np.int32(2),)
eager:     ([2, 3, 4], 1)
"""

import numpy as np
import jax.numpy as jnp


def f(a):
    s = jnp.arange(3)
    for i in range(a):
        s = s + 1
    return s, i


INPUTS = [
    (np.int32(2), ),
]
MAYBE_UNDEFINED = ('i',)  # read where they may be unassigned
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

"""A valid program refused: inside a static `for` loop, a traced `if` whose true branch runs an inner
`for i in range(3)` and reads `i` after it, and whose false branch never binds `i`, is a
StagingTypeError "'i' is assigned only in the true branch of the `if`, and it is used after it",
although nothing reads `i` after the `if`. Eager Python, and the same `if` outside any loop or
inside a traced `while`, are fine. Found by the generated-program fuzzer (feature big_ints, seed 6;
it is not about dtypes), reduced by hand; HEAD refuses it too.

The outer loop's rewrite carries every name its body assigns (`_ag.for_stmt(..., (i, s), ('i', 's'))`,
see `autograph_lite.to_source(f)`), so its body function returns `i`, and the `if` inside sees `i` as
read after it; a name that no read after the loop and no later iteration (before assigning it) can
see should be neither carried by the loop nor counted as used after the `if` (or filled with the
placeholder that raises only when read, as a traced `while` does).

Fixed: a `for` over a sequence written out non-empty binds its target on every path
(analysis/nonempty_loops.py), so `i` is neither carried by the outer loop nor returned by the `if`
(tests/test_nonempty_loop_targets.py). Over a traced `range(n)` the refusal stays (eager Python
raises when n is 0).

conversion_error: StagingTypeError: 'i' is assigned only in the true branch of the `if`, and it is used after it.
on inputs (np.int32(2), np.array([3.5, -4.25], dtype=np.float32))
eager:     [13.5, 5.75]
"""

import numpy as np
import jax.numpy as jnp


def f(a, c):
    s = c
    for k in range(2):
        if a > 0:
            for i in range(3):
                s = s + 1.0
            s = s + i
    return s


INPUTS = [
    (np.int32(2), np.array([3.5, -4.25], dtype=np.float32), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

"""A program found by the generated-program fuzzer (tests/test_generated_programs.py), features
+transform_arguments,+closures,+pytrees,+indexing (seed 2), shrunk by hand.

The closure `g4` reads `s2`, which the staged `for` nested in the staged `while` carries. The list
lookup `TABLE5[...]` with a traced index stages a run-time check, whose predicate re-evaluates the
enclosing `while` test; the generated test function syncs the loop's cells from its arguments
(`nonlocal s2; s2 = ...`), so it reset the closure's `s2` to the `while` iteration's value in the
middle of the `for` body, and the second read of `s2` in `g4` saw a stale value.

mismatch jit[cpu] first call
on inputs (np.int32(2), np.int32(-2))
eager:     -2.546875
converted: -2.421875
"""

import numpy as np
import jax.numpy as jnp

TABLE5 = [5.75, 3.0]


def f(a, b):
    s2 = 2.75

    def g4():
        return s2 - (TABLE5[b % 2 - 2] - jnp.where(s2 // 2 > -0.75, 2.0, 1.5))
    w8 = 0
    while w8 < a:
        w8 = w8 + 1
        for i14 in range(a):
            s2 = s2 * -1.5 + g4()
    return s2


INPUTS = [(np.int32(2), np.int32(-2)), (np.int32(0), np.int32(3)), (np.int32(3), np.int32(1))]
STATUS = "fixed"

"""`min(a, b)` / `max(a, b)` of traced values is `jnp.minimum` / `jnp.maximum`, which propagate a
NaN from either operand; Python's builtins compare (`b < a`, `b > a`), which is false for a NaN, so
eager keeps the first operand: `min(1.0, nan)` is 1.0, `min(nan, 1.0)` is nan. Found while checking
the benchmark's train_mlp (`best = min(best, loss)`), where it is not observable (a NaN loss ends the
loop). Signed zeros differ the same way (`min(0.0, -0.0)` is 0.0 in Python, -0.0 in jnp.minimum;
not caught by this check, which compares floats with a tolerance).

runtime/builtins.py:_min_max folds the arguments with `combine` = jnp.minimum / jnp.maximum. The
fix: fold as Python does, `result = jnp.where(value < result, value, result)` (`>` for max), after
promoting both to their common dtype as jnp.minimum does.

value mismatch jit[cpu]
on inputs (np.float32(1.0), np.float32(nan))
eager:     (1.0, 1.0)
converted: (nan, nan)
"""

import numpy as np


def f(a, b):
    return min(a, b), max(a, b)


INPUTS = [
    (np.float32(1.0), np.float32(np.nan), ),
    (np.float32(np.nan), np.float32(1.0), ),
    (np.float32(1.0), np.float32(2.0), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

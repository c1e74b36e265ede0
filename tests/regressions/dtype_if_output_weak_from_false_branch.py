"""A traced `if` (or ternary: `n if c else 3`) whose false branch leaves a weakly typed float32 and whose true branch makes it
strongly typed returns it weakly typed on both paths: eager Python's `s` is a strongly typed float32
when the true branch runs, jit's stays weakly typed (and `s + x_bf16` after it would be bfloat16
where eager gives float32). Found by the generator once the check compared dtypes (program_dtypes.py).

lax.cond takes each output's aval, weak type included, from its first branch (the false one), and
runtime/conditionals.py:114 (if_stmt) accepts branches whose outputs differ only in weak type:
Split.first_difference compares structure, and carry._cond_casts casts only a different dtype. The
fix: treat a weak-only difference as one to adjust (cast the weakly typed output with
lax.convert_element_type to the dtype both share, as jnp.result_type of the two would give).

dtype mismatch jit[cpu] first call
on inputs (np.float32(1.5), np.int32(1))
eager:     [-1.5, -1.25, -1.0]  (float32)
converted: [-1.5, -1.25, -1.0]  (float32, weakly typed)
"""

import numpy as np
import jax.numpy as jnp


def f(a, b):
    s = jnp.arange(3) * 0.5
    if b > 0:
        s = s * 0.5 - a
    return s


INPUTS = [
    (np.float32(1.5), np.int32(1), ),
    (np.float32(1.5), np.int32(0), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

"""Found by the generated-program fuzzer (match + with): a name the other branch of an `if` (here a
`match` case) assigns, read after it, where the first branch always returns.

The first case returns on every path (one return under a traced condition inside a `with`), so the
code after the `match` runs only after the second case, which binds `m4`. The return flag's guard
around that code was traced, and read `m4` where the concrete first case left it unbound: a false
StagingTypeError. The code after an `if` now moves into the one branch that may fall through.
"""

import jax
import jax.numpy as jnp
import numpy as np


def f(a, b):
    s0 = 1
    match 1:
        case 1:
            with jax.named_scope("s"):
                if jnp.min(b) < a[0]:
                    return s0 * 2
            return s0
        case m4:
            m4 = jnp.sum(b)
    for r8 in b:
        m4 = m4 * 3 - r8
    return s0 + m4


INPUTS = [
    (np.array([-3, 3, 5, 3], dtype=np.int32), np.array([4, -2, 5, -1], dtype=np.int32)),
    (np.array([9, 3, 5, 3], dtype=np.int32), np.array([4, -2, 5, -1], dtype=np.int32)),
]
STATUS = "fixed"

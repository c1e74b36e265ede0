"""A Python int in one branch of a traced `if` and a uint8 in the other: the join kept the Python
int's int32 (so that 256 or 70000 would not wrap as a uint8), which made the uint8 path an int32, and
`n2 * 2` after the `if` computed 510 where eager Python's uint8 wraps to 254. Found by the
generator's feature narrow_dtypes (seed 2, 1000 programs: the one value mismatch; there the Python
int was 256, which a uint8 does not hold: now a located StagingTypeError, tests/test_narrow_ints.py).

Fixed: a Python int beside a narrower integer takes its dtype where it holds the value, as eager
`v_u8 * 3` is uint8 arithmetic (runtime/carry.py joined_dtype, runtime/narrow_numbers.py).

mismatch jit[cpu] first call
on inputs (np.array([2, 2, 3], dtype=np.int32), np.int32(3), np.uint8(255))
eager:     254  (uint8)
converted: 510  (int32)
"""

import numpy as np
import jax.numpy as jnp


def f(a, b, c):
    s0 = c
    if (b > jnp.sum(a)):
        n2 = 3
    else:
        n2 = s0
    n5 = (n2 * 2)
    return n5


INPUTS = [
    (np.array([2, 2, 3], dtype=np.int32), np.int32(3), np.uint8(255), ),
    (np.array([0, 1, 1], dtype=np.int32), np.int32(3), np.uint8(200), ),
    (np.array([2, 4, 3], dtype=np.int32), np.int32(6), np.uint8(3), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

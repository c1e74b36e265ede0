"""A `for` over a traced range whose span (stop - start) is past int32's largest value: the trip count
was computed in int32 (`(stop - start + step - 1) // step`), the span wrapped negative and the loop ran
no iteration (4 for eager's 124). The count now reads span and stride as uint32 (runtime/iteration.py).

Found by the generated-program fuzzer (tests/test_generated_programs.py, feature big_ints, seed 51).

mismatch jit[cpu] first call
on inputs (np.int32(1),)
eager:     124
converted: 4
"""

import numpy as np
import jax.numpy as jnp


def f(a):
    s0 = a
    for i1 in range(2000000000 - a, -2000000000, -1000000000):
        s0 = jnp.clip(((s0 * 2) + a), -1000, 1000)
    s0 = ((s0 * 2) + 0)
    s0 += s0
    v2 = jnp.zeros(4, jnp.int32)
    return s0


INPUTS = [
    (np.int32(1), ),
    (np.int32(-3), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

"""A dict item stored under a traced `if` (`xs[3] = ...`) adds a key in one branch only: a
StagingTypeError about the dict's structure. lax.cond returns one structure per value, so this is
now a documented refusal ("container whose keys change in a traced statement" in program_check.py).

Found by the generated-program fuzzer (tests/test_generated_programs.py, issue #13
effect features), reduced; the outcome below is the one at commit 633ccbd.

conversion_error: StagingTypeError: '_' is a dict of (weakly typed iN[], weakly typed iN[]) in the true branch of the `if` but a dict of (weakly typed iN[]) in the false branch. Only arr
on inputs (np.int32(5),)
eager:     ([0, 0, 0, 0], 2.0)
"""

import numpy as np
import jax.numpy as jnp

def f(a):
    s0 = jnp.zeros(4, jnp.int32)
    s1 = 2.0
    xs2 = {2: -3}
    w5 = 0
    if 1.0 + s1 <= s0[0] * 2:
        xs2[3] = w5
    else:
        pass
    return (s0, s1)



INPUTS = [
    (np.int32(5), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

"""Two names for one dict (`s1 = s0`), each updated by an item assignment in a staged loop: the
converted loop carries the two names separately, so the update through one is lost for the other,
and jit silently returns different values than eager Python (no aliasing error is raised).

Found by the generated-program fuzzer (tests/test_generated_programs.py, issue #13
effect features), reduced; the outcome below is the one at commit f5d2f1f.

mismatch jit[cpu] first call
on inputs (np.array([0.0, 0.0, 0.75, 2.5], dtype=np.float32),)
eager:     ({'a': 2.5, 'b': 4.0}, {'a': 2.5, 'b': 4.0})
converted: ({'a': 4.0, 'b': 4.0}, {'a': 4.0, 'b': 4.0})
"""

import numpy as np
import jax.numpy as jnp

def f(a):
    s0 = {'a': 1.0, 'b': 4.0}
    s1 = s0
    for r3, r4 in zip(a, a):
        s0['a'] = s0['b'] or r4
        s1['a'] = r4
    return (s0, s0)



INPUTS = [
    (np.array([0.0, 0.0, 0.75, 2.5], dtype=np.float32), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

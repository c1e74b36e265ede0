"""Two names for one dict (`s1 = s0`), an item stored through one of them in a staged loop: the other
name does not see the update, so jit returns different values than eager Python.

Found by the generated-program fuzzer (tests/test_generated_programs.py, issue #13
effect features), reduced; the outcome below is the one at commit 633ccbd.

mismatch jit[cpu] first call
on inputs (np.array([0.0, 0.0, 0.75, 2.5], dtype=np.float32),)
eager:     ({'a': 2.5, 'b': 2.0}, {'a': 2.5, 'b': 2.0})
converted: ({'a': 1.0, 'b': 2.0}, {'a': 1.0, 'b': 2.0})
"""

import numpy as np
import jax.numpy as jnp

def f(a):
    s0 = {'a': 1.0, 'b': 2.0}
    s1 = s0
    for r3, r4 in zip(a, a):
        s1['a'] = r4
    return (s0, s0)



INPUTS = [
    (np.array([0.0, 0.0, 0.75, 2.5], dtype=np.float32), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

"""`or` of two one-element arrays (shape (1,)) under jit: Python returns the right operand, of shape
(1,), but runtime/logic.py `_select` reshaped both operands to scalars, so the result had shape ()
and `[0]` on it raised. (`jnp.reshape(0, (1,))` is traced inside jit, so the run-time choice is made.)

Found by the generated-program fuzzer (tests/test_generated_programs.py, `make fuzz FUZZ_COUNT=500`,
once tests/program_expressions.py drew one-element operands), reduced with
`python tests/program_generator.py reduce`.

exception: IndexError: Too many indices: array is N-dimensional, but N were indexed
on inputs (np.int32(0),)
eager:     0
"""

import numpy as np
import jax.numpy as jnp


def f(a):
    return -(jnp.reshape(0, (1,)) or jnp.reshape(a, (1,)))[0]


INPUTS = [
    (np.int32(0), ),
    (np.int32(3), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

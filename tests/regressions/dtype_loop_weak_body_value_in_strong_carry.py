"""A staged `while` whose carry enters strongly typed (`s0 = a`, an int32) and whose body assigns it a
Python int returns it weakly typed: after no iteration eager Python has the int32 `a` itself. lax
loops take each carry's output aval, weak type included, from the body (a plain lax.while_loop does
the same). Found by the generator once the check compared dtypes (program_dtypes.py).

The same class as dtype_if_output_weak_from_false_branch.py (a weak-only type difference that the
lax primitive resolves towards the weak side; values are eager's). A cast of such a body value to
the entry's strong type in runtime/carry.py LoopCarry.arrays_after fixes this file, but not alone:
the zeros that stand for a name unassigned before a loop (with_placeholders_filled, and
unbound_loops.py) are strongly typed where the body's value is weak, and would then be cast too
(tests/test_runtime_checks_unbound.py expects "weakly typed f32[]" there); zeros made weakly typed
instead expose the cond's open bug (tests/regressions/return_in_loop_with_variable_from_other_branch.py
then returns a weak float). Fix the cond first.

Fixed once the cond was: runtime/weak_types.py casts such a body value to the entry's strong type
(LoopCarry.arrays_after), and the placeholder zeros take the body's type, weak type included
(tests/test_loop_carry_weak_types.py).

dtype mismatch jit[cpu] first call
on inputs (np.int32(0),)
eager:     0  (int32)
converted: 0  (int32, weakly typed)
"""

import numpy as np
import jax.numpy as jnp


def f(a):
    s0 = a
    w1 = 0
    while w1 < a:
        w1 = w1 + 1
        s0 = (2 // 2)
    return s0


INPUTS = [
    (np.int32(0), ),
    (np.int32(2), ),
]
STATUS = "fixed"  # "fixed" once tests/test_regressions.py passes on it (eager result, or a documented error)

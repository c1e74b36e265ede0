"""A `finally` that returns drops a pending exception; inside a loop, converted, the early-exit pass's
catch-all handler (`except BaseException as _ag_caught_L<n>`) leaves `_ag_caught_L<n>` unbound after
the handler (Python deletes the name at its end), and the loop body's helper, which carries it,
reads it: `UnboundLocalError: cannot access local variable '_ag_caught_L...'` under `convert` on
concrete inputs (autograph_lite/passes/early_exits.py, _exiting_finally). Found by the fuzzer's
`raises` feature (tests/program_raises.py) with `with_try`, reduced by hand.

exception: UnboundLocalError: cannot access local variable '_' where it is not associated with a value
on inputs (np.float32(3.25), np.array([-3.5, -2.5, 6.5], dtype=np.float32))
eager:     1
"""

import numpy as np


def f(a, b):
    w = 0
    while w < 3:
        w = w + 1
        try:
            assert len(b) == 0
        finally:
            if 3 != a:
                return 1
    return 0


INPUTS = [
    (np.float32(3.25), np.array([-3.5, -2.5, 6.5], dtype=np.float32), ),
]
STATUS = "fixed"

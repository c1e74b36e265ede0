"""A program found by the generated-program fuzzer (tests/test_generated_programs.py), features
+match,+indexing,+with_try,+break_continue,+return_in_loop (seed 11).

The list lookup `MOVES3[...]` with a traced index, inside a `try` whose `finally` breaks, raised the
converter's located refusal while tracing; the `finally`'s break dropped it as Python drops a
pending exception, and the converted function returned zeros. The converter's own errors now pass
through every handler (`_ag.not_for_handlers`): the refusal reaches the caller (a documented limitation).

mismatch jit[cpu] first call
on inputs (np.array([-1, 6, 3], dtype=np.int32), np.float32(-0.5), np.int32(6))
eager:     [0.0, -0.5, -1.0]
converted: [0.0, 0.0, 0.0]
"""

import numpy as np
import jax.numpy as jnp


MOVES3 = [lambda v: -v, lambda v: v + 3, lambda v: v + 3, lambda v: v * 2]


MOVES4 = [lambda v: v * 0.5, lambda v: v + 2.0, lambda v: v + 2.0]


def f(a, b, c):
    s0 = jnp.zeros(3)[::-1]
    w1 = 0
    while w1 < 4:
        w1 = w1 + 1
        try:
            match w1:
                case m2:
                    m2 = ((m2 * 3) + ((jnp.min(a) - MOVES3[(jnp.clip(len(a), -3, 3) % 4)](len(a))) // 3))
                    s0 -= (jnp.arange(3) * 0.5)
            break
        except ZeroDivisionError:
            pass
        finally:
            if (MOVES4[(c % 3)](jnp.clip(jnp.sum(s0), -1000, 1000)) not in range(0, 0)):
                break
    return s0


INPUTS = [
    (np.array([-1, 6, 3], dtype=np.int32), np.float32(-0.5), np.int32(6), ),
]
STATUS = "fixed"

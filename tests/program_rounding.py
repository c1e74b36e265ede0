"""Telling XLA's float rounding from the converter's mistakes, in generated programs.

Under ``jit`` XLA compiles the program whole and its backend optimizes float arithmetic (a multiply
and an add become one fused multiply-add, rounded once); run eagerly, each operation rounds on its
own. The two differ in the last bit, and a generated program that amplifies that bit (``s * -1.5``,
``s % 4`` and a clip in a loop of 64 iterations) can end 8% apart: past any tolerance, and no fault
of the converter. The same lowered program compiled with the backend's optimizations off
(``xla_backend_optimization_level=0``) rounds as eager does; where it then agrees with eager, the
mismatch was the rounding. A wrong rewrite stays wrong at any optimization level.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

FUSED_ROUNDING = "float rounding: XLA's optimized arithmetic rounds once where eager rounds twice"
_UNOPTIMIZED = {"xla_backend_optimization_level": 0}


def explained_by_rounding(jitted: Any, arguments_of: Callable[[], tuple], eager: Any,
                          difference: Callable[[Any, Any], str | None]) -> bool:
    """Whether ``jitted`` compiled without backend optimizations returns ``eager``'s values
    (``difference`` finds none); ``arguments_of`` makes fresh arguments, as each call needs."""
    try:
        compiled = jitted.lower(*arguments_of()).compile(compiler_options=_UNOPTIMIZED)
        result = compiled(*arguments_of())
    except Exception:  # a program that cannot be lowered apart from its call is left a mismatch
        return False
    return difference(result, eager) is None

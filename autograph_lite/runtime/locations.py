"""Where a staged statement is in the user's source.

The rewriter gives every helper function the line of the statement it comes from, and compiles it with
the user's file name, so the helper's code object is the statement's location.
"""

from __future__ import annotations

import dis
import types
from typing import Callable

from ..errors import Location


def location_of(helper: Callable) -> Location:
    code = helper.__code__
    return Location(code.co_filename, code.co_firstlineno)


def stored_lines(helper: Callable, name: str) -> list[int]:
    """The lines where ``helper``, or a helper nested in it, assigns ``name``."""
    lines: set[int] = set()
    pending = [helper.__code__]
    while pending:
        code = pending.pop()
        for instruction in dis.get_instructions(code):
            if instruction.opname.startswith("STORE") and instruction.argval == name and instruction.positions:
                lines.add(instruction.positions.lineno)
        pending.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return sorted(lines)

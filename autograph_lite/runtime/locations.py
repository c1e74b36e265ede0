"""Where a staged statement is in the user's source.

The rewriter gives every helper function the line of the statement it comes from, and compiles it with
the user's file name, so the helper's code object is the statement's location.
"""

from __future__ import annotations

import dis
import os
import sys
import types
from collections.abc import Callable
from typing import Any

from ..errors import Location


def location_of(helper: Callable[..., Any]) -> Location:
    code = helper.__code__
    return Location(code.co_filename, code.co_firstlineno)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def caller_location() -> Location | None:
    """Where the user's code called into autograph_lite: the innermost frame outside this package.

    Converted code runs in frames with the user's file name and lines, so that frame is the user's
    statement. Used only to locate errors raised by operators that are not given a helper.
    """
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame = frame.f_back
    return None if frame is None else Location(frame.f_code.co_filename, frame.f_lineno)


def stored_lines(helper: Callable[..., Any], name: str) -> list[int]:
    """The lines where ``helper``, or a helper nested in it, assigns ``name``."""
    lines: set[int] = set()
    pending = [helper.__code__]
    while pending:
        code = pending.pop()
        for instruction in dis.get_instructions(code):
            line = instruction.positions.lineno if instruction.positions else None
            if instruction.opname.startswith("STORE") and instruction.argval == name and line is not None:
                lines.add(line)
        pending.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return sorted(lines)

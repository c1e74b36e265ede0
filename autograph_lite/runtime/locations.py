"""Where a staged statement is in the user's source.

The rewriter gives every helper function the line of the statement it comes from, and compiles it with
the user's file name, so the helper's code object is the statement's location.
"""

from __future__ import annotations

from typing import Callable

from ..errors import Location


def location_of(helper: Callable) -> Location:
    code = helper.__code__
    return Location(code.co_filename, code.co_firstlineno)

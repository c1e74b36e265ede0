"""The rewrite, one concern per pass, in the order they must run.

Early exits go first, because they change which names a statement carries; the expression pass runs
before the analysis so that the lazy operands it wraps in lambdas are seen as reads; conditionals run
before loops so that a loop body's ``if`` is already a call when the loop becomes helpers.
"""

from __future__ import annotations

import gast

from ..analysis import analyze
from ..source import ParsedFunction
from . import conditionals, early_exits, logical_expressions, loops, validate


def rewrite(parsed: ParsedFunction) -> gast.AST:
    """Rewrite the parsed function in place and return its node."""
    function = parsed.node
    validate.transform(function, parsed.location)
    early_exits.transform(function, parsed.location)
    logical_expressions.transform(function, parsed.location)
    if isinstance(function, gast.FunctionDef):
        info = analyze(function)
        conditionals.transform(function, info)
        loops.transform(function, info)
    return function

"""The rewrite, one concern per pass, in the order they must run.

Early exits go first, because they change which names a statement carries; the expression pass runs
before the analysis so that the lazy operands it wraps in lambdas are seen as reads; conditionals run
before loops so that a loop body's ``if`` is already a call when the loop becomes helpers.
"""

from __future__ import annotations

import gast

from ..analysis import analyze, reads
from ..analysis.assigned_before_read import assigned_before_every_read
from ..generated_names import RETURN_VALUE
from ..source import ParsedFunction
from . import conditionals, early_exits, logical_expressions, loops, validate
from .statements import drop_redundant_binds


def rewrite(parsed: ParsedFunction) -> gast.AST:
    """Rewrite the parsed function in place and return its node."""
    function = parsed.node
    validate.transform(function, parsed.location)
    placeholders = frozenset({RETURN_VALUE})
    if isinstance(function, gast.FunctionDef):
        placeholders |= assigned_before_every_read(function)
    stop_tests = early_exits.transform(function, parsed.location)
    logical_expressions.transform(function, parsed.location)
    for node, test in stop_tests.items():
        stop_tests[node] = logical_expressions.transform_expression(test, parsed.location)
    if isinstance(function, gast.FunctionDef):
        info = analyze(function, {node: reads(test) for node, test in stop_tests.items()})
        conditionals.transform(function, info, placeholders)
        loops.transform(function, info, placeholders, stop_tests)
        drop_redundant_binds(function)
    return function

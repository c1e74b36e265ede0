"""Before a statement that assigns one of the function's own ``global`` / ``nonlocal`` names, a check.

``def inc(): nonlocal count; count += 1`` changes a variable its caller sees. Called from a staged
branch or loop body (as a statement, or inside an expression, where the rewriter cannot see it as an
effect of that body), it would run once while tracing, whatever the condition or the trip count.
``_ag.outer_write('count', 'nonlocal')`` before the assignment does nothing outside staged code, and
refuses inside it (the runtime knows which traces are staged; the rewriter does not).

Only the function's own declarations count. The pass runs before the conditionals and loops passes,
whose generated helpers declare ``nonlocal`` for cell variables of their own (those are not effects),
and nested functions were rewritten already, with their own checks. The validate pass has rejected
such writes inside a branch or loop of the function itself, so they sit at the top of the body or in
``with`` / ``try`` blocks.
"""

from __future__ import annotations

import gast

from ..analysis import NameScanner
from ..analysis.blocks import SCOPES, blocks_of, statements_within
from . import nodes
from .facts import ScopeFacts


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    if isinstance(function, gast.FunctionDef):
        scopes = _declared(function.body)
        if scopes:
            _check_block(function.body, scopes, facts.names)
    return facts


def _declared(body: list[gast.stmt]) -> dict[str, str]:
    """The names this scope declares, each with its kind: ``"global"`` or ``"nonlocal"``."""
    declared = {}
    for node in statements_within(body):
        if isinstance(node, gast.Global):
            declared.update(dict.fromkeys(node.names, "global"))
        elif isinstance(node, gast.Nonlocal):
            declared.update(dict.fromkeys(node.names, "nonlocal"))
    return declared


def _check_block(block: list[gast.stmt], scopes: dict[str, str], names: NameScanner) -> None:
    """Insert, in place, a check before each statement of ``block`` that assigns a declared name."""
    checked: list[gast.stmt] = []
    for statement in block:
        inner = blocks_of(statement) if not isinstance(statement, SCOPES) else []
        for nested_block in inner:
            _check_block(nested_block, scopes, names)
        for clause in getattr(statement, "handlers", []) + getattr(statement, "cases", []):
            clause.body[:0] = _checks(_header_writes(clause, clause.body, names), scopes, clause.body[0].lineno)
        statements_inside = [s for b in inner for s in b]
        written = names.writes(statement) if not inner else _header_writes(statement, statements_inside, names)
        checked += _checks(written, scopes, statement.lineno)
        checked.append(statement)
    block[:] = checked


def _header_writes(node: gast.AST, statements: list[gast.stmt], names: NameScanner) -> set[str]:
    """What ``node`` binds outside ``statements`` (its blocks, which get checks of their own): a
    ``with ... as`` target; for an ``except ... as`` clause or a ``case``, its name or pattern."""
    inside = {id(s) for s in statements}
    found: set[str] = set()
    for child in gast.iter_child_nodes(node):
        if id(child) not in inside and not isinstance(child, (gast.ExceptHandler, gast.match_case)):
            found |= names.writes(child)
    return found


def _checks(written: set[str], scopes: dict[str, str], line: int) -> list[gast.stmt]:
    """``_ag.outer_write(name, scope)`` for each written name the function declares."""
    return [
        nodes.assign_results(
            (),
            nodes.runtime_call(
                "outer_write", [nodes.constant(name, line), nodes.constant(scopes[name], line)], line
            ),
            line,
        )
        for name in sorted(written & scopes.keys())
    ]

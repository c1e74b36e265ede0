"""``ys.append(v)`` in a loop body, on a list from outside the loop, becomes ``_ag.append(ys, v)``.

The runtime appends as Python does, or, when the loop is staged as a ``lax.scan``, collects the
values as scan outputs and appends their rows after the loop. A list assigned in the loop body is
local to it, and its appends are left as written. So is a list the function did not create (a
parameter, a global, a closure variable): appending to it is an effect the caller sees, so the loop
runs as Python (or, marked ``stage(...)``, is a located error), never leaving traced values in it.
"""

from __future__ import annotations

import gast

from ..analysis import NameScanner
from . import nodes
from .facts import ScopeFacts

_LOOPS = (gast.For, gast.While)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    """The lists created here are those the function's body assigns (a parameter counts once rebound)."""
    if isinstance(function, gast.FunctionDef):
        _rewrite_block(function.body, frozenset(), facts.assigned, facts.names, inside_loop=False)
    return facts


def _rewrite_block(
    statements: list[gast.stmt], loop_local: frozenset[str], created_here: frozenset[str], names: NameScanner,
    inside_loop: bool,
) -> None:
    for statement in statements:
        if inside_loop and _is_outer_append(statement, loop_local, created_here):
            call = statement.value
            statement.value = nodes.runtime_call("append", [call.func.value] + call.args, statement.lineno)
            continue
        if isinstance(statement, _LOOPS):
            local_to_loop = loop_local | names.writes(statement.body)
            _rewrite_block(statement.body, local_to_loop, created_here, names, inside_loop=True)
            _rewrite_block(statement.orelse, loop_local, created_here, names, inside_loop)
        elif isinstance(statement, gast.If):
            _rewrite_block(statement.body, loop_local, created_here, names, inside_loop)
            _rewrite_block(statement.orelse, loop_local, created_here, names, inside_loop)


def _is_outer_append(statement: gast.stmt, loop_local: frozenset[str], created_here: frozenset[str]) -> bool:
    if not (isinstance(statement, gast.Expr) and isinstance(statement.value, gast.Call)):
        return False
    call = statement.value
    return (
        isinstance(call.func, gast.Attribute)
        and call.func.attr == "append"
        and isinstance(call.func.value, gast.Name)
        and call.func.value.id not in loop_local
        and call.func.value.id in created_here
        and len(call.args) == 1
        and not call.keywords
    )

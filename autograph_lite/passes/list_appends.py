"""``ys.append(v)`` in a loop body, on a list from outside the loop, becomes ``_ag.append(ys, v)``.

The runtime appends as Python does, or, when the loop is staged as a ``lax.scan``, collects the
values as scan outputs and appends their rows after the loop. A list assigned in the loop body is
local to it, and its appends are left as written. So is a list the function did not create (a
parameter, a global, a closure variable): appending to it is an effect the caller sees, so the loop
runs as Python (or, marked ``stage(...)``, is a located error), never leaving traced values in it.

A list that stays stacked. When the function creates ``ys`` only by ``ys = [...]`` statements of its
own body and reads it only to append to it (in a loop, or in its body) and as the one argument of
``len(ys)`` or of a call named ``stack`` / ``array`` / ``asarray`` / ``concatenate``, nothing but those
calls ever sees the list. Its appends then say ``stays_stacked=True`` and those calls become
``_ag.stacked_list_call(f, ys)``: a staged loop leaves what it appended as one stacked array, which
``jnp.stack(ys)`` returns as it is (``runtime.stacked_lists``). Any other read (an iteration, an index,
a print, a return, a closure) leaves the list as it was: rows after every loop.
"""

from __future__ import annotations

import gast

from ..analysis import NameScanner
from ..analysis.blocks import child_nodes, statements_within, walk
from . import nodes
from .facts import ScopeFacts

_LOOPS = (gast.For, gast.While)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_STACKING_READERS = frozenset({"stack", "array", "asarray", "concatenate"})


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    """The lists created here are those the function's body assigns (a parameter counts once rebound)."""
    # Most functions append to no list: they are not walked loop by loop.
    if isinstance(function, gast.FunctionDef) and any(_is_append(s) for s in statements_within(function.body)):
        in_loops: list[gast.Expr] = []
        _find_outer_appends(function.body, frozenset(), facts.assigned, facts.names, in_loops, inside_loop=False)
        appended = {_appended_list(statement) for statement in in_loops}
        if not appended:
            return facts
        in_body = [s for s in function.body if _is_append(s) and _appended_list(s) in appended]
        own_nodes = _own_nodes(function)  # walked once, for both searches below
        readers = _stacking_readers(own_nodes)
        stacked = _only_stacked(function, own_nodes, appended, in_loops + in_body, readers)
        for statement in in_loops + [s for s in in_body if _appended_list(s) in stacked]:
            _rewrite_append(statement, _appended_list(statement) in stacked)
        for call in readers:
            if call.args[0].id in stacked:
                routed = nodes.runtime_call("stacked_list_call", [call.func, call.args[0]], call.lineno)
                call.func, call.args = routed.func, routed.args
    return facts


def _find_outer_appends(
    statements: list[gast.stmt], loop_local: frozenset[str], created_here: frozenset[str], names: NameScanner,
    found: list[gast.Expr], inside_loop: bool,
) -> None:
    for statement in statements:
        if inside_loop and _is_outer_append(statement, loop_local, created_here):
            found.append(statement)
        elif isinstance(statement, _LOOPS):
            local_to_loop = loop_local | names.writes(statement.body) | _read_in(statement.body)
            _find_outer_appends(statement.body, local_to_loop, created_here, names, found, inside_loop=True)
            _find_outer_appends(statement.orelse, loop_local, created_here, names, found, inside_loop)
        elif isinstance(statement, gast.If):
            _find_outer_appends(statement.body, loop_local, created_here, names, found, inside_loop)
            _find_outer_appends(statement.orelse, loop_local, created_here, names, found, inside_loop)


def _read_in(body: list[gast.stmt]) -> set[str]:
    """The names ``body`` reads other than to append to them. A staged body's appends reach the list
    only after the loop, so a list the body also reads (``len(ys)``, ``ys[-1]``, a closure's read) must
    see each append as it happens: its appends stay as written, an effect that keeps the loop Python."""
    receivers: set[int] = set()  # the lists appended to: one walk finds them and the loaded names
    loaded: list[gast.Name] = []
    for statement in body:
        for node in walk(statement):
            if isinstance(node, gast.Name):
                if isinstance(node.ctx, gast.Load):
                    loaded.append(node)
            elif isinstance(node, gast.stmt) and _is_append(node):
                receivers.add(id(node.value.func.value))
    return {node.id for node in loaded if id(node) not in receivers}


def _rewrite_append(statement: gast.Expr, stays_stacked: bool) -> None:
    call = statement.value
    keywords = [nodes.keyword("stays_stacked", nodes.constant(True, statement.lineno))] if stays_stacked else []
    statement.value = nodes.runtime_call("append", [call.func.value] + call.args, statement.lineno, keywords)


def _is_append(statement: gast.stmt) -> bool:
    if not (isinstance(statement, gast.Expr) and isinstance(statement.value, gast.Call)):
        return False
    call = statement.value
    return (
        isinstance(call.func, gast.Attribute)
        and call.func.attr == "append"
        and isinstance(call.func.value, gast.Name)
        and len(call.args) == 1
        and not isinstance(call.args[0], gast.Starred)
        and not call.keywords
    )


def _appended_list(statement: gast.Expr) -> str:
    return statement.value.func.value.id


def _is_outer_append(statement: gast.stmt, loop_local: frozenset[str], created_here: frozenset[str]) -> bool:
    return _is_append(statement) and _appended_list(statement) not in loop_local and _appended_list(
        statement) in created_here


# --- lists read only by stacking ----------------------------------------------------------------


def _stacking_readers(own_nodes: list[gast.AST]) -> list[gast.Call]:
    """The calls ``len(name)`` and ``<anything>.stack(name)`` (or array, asarray, concatenate) among
    the function's own nodes."""
    return [
        node for node in own_nodes
        if isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords
        and isinstance(node.args[0], gast.Name) and _reads_by_stacking(node.func)
    ]


def _reads_by_stacking(callee: gast.expr) -> bool:
    if isinstance(callee, gast.Name):
        return callee.id == "len"
    return isinstance(callee, gast.Attribute) and callee.attr in _STACKING_READERS


def _only_stacked(
    function: gast.FunctionDef, own_nodes: list[gast.AST], candidates: set[str], appends: list[gast.Expr],
    readers: list[gast.Call],
) -> frozenset[str]:
    """The ``candidates`` every use of which in ``function`` is one of ``appends``, one of ``readers``,
    or a ``name = [...]`` statement of the function's own body; none is a parameter or is seen by a
    nested function, a ``global`` or a ``nonlocal``."""
    allowed = {id(s.value.func.value) for s in appends} | {id(call.args[0]) for call in readers}
    allowed |= {
        id(s.targets[0]) for s in function.body
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)
        and isinstance(s.value, gast.List)
    }
    rejected = {name.id for name in gast.walk(function.args) if isinstance(name, gast.Name)}
    for node in own_nodes:
        if isinstance(node, gast.Name) and id(node) not in allowed:
            rejected.add(node.id)
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            rejected.update(node.names)
        elif isinstance(node, _SCOPES):
            rejected.update(n.id for n in gast.walk(node) if isinstance(n, gast.Name))
    return frozenset(candidates - rejected)


def _own_nodes(function: gast.FunctionDef) -> list[gast.AST]:
    """The nodes of ``function``'s body, nested scopes included as nodes but not entered."""
    found: list[gast.AST] = []
    pending: list[gast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, _SCOPES):
            pending.extend(child_nodes(node))
    return found

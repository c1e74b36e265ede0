"""Python side effects in a branch or loop body that a staged statement cannot reproduce.

A staged ``if`` traces both branches once and a staged loop traces its body once, so an attribute
store (``self.count += 1``) or a call made for its effect (``log.append(x)`` on an outer object)
would happen once at trace time, whatever the condition or the trip count. The rewriter describes the
first such effect; the runtime raises a located error if the statement is staged, and runs it as
Python otherwise. Effects that stage faithfully do not count: ``print`` (an ordered run-time callback),
appends to an outer list in a loop (scan outputs), and the runtime's own statements, which check
their bodies themselves.
"""

from __future__ import annotations

import ast

import gast

from ..analysis.blocks import SCOPES, blocks_of, walk
from ..callees import STAGED_BY_JAX
from ..generated_names import RUNTIME
from . import nodes


def first_effect(body: list[gast.stmt]) -> str | None:
    """A short description of the first effect in ``body``, in source order, or ``None``.

    Statements already rewritten carry their own body's effect as the ``effect`` keyword of their
    runtime call, so the walk reads that and never re-enters generated helpers. Every effect sits
    at statement level (a store is an assignment target; a call made for its effect is an
    expression statement; a rewritten statement is an assignment or expression statement of its
    runtime call), so only statements and their targets are looked at.
    """
    for statement in body:
        if isinstance(statement, SCOPES):
            continue  # generated helpers are summarised by their call's keyword; user functions run later
        effect = _own_effect(statement)
        for block in blocks_of(statement):
            if effect is not None:
                break
            effect = first_effect(block)
        if effect is not None:
            return effect
    return None


def _own_effect(statement: gast.stmt) -> str | None:
    """The effect of the statement itself, leaving aside the statements in its blocks."""
    for target in _targets(statement):
        if type(target) is gast.Name:
            continue  # most targets: a name holds no store to an attribute or item
        for node in walk(target):
            if isinstance(node, (gast.Attribute, gast.Subscript)) and isinstance(node.ctx, gast.Store):
                return f"assigns to {text(node)}"
    value = getattr(statement, "value", None)
    if not isinstance(value, gast.Call) or not isinstance(statement, (gast.Expr, gast.Assign)):
        return None
    if isinstance(statement, gast.Expr) and not _faithful(value):
        return f"calls {text(nodes.users_call(value)[0])}(...) for its effect"
    return _reported_effect(value)


def _targets(statement: gast.stmt) -> list[gast.expr]:
    """The targets that may store into an attribute or an item. A ``for`` loop's or a ``with`` item's
    stores only into names here: ``passes.plain_targets`` made any other an assignment of its own."""
    if isinstance(statement, gast.Assign):
        return statement.targets
    if isinstance(statement, (gast.AugAssign, gast.AnnAssign)):
        return [statement.target]
    return []


def _reported_effect(call: gast.Call) -> str | None:
    for keyword in call.keywords:
        if keyword.arg == "effect" and isinstance(keyword.value, gast.Constant) and nodes.runtime_operator(call.func) is not None:
            return keyword.value.value
    return None


def _faithful(call: gast.Call) -> bool:
    operator = nodes.runtime_operator(call.func)
    if operator is None:  # a call left as written (a library's: jax.debug.print(...))
        return isinstance(call.func, gast.Attribute) and text(call.func) in STAGED_BY_JAX
    if operator != "call":
        return True  # the runtime's own statements check their bodies themselves
    first = call.args[0] if call.args else None
    if isinstance(first, gast.Name):
        return first.id == "print"
    return isinstance(first, (gast.Attribute, gast.Call)) and text(first) in STAGED_BY_JAX


def text(node: gast.AST) -> str:
    """The user's text of ``node``, which the expression passes may have rewritten already."""
    return ast.unparse(_AsWritten().visit(gast.gast_to_ast(node)))


class _AsWritten(ast.NodeTransformer):
    """``_ag.getattr(q, 'w')`` back to ``q.w``, ``_ag.call(f, x)`` to ``f(x)`` and ``_ag.getitem(a, i)`` to
    ``a[i]``, for messages."""

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        callee = node.func
        if not (isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name) and callee.value.id == RUNTIME):
            return node
        name = node.args[1].value if len(node.args) == 2 and isinstance(node.args[1], ast.Constant) else None
        if callee.attr == "getattr" and isinstance(name, str):
            return ast.Attribute(value=node.args[0], attr=name, ctx=ast.Load())
        if callee.attr == "call" and node.args:
            return ast.Call(func=node.args[0], args=node.args[1:], keywords=node.keywords)
        if callee.attr == "getitem" and len(node.args) == 2 and not node.keywords:
            return ast.Subscript(value=node.args[0], slice=node.args[1], ctx=ast.Load())
        return node

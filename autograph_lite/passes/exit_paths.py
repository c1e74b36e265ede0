"""Which paths through statements leave them: the predicates the early-exit rewrite (early_exits.py)
decides by, kept apart from the rewrite itself."""

from __future__ import annotations

import gast

from ..analysis import blocks

LOOPS, EXITS = (gast.For, gast.While), (gast.Return, gast.Break, gast.Continue)


def always_returns(statements: list[gast.stmt]) -> bool:
    """Whether no path falls through ``statements``. A ``try`` falls through only by its body (with its
    ``else``) or a handler, unless its ``finally`` returns; a ``with`` may always fall through: its
    context manager may suppress an exception. Nor does a loop with no ``break`` of its own that is a
    ``while True:`` or whose ``else`` always returns: only a ``break`` skips a loop's ``else``."""
    for statement in statements:
        if isinstance(statement, (gast.Return, gast.Raise)) or _loop_always_returns(statement):
            return True
        if isinstance(statement, gast.If) and always_returns(statement.body) and always_returns(statement.orelse):
            return True
        if isinstance(statement, blocks.TRY_STATEMENTS) and (always_returns(statement.finalbody) or (
            always_returns(statement.body + statement.orelse) and all(always_returns(h.body) for h in statement.handlers)
        )):
            return True
    return False


def _loop_always_returns(statement: gast.stmt) -> bool:
    if not isinstance(statement, LOOPS) or contains_own(statement.body, gast.Break):
        return False
    endless = isinstance(statement, gast.While) and getattr(statement.test, "value", 0) is True
    return endless or always_returns(statement.orelse)


def always_exits(statements: list[gast.stmt]) -> bool:
    for statement in statements:
        if isinstance(statement, EXITS):
            return True
        if isinstance(statement, gast.If) and always_exits(statement.body) and always_exits(statement.orelse):
            return True
    return False


def contains(node: gast.AST, kind: type) -> bool:
    return not isinstance(node, blocks.SCOPES) and blocks.contains([node], kind)


def contains_own(statements: list[gast.stmt], kind: type) -> bool:
    """Whether ``statements`` hold a ``break`` / ``continue`` that belongs to the enclosing loop."""
    pending = list(statements)
    while pending:
        node = pending.pop()
        if isinstance(node, kind):
            return True
        if isinstance(node, LOOPS):
            pending.extend(node.orelse)  # a loop's own body consumes its break / continue
        elif not isinstance(node, blocks.SCOPES):
            pending.extend(blocks.child_statements(node))
    return False

"""Which names a simple statement reads with the value they held before it, in Python's evaluation order.

``NameScanner.reads`` counts every read of a statement as a read from before it. That is true but for a
name that a walrus (``:=``) in the same statement binds before the read: in ``return (r := v * 2) + r``
the second ``r`` reads the value just bound, not one from before. Counting it as a read from before
makes ``r`` live before the statement, so a loop around it carries ``r`` and a traced ``if`` around it
must return it from both branches, and a program that Python runs is refused.

Only orders that Python guarantees are used: a binary operation's left operand before its right, a
call's function before its positional arguments before its keywords, a display's elements from left to
right, a subscript's container before its index. A walrus in an operand that may not run (the right of
``and`` / ``or``, an arm of ``x if c else y``, a later link of a chained comparison) binds only for the
operands that run after it there, never for what follows the whole expression. Anything else is read
as ``NameScanner.reads`` reads it. Erring the other way would drop a carried value, silently.
"""

from __future__ import annotations

import gast

from .names import NameScanner

# Expressions whose children Python evaluates every time, in the order of their fields.
_IN_FIELD_ORDER = frozenset({gast.BinOp, gast.UnaryOp, gast.Call, gast.keyword, gast.Tuple, gast.List,
                             gast.Set, gast.Attribute, gast.Subscript, gast.Slice, gast.Starred})
# Expressions whose first child always runs and whose later children each run only after all those
# before it (``and`` / ``or``, the links of a chained comparison).
_SHORT_CIRCUITING = {gast.BoolOp: lambda node: node.values,
                     gast.Compare: lambda node: [node.left, *node.comparators]}
_UNNAMED = (gast.expr_context, gast.operator, gast.unaryop, gast.boolop, gast.cmpop)
_Walk = tuple[set[str], frozenset[str]]  # names read from before, names surely bound by a walrus after it


def reads_from_before(names: NameScanner, statement: gast.stmt) -> set[str]:
    """The names ``statement`` (a simple one, or a ``return`` / ``raise``) may read with the value they
    held before it: its reads but those a walrus earlier in the statement surely bound."""
    if not names.may_have_walrus:
        return names.reads(statement)
    kind = type(statement)
    if kind in (gast.Return, gast.Expr):
        return _walk(names, [statement.value], frozenset())[0]
    if kind is gast.Assign:  # the value runs before the targets (whose indices may read the walrus's name)
        return _walk(names, [statement.value, *statement.targets], frozenset())[0]
    if kind is gast.AnnAssign and statement.value is not None:
        return _walk(names, [statement.value, statement.target], frozenset())[0]
    return names.reads(statement)


def _walk(names: NameScanner, nodes: list[gast.AST | None], bound: frozenset[str]) -> _Walk:
    """Reads from before of ``nodes`` run one after the other, with ``bound`` surely bound before them."""
    found: set[str] = set()
    for node in nodes:
        if node is None:
            continue
        reads, bound = _expression(names, node, bound)
        found |= reads
    return found, bound


def _expression(names: NameScanner, node: gast.AST, bound: frozenset[str]) -> _Walk:
    kind = type(node)
    if kind is gast.Name:
        return ({node.id} - bound if type(node.ctx) is gast.Load else set()), bound
    if kind is gast.NamedExpr and type(node.target) is gast.Name:
        reads, bound = _expression(names, node.value, bound)
        return reads, bound | {node.target.id}
    if kind in _IN_FIELD_ORDER:
        children: list[gast.AST | None] = []
        for field in node._fields:
            value = getattr(node, field, None)
            children += value if isinstance(value, list) else [value] if isinstance(value, gast.AST) else []
        return _walk(names, [child for child in children if not isinstance(child, _UNNAMED)], bound)
    operands = _SHORT_CIRCUITING.get(kind)
    if operands is not None:
        first, *later = operands(node)
        found, after_first = _expression(names, first, bound)
        return found | _walk(names, later, after_first)[0], after_first
    if kind is gast.IfExp:  # one arm runs, after the test: neither binds for the other, nor for what follows
        found, after_test = _expression(names, node.test, bound)
        for arm in (node.body, node.orelse):
            found |= _expression(names, arm, after_test)[0]
        return found, after_test
    return names.reads(node) - bound, bound

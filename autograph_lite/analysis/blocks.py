"""Walking the statements of one scope without visiting its expressions.

``return``, ``break``, ``continue``, ``global`` and loops are statements, and statements live only in
the blocks of compound statements. Searching for them through the block fields alone skips every
expression node, which is most of a tree. The walks that must see expressions use ``walk`` and
``child_nodes`` here: gast's own, made cheaper.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Iterator

import gast

SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)
# ``try`` and ``try`` with ``except*``: the same blocks and the same control flow for the analyses.
TRY_STATEMENTS = (gast.Try, gast.TryStar)
# Where statement lists live, in source order; a clause field holds ``except`` clauses or ``match``
# cases, each with a body of its own.
_BLOCK_FIELD_ORDER = ("body", "handlers", "cases", "orelse", "finalbody")
_CLAUSE_FIELDS = frozenset({"handlers", "cases"})


def statements_within(statements: Iterable[gast.AST]) -> Iterator[gast.AST]:
    """``statements`` and every statement nested in their blocks, not entering nested scopes."""
    pending = list(statements)
    while pending:
        node = pending.pop()
        yield node
        # Most statements have no block (an empty tuple of block fields); the others' blocks are
        # found here as ``blocks_of`` finds them, in the same order, without a list of them.
        fields = _BLOCK_FIELDS.get(type(node))
        if not fields or isinstance(node, SCOPES):
            if fields is None and not isinstance(node, SCOPES):
                for block in blocks_of(node):
                    pending.extend(block)
            continue
        for field in fields:
            value = getattr(node, field, None)
            if field in _CLAUSE_FIELDS:
                for clause in value or ():
                    if isinstance(clause.body, list):
                        pending.extend(clause.body)
            elif isinstance(value, list):
                pending.extend(value)


def child_statements(node: gast.AST) -> Iterator[gast.AST]:
    """The statements directly in ``node``'s blocks (a nested scope's body included)."""
    for block in blocks_of(node):
        yield from block


def blocks_of(node: gast.AST) -> list[list[gast.stmt]]:
    """The statement lists directly inside ``node``, in source order: the body, then the bodies of
    ``except`` clauses or ``match`` cases, then ``else`` and ``finally``. A transformer may replace
    their contents in place."""
    fields = _BLOCK_FIELDS.get(type(node))
    if fields is None:
        fields = _block_fields(type(node))
    blocks = []
    for field in fields:
        value = getattr(node, field, None)
        if field in _CLAUSE_FIELDS:
            blocks += [clause.body for clause in value or () if isinstance(clause.body, list)]
        elif isinstance(value, list):
            blocks.append(value)
    return blocks


def _block_fields(kind: type) -> tuple[str, ...]:
    """The fields of a node class that may hold blocks, in source order (none for most statements
    and every expression)."""
    fields = getattr(kind, "_fields", None)
    if fields is None:  # not a node class: look for every block field on the object itself
        return _BLOCK_FIELD_ORDER
    return tuple(field for field in _BLOCK_FIELD_ORDER if field in fields)


# Every gast node class, for tables built once per class rather than tried on every node.
GAST_CLASSES: list[type[gast.AST]] = [
    kind for kind in vars(gast).values() if isinstance(kind, type) and issubclass(kind, gast.AST)
]
# The block fields of every gast node class.
_BLOCK_FIELDS: dict[type, tuple[str, ...]] = {kind: _block_fields(kind) for kind in GAST_CLASSES}


def child_nodes(node: gast.AST) -> list[gast.AST]:
    """``list(gast.iter_child_nodes(node))``: the same nodes in the same order, without its two
    nested generators, which cost more than the walks that ask for children do with them."""
    children = []
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, list):
            children += [item for item in value if isinstance(item, gast.AST)]
        elif isinstance(value, gast.AST):
            children.append(value)
    return children


def walk(node: gast.AST) -> Iterator[gast.AST]:
    """``gast.walk(node)``: the same nodes in the same order (breadth first), found by ``child_nodes``."""
    pending = collections.deque([node])
    while pending:
        node = pending.popleft()
        pending.extend(child_nodes(node))
        yield node


def contains(statements: Iterable[gast.AST], kind: type | tuple[type, ...]) -> bool:
    """Whether a statement of ``kind`` is among ``statements`` or nested in them, in this scope."""
    return any(isinstance(node, kind) for node in statements_within(statements))

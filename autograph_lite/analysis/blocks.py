"""Walking the statements of one scope without visiting its expressions.

``return``, ``break``, ``continue``, ``global`` and loops are statements, and statements live only in
the blocks of compound statements. Searching for them through the block fields alone skips every
expression node, which is most of a tree.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import gast

SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)
# ``try`` and ``try`` with ``except*``: the same blocks and the same control flow for the analyses.
TRY_STATEMENTS = (gast.Try, gast.TryStar)


def statements_within(statements: Iterable[gast.AST]) -> Iterator[gast.AST]:
    """``statements`` and every statement nested in their blocks, not entering nested scopes."""
    pending = list(statements)
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, SCOPES):
            pending.extend(child_statements(node))


def child_statements(node: gast.AST) -> Iterator[gast.AST]:
    """The statements directly in ``node``'s blocks (a nested scope's body included)."""
    for block in blocks_of(node):
        yield from block


def blocks_of(node: gast.AST) -> list[list[gast.stmt]]:
    """The statement lists directly inside ``node``, in source order: the body, then the bodies of
    ``except`` clauses or ``match`` cases, then ``else`` and ``finally``. A transformer may replace
    their contents in place."""
    blocks = [getattr(node, "body", None)]
    blocks += [clause.body for clause in getattr(node, "handlers", []) + getattr(node, "cases", [])]
    blocks += [getattr(node, "orelse", None), getattr(node, "finalbody", None)]
    return [block for block in blocks if isinstance(block, list)]


def contains(statements: Iterable[gast.AST], kind: type | tuple[type, ...]) -> bool:
    """Whether a statement of ``kind`` is among ``statements`` or nested in them, in this scope."""
    return any(isinstance(node, kind) for node in statements_within(statements))

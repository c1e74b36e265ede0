"""Forward analysis: which names are surely, or possibly, bound before each compound statement.

A staged statement passes its carried names to helper functions, so each of them must hold a value
on entry. Names bound on no path so far start as ``Undefined``; names bound on some paths only are
looked up at run time.
"""

from __future__ import annotations

from typing import NamedTuple

import gast

from .blocks import TRY_STATEMENTS
from .names import NameScanner
from .nonempty_loops import nonempty_loops


class Bound(NamedTuple):
    """Names bound on every path (``surely``) and on at least one path (``possibly``). A named
    tuple rather than a frozen dataclass: one is made per statement, and it is made faster."""

    surely: frozenset[str]
    possibly: frozenset[str]

    def bind(self, names: set[str] | frozenset[str]) -> Bound:
        return Bound(self.surely | names, self.possibly | names)

    def merge(self, other: Bound) -> Bound:
        return Bound(self.surely & other.surely, self.possibly | other.possibly)


# A path that has left (return, raise) binds everything as far as the code after it is concerned.
_LEFT = None


class Definitions:
    """``Bound`` sets in force just before each compound statement, keyed by the original nodes."""

    def __init__(self, names: NameScanner) -> None:
        self.names = names
        self.before: dict[gast.AST, Bound] = {}
        # The `for` loops that surely run once: their target is bound after them.
        self.nonempty: frozenset[gast.AST] = frozenset()

    def _loop(self, node: gast.While | gast.For, entered: Bound, skipped: Bound, body_writes: set[str]) -> Bound | None:
        """A body runs zero or more times: from its second run on, what it binds may already be bound,
        and what it deletes may be unbound."""
        deleted = self.names.deletes(node.body)
        self.block(node.body, Bound(entered.surely - deleted, entered.possibly | body_writes))
        return self.block(node.orelse, Bound(skipped.surely - deleted, skipped.possibly | body_writes))

    def analyze_function(self, node: gast.FunctionDef, parameters: set[str],
                         nonempty: frozenset[gast.AST] | None = None) -> None:
        """Analyse ``node``'s body; ``nonempty`` is ``nonempty_loops(node)`` when the caller has it."""
        self.nonempty = nonempty_loops(node, self.names) if nonempty is None else nonempty
        start = Bound(frozenset(parameters), frozenset(parameters))
        self.block(node.body, start)

    def block(self, statements: list[gast.stmt], bound: Bound | None) -> Bound | None:
        for statement in statements:
            if bound is _LEFT:
                return _LEFT
            bound = self.statement(statement, bound)
        return bound

    def statement(self, node: gast.stmt, bound: Bound) -> Bound | None:
        if isinstance(node, (gast.If, gast.While, gast.For)):
            self.before[node] = bound
        writes = self.names.writes
        if isinstance(node, gast.If):
            after_test = bound.bind(writes(node.test))
            return _merge(self.block(node.body, after_test), self.block(node.orelse, after_test))
        if isinstance(node, gast.While):
            after_test = bound.bind(writes(node.test))
            return self._loop(node, after_test, after_test, writes(node.body) | writes(node.test))
        if isinstance(node, gast.For):
            bound_by_target = self.names.target_names(node.target)
            entered = bound.bind(bound_by_target)
            skipped = entered if node in self.nonempty else bound
            return self._loop(node, entered, skipped, writes(node.body) | bound_by_target)
        if isinstance(node, (gast.Return, gast.Raise)):
            return _LEFT
        if isinstance(node, TRY_STATEMENTS):
            # Any statement may raise into a handler: only what was bound before, and deleted nowhere
            # before the handler or the `finally` block, is sure; what the body binds may be bound.
            self.block(node.body + node.orelse, bound)
            in_handler = Bound(bound.surely - self.names.deletes(node.body), bound.possibly | writes(node.body))
            for handler in node.handlers:
                self.block(handler.body, in_handler)
            everything = writes(node.body) | writes(node.handlers) | writes(node.orelse)
            kept = bound.surely - self.names.deletes([node])
            return self.block(node.finalbody, Bound(kept, bound.possibly | everything))
        if isinstance(node, gast.With):
            entered = bound
            for item in node.items:
                entered = entered.bind(writes(item.optional_vars))
            return self.block(node.body, entered)
        if isinstance(node, gast.Delete):
            removed = writes(node)
            return Bound(bound.surely - removed, bound.possibly - removed)
        return bound.bind(writes(node))


def _merge(left: Bound | None, right: Bound | None) -> Bound | None:
    if left is _LEFT:
        return right
    if right is _LEFT:
        return left
    return left.merge(right)


def surely_assigned(statements: list[gast.stmt], names: NameScanner) -> frozenset[str] | None:
    """Names that every path through ``statements`` binds; ``None`` when every path returns or raises."""
    after = Definitions(names).block(statements, Bound(frozenset(), frozenset()))
    return None if after is _LEFT else after.surely

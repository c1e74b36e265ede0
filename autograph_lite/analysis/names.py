"""Which local names a piece of syntax reads and writes, in the scope of the function being converted.

Nested scopes (``def``, ``lambda``, comprehensions) are not entered for writes: what they bind is
theirs. Their reads of outer names are counted, because calling them reads those names.
"""

from __future__ import annotations

import dataclasses

import gast

from .blocks import SCOPES, statements_within

_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
# Expressions that can hold a name being bound when there is no walrus: assignment targets.
_TARGET_CONTAINERS = (gast.Tuple, gast.List, gast.Starred)

# What a statement was found to read or write, by the statement's id; the statement is kept in its
# entry so that its id is not reused while the memo lives.
_Table = dict[int, tuple[gast.AST, set[str]]]


@dataclasses.dataclass(frozen=True, slots=True)
class NameScanner:
    """Finds the names syntax reads and writes, for the one function being converted.

    Two facts about that function make the search cheaper, and both are its own (conversions may
    run in several threads at once), so they travel with the scanner instead of living in module
    state:

    - ``may_have_walrus``: false when the function's source text has no ``:=``. Then no expression
      binds a name, and the search for writes skips every expression but assignment targets. The
      passes never generate a walrus, so the source text decides.
    - ``memo``: set by ``remembering()``, for a pass or analysis that does not change the tree.
    """

    may_have_walrus: bool = True
    memo: tuple[_Table, _Table] | None = None  # reads, writes

    def remembering(self) -> NameScanner:
        """A scanner that remembers what each statement reads and writes, to use while the tree stays
        as it is.

        The analyses ask about the same nested statements again and again (every enclosing loop asks
        for its whole body); with the memo each statement is walked once. A scanner that remembers
        already is returned as it is: an analysis called inside another shares its memo.
        """
        return self if self.memo is not None else NameScanner(self.may_have_walrus, ({}, {}))

    def reads(self, node: gast.AST | list | None) -> set[str]:
        """Names loaded anywhere in ``node``, including free names of nested functions and comprehensions."""
        found: set[str] = set()
        for item in _as_list(node):
            self._collect_reads(item, found)
        return found

    def writes(self, node: gast.AST | list | None) -> set[str]:
        """Names bound in this scope by ``node`` (assignments, targets, walrus, ``def``, ``import``, ``del``).

        Compound statements are entered: the writes of an ``if`` are those of both its branches.
        """
        found: set[str] = set()
        for item in _as_list(node):
            self._collect_writes(item, found)
        return found

    def deletes(self, statements: list[gast.AST]) -> set[str]:
        """Names that a ``del`` anywhere in ``statements`` unbinds (nested scopes are not entered).

        Among the writes, these are the ones that leave the name unbound: a loop body or a ``try``
        that holds one may end, or run again, with the name deleted.
        """
        found: set[str] = set()
        for node in statements_within(statements):
            if isinstance(node, gast.Delete):
                found |= self.writes(node)
        return found

    def target_names(self, target: gast.AST) -> set[str]:
        """Names bound by an assignment target such as ``a``, ``(a, b)`` or ``[a, *rest]``."""
        found: set[str] = set()
        self._collect_writes(target, found)
        return found

    def free_names(self, scope: gast.AST) -> set[str]:
        """Names a nested scope refers to outside itself: its free reads, and the names it declares
        ``nonlocal`` (at any depth), which it may also assign."""
        declared = {name for node in gast.walk(scope) if isinstance(node, gast.Nonlocal) for name in node.names}
        return self._free_reads(scope) | declared

    def _remembered(self, node: gast.stmt, table_index: int) -> set[str] | None:
        """What ``node`` reads (table 0) or writes (table 1), from the memo when there is one."""
        if self.memo is None:
            return None
        table = self.memo[table_index]
        entry = table.get(id(node))
        if entry is None:
            found: set[str] = set()
            if table_index == 0:
                self._collect_reads(node, found, remember=False)
            else:
                self._collect_writes(node, found, remember=False)
            entry = table[id(node)] = (node, found)
        return entry[1]

    def _collect_reads(self, node: gast.AST, found: set[str], remember: bool = True) -> None:
        if remember and isinstance(node, gast.stmt):
            known = self._remembered(node, 0)
            if known is not None:
                found |= known
                return
        if isinstance(node, gast.Name):
            if isinstance(node.ctx, (gast.Load, gast.Del)):
                found.add(node.id)
            return
        if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
            found.add(node.target.id)
        if isinstance(node, SCOPES + _COMPREHENSIONS):
            found |= self._free_reads(node)
            return
        for child in gast.iter_child_nodes(node):
            self._collect_reads(child, found)

    def _free_reads(self, node: gast.AST) -> set[str]:
        """Reads inside a nested scope that refer to names outside it."""
        inner_reads: set[str] = set()
        inner_binds: set[str] = set()
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            # Decorators, defaults and annotations are evaluated in the enclosing scope.
            for expr in node.decorator_list + node.args.defaults + node.args.kw_defaults:
                if expr is not None:
                    self._collect_reads(expr, inner_reads)
            inner_binds |= parameter_names(node.args)
            for statement in node.body:
                self._collect_reads(statement, inner_reads)
                self._collect_writes(statement, inner_binds)
            return inner_reads - inner_binds
        if isinstance(node, gast.Lambda):
            for expr in node.args.defaults + node.args.kw_defaults:
                if expr is not None:
                    self._collect_reads(expr, inner_reads)
            body_reads: set[str] = set()
            self._collect_reads(node.body, body_reads)
            return inner_reads | (body_reads - parameter_names(node.args))
        if isinstance(node, gast.ClassDef):
            for statement in node.bases + node.keywords + node.decorator_list + node.body:
                self._collect_reads(statement, inner_reads)
            return inner_reads
        # Comprehension: the first iterable is evaluated outside; targets are local to it.
        for generator in node.generators:
            self._collect_reads(generator.iter, inner_reads)
            for condition in generator.ifs:
                self._collect_reads(condition, inner_reads)
            self._collect_writes(generator.target, inner_binds)
        for element in ("elt", "key", "value"):
            if hasattr(node, element):
                self._collect_reads(getattr(node, element), inner_reads)
        return inner_reads - inner_binds

    def _collect_writes(self, node: gast.AST, found: set[str], remember: bool = True) -> None:
        if remember and isinstance(node, gast.stmt):
            known = self._remembered(node, 1)
            if known is not None:
                found |= known
                return
        if isinstance(node, gast.Name):
            if isinstance(node.ctx, (gast.Store, gast.Del)):
                found.add(node.id)
            return
        if isinstance(node, gast.expr) and not isinstance(node, _TARGET_CONTAINERS) and not self.may_have_walrus:
            return
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            found.add(node.name)
            return
        if isinstance(node, gast.Lambda):
            return
        if isinstance(node, _COMPREHENSIONS):
            # Only a walrus inside a comprehension binds in the enclosing scope.
            for inner in gast.walk(node):
                if isinstance(inner, gast.NamedExpr):
                    self._collect_writes(inner.target, found)
            return
        if isinstance(node, (gast.Import, gast.ImportFrom)):
            for alias in node.names:
                found.add((alias.asname or alias.name).split(".")[0])
            return
        if isinstance(node, (gast.Global, gast.Nonlocal)):
            return
        # A pattern binds its captures, which it names by strings, not by Name nodes.
        captured = node.rest if isinstance(node, gast.MatchMapping) else getattr(node, "name", None)
        if isinstance(node, (gast.MatchAs, gast.MatchStar, gast.MatchMapping)) and captured is not None:
            found.add(captured)
        for child in gast.iter_child_nodes(node):
            self._collect_writes(child, found)


# For syntax whose source text is unknown: it may hold a walrus, and nothing is remembered.
ANY_SOURCE = NameScanner()


def _as_list(node: gast.AST | list | None) -> list:
    if node is None:
        return []
    return node if isinstance(node, list) else [node]


def parameter_names(args: gast.arguments) -> set[str]:
    """The names a function or lambda binds on entry: every kind of parameter."""
    names = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    for extra in (args.vararg, args.kwarg):
        if extra is not None:
            names.add(extra.id)
    return names

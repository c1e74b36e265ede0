"""Which local names a piece of syntax reads and writes, in the scope of the function being converted.

Nested scopes (``def``, ``lambda``, comprehensions) are not entered for writes: what they bind is
theirs. Their reads of outer names are counted, because calling them reads those names.
"""

from __future__ import annotations

import dataclasses

import gast

from .blocks import GAST_CLASSES, SCOPES, statements_within

_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
# The node classes below are sets, looked up by a node's exact class: gast's classes have no subclasses.
# Expressions that can hold a name being bound when there is no walrus: assignment targets.
_TARGET_CONTAINERS = frozenset({gast.Tuple, gast.List, gast.Starred})
_SCOPES_AND_COMPREHENSIONS = frozenset(SCOPES + _COMPREHENSIONS)
# What binds (or declares) names by itself, not through Name nodes (``_declared_writes``).
_DECLARING = frozenset({
    gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda, *_COMPREHENSIONS,
    gast.Import, gast.ImportFrom, gast.Global, gast.Nonlocal,
})
_CAPTURING_PATTERNS = frozenset({gast.MatchAs, gast.MatchStar, gast.MatchMapping})
_READ_CONTEXTS = frozenset({gast.Load, gast.Del})
_WRITE_CONTEXTS = frozenset({gast.Store, gast.Del})
# Nodes that neither read nor bind a name, and hold no node that does.
_NAMELESS = frozenset(
    kind for kind in GAST_CLASSES
    if issubclass(kind, (gast.expr_context, gast.operator, gast.unaryop, gast.cmpop, gast.boolop, gast.Constant))
)
# Fields that hold only strings, numbers, contexts or operators (not "name": an except clause's is a Name).
_PLAIN_FIELDS = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "kind", "type_comment", "conversion", "is_async",
                           "level", "module"})
_NAMED_FIELDS = {kind: tuple(f for f in kind._fields if f not in _PLAIN_FIELDS) for kind in GAST_CLASSES}

# What a statement was found to read or write, by the statement (nodes hash by identity).
_Table = dict[gast.AST, set[str]]


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
        if isinstance(node, list):
            for item in node:
                self._collect_reads(item, found)
        elif node is not None:
            self._collect_reads(node, found)
        return found

    def writes(self, node: gast.AST | list | None) -> set[str]:
        """Names bound in this scope by ``node`` (assignments, targets, walrus, ``def``, ``import``, ``del``).

        Compound statements are entered: the writes of an ``if`` are those of both its branches.
        """
        found: set[str] = set()
        if isinstance(node, list):
            for item in node:
                self._collect_writes(item, found)
        elif node is not None:
            self._collect_writes(node, found)
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

    def _collect_reads(self, node: gast.AST, found: set[str], remember: bool = True) -> None:
        kind = type(node)  # node classes are compared exactly: gast's are never subclassed
        if kind is gast.Name:
            if type(node.ctx) in _READ_CONTEXTS:
                found.add(node.id)
            return
        if remember and self.memo is not None and isinstance(node, gast.stmt):
            known = self.memo[0].get(node)
            if known is None:
                known = self.memo[0][node] = set()
                self._collect_reads(node, known, remember=False)
            found |= known
            return
        if kind is gast.AugAssign and type(node.target) is gast.Name:
            found.add(node.target.id)
        if kind in _SCOPES_AND_COMPREHENSIONS:
            found |= self._free_reads(node)
            return
        # The children that may hold a name (``gast.iter_child_nodes`` without contexts, operators and
        # constants, which are most of a tree), iterated here rather than listed by a helper: this is
        # the innermost loop of every analysis.
        fields = _NAMED_FIELDS.get(kind)
        for field in fields if fields is not None else node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, gast.AST) and type(item) not in _NAMELESS:
                        self._collect_reads(item, found)
            elif isinstance(value, gast.AST) and type(value) not in _NAMELESS:
                self._collect_reads(value, found)

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
        kind = type(node)
        if kind is gast.Name:
            if type(node.ctx) in _WRITE_CONTEXTS:
                found.add(node.id)
            return
        if remember and self.memo is not None and isinstance(node, gast.stmt):
            known = self.memo[1].get(node)
            if known is None:
                known = self.memo[1][node] = set()
                self._collect_writes(node, known, remember=False)
            found |= known
            return
        if not self.may_have_walrus and kind not in _TARGET_CONTAINERS and isinstance(node, gast.expr):
            return
        if kind in _DECLARING:
            _declared_writes(self, node, found)
            return
        if kind in _CAPTURING_PATTERNS:
            # A pattern binds its captures, which it names by strings, not by Name nodes.
            captured = node.rest if kind is gast.MatchMapping else node.name
            if captured is not None:
                found.add(captured)
        fields = _NAMED_FIELDS.get(kind)  # the children that may hold a name, as in _collect_reads
        for field in fields if fields is not None else node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, gast.AST) and type(item) not in _NAMELESS:
                        self._collect_writes(item, found)
            elif isinstance(value, gast.AST) and type(value) not in _NAMELESS:
                self._collect_writes(value, found)


def _declared_writes(names: NameScanner, node: gast.AST, found: set[str]) -> None:
    """What a definition, an import or a comprehension binds in the enclosing scope (a lambda, a
    ``global`` and a ``nonlocal`` bind nothing there)."""
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
        found.add(node.name)
    elif isinstance(node, _COMPREHENSIONS):
        # Only a walrus inside a comprehension binds in the enclosing scope.
        for inner in gast.walk(node):
            if isinstance(inner, gast.NamedExpr):
                names._collect_writes(inner.target, found)
    elif isinstance(node, (gast.Import, gast.ImportFrom)):
        for alias in node.names:
            found.add((alias.asname or alias.name).split(".")[0])


# For syntax whose source text is unknown: it may hold a walrus, and nothing is remembered.
ANY_SOURCE = NameScanner()


def parameter_names(args: gast.arguments) -> set[str]:
    """The names a function or lambda binds on entry: every kind of parameter."""
    names = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    for extra in (args.vararg, args.kwarg):
        if extra is not None:
            names.add(extra.id)
    return names

"""Which local names a piece of syntax reads and writes, in the scope of the function being converted.

Nested scopes (``def``, ``lambda``, comprehensions) are not entered for writes: what they bind is
theirs. Their reads of outer names are counted, because calling them reads those names.
"""

from __future__ import annotations

import contextlib
import threading

import gast

from .blocks import SCOPES

_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


_memo = threading.local()
# Expressions that can hold a name being bound when there is no walrus: assignment targets.
_TARGET_CONTAINERS = (gast.Tuple, gast.List, gast.Starred)


@contextlib.contextmanager
def without_walrus(no_walrus: bool):
    """Declare, while a function whose source has no ``:=`` is rewritten, that no expression in it
    binds a name: then the search for writes skips every expression but assignment targets. The
    passes never generate a walrus, so the source text decides."""
    previous = getattr(_memo, "no_walrus", False)
    _memo.no_walrus = no_walrus
    try:
        yield
    finally:
        _memo.no_walrus = previous


@contextlib.contextmanager
def unchanging_tree():
    """Remember what each statement reads and writes while no pass changes the tree.

    The analyses ask about the same nested statements again and again (every enclosing loop asks
    for its whole body); within this block each statement is walked once. Per thread, because
    conversions may run in several threads; a block inside another shares its memo.
    """
    previous = getattr(_memo, "tables", None)
    _memo.tables = previous or ({}, {})  # nested: the same window
    try:
        yield
    finally:
        _memo.tables = previous


def reads(node: gast.AST | list | None) -> set[str]:
    """Names loaded anywhere in ``node``, including free names of nested functions and comprehensions."""
    found: set[str] = set()
    for item in _as_list(node):
        _collect_reads(item, found)
    return found


def writes(node: gast.AST | list | None) -> set[str]:
    """Names bound in this scope by ``node`` (assignments, targets, walrus, ``def``, ``import``, ``del``).

    Compound statements are entered: the writes of an ``if`` are those of both its branches.
    """
    found: set[str] = set()
    for item in _as_list(node):
        _collect_writes(item, found)
    return found


def _remembered(node: gast.stmt, table_index: int, collect) -> set[str] | None:
    """What ``collect`` finds in ``node``, from the memo when one is active (else ``None``)."""
    tables = getattr(_memo, "tables", None)
    if tables is None:
        return None
    table = tables[table_index]
    entry = table.get(id(node))
    if entry is None:
        found: set[str] = set()
        collect(node, found, remember=False)
        entry = table[id(node)] = (node, found)  # the node is kept so that its id is not reused
    return entry[1]


def target_names(target: gast.AST) -> set[str]:
    """Names bound by an assignment target such as ``a``, ``(a, b)`` or ``[a, *rest]``."""
    found: set[str] = set()
    _collect_writes(target, found)
    return found


def _as_list(node):
    if node is None:
        return []
    return node if isinstance(node, list) else [node]


def _collect_reads(node: gast.AST, found: set[str], remember: bool = True) -> None:
    if remember and isinstance(node, gast.stmt):
        known = _remembered(node, 0, _collect_reads)
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
        found |= _free_reads(node)
        return
    for child in gast.iter_child_nodes(node):
        _collect_reads(child, found)


def free_names(scope: gast.AST) -> set[str]:
    """Names a nested scope refers to outside itself: its free reads, and the names it declares
    ``nonlocal`` (at any depth), which it may also assign."""
    declared = {name for node in gast.walk(scope) if isinstance(node, gast.Nonlocal) for name in node.names}
    return _free_reads(scope) | declared


def _free_reads(node: gast.AST) -> set[str]:
    """Reads inside a nested scope that refer to names outside it."""
    inner_reads: set[str] = set()
    inner_binds: set[str] = set()
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        # Decorators, defaults and annotations are evaluated in the enclosing scope.
        for expr in node.decorator_list + node.args.defaults + node.args.kw_defaults:
            if expr is not None:
                _collect_reads(expr, inner_reads)
        inner_binds |= _argument_names(node.args)
        for statement in node.body:
            _collect_reads(statement, inner_reads)
            _collect_writes(statement, inner_binds)
        return inner_reads - inner_binds
    if isinstance(node, gast.Lambda):
        for expr in node.args.defaults + node.args.kw_defaults:
            if expr is not None:
                _collect_reads(expr, inner_reads)
        body_reads: set[str] = set()
        _collect_reads(node.body, body_reads)
        return inner_reads | (body_reads - _argument_names(node.args))
    if isinstance(node, gast.ClassDef):
        for statement in node.bases + node.keywords + node.decorator_list + node.body:
            _collect_reads(statement, inner_reads)
        return inner_reads
    # Comprehension: the first iterable is evaluated outside; targets are local to it.
    for generator in node.generators:
        _collect_reads(generator.iter, inner_reads)
        for condition in generator.ifs:
            _collect_reads(condition, inner_reads)
        _collect_writes(generator.target, inner_binds)
    for element in ("elt", "key", "value"):
        if hasattr(node, element):
            _collect_reads(getattr(node, element), inner_reads)
    return inner_reads - inner_binds


def _argument_names(args: gast.arguments) -> set[str]:
    names = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    for extra in (args.vararg, args.kwarg):
        if extra is not None:
            names.add(extra.id)
    return names


def _collect_writes(node: gast.AST, found: set[str], remember: bool = True) -> None:
    if remember and isinstance(node, gast.stmt):
        known = _remembered(node, 1, _collect_writes)
        if known is not None:
            found |= known
            return
    if isinstance(node, gast.Name):
        if isinstance(node.ctx, (gast.Store, gast.Del)):
            found.add(node.id)
        return
    if isinstance(node, gast.expr) and not isinstance(node, _TARGET_CONTAINERS) and getattr(_memo, "no_walrus", False):
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
                _collect_writes(inner.target, found)
        return
    if isinstance(node, (gast.Import, gast.ImportFrom)):
        for alias in node.names:
            found.add((alias.asname or alias.name).split(".")[0])
        return
    if isinstance(node, (gast.Global, gast.Nonlocal)):
        return
    for child in gast.iter_child_nodes(node):
        _collect_writes(child, found)

"""Every store into an attribute or an item becomes an assignment statement of its own.

The passes that make such a store exact rewrite an assignment whose one target is an item or an
attribute: the item updates (a JAX array's ``x[i] = v`` becomes ``x.at[i].set(v)``, and the container
is carried out of a staged body) and the attribute stores (a property's setter or a ``__setattr__``
of the user's runs converted and checked). Python stores into targets in other places too: a ``for``
loop's target on every iteration, a ``with`` item's ``as`` target after ``__enter__``, each target of
an unpacking or of a chained assignment in turn. Left there, such a store ran as written: a logging
setter in ``for m.v in xs`` ran once while a scan was traced, ``for ys[0] in xs`` leaked a tracer.
This pass gives each of those stores that form, in Python's order::

    for o.n, k in pairs:           for _ag_target_L3_0, _ag_target_L3_1 in pairs:
        body                           o.n = _ag_target_L3_0
                                       k = _ag_target_L3_1
                                       body
    xs[i], i = v                   _ag_target_L5_0, _ag_target_L5_1 = v
                                   xs[i] = _ag_target_L5_0
                                   i = _ag_target_L5_1
    o.a = o.b = v                  _ag_target_L6_0 = v; o.a = _ag_target_L6_0; o.b = _ag_target_L6_0
    with m() as o.f, n() as g:     with m() as _ag_target_L7_0:
        body                           o.f = _ag_target_L7_0
                                       with n() as g:
                                           body
    o.a: int = v                   o.a = v

Python unpacks the whole value first, then stores into the targets from left to right, evaluating
each target's owner and index as it stores: so once one target is not a plain name, every target of
that unpacking takes a temporary (``xs[i], i = v`` stores into the old ``i``'s item). A function's
annotation of an attribute or item is never evaluated. Targets of comprehensions stay as written.
"""

from __future__ import annotations

import itertools

import gast

from ..analysis.blocks import SCOPES, blocks_of
from ..generated_names import TARGET_TEMPORARY
from . import nodes
from .facts import ScopeFacts

_SUBTARGETS = (gast.Tuple, gast.List)


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    """A lambda holds no statements; a function whose stores are all plain is left as it is."""
    if not isinstance(function, gast.FunctionDef):
        return facts
    temporaries: list[str] = []
    _rewrite_block(function.body, _Temporaries(temporaries))
    if not temporaries:
        return facts
    return facts._with("assigned", facts.assigned | frozenset(temporaries))


class _Temporaries:
    """Names for the values on their way to a target, unique in the function (``_ag_target_L5_0``)."""

    def __init__(self, made: list[str]) -> None:
        self.made = made
        self._counter = itertools.count()

    def new(self, line: int) -> str:
        identifier = f"{TARGET_TEMPORARY}L{line}_{next(self._counter)}"
        self.made.append(identifier)
        return identifier


def _rewrite_block(statements: list[gast.stmt], temporaries: _Temporaries) -> None:
    """Rewrite ``statements`` in place, and the blocks nested in them (not entering nested scopes,
    which are converted on their own)."""
    rewritten: list[gast.stmt] = []
    for statement in statements:
        for plain in _plain(statement, temporaries):
            if not isinstance(plain, SCOPES):
                for block in blocks_of(plain):
                    _rewrite_block(block, temporaries)
            rewritten.append(plain)
    statements[:] = rewritten


def _plain(statement: gast.stmt, temporaries: _Temporaries) -> list[gast.stmt]:
    """``statement`` with its stores made plain: itself, or the statements that replace it."""
    if isinstance(statement, gast.Assign):
        return _plain_assignment(statement, temporaries)
    if isinstance(statement, gast.AnnAssign) and statement.value is not None and not isinstance(
            statement.target, gast.Name):
        return [nodes.assign(statement.target, statement.value, statement.lineno)]
    if isinstance(statement, (gast.For, gast.AsyncFor)) and not _plain_target(statement.target):
        statement.target, stores = _through_temporaries(statement.target, temporaries)
        statement.body[:0] = stores
    elif isinstance(statement, (gast.With, gast.AsyncWith)):
        _plain_with(statement, temporaries)
    return [statement]


def _plain_assignment(statement: gast.Assign, temporaries: _Temporaries) -> list[gast.stmt]:
    """A chained assignment with a target other than a name stores its value once into a temporary,
    then into each target in turn; an unpacking into anything but names unpacks into temporaries."""
    targets, line = statement.targets, statement.lineno
    if len(targets) > 1 and not all(_plain_target(target) for target in targets):
        value = temporaries.new(line)
        stores = [nodes.assign(target, nodes.name(value, line), line) for target in targets]
        return [nodes.assign(value, statement.value, line), *itertools.chain.from_iterable(
            _plain_assignment(store, temporaries) for store in stores)]
    if len(targets) == 1 and isinstance(targets[0], _SUBTARGETS) and not _plain_target(targets[0]):
        target, stores = _through_temporaries(targets[0], temporaries)
        return [nodes.assign(target, statement.value, line), *stores]
    return [statement]


def _plain_with(statement: gast.With | gast.AsyncWith, temporaries: _Temporaries) -> None:
    """A ``with`` item whose target is not plain stores into a temporary; the items after it move into
    a ``with`` of their own, inside, after the store (Python enters them after it), whose targets the
    walk into the body makes plain in turn."""
    for position, item in enumerate(statement.items):
        if item.optional_vars is None or _plain_target(item.optional_vars):
            continue
        item.optional_vars, stores = _through_temporaries(item.optional_vars, temporaries)
        later = statement.items[position + 1:]
        if later:
            inner = type(statement)(items=later, body=statement.body, type_comment=None)
            gast.copy_location(inner, statement)
            statement.body = [inner]
            del statement.items[position + 1:]
        statement.body[:0] = stores
        return


def _plain_target(target: gast.expr) -> bool:
    """Whether ``target`` stores into names only (``x``, ``a, *b``, ``(a, b), c``)."""
    if isinstance(target, gast.Name):
        return True
    if isinstance(target, gast.Starred):
        return _plain_target(target.value)
    return isinstance(target, _SUBTARGETS) and all(_plain_target(element) for element in target.elts)


def _through_temporaries(target: gast.expr, temporaries: _Temporaries) -> tuple[gast.expr, list[gast.stmt]]:
    """``target`` with each of its stores replaced by a temporary, and the assignments from the
    temporaries into the stores, in Python's order (left to right, depth first)."""
    stores: list[gast.stmt] = []
    line = target.lineno

    def replaced(node: gast.expr) -> gast.expr:
        if isinstance(node, gast.Starred):
            node.value = replaced(node.value)
            return node
        if isinstance(node, _SUBTARGETS):
            node.elts = [replaced(element) for element in node.elts]
            return node
        temporary = temporaries.new(line)
        stores.append(nodes.assign(node, nodes.name(temporary, line), getattr(node, "lineno", line)))
        return nodes.name(temporary, line, store=True)

    return replaced(target), stores

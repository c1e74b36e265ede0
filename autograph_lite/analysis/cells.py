"""Cell variables: the locals of a function that a nested ``def`` or ``lambda`` reads or assigns.

Python binds such a name late: the nested function sees its latest binding whenever it runs. The
rewrite moves a converted statement's body into helpers that receive the carried names as
parameters; a parameter would shadow the cell, and a closure defined before the statement (or
called after it) would read a stale value. So the passes keep cell variables in their cells: a
helper declares them ``nonlocal`` and every assignment goes through the cell. Comprehensions are
not counted: they run where they stand, so a parameter holds the value they must see.
"""

from __future__ import annotations

from collections.abc import Iterator

import gast

from .blocks import child_nodes
from .names import ANY_SOURCE, NameScanner

_NESTED = (gast.FunctionDef, gast.Lambda)
_OPAQUE = (gast.ClassDef, gast.AsyncFunctionDef)


def cell_names(function: gast.AST, local_names: frozenset[str], names: NameScanner = ANY_SOURCE) -> frozenset[str]:
    """The names in ``local_names`` that a function or lambda nested in ``function`` refers to."""
    referenced: set[str] = set()
    for nested in _nested_scopes(function):
        referenced |= names.free_names(nested)
    return frozenset(referenced & local_names)


def _nested_scopes(function: gast.AST) -> Iterator[gast.AST]:
    """The ``def`` and ``lambda`` nodes directly inside ``function``'s scope (inside comprehensions
    too); each one's own nested scopes are part of its free names."""
    pending = child_nodes(function)
    while pending:
        node = pending.pop()
        if isinstance(node, _NESTED):
            yield node
        elif not isinstance(node, _OPAQUE):
            pending.extend(child_nodes(node))

"""A list built by appends in a staged loop, kept stacked until something needs its rows.

A ``lax.scan`` returns what its body appended as one stacked array per ``append``. Splitting it into
rows after the loop, only for ``jnp.stack(ys)`` to stack them again, costs two equations per row and
their tracing. The rewrite (``passes.list_appends``) proves, per list, that the function reads it
only through its appends, ``len(ys)``, and one-argument calls named ``stack`` / ``array`` /
``asarray`` / ``concatenate``; such a list is never seen by anything else, so it may hold, in place
of a scan's rows, one :class:`Segment` standing for all of them. Every read goes through
:func:`call`, which hands ``jnp.stack`` and its siblings the stacked array itself (with the dtype
that stacking the rows gives), and anything else the rows, as eager Python would have built them.
"""

from __future__ import annotations

import builtins
import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .values import is_traced


@dataclasses.dataclass(frozen=True)
class Segment:
    """``rows`` consecutive items of a list, held as one pytree of arrays stacked along axis 0."""

    stacked: Any
    rows: int

    def row_values(self) -> list[Any]:
        return unstack(self.stacked, self.rows)


def unstack(values: Any, length: int) -> list[Any]:
    """The ``length`` rows of a pytree of arrays stacked along axis 0."""
    return [jax.tree_util.tree_map(lambda a, i=i: a[i], values) for i in range(length)]


# Calls that read their argument without keeping or changing it: they may be handed a list of rows
# made for the call (the list itself keeps its segments). The first four can take the stacked array.
_STACKING = {jnp.stack: "stack", jnp.array: "array", jnp.asarray: "asarray", jnp.concatenate: "concatenate"}
_READ_ONLY = frozenset({*_STACKING, np.stack, np.array, np.asarray, np.concatenate})


def call(function: Any, target: list[Any]) -> Any:
    """``function(target)`` for a list that may hold segments, as if it held their rows."""
    if not any(isinstance(piece, Segment) for piece in target):
        return function(target)
    if function is builtins.len:
        return sum(piece.rows if isinstance(piece, Segment) else 1 for piece in target)
    stacked = _stacked_result(function, target)
    if stacked is not None:
        return stacked
    if _hashable(function) and function in _READ_ONLY:
        return function(rows(target))
    target[:] = rows(target)  # an unknown function may keep or change the list: it gets the real one
    return function(target)


def rows(pieces: list[Any]) -> list[Any]:
    """The items that ``pieces`` stand for, each segment split into its rows."""
    items: list[Any] = []
    for piece in pieces:
        items.extend(piece.row_values() if isinstance(piece, Segment) else [piece])
    return items


def _stacked_result(function: Any, pieces: list[Any]) -> Any | None:
    """What ``function`` gives on the rows of ``pieces``, computed from the stacked arrays; ``None``
    when that takes more than joining them (an item on its own, rows of different types, a pytree),
    or when nothing is traced (eager code then builds a new array, as Python does)."""
    kind = _STACKING.get(function) if _hashable(function) else None
    if kind is None or not all(isinstance(p, Segment) and isinstance(p.stacked, jax.Array) for p in pieces):
        return None
    arrays = [piece.stacked for piece in pieces]
    types = {(a.shape[1:], jax.typeof(a).dtype, jax.typeof(a).weak_type) for a in arrays}
    if len(types) != 1 or not any(is_traced(a) for a in arrays) or 0 in (a.shape[0] for a in arrays):
        return None
    joined = arrays[0] if len(arrays) == 1 else lax.concatenate(arrays, 0)
    if kind == "stack":
        return joined  # stacking rows of one type keeps it, weak type included
    if kind == "concatenate":
        if joined.ndim < 2:
            return None  # rows with no axis: the call raises, as it does eagerly
        return joined.reshape((joined.shape[0] * joined.shape[1], *joined.shape[2:]))
    return lax.convert_element_type(joined, joined.dtype)  # jnp.array of a list is never weakly typed


def _hashable(function: Any) -> bool:
    try:
        hash(function)
    except TypeError:
        return False
    return True

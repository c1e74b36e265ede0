"""Refusing an item update of a JAX array that eager NumPy would also show through a view.

The rewriter lists, for ``row[0] = 0``, the other names that may show ``row``'s memory without being
the same object (``g`` for ``for row in g``, ``sub = x[1:3]``, ``t = g.T``, a traced ``x if c else z``)
and are read afterwards or are the caller's (``analysis.shared_memory``). Eagerly, on NumPy arrays, the
store changes them too; converted, a JAX array has no views, and the update reaches ``row`` alone. A
JAX array here is a traced NumPy argument as much as an array the function built, so the check cannot
ask which it was: it refuses where both values are JAX arrays of at least one dimension (NumPy's item
of a 1-D array, ``x[j]``, is a copy, as is any 0-d value, so a swap through ``t = x[i]`` stays allowed).

The other name may also hold a list, tuple or dict (``w = params[0]`` of a list argument): an item of
a container is the very array it holds, eagerly and converted alike, so the check asks whether the
container holds the updated array itself (at any depth): then eagerly ``params[0]`` (and the caller's
list) shows the store, and converted it keeps the old array.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax

from ..errors import ConversionError
from .locations import caller_location

# One name the rewriter found: the name, its value (lazy), how the two share memory, who reads it, and
# whether it is a value that the same unpacking stores afterwards.
View = tuple[str, Callable[[], Any], str, str, bool]


def check_views(container: Any, name: str, views: tuple[View, ...]) -> None:
    """Raise where ``container`` (the value of ``name``) may share memory with another name's array."""
    if not _has_items(container):
        return
    for other, value_of, description, reader, unpacking in views:
        try:
            value = value_of()
        except NameError:  # not bound yet (UnboundLocalError and a free variable's NameError included)
            continue
        if _holds(value, container):
            raise _held_error(name, other, description, reader)
        if not _has_items(value):
            continue
        if unpacking:
            raise _unpacking_error(name, description)
        raise ConversionError(
            f"'{name}' is updated in place, but it may share memory with '{other}' ({description}), and "
            f"{reader}. Eagerly, on NumPy arrays, the store would change both; converted, JAX arrays share "
            f"no memory, so the update makes a new array, bound to '{name}' only, and '{other}' keeps the "
            "old values.",
            caller_location(),
            f"Store through '{other}' itself, with the full index: `{other}[i, 0] = v` in `for i in "
            f"range(len({other}))` rather than `row[0] = v` in `for row in {other}`, `{other}[1:3] = v` "
            f"rather than through `sub = {other}[1:3]`; or, if '{other}' must keep its values, store into "
            f"a copy (`{name} = {name}.copy()` before the store).",
        )


def _has_items(value: Any) -> bool:
    return isinstance(value, jax.Array) and value.ndim > 0


_CONTAINERS = (list, tuple, dict)
_DEEPEST = 8  # levels of nesting searched: deeper parameter trees than that are rare


def _holds(value: Any, array: jax.Array, depth: int = 0) -> bool:
    """Whether the list, tuple or dict ``value`` holds ``array`` itself, at some depth."""
    if not isinstance(value, _CONTAINERS) or depth > _DEEPEST:
        return False
    items = value.values() if isinstance(value, dict) else value
    return any(item is array or _holds(item, array, depth + 1) for item in items)


def _held_error(name: str, other: str, description: str, reader: str) -> ConversionError:
    """``w = params[0]; w[0] = v`` where ``params`` is read afterwards or is the caller's: eagerly the store
    changes the array ``params`` holds; converted, ``w`` is rebound to a new array and ``params`` keeps the
    old one."""
    return ConversionError(
        f"'{name}' is updated in place, but it is an array that '{other}' holds as an item ({description}), and "
        f"{reader}. Eagerly, on NumPy arrays, the store changes the array inside '{other}'; converted, JAX "
        f"arrays cannot change, so the update makes a new array, bound to '{name}' only, and '{other}' keeps "
        "the old one.",
        caller_location(),
        f"Update a copy and store it back into '{other}': `{name} = {other}[k].copy()` where '{name}' is bound, "
        f"then `{other}[k] = {name}` after the update (k: the index '{name}' was read at); or return '{name}' "
        "and use it instead of the item.",
    )


def _unpacking_error(name: str, description: str) -> ConversionError:
    """``g[0], g[1] = g[1], g[0]`` on rows: NumPy reads the second value, a view of ``g``, after the first
    store has changed it (both rows end up equal); converted, the values are read before any store."""
    return ConversionError(
        f"this assignment stores into '{name}' more than once, and a value it stores later may be a NumPy "
        f"view of '{name}' ({description}). NumPy reads that view after the earlier store has changed "
        f"it (a swap of rows, `{name}[0], {name}[1] = {name}[1], {name}[0]`, leaves both rows equal); "
        "converted, every value is read before the first store.",
        caller_location(),
        f"To swap, copy the values first: `{name}[0], {name}[1] = {name}[1].copy(), {name}[0].copy()`; to "
        f"get NumPy's result, store one statement at a time (`{name}[0] = {name}[1]`, then `{name}[1] = "
        f"{name}[0]`).",
    )

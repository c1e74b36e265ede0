"""A nested item store into a list of lists the function builds itself, as a rebinding of its root.

``grid[i][j] = v`` changes ``grid[i]`` in place, which no name holds, so a staged ``if`` or loop would
not carry it, and its body's store would happen once while tracing. Where the rewrite proved that the
function builds ``grid`` new at every level the store goes through (``grid = [[0.0] * m for _ in
range(n)]``: :mod:`..passes.fresh_values`), the statement becomes ``grid = _ag.setitem_nested(grid,
(i,), j, v)``: the root is then a variable the statement writes, which a staged statement carries (it
traces on copies of carried lists, nested lists included, and writes the result back into the objects
they stand for: :mod:`.kept_containers`), and outside staged code the store is Python's own, in place.
"""

from __future__ import annotations

from typing import Any

from . import effects, items


def setitem_nested(
    root: Any, keys: tuple[Any, ...], index: Any, value: Any, augmented: str | None = None, *,
    text: str, item_from_outside: str | None = None,
) -> Any:
    """``root[keys[0]]...[keys[-1]][index] = value`` (or ``augmented``), in place; hands back ``root``.

    The rewrite reads the indices before the value (as ``setitem`` does; it rewrites only indices without
    calls, whose reading changes nothing), then the container is read and checked as any nested store
    is (:func:`.effects.check_nested_item_assignment`: inside staged code, its root must be the staged
    statement's copy or built inside the trace). ``text`` is the container's expression, for messages;
    ``item_from_outside`` names it where the rewrite could not prove the item itself built by the
    function, whose in-place operator (``+=`` on a list item) would change it where it is. A container
    that is not a list or dict (a JAX array, which cannot change) gets Python's store, and its error.
    """
    container = root
    for key in keys:
        container = container[key]
    effects.check_nested_item_assignment(lambda: root, lambda: container, text)
    items.store_in_place(container, index, value, augmented, item_from_outside)
    return root

"""The values a staged loop counter takes, where the loop's ``range`` is concrete.

A staged ``for i in range(len(x))`` gives its body a traced ``i`` whose least and greatest values are
known while tracing. An item store indexed by such a counter (:mod:`.array_stores`) is then known to
be in bounds and needs no run-time check of the index, so that such loops trace the equations they
traced before stores checked their indices.
"""

from __future__ import annotations

import weakref
from typing import Any

from .session import current
from .values import is_traced


def counter(value: Any, numbers: range) -> Any:
    """``value``, the staged item of a loop over ``numbers``, noted with the least and greatest of them
    for as long as it lives (its entry leaves with it, as a trace's values do)."""
    if is_traced(value) and numbers:
        bounds, key = current().counter_bounds, id(value)

        def forget(dead: weakref.ref[Any]) -> None:
            if bounds.get(key, (None,))[0] is dead:  # not a newer value's entry under the same id
                del bounds[key]

        bounds[key] = (weakref.ref(value, forget), min(numbers), max(numbers))
    return value


def bounds_of(value: Any) -> tuple[int, int] | None:
    """The least and greatest value of ``value`` if it is a counter noted by :func:`counter`."""
    entry = current().counter_bounds.get(id(value))
    if entry is None or entry[0]() is not value:
        return None
    return entry[1], entry[2]

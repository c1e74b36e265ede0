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

_PRUNE_PAST = 256  # entries: past this, those of values gone are dropped before adding one


def counter(value: Any, numbers: range) -> Any:
    """``value``, the staged item of a loop over ``numbers``, noted with the least and greatest of them."""
    if is_traced(value) and numbers:
        bounds = current().counter_bounds
        if len(bounds) > _PRUNE_PAST:
            for key in [key for key, (held, _, _) in bounds.items() if held() is None]:
                del bounds[key]
        bounds[id(value)] = (weakref.ref(value), min(numbers), max(numbers))
    return value


def bounds_of(value: Any) -> tuple[int, int] | None:
    """The least and greatest value of ``value`` if it is a counter noted by :func:`counter`."""
    entry = current().counter_bounds.get(id(value))
    if entry is None or entry[0]() is not value:
        return None
    return entry[1], entry[2]

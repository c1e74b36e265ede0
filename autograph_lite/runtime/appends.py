"""``ys.append(v)`` inside a loop body, where ``ys`` is a list from before the loop.

Run as Python, it appends. Inside a staged loop with a static trip count, the body is traced once,
so the value is collected as a per-iteration output of ``lax.scan``; after the scan, its rows are
appended to ``ys`` (through :func:`append` again, so an enclosing staged loop collects them in
turn). The list then holds what eager Python would have built, and ``jnp.stack(ys)`` gives the same
array. Where the number of appends depends on run-time values (a traced ``while``, a traced ``if``,
a loop left early with ``break``), it is an error with a fix.
"""

from __future__ import annotations

import threading
from typing import Any

import jax

from ..errors import ConversionError, Location

_state = threading.local()


class Collector:
    """The appends made while tracing one iteration of a staged loop body."""

    def __init__(self) -> None:
        self.appended: list[tuple[Any, Any]] = []

    def outputs(self) -> tuple:
        return tuple(value for _, value in self.appended)

    def append_rows(self, stacked: tuple, length: int) -> None:
        """Append, iteration by iteration, the rows of the scan's stacked outputs to their lists."""
        if not self.appended:
            return
        rows = [_unstack(values, length) for values in stacked]
        for iteration in range(length):
            for (target, _), target_rows in zip(self.appended, rows):
                append(target, target_rows[iteration])


class Forbidden:
    """Inside a staged statement whose number of runs is only known at run time."""

    def __init__(self, construct: str, location: Location | None):
        self.construct = construct
        self.location = location


def append(target: Any, value: Any) -> None:
    context = _stack()[-1] if _stack() else None
    if context is None:
        target.append(value)
    elif isinstance(context, Collector):
        context.appended.append((target, value))
    else:
        raise ConversionError(
            f"a list built with .append(...) inside a {context.construct}: the number of appends "
            "depends on a traced value, and a staged loop or branch cannot change a list's length",
            context.location,
            "Preallocate an array of the final size before the loop, e.g. ys = jnp.zeros((n, ...)), and "
            "write each value with ys = ys.at[i].set(v); or give the loop a static trip count "
            "(a concrete range, no break).",
        )


class inside:
    """``with inside(context):`` makes ``context`` the innermost staged statement for appends."""

    def __init__(self, context: Collector | Forbidden):
        self.context = context

    def __enter__(self):
        _stack().append(self.context)
        return self.context

    def __exit__(self, *exc_info):
        _stack().pop()
        return False


def _stack() -> list:
    if not hasattr(_state, "stack"):
        _state.stack = []
    return _state.stack


def _unstack(values: Any, length: int) -> list:
    return [jax.tree_util.tree_map(lambda a, i=i: a[i], values) for i in range(length)]

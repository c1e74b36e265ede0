"""``ys.append(v)`` inside a loop body, where ``ys`` is a list from before the loop.

Run as Python, it appends. Inside a staged loop with a static trip count, the body is traced once,
so the value is collected as a per-iteration output of ``lax.scan``; after the scan, its rows are
appended to ``ys`` (through :func:`append` again, so an enclosing staged loop collects them in
turn). The list then holds what eager Python would have built, and ``jnp.stack(ys)`` gives the same
array. Where the number of appends depends on run-time values (a traced ``while``, a traced ``if``,
a loop left early with ``break``), it is an error with a fix.

The stack of contexts kept in the trace session (:attr:`.session.TraceSession.staged`) is the
runtime's one notion of "inside staged code": every staged lowering (and every trial trace of the
static-loop policy, marked ``trial``) pushes one around the user code it traces, and the effect
checks of :mod:`.effects` read it too. A list created inside the innermost context (a helper's own
list, see :mod:`.freshness`) is private to that trace: its appends run as Python.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

import jax

from ..errors import ConversionError, Location
from .freshness import created_inside
from .session import TraceSession, current
from .values import is_array_leaf, type_string


class Staged:
    """One staged trace in progress, as the effect checks see it.

    ``trial`` marks a trace made only to decide how to run a statement (the static-loop policy's
    trial, a ``while`` test evaluated aside): an effect there makes the statement run as Python
    instead of raising. ``entered_from`` is the frame that entered the context (set by
    :class:`inside`): the frames it calls run inside the trace.
    """

    def __init__(self, construct: str, location: Location | None, trial: bool = False) -> None:
        self.construct = construct
        self.location = location
        self.trial = trial
        self.entered_from: types.FrameType | None = None
        # id of a carried value inside the trace -> (that value, the value before the statement it
        # stands for): a staged body works on copies, which an in-place update must not be fooled by.
        self.carried_from: dict[int, tuple[Any, Any]] = {}


class Collector(Staged):
    """The appends made while tracing one iteration of a staged loop body."""

    def __init__(self, construct: str = "`for` loop staged as a lax.scan", location: Location | None = None,
                 trial: bool = False) -> None:
        super().__init__(construct, location, trial)
        self.appended: list[tuple[Any, Any]] = []

    def outputs(self) -> tuple[Any, ...]:
        return tuple(value for _, value in self.appended)

    def append_rows(self, stacked: tuple[Any, ...], length: int) -> None:
        """Append, iteration by iteration, the rows of the scan's stacked outputs to their lists."""
        if not self.appended:
            return
        session = current()
        rows = [_unstack(values, length) for values in stacked]
        for iteration in range(length):
            for (target, _), target_rows in zip(self.appended, rows):
                _append(session, target, target_rows[iteration])


class Forbidden(Staged):
    """Inside a staged statement whose number of runs is only known at run time."""


StagedT = TypeVar("StagedT", bound=Staged)


def innermost() -> Staged | None:
    """The innermost staged trace in progress, or ``None`` outside staged code."""
    return _innermost(current())


def in_trial() -> bool:
    """Whether some enclosing trace is a trial, whose failure only means: run as Python."""
    return any(context.trial for context in current().staged)


def carry_entered(values: Sequence[Any], entry: Sequence[Any]) -> None:
    """Note, in the innermost staged trace, that each of ``values`` stands for its ``entry`` value."""
    context = _innermost(current())
    if context is not None:
        context.carried_from.update({id(v): (v, e) for v, e in zip(values, entry) if v is not e})


def stood_for(value: Any) -> list[Any]:
    """The values before the enclosing staged statements that ``value`` is a traced copy of, innermost first."""
    return _stood_for(current(), value)


def with_originals(value: Any) -> list[Any]:
    """``value`` and the values it is a traced copy of: the objects an identity check must compare."""
    return [value, *_stood_for(current(), value)]


def append(target: Any, value: Any) -> None:
    """``target.append(value)`` in converted code: collected, refused or run as Python (see above)."""
    _append(current(), target, value)


def _innermost(session: TraceSession) -> Staged | None:
    return session.staged[-1] if session.staged else None


def _stood_for(session: TraceSession, value: Any) -> list[Any]:
    chain = []
    for context in reversed(session.staged):
        entry = context.carried_from.get(id(value))
        if entry is not None and entry[0] is value:
            value = entry[1]
            chain.append(value)
    return chain


def _append(session: TraceSession, target: Any, value: Any) -> None:
    context = _innermost(session)
    if context is None or created_inside(target, context.entered_from):
        target.append(value)
    elif isinstance(context, Collector):
        if not all(is_array_leaf(leaf) for leaf in jax.tree_util.tree_leaves(value)):
            # A trial that meets this fails, and the loop runs as Python, which appends it as it is.
            raise ConversionError(
                f"a list built with .append(...) inside a {context.construct} gets {type_string(value)}, "
                "which a staged loop cannot return as a per-iteration output (only arrays can be stacked)",
                context.location,
                "Iterate over autograph_lite.unroll(...) to keep the loop in Python, or append arrays only.",
            )
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


class inside(Generic[StagedT]):
    """``with inside(context):`` makes ``context`` the innermost staged trace, entered from here.

    The context leaves the session's stack on the way out, whether the traced code returned or raised.
    """

    def __init__(self, context: StagedT) -> None:
        self.context = context
        self.session = current()

    def __enter__(self) -> StagedT:
        self.context.entered_from = sys._getframe(1)
        self.session.staged.append(self.context)
        return self.context

    def __exit__(self, *exc_info: object) -> None:
        self.session.staged.pop()
        self.context.entered_from = None  # no frame kept alive after the trace
        self.context.carried_from.clear()  # nor its tracers


def _unstack(values: Any, length: int) -> list[Any]:
    return [jax.tree_util.tree_map(lambda a, i=i: a[i], values) for i in range(length)]

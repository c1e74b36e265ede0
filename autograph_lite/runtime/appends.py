"""``ys.append(v)`` inside a loop body, where ``ys`` is a list from before the loop.

Run as Python, it appends. Inside a staged loop with a static trip count, the body is traced once,
so the value is collected as a per-iteration output of ``lax.scan``; after the scan, its rows are
appended to ``ys`` (through :func:`append` again, so an enclosing staged loop collects them in
turn). The list then holds what eager Python would have built, and ``jnp.stack(ys)`` gives the same
array. A list that the rewrite proved is only stacked (:mod:`.stacked_lists`) gets the scan's
stacked output as one segment instead of its rows, so ``jnp.stack(ys)`` costs nothing. Where the
number of appends depends on run-time values (a traced ``while``, a traced ``if``, a loop left early
with ``break``), it is an error with a fix.

The stack of contexts kept in the trace session (:attr:`.session.TraceSession.staged`) is the
runtime's one notion of "inside staged code": every staged lowering (and every trial trace of the
static-loop policy, marked ``trial``) pushes one around the user code it traces, and the effect
checks of :mod:`.effects` read it too. A list created inside the innermost context (a helper's own
list, see :mod:`.freshness`) is private to that trace: its appends run as Python.
"""

from __future__ import annotations

import collections
import dataclasses
import sys
import types
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

import jax
import numpy as np

from ..errors import ConversionError, Location
from .freshness import created_inside
from .session import TraceSession, current
from .stacked_lists import Segment, unstack
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
        # what this trace's code made (and not a staged statement within it): iterators from
        # ``iter()``, instances of the classes it called, ``list(...)`` / ``dict(...)`` included.
        # Advancing or changing one of them here happens once per run of this code, as eagerly.
        self.made: list[Any] = []


@dataclasses.dataclass(frozen=True)
class Appended:
    """One ``append`` collected while tracing a staged loop body.

    ``stays_stacked`` marks a list that the rewrite proved is read only through
    :func:`.stacked_lists.call`: the scan's stacked output joins it as one :class:`.Segment`.
    ``segment_rows`` is set when ``value`` is itself a segment (an inner scan's) of that many rows.
    """

    target: list[Any]
    value: Any
    stays_stacked: bool
    segment_rows: int | None


class Collector(Staged):
    """The appends made while tracing one iteration of a staged loop body."""

    def __init__(self, construct: str = "`for` loop staged as a lax.scan", location: Location | None = None,
                 trial: bool = False) -> None:
        super().__init__(construct, location, trial)
        self.appended: list[Appended] = []

    def outputs(self) -> tuple[Any, ...]:
        return tuple(entry.value for entry in self.appended)

    def append_rows(self, stacked: tuple[Any, ...], length: int) -> None:
        """Give each list what the scan stacked for it: one segment where the list stays stacked and
        this is its only append in the body, else the rows, iteration by iteration (in eager order)."""
        session = current()
        appends_per_list = collections.Counter(id(entry.target) for entry in self.appended)
        by_iteration = []
        for entry, values in zip(self.appended, stacked):
            if entry.stays_stacked and appends_per_list[id(entry.target)] == 1:
                rows = entry.segment_rows or 1
                _append(session, entry.target, _joined(values, length, rows), True, length * rows)
            else:
                by_iteration.append((entry, unstack(values, length)))
        for iteration in range(length):
            for entry, rows_of_entry in by_iteration:
                _append(session, entry.target, rows_of_entry[iteration], entry.stays_stacked, entry.segment_rows)


class Forbidden(Staged):
    """Inside a staged statement whose number of runs is only known at run time."""


class Branch(Forbidden):
    """Inside a branch of a staged ``if``: both branches are traced, whichever runs."""


class AfterTracedExit(Forbidden):
    """Inside the iterations of a loop that follow a ``break`` / ``return`` on a traced condition: each
    runs under that condition, so unrolling the loop keeps them staged."""


StagedT = TypeVar("StagedT", bound=Staged)


def innermost() -> Staged | None:
    """The innermost staged trace in progress, or ``None`` outside staged code."""
    return _innermost(current())


def in_trial() -> bool:
    """Whether some enclosing trace is a trial, whose failure only means: run as Python."""
    return any(context.trial for context in current().staged)


def fresh(container: Any) -> Any:
    """``container``, a new container stored into an attribute (``self.items = []``), noted as made by the
    innermost staged trace, as :func:`.freshness.created_inside` proves a local display made: the
    store's own check (``check_attribute_assignment``, before the store: in ``_ag.setattr``, or before
    the statement) has refused an owner the trace did not make, so only the trace's own object holds
    the new container. Only where it holds plain
    values: ``self.items = [OUTSIDE]`` then ``self.items[0] += [v]`` would change ``OUTSIDE``."""
    context = _innermost(current())
    if context is not None and _holds_plain_values(container):
        context.made.append(container)
    return container


def _holds_plain_values(container: Any) -> bool:
    if isinstance(container, np.ndarray):
        return container.dtype != object
    return all(map(_plain, container.values() if isinstance(container, dict) else container))


def _plain(value: Any) -> bool:
    """Whether nothing can change ``value`` in place: a number, a string, an array, a tuple of those."""
    if isinstance(value, tuple):
        return all(map(_plain, value))
    return isinstance(value, (int, float, complex, str, bytes, type(None), jax.Array, np.generic))


def carry_entered(values: Sequence[Any], entry: Sequence[Any]) -> None:
    """Note, in the innermost staged trace, that each of ``values`` stands for its ``entry`` value."""
    context = _innermost(current())
    if context is not None:
        context.carried_from.update({id(v): (v, e) for v, e in zip(values, entry) if v is not e})


def stood_for(value: Any) -> list[Any]:
    """The values before the enclosing staged statements that ``value`` is a traced copy of, innermost first."""
    return _stood_for(current(), value)


def copied_by(context: Staged, value: Any) -> bool:
    """Whether ``value`` is the staged trace ``context``'s own copy of a value it carries. A copy that
    an enclosing staged statement made is not: this trace's values, stored into it, would outlive the
    trace (a loop inside a traced ``if`` that updates the branch's copy of a dict it does not carry)."""
    entry = context.carried_from.get(id(value))
    return entry is not None and entry[0] is value


def with_originals(value: Any) -> list[Any]:
    """``value`` and the values it is a traced copy of: the objects an identity check must compare."""
    return [value, *_stood_for(current(), value)]


def append(target: Any, value: Any, stays_stacked: bool = False) -> None:
    """``target.append(value)`` in converted code: collected, refused or run as Python (see above).

    ``stays_stacked``: the rewrite proved that ``target`` is read only through
    :func:`.stacked_lists.call`, so a staged loop may leave its appends stacked."""
    _append(current(), target, value, stays_stacked, None)


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


def _append(session: TraceSession, target: Any, value: Any, stays_stacked: bool, segment_rows: int | None) -> None:
    """Append ``value`` (or, with ``segment_rows``, the segment of that many rows it stacks) to ``target``."""
    context = _innermost(session)
    if context is None or created_inside(target, context.entered_from):
        target.append(value if segment_rows is None else Segment(value, segment_rows))
    elif isinstance(context, Collector):
        if not all(is_array_leaf(leaf) for leaf in jax.tree_util.tree_leaves(value)):
            # A trial that meets this fails, and the loop runs as Python, which appends it as it is.
            raise ConversionError(
                f"a list built with .append(...) inside a {context.construct} gets {type_string(value)}, "
                "which a staged loop cannot return as a per-iteration output (only arrays can be stacked)",
                context.location,
                "Iterate over autograph_lite.unroll(...) to keep the loop in Python, or append arrays only.",
            )
        context.appended.append(Appended(target, value, stays_stacked, segment_rows))
    elif isinstance(context, Branch):
        raise ConversionError(
            f"a list built with .append(...) inside a {context.construct}: staged, both branches are "
            "traced, whichever runs, and a list's length cannot depend on which one does",
            context.location,
            "Where every branch appends one value, choose it in the branches and append it once after "
            "the `if` (v = a if c else b, then ys.append(v)). Where the count depends on the condition, "
            "the list's length is known at run time only: preallocate an array of the largest size and "
            "keep a count (ys = ys.at[k].set(v); k = k + 1).",
        )
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


def _joined(values: Any, length: int, rows: int) -> Any:
    """A scan's stacked output of ``length`` segments of ``rows`` rows each, as one segment."""
    if rows == 1:
        return values
    return jax.tree_util.tree_map(lambda a: a.reshape((length * rows, *a.shape[2:])), values)

"""Loops with a static trip count: what they iterate over, and whether ``"auto"`` stages them.

A ``for`` loop over a concrete ``range``, an array's leading axis, or ``enumerate`` / ``zip`` of those
can be staged as one ``lax.scan`` (compiled once, reverse-mode gradients) or run as Python (unrolled,
as plain ``jax.jit`` does). Under ``static_loops="auto"`` the body is traced once, aside, with an
abstract index: the loop is staged when that works and some carried value depends on traced data;
it stays Python when the body needs a concrete index (a list lookup, a shape) or when everything it
carries is a Python value (which staging would turn into traced values). The trial is a trace like
any other staged one, marked as a trial: an effect found in it (a container mutated, an outer
variable assigned) is refused before it happens and makes the loop run as Python, so the trial
leaves nothing behind.

The trial's decision is remembered while an enclosing loop is traced. A loop nested in another
staged loop is reached twice per trace of the outer one: in the outer loop's trial and in its real
staging, and at every level of nesting again, so the innermost body would be traced aside 2**depth
times. The decision is a function of the body's code and of what it sees: the shapes, dtypes and
traced-ness of its carried values and of the arrays it closes over, and the Python values among them
(tuples and lists by their contents, concrete arrays and the runtime's own objects by identity).
Those are summarised in a key; a body that sees anything else (a dict, an object of the user's) gets
no key and is traced aside as before.

The memory, kept in the trace session (:attr:`.session.TraceSession.trial_decisions`), lasts while
the outermost ``for`` statement runs, so one trace never reuses another's decisions (a global
changed between calls is seen again).
"""

from __future__ import annotations

import contextlib
import dataclasses
import types
from collections.abc import Callable, Hashable, Iterator
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend import core as jex_core

from ..errors import StagingTypeError
from . import appends, effects, report, traced_bodies
from .carry import PlaceholderNeeded, check_structure, with_placeholders_filled
from .carry_errors import Site
from .iteration import Enumerate, Reversed, Zip, as_python_int, python_int_counter
from .kept_containers import Fate, run_recording, shared_update, stale_read
from .locations import location_of
from .loop_counters import counter
from .narrow_numbers import cast_loses_value, shown
from .raises import PathRaises
from .session import current
from .traced_bodies import TracedBody
from .values import Split, Undefined, cell_contents_or, inside_a_trace, is_array_leaf, is_traced


@dataclasses.dataclass(frozen=True)
class StaticSequence:
    """A loop over ``length`` items; the item of counter value ``k`` is ``make_item(k, xs[k - first])``.

    ``first`` is where the counter starts: a ``range(1, n)``'s items are the counter itself, from 1, as
    a hand-written ``fori_loop(1, n)`` counts (no addition per iteration); it is 0 wherever there are
    ``xs`` to index. ``python_ints`` are the Python ints a staged item is computed from or reaches (a
    range's first and last values and its step, an enumerate's first and last counts): staged, they
    are the counter's integer type, which must hold them (:func:`_past_the_counter`).
    """

    length: int
    xs: Any  # a pytree of arrays scanned along their leading axis, or None
    make_item: Callable[[Any, Any], Any]
    uses_index: bool
    traced_data: bool
    first: int = 0
    python_ints: tuple[int, ...] = ()

    def item_counted_from_zero(self, k: Any, x: Any) -> Any:
        """The item at ``k`` of a counter that starts at 0 (an ``enumerate`` or ``zip`` around this one)."""
        return self.make_item(k + self.first if self.first else k, x)


def static_sequence(iterable: Any) -> StaticSequence | None:
    """Describe ``iterable`` when its length is static and it can be indexed by a traced counter."""
    if isinstance(iterable, range):
        start, step = iterable.start, iterable.step
        ints = (iterable[0], iterable[-1], step) if iterable else ()
        if step == 1:
            return StaticSequence(len(iterable), None, lambda k, _: counter(k, iterable), True, False, start, ints)
        return StaticSequence(len(iterable), None, lambda k, _: counter(start + k * step, iterable), True, False, 0, ints)
    if isinstance(iterable, jax.Array) and iterable.ndim >= 1:
        return StaticSequence(iterable.shape[0], iterable, lambda _, x: x, False, is_traced(iterable))
    if isinstance(iterable, Reversed) and isinstance(iterable.sequence, (range, jax.Array)):
        return static_sequence(iterable.sequence[::-1])  # a range of its own, or the array's `rev`
    if isinstance(iterable, Enumerate):
        inner = static_sequence(iterable.iterable)
        if inner is None:
            return None
        start = iterable.start

        def enumerated_item(k: Any, x: Any) -> tuple[Any, Any]:
            if not isinstance(start, int):
                return as_python_int(start + k), inner.item_counted_from_zero(k, x)
            count = counter(k if start == 0 else as_python_int(start + k), range(start, start + inner.length))
            return count, inner.item_counted_from_zero(k, x)

        counts = (start, start + inner.length - 1) if isinstance(start, int) else ()
        return StaticSequence(inner.length, inner.xs, enumerated_item, True, inner.traced_data or is_traced(start),
                              python_ints=inner.python_ints + counts)
    if isinstance(iterable, Zip):
        found = [static_sequence(i) for i in iterable.iterables]
        parts = [p for p in found if p is not None]
        if not parts or len(parts) != len(found):
            return None
        length = min(p.length for p in parts)
        xs = tuple(None if p.xs is None else jax.tree_util.tree_map(lambda a: a[:length], p.xs) for p in parts)

        def zipped_item(k: Any, x: Any) -> tuple[Any, ...]:
            return tuple(p.item_counted_from_zero(k, xi) for p, xi in zip(parts, x))

        return StaticSequence(length, xs, zipped_item, any(p.uses_index for p in parts),
                              any(p.traced_data for p in parts), python_ints=sum((p.python_ints for p in parts), ()))
    return None


class Decision(NamedTuple):
    """Why a loop runs as Python ("" to stage it); the trial's trace of its body when staging may
    replay it (:mod:`.traced_bodies`); and whether a loop with an exit must mask its iterations after
    it (:func:`.staged_loops.staged_static`): the trial saw a float or complex value among the carried
    ones, or a run-time effect in the body (``None``: no trial)."""

    reason: str
    traced_body: TracedBody | None = None
    masks_exit: bool | None = None


def why_python(sequence: StaticSequence | None, mode: str, effect: str | None, body: Callable, state: tuple,
               names: tuple[str, ...], fates: list[Fate]) -> Decision:
    """Why a loop runs as Python, or "" when it is staged (``effect``: the one the rewriter found;
    ``fates``: where the trial notes what the body did with the containers it was given)."""
    if sequence is None:
        return Decision("it iterates over a Python iterable")
    if sequence.length == 0:
        return Decision("zero iterations")
    if mode == "unroll":
        return Decision("unroll(...) or static_loops='unroll'")
    past_the_counter = _past_the_counter(sequence)
    if past_the_counter and mode == "stage":
        raise StagingTypeError(
            f"this `for` loop marked stage(...) {past_the_counter}: staged, it would wrap around",
            location_of(body),
            "Write autograph_lite.unroll(...) in place of stage(...): the loop then runs as Python, with "
            "Python ints, as eagerly.",
        )
    if past_the_counter:
        return Decision(past_the_counter)
    if mode == "stage":
        return Decision("")
    if effect:
        return Decision(f"its body {effect}")
    if sequence.length == 1:
        return Decision("one iteration")
    if not inside_a_trace():
        # Nothing can be traced: the trial could only say so, after running the body once more
        # (an effect no check sees, in a helper, would happen an extra time).
        return Decision("no JAX transformation is running")
    return _staging_pays(sequence, body, state, names, fates)


def _past_the_counter(sequence: StaticSequence) -> str:
    """Why the loop's Python ints cannot be a staged loop's index, or "": a staged index is the
    counter's integer type (int32, int64 under jax_enable_x64), where eager Python's ints do not wrap."""
    counter = jnp.iinfo(python_int_counter().dtype)
    outside = [value for value in sequence.python_ints if not counter.min <= value <= counter.max]
    if not outside:
        return ""
    return f"counts with the Python int {outside[0]}, past the {counter.dtype.name} of a staged loop's index"


def _staging_pays(sequence: StaticSequence, body: Callable, state: tuple, names: tuple[str, ...],
                  fates: list[Fate]) -> Decision:
    """Trace the body once aside, with an abstract index; stage if a carried value depends on traced data.

    Returns "" to stage, or why the loop stays Python. A nested loop is reached again in each trace
    of the loop around it: its decision is remembered for a body that sees the same things (a
    remembered decision comes without a trace to replay: it was made in another trace).
    """
    key = _key_of(body, (sequence.length, sequence.first, sequence.traced_data, sequence.xs, sequence.make_item), state)
    recalled = _recall(key)
    if recalled is not None:
        return Decision(recalled[0], None, recalled[1])
    decision = _decide(sequence, body, state, names, fates)
    _remember(key, (decision.reason, decision.masks_exit))
    return decision


def _decide(sequence: StaticSequence, body: Callable, state: tuple, names: tuple[str, ...],
            fates: list[Fate]) -> Decision:
    try:
        return with_placeholders_filled(lambda filled: _trial(sequence, body, filled, names, fates), state)
    except PlaceholderNeeded:
        return Decision("its carried values change structure")


def _trial(sequence: StaticSequence, body: Callable, state: tuple, names: tuple[str, ...], fates: list[Fate]) -> Decision:
    split = Split.of(state, names)
    item_avals = jax.tree_util.tree_map(lambda a: jax.ShapeDtypeStruct(a.shape[1:], a.dtype), sequence.xs)

    collectors: list[appends.Collector] = []

    def one_iteration(k: Any, x: Any, *arrays: Any) -> list[Any]:
        collector = appends.Collector(trial=True)
        collectors.append(collector)
        with appends.inside(collector):  # a trial: its appends are dropped, but they count as outputs
            values = split.rebuild(arrays)
            appends.carry_entered(values, state)
            try:
                returned, fate = run_recording(body, tuple(values), sequence.make_item(k, x))
                fates.append(fate)
                out = Split.of(returned, names)
            except PathRaises:  # every path through the body raises at run time: the carry stays
                out = Split.of(split.rebuild(arrays), names)
        check_structure(split, out, Site("`for` loop", location_of(body)))
        appended = [leaf for leaf in jax.tree_util.tree_leaves(collector.outputs()) if is_array_leaf(leaf)]
        return out.arrays + appended

    array_avals = [_abstract(a) for a in split.arrays]
    try:
        with report.paused():  # a trial: its decisions are dropped
            closed = jax.make_jaxpr(one_iteration)(python_int_counter(), item_avals, *array_avals)
    except PlaceholderNeeded:
        raise
    except effects.Refused as refused:
        return Decision(f"its body {refused.effect}")
    except Exception as error:
        return Decision(f"the body cannot run with a traced index or item ({type(error).__name__})")
    for name, entered, before, after in zip(split.array_names(), split.arrays, array_avals, closed.out_avals):
        changes_dtype = before.dtype != after.dtype and not before.weak_type
        if before.shape != after.shape or changes_dtype:
            return Decision(f"'{name}' changes from {_short(before)} to {_short(after)} in one iteration")
        if cast_loses_value(entered, after.dtype):  # a staged loop would enter it narrowed; at least one iteration runs
            return Decision(f"'{name}' enters as {shown(entered, after.dtype)[0]}, which the {after.dtype.name} one "
                            "iteration makes it may not hold: the first iteration computes with it as eagerly")
    reason = _independent_of_traced_data(closed, sequence, split, len(jax.tree_util.tree_leaves(item_avals)))
    reason = reason or _updates_seen_elsewhere(body, state, names, fates)
    if reason:
        return Decision(reason)
    carried = [*array_avals, *closed.out_avals[:len(split.arrays)]]
    masks_exit = bool(closed.effects) or any(jnp.issubdtype(aval.dtype, jnp.inexact) for aval in carried)
    return Decision("", traced_bodies.reusable(closed, split, state, sequence.xs, collectors[-1], fates), masks_exit)


def _independent_of_traced_data(closed: jex_core.ClosedJaxpr, sequence: StaticSequence, split: Split,
                                n_items: int) -> str:
    """"" when some carried or appended value depends on traced data, else why the loop stays Python.

    A carried value the body hands back as it got it (a traced array that an ``if`` in the body hands
    to a helper, and so carries) does not count: staging would only turn the others, Python values,
    into traced ones."""
    carried = [is_traced(a) for a in split.arrays]
    const_traced = [is_traced(c) for c in closed.consts]
    first_carried = 1 + n_items
    unchanged = [closed.jaxpr.outvars[k] is closed.jaxpr.invars[first_carried + k] for k in range(len(carried))]
    while True:
        inputs = [False] + [sequence.traced_data] * n_items + carried
        outputs = _dependence(closed.jaxpr, const_traced, inputs)  # the carried values, then the appended
        updated = [c or o for c, o in zip(carried, outputs)]
        if updated == carried:
            changed = [o and not (k < len(unchanged) and unchanged[k]) for k, o in enumerate(outputs)]
            return "" if any(changed) else "it carries and appends no value that depends on traced data"
        carried = updated


def _updates_seen_elsewhere(body: Callable, state: tuple, names: tuple[str, ...], fates: list[Fate]) -> str:
    """Why a loop whose staged body would show a list or dict it updates stale (:mod:`.kept_containers`)
    stays Python, or "": through a variable it does not carry, or through a second carried variable."""
    stale = stale_read(body, state, fates)
    if stale is not None:
        return f"its body updates a {stale[1]} that it also reads through '{stale[0]}', which it does not carry"
    shared = shared_update(state, names, fates)
    if shared is not None:
        return f"its body updates a {shared[2]} that both '{shared[0]}' and '{shared[1]}' reach"
    return ""


def _short(aval: Any) -> str:
    return f"{aval.dtype.name}{list(aval.shape)}"


def _abstract(value: Any) -> jax.ShapeDtypeStruct:
    aval = jax.typeof(value)
    return jax.ShapeDtypeStruct(aval.shape, aval.dtype, weak_type=aval.weak_type)


def _dependence(jaxpr: jex_core.Jaxpr, const_flags: list[bool], input_flags: list[bool]) -> list[bool]:
    """For each output of ``jaxpr``, whether it depends on a flagged constant or input."""
    tainted = {v for v, flag in zip(jaxpr.constvars, const_flags) if flag}
    tainted |= {v for v, flag in zip(jaxpr.invars, input_flags) if flag}
    for equation in jaxpr.eqns:
        if any(isinstance(v, jex_core.Var) and v in tainted for v in equation.invars):
            tainted.update(equation.outvars)
    return [isinstance(v, jex_core.Var) and v in tainted for v in jaxpr.outvars]


# --- remembering decisions while an enclosing loop is traced ------------------------------------

_DEPTH_LIMIT = 4  # closures of closures: deeper than this, give up (no key)
_PLAIN = (type(None), bool, int, float, complex, str, bytes)
_STABLE = (types.ModuleType, type, types.BuiltinFunctionType)
_RUNTIME = "autograph_lite.runtime"


class _NoKey(Exception):
    """The body sees something whose summary would not determine the decision."""


@contextlib.contextmanager
def remembering_trial_decisions() -> Iterator[None]:
    """Keep decisions for the duration of the outermost loop statement (nested ones share it)."""
    session = current()
    if session.trial_decisions is not None:
        yield
        return
    session.trial_decisions, session.trial_keys_alive = {}, []
    try:
        yield
    finally:
        session.trial_decisions, session.trial_keys_alive = None, []


def _recall(key: Hashable | None) -> tuple[str, bool | None] | None:
    """The decision made before for ``key`` in this statement, or ``None``."""
    decisions = current().trial_decisions
    if key is None or decisions is None:
        return None
    return decisions.get(key)


def _remember(key: Hashable | None, decision: tuple[str, bool | None]) -> None:
    """Keep ``decision`` for ``key`` until the outermost loop statement ends (nothing without a key)."""
    decisions = current().trial_decisions
    if key is not None and decisions is not None:
        decisions[key] = decision


def _key_of(body: Any, sequence: tuple[Any, ...], state: tuple[Any, ...]) -> Hashable | None:
    """A key that determines the trial's outcome, or ``None`` when there is none (or no memory).

    ``sequence`` describes what the loop iterates over (length, arrays, how items are made).
    """
    session = current()
    if session.trial_decisions is None:
        return None
    alive = session.trial_keys_alive
    try:
        return (_summary(body, 0, alive), _summary(sequence, 0, alive), _summary(state, 0, alive))
    except _NoKey:
        return None


def _summary(value: Any, depth: int, alive: list[Any]) -> Hashable:
    """``value`` as a key; ``alive`` keeps the objects whose ids the key holds while the key is in use."""
    if depth > _DEPTH_LIMIT:
        raise _NoKey
    if is_traced(value):  # only its type is known while tracing: the type is all the body can use
        aval = jax.typeof(value)
        return ("traced", aval.shape, aval.dtype, aval.weak_type)
    if isinstance(value, (jax.Array, np.ndarray)):  # a concrete array: its values may decide
        alive.append(value)  # kept alive while its id is in a key
        return ("concrete", id(value))
    if isinstance(value, np.generic):
        return (type(value), value.item())
    if isinstance(value, _PLAIN):
        return (type(value), value)
    if isinstance(value, (tuple, list)):
        return (type(value), tuple(_summary(v, depth + 1, alive) for v in value))
    if isinstance(value, Undefined):
        return ("undefined", value.name, value.placeholder)
    if isinstance(value, types.FunctionType):
        cells = tuple(_summary(cell_contents_or(c, Undefined("")), depth + 1, alive) for c in value.__closure__ or ())
        defaults = _summary(value.__defaults__ or (), depth + 1, alive)
        return ("function", value.__code__, value.__code__.co_filename, id(value.__globals__), cells, defaults)
    module = type(value).__module__
    if isinstance(value, _STABLE) or module == _RUNTIME or module.startswith(_RUNTIME + "."):
        alive.append(value)  # the runtime's own objects (the operators): the same object decides the same
        return ("object", id(value))
    raise _NoKey

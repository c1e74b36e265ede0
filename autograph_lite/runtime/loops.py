"""``while`` and ``for`` loops.

``while``: the test is evaluated on the current state; while it is concrete the loop runs as Python,
and from the first traced test on, the rest of the loop is one ``lax.while_loop``.

``for``: a ``range`` with a traced bound becomes ``lax.fori_loop`` (a ``while_loop``: forward-mode
differentiable only). A loop with a static trip count (a concrete ``range``, an array's leading axis,
``enumerate`` / ``zip`` over them) is *staged* as ``fori_loop`` / ``scan``, which compiles once and keeps
reverse-mode gradients, or *unrolled* as Python, which is what plain ``jax.jit`` does:

- ``unroll(...)`` / ``stage(...)`` around the iterable, or the function's ``static_loops`` option,
  decide explicitly;
- otherwise (``"auto"``) the body is traced once, aside, with an abstract index
  (:mod:`.static_loop_policy`). A body with visible Python side effects (a call whose result is
  dropped, a store into an outer object) is never traced aside: it stays Python, so no side effect
  runs twice.

Every trace of user code made here (a staged body, a staged test, a test evaluated aside) runs
inside an :mod:`.appends` context, so that appends are collected and effects refused there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from ..errors import ConversionError, Location
from . import appends, effects, items, report
from .carry import Carried, LoopCarry, PromotionNeeded, with_placeholders_filled
from .carry_errors import Site
from .conditionals import Branches, refuse_effect, staged_cond
from .iteration import Enumerate, LoopChoice, TracedRange, Zip
from .locations import location_of
from .promotion import reads_bools_as_numbers
from .static_loop_policy import StaticSequence, remembering_trial_decisions, static_sequence, why_python
from .values import Undefined, is_traced, to_predicate

STATIC_LOOP_MODES = ("auto", "stage", "unroll")


@dataclasses.dataclass(frozen=True)
class Loop:
    """A loop statement as converted code gives it: its body, the names it carries, and where it is.

    ``stop_test`` comes from a ``break`` or ``return`` in a ``for`` body: it reads the flags they set.
    ``effect`` describes a Python side effect the rewriter found in the body. ``assigned_first``
    names carried variables that the body assigns before reading them.
    """

    body: Callable[..., Any]
    names: tuple[str, ...]
    site: Site
    stop_test: Callable[..., Any] | None = None
    effect: str | None = None
    assigned_first: tuple[str, ...] = ()


def while_stmt(
    test: Callable[..., Any], body: Callable[..., Any], init: tuple, names: tuple[str, ...], effect: str | None = None
) -> tuple:
    """Run ``while test(*state): state = body(*state)``."""
    loop = Loop(body, tuple(names), Site("`while` loop", location_of(body)), effect=effect)
    state = tuple(init)
    python_iterations = 0
    while True:
        condition = _peek(test, state)
        if condition is _TRACED:
            break
        if not condition:
            report.record(loop.site, "Python loop", f"the test stayed concrete ({python_iterations} iterations)")
            return state
        state = tuple(body(*state))
        python_iterations += 1
    reason = "the test is traced" if not python_iterations else (
        f"the test became traced after {python_iterations} Python iterations; the rest is staged")
    refuse_effect(effect, "`while` loop with a traced test", "its body is traced once", loop.site.location)
    predicate = lambda *values: to_predicate(test(*values), "`while` loop", loop.site.location)
    result = with_placeholders_filled(lambda s: _staged_while(predicate, s, loop), state)
    report.record(loop.site, "lax.while_loop", reason, Carried(loop.names, result))
    return result


def for_stmt(
    iterable: Any,
    body: Callable,
    init: tuple,
    names: tuple[str, ...],
    static_loops: str = "auto",
    effect: str | None = None,
    stop_test: Callable | None = None,
    assigned_first: tuple[str, ...] = (),
) -> tuple:
    """Run ``for item in iterable: state = body(item, *state)``, stopping when ``stop_test`` is false.

    ``stop_test`` comes from a ``break`` or ``return`` in the body: it reads the flags they set.
    ``effect`` describes a Python side effect in the body: such a loop runs as Python when it can,
    and is never staged. ``assigned_first`` names carried variables that the body assigns before
    reading them (the loop variable, for one): with a static trip count of at least one, they may
    start a staged loop as zeros, since the first iteration overwrites them.
    """
    mode, early_exit = static_loops, False
    if isinstance(iterable, LoopChoice):
        mode, early_exit, iterable = iterable.mode, iterable.early_exit, iterable.iterable
    loop = Loop(body, tuple(names), Site("`for` loop", location_of(body)), stop_test, effect, tuple(assigned_first))
    with remembering_trial_decisions(), items.iterating(_iterated_arrays(iterable)):
        if isinstance(iterable, TracedRange):
            return _for_traced_range(iterable, tuple(init), loop, mode)
        return _for_static(iterable, tuple(init), loop, mode, early_exit)


def _iterated_arrays(iterable: Any) -> list[Any]:
    """The JAX arrays a loop iterates over (through ``enumerate`` / ``zip``)."""
    if isinstance(iterable, jax.Array):
        return [iterable]
    if isinstance(iterable, Enumerate):
        return _iterated_arrays(iterable.iterable)
    if isinstance(iterable, Zip):
        return [array for inner in iterable.iterables for array in _iterated_arrays(inner)]
    return []


def _for_traced_range(traced_range: TracedRange, state: tuple, loop: Loop, mode: str) -> tuple:
    """A ``range`` with a traced bound: always staged, as ``fori_loop`` (or ``while_loop`` with an exit)."""
    location = loop.site.location
    if mode == "unroll":
        raise ConversionError(
            "this `for` loop is marked unroll(...), but its range has a traced bound, so the "
            "number of iterations is unknown while tracing",
            location,
            "Make the bound static (static_argnums / static_argnames), or drop unroll(...).",
        )
    refuse_effect(loop.effect, "`for` loop over a range with a traced bound", "its body is traced once", location)
    result = with_placeholders_filled(lambda s: _staged_range(traced_range, s, loop), state)
    primitive = "lax.while_loop" if loop.stop_test is not None else "lax.fori_loop (a while_loop)"
    report.record(loop.site, primitive, "the range has a traced bound; forward-mode differentiation only",
                  Carried(loop.names, result))
    return result


def _for_static(iterable: Any, state: tuple, loop: Loop, mode: str, early_exit: bool) -> tuple:
    """Any other iterable: Python, or staged over a static trip count (see :mod:`.static_loop_policy`)."""
    sequence = static_sequence(iterable)
    reason = why_python(sequence, mode, loop.effect, loop.body, state, loop.names)
    if reason or sequence is None:
        report.record(loop.site, "Python loop", reason)
        return _python_for(iterable, state, loop)
    refuse_effect(loop.effect, "`for` loop marked stage(...)", "its body is traced once", loop.site.location)
    state = tuple(
        Undefined(value.name, placeholder=True) if isinstance(value, Undefined) and name in loop.assigned_first else value
        for name, value in zip(loop.names, state)
    )
    result = _staged_static(sequence, early_exit, state, loop)
    if early_exit and loop.stop_test is not None:
        primitive = "lax.while_loop (stops at the exit; forward-mode differentiation only)"
    elif loop.stop_test is not None:
        primitive = "lax.scan, iterations after an exit masked by lax.cond (reverse-mode differentiable)"
    else:
        primitive = "lax.scan"
    report.record(loop.site, primitive, f"static trip count {sequence.length}", Carried(loop.names, result))
    return result


def _staged_static(sequence: StaticSequence, early_exit: bool, state: tuple, loop: Loop) -> tuple:
    if early_exit and loop.stop_test is not None:
        count = _Count(0, sequence.length, lambda k: sequence.make_item(k, _row(sequence.xs, k)))
        run = lambda s: _staged_counted_while(count, s, loop)
    else:
        run = lambda s: _staged_sequence(sequence, s, loop)
    return with_placeholders_filled(run, state)


def _python_for(iterable: Any, state: tuple, loop: Loop) -> tuple:
    for item in iterable:
        if loop.stop_test is None:
            state = tuple(loop.body(item, *state))
            continue
        keep_going = loop.stop_test(*state)
        if not is_traced(keep_going):
            if not keep_going:
                break
            state = tuple(loop.body(item, *state))
        else:
            state = _run_if(keep_going, item, state, loop)
    return state


def _masked(loop: Loop) -> Callable[..., tuple]:
    """The body of a staged loop with a static trip count: iterations after an exit leave the state as is."""
    stop_test = loop.stop_test
    if stop_test is None:
        return loop.body

    def step(item: Any, *values: Any) -> tuple:
        keep_going = stop_test(*values)
        if not is_traced(keep_going):
            return tuple(loop.body(item, *values)) if keep_going else values
        return _run_if(keep_going, item, values, loop)

    return step


def _run_if(keep_going: Any, item: Any, values: tuple, loop: Loop) -> tuple:
    predicate = to_predicate(keep_going, "`for` loop", loop.site.location)
    branches = Branches(lambda: tuple(loop.body(item, *values)), lambda: tuple(values))
    return staged_cond(predicate, branches, loop.names,
                       Site("`for` loop's per-iteration exit check", loop.site.location))


def _row(xs: Any, k: Any) -> Any:
    return None if xs is None else jax.tree_util.tree_map(lambda a: a[k], xs)


# --- staged lowerings ----------------------------------------------------------------------------


def _staged_sequence(sequence: StaticSequence, state: tuple, loop: Loop) -> tuple:
    """One ``lax.scan`` over the sequence (with the counter in the carry when the items need it, which
    is the jaxpr ``fori_loop`` gives for static bounds); values appended to outer lists become its
    per-iteration outputs."""
    carry = LoopCarry(state, loop.names, loop.site)
    step = _masked(loop)
    collectors: list[appends.Collector] = []  # one per trace of the body; the last one is the scan's

    def scan_step(counter_and_arrays: tuple[Any, list[Any]], x: Any) -> tuple[tuple[Any, list[Any]], tuple]:
        k, arrays = counter_and_arrays
        with appends.inside(appends.Collector(location=loop.site.location)) as collector:
            new_arrays = _run_body(lambda *v: step(sequence.make_item(k, x), *v), arrays, carry)
        collectors.append(collector)
        return (None if k is None else k + 1, new_arrays), collector.outputs()

    counter = jnp.int32(0) if sequence.uses_index else None
    try:
        (_, arrays), outputs = lax.scan(scan_step, (counter, carry.split.arrays), sequence.xs, length=sequence.length)
    except TypeError as error:
        raise carry.translated(error)  # noqa: B904 (it sets the cause)
    collectors[-1].append_rows(outputs, sequence.length)
    return carry.split.rebuild(arrays)


@dataclasses.dataclass(frozen=True)
class _Count:
    """The counter of a counted loop: from ``lower`` to ``upper``; ``item_of(i)`` is the body's item."""

    lower: Any
    upper: Any
    item_of: Callable[[Any], Any]


def _staged_range(traced_range: TracedRange, state: tuple, loop: Loop) -> tuple:
    start, stop, step = traced_range.start, traced_range.stop, traced_range.step
    if not is_traced(step) and step == 1:
        count = _Count(start, stop, lambda i: i)
    else:
        count = _Count(0, traced_range.trip_count(), lambda k: start + k * step)
    if loop.stop_test is not None:
        return _staged_counted_while(count, state, loop)
    carry = LoopCarry(state, loop.names, loop.site)

    def loop_body(i: Any, arrays: list[Any]) -> list[Any]:
        with appends.inside(appends.Forbidden("`for` loop whose range has a traced bound", loop.site.location)):
            return _run_body(lambda *v: loop.body(count.item_of(i), *v), arrays, carry)

    try:
        arrays = lax.fori_loop(count.lower, count.upper, loop_body, carry.split.arrays)
    except TypeError as error:
        raise carry.translated(error)  # noqa: B904 (it sets the cause)
    return carry.split.rebuild(arrays)


def _staged_counted_while(count: _Count, state: tuple, loop: Loop) -> tuple:
    """A counted loop that also stops when ``stop_test`` turns false: ``lax.while_loop`` (forward-mode only)."""
    carry = LoopCarry(state, loop.names, loop.site)
    construct, location, stop_test = "`for` loop that can stop early (break or return)", loop.site.location, loop.stop_test
    assert stop_test is not None  # a counted loop stops early only through its break / return flags

    def keep_going(counter_and_arrays: tuple[Any, list[Any]]) -> Any:
        i, arrays = counter_and_arrays
        more = _forbid_appends(construct, location, stop_test, *carry.split.rebuild(arrays))
        return jnp.logical_and(i < count.upper, to_predicate(more, "`for` loop", location))

    def step(counter_and_arrays: tuple[Any, list[Any]]) -> tuple[Any, list[Any]]:
        i, arrays = counter_and_arrays
        with appends.inside(appends.Forbidden(construct, location)):
            return i + 1, _run_body(lambda *v: loop.body(count.item_of(i), *v), arrays, carry, stop_test)

    try:
        _, arrays = lax.while_loop(keep_going, step, (jnp.asarray(count.lower), carry.split.arrays))
    except TypeError as error:
        raise carry.translated(error)  # noqa: B904 (it sets the cause)
    return carry.split.rebuild(arrays)


def _staged_while(predicate: Callable[..., Any], state: tuple, loop: Loop) -> tuple:
    carry = LoopCarry(state, loop.names, loop.site)
    construct, location = loop.site.construct, loop.site.location
    try:
        arrays = lax.while_loop(
            lambda arrays: _forbid_appends(construct, location, predicate, *carry.split.rebuild(arrays)),
            lambda arrays: _forbid_appends(construct, location, _run_body, loop.body, arrays, carry, predicate),
            carry.split.arrays,
        )
    except TypeError as error:
        raise carry.translated(error)  # noqa: B904 (it sets the cause)
    return carry.split.rebuild(arrays)


def _forbid_appends(construct: str, location: Location, function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` traced inside a staged statement whose number of runs is known at run time only."""
    with appends.inside(appends.Forbidden(construct, location)):
        return function(*args)


def _run_body(body: Callable[..., Any], arrays: Sequence[Any], carry: LoopCarry,
              test: Callable[..., Any] | None = None) -> list[Any]:
    """One trace of a staged loop body on the carried ``arrays``, its result checked against the entry state.

    A carried bool that the body turns into a number starts as that number only where the first
    iteration (the body, and the loop's ``test`` if it has one) reads it as one (:mod:`.promotion`).
    """
    values = carry.split.rebuild(arrays)
    appends.carry_entered(values, carry.entry)
    returned = body(*values)
    try:
        return carry.arrays_after(returned)
    except PromotionNeeded as needed:
        readers = (body,) if test is None else (body, test)
        if reads_bools_as_numbers(readers, carry.entry, carry.split, needed.slots):
            raise
        raise needed.refusal from None


# --- evaluating a loop test aside ----------------------------------------------------------------

_TRACED = object()


def _peek(test: Callable, state: tuple) -> Any:
    """Evaluate ``test(*state)``: its Python value if concrete, else ``_TRACED``.

    A test that may be traced is evaluated in a throwaway trace, so that nothing is added to the
    caller's program that ``lax.while_loop`` would compute again. That trace is a trial: an effect in
    the test (``stack.pop()``) is refused there before it happens (what it stored would belong to the
    throwaway trace), and the test is evaluated once more, as Python evaluates it; if its value then
    turns out traced, staging the loop refuses the effect.
    """
    if not any(is_traced(leaf) for leaf in jax.tree_util.tree_leaves(state)) and not _closes_over_tracers(test):
        return _concrete_or_traced(test(*state))
    seen: list[Any] = []

    def probe() -> tuple[()]:
        with appends.inside(appends.Forbidden("`while` loop's test", location_of(test), trial=True)):
            seen.append(_concrete_or_traced(test(*state)))
        return ()

    try:
        jax.make_jaxpr(probe)()
    except effects.Refused:
        return _concrete_or_traced(test(*state))
    return seen[0]


def _concrete_or_traced(value: Any) -> Any:
    return _TRACED if is_traced(value) else value


def _closes_over_tracers(function: Callable) -> bool:
    cells = getattr(function, "__closure__", None) or ()
    for cell in cells:
        try:
            contents = cell.cell_contents
        except ValueError:
            continue
        if is_traced(contents):
            return True
    return False

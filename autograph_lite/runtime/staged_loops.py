"""The staged lowerings of a loop: one ``lax.scan``, ``fori_loop`` or ``while_loop`` per loop statement.

:mod:`.loops` decides whether a loop runs as Python or is staged; this module builds the staged form.
Every trace of a body is checked against the loop's carry (:class:`.carry.LoopCarry`): the same
structure and types, a placeholder that the body assigns filled, a bool the body turns into a number
promoted where the first iteration reads it as one (:mod:`.promotion`). A loop with a ``break`` or
``return`` and a static trip count is a ``scan`` whose iterations after the exit are masked by a
``lax.cond`` (reverse-mode differentiable), or a ``while_loop`` that stops there when asked to.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from ..errors import Location
from . import appends, paths
from .carry import LoopCarry, PromotionNeeded, with_placeholders_filled
from .carry_errors import Site
from .conditionals import EXIT_CHECK, Branches, staged_cond
from .iteration import TracedRange, as_python_int
from .kept_containers import Fate, run_recording
from .locations import presenting
from .promotion import reads_bools_as_numbers
from .raises import PathRaises, python_errors_at_run_time
from .static_loop_policy import StaticSequence
from .traced_bodies import TracedBody
from .values import is_traced, to_predicate


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
    # What each traced run of the body did with the lists and dicts it was given (kept_containers).
    fates: list[Fate] = dataclasses.field(default_factory=list, compare=False)


def staged_static(sequence: StaticSequence, early_exit: bool, state: tuple, loop: Loop,
                  traced_body: TracedBody | None = None, masks_exit: bool | None = None) -> tuple:
    """The loop over a static sequence, staged; ``traced_body`` is the trial's trace of one iteration
    when it is the program staging would trace (:mod:`.traced_bodies`): the scan binds its equations
    again instead of tracing the body a second time.

    A loop with an exit stops there (``lax.while_loop``) when asked to, or when the static-loop
    trial found nothing that needs its iterations masked (``masks_exit`` is False; ``None``: no trial,
    and the exit is masked). A ``lax.while_loop`` is not reverse-mode differentiable, but a loop that
    carries no float or complex value never needs to be: JAX gives integers no tangent, so ``grad``
    goes around it (what it computes reaches a gradient only as an index or a choice), unless its body
    has a run-time effect (a staged ``print``, a check that raises), which keeps the loop inside
    reverse-mode differentiation, where JAX refuses it."""
    if loop.stop_test is not None and (early_exit or masks_exit is False):
        return _stopping_at_exit(sequence, state, loop, traced_body)
    if traced_body is not None and loop.stop_test is None:
        return traced_body.staged(sequence.length, sequence.xs, sequence.uses_index, sequence.first)
    elif traced_body is not None and not traced_body.appended:
        return _staged_sequence(*_replaying(sequence, loop, traced_body))
    else:
        run = lambda s: _staged_sequence(sequence, s, loop)
    return with_placeholders_filled(run, state)


def _stopping_at_exit(sequence: StaticSequence, state: tuple, loop: Loop, traced_body: TracedBody | None) -> tuple:
    """A ``lax.while_loop`` that stops at the exit, replaying the trial's trace when there is one."""
    if traced_body is not None and not traced_body.appended:
        sequence, state, loop = _replaying(sequence, loop, traced_body)
    count = _Count(sequence.first, sequence.first + sequence.length, lambda k: sequence.make_item(k, _row(sequence.xs, k)))
    return with_placeholders_filled(lambda entry: _staged_counted_while(count, entry, loop), state)


def _replaying(sequence: StaticSequence, loop: Loop, traced_body: TracedBody) -> tuple[StaticSequence, tuple, Loop]:
    """A loop with an exit, masked as usual, whose iteration is the trial's trace: its item is the
    pair (index, row) that the trace reads, and the counter is carried only if the trace reads it."""
    def replayed(index_and_row: tuple[Any, Any], *values: Any) -> tuple:
        return traced_body.iterate(*index_and_row, values)

    replay = dataclasses.replace(sequence, make_item=lambda k, x: (k, x),
                                 uses_index=sequence.uses_index and traced_body.reads_index)
    return replay, traced_body.entry(), dataclasses.replace(loop, body=presenting(replayed, loop.body))


def _masked(loop: Loop, carry: LoopCarry) -> Callable[..., tuple]:
    """The body of a staged loop with a static trip count: iterations after an exit leave the state as is."""
    stop_test = loop.stop_test
    if stop_test is None:
        return loop.body

    def step(item: Any, *values: Any) -> tuple:
        keep_going = stop_test(*values)
        if not is_traced(keep_going):
            return tuple(loop.body(item, *values)) if keep_going else values
        return run_if(keep_going, item, values, loop, carry)

    return step


def run_if(keep_going: Any, item: Any, values: tuple, loop: Loop, carry: LoopCarry | None = None) -> tuple:
    """One iteration, or none once the loop has exited (a traced exit flag). In a staged loop, the
    iteration is checked against the ``carry`` before ``lax.cond`` compares it with the state left as
    is, so that a bool the body turns into a number promotes the carry (the loop is traced again)
    instead of failing as a branch mismatch. A Python loop has no carry: its state may change type
    from one iteration to the next, but not between the two branches of this ``lax.cond``."""
    predicate = to_predicate(keep_going, "`for` loop", loop.site.location)

    def iteration(*current: Any) -> tuple:
        returned = tuple(loop.body(item, *current))
        if carry is not None:
            _checked_arrays(returned, carry, (lambda *v: loop.body(item, *v),))
        return returned

    # the state as operands: each branch runs on copies of its containers, and the one the iteration
    # updates in place is written back into the state's after the cond (as a staged `if` does)
    branches = Branches(iteration, lambda *current: tuple(current), tuple(values))
    return staged_cond(predicate, branches, loop.names,
                       Site(EXIT_CHECK, loop.site.location, after_exit=("true", "`break` / `return`")))


def _row(xs: Any, k: Any) -> Any:
    return None if xs is None else jax.tree_util.tree_map(lambda a: a[k], xs)


# --- staged lowerings ----------------------------------------------------------------------------


def _staged_sequence(sequence: StaticSequence, state: tuple, loop: Loop) -> tuple:
    """One ``lax.scan`` over the sequence (with the counter in the carry when the items need it, which
    is the jaxpr ``fori_loop`` gives for static bounds); values appended to outer lists become its
    per-iteration outputs."""
    carry = LoopCarry(state, loop.names, loop.site, loop.fates)
    step = _masked(loop, carry)
    collectors: list[appends.Collector] = []  # one per trace of the body; the last one is the scan's

    def scan_step(counter_and_arrays: tuple[Any, list[Any]], x: Any) -> tuple[tuple[Any, list[Any]], tuple]:
        k, arrays = counter_and_arrays
        with appends.inside(appends.Collector(location=loop.site.location)) as collector:
            new_arrays = _run_body(lambda *v: step(sequence.make_item(k, x), *v), arrays, carry)
        collectors.append(collector)
        return (None if k is None else k + 1, new_arrays), collector.outputs()

    counter = jnp.asarray(sequence.first) if sequence.uses_index else None  # a Python int's type: weakly typed
    try:
        (_, arrays), outputs = lax.scan(presenting(scan_step, loop.body), (counter, carry.split.arrays), sequence.xs,
                                        length=sequence.length)
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


def staged_range(traced_range: TracedRange, state: tuple, loop: Loop) -> tuple:
    start, stop, step = traced_range.start, traced_range.stop, traced_range.step
    if not is_traced(step) and step == 1:
        count = _Count(start, stop, as_python_int)
    else:
        count = _Count(0, traced_range.trip_count(), lambda k: as_python_int(start + k * step))
    if loop.stop_test is not None:
        return _staged_counted_while(count, state, loop)
    carry = LoopCarry(state, loop.names, loop.site.with_traced_trip_count(), loop.fates)

    def loop_body(i: Any, arrays: list[Any]) -> list[Any]:
        with appends.inside(appends.Forbidden("`for` loop whose range has a traced bound", loop.site.location)):
            return _run_body(lambda *v: loop.body(count.item_of(i), *v), arrays, carry, runs=lambda: i < count.upper)

    try:
        arrays = lax.fori_loop(count.lower, count.upper, presenting(loop_body, loop.body), carry.split.arrays)
    except TypeError as error:
        raise carry.translated(error)  # noqa: B904 (it sets the cause)
    return carry.split.rebuild(arrays)


def _staged_counted_while(count: _Count, state: tuple, loop: Loop) -> tuple:
    """A counted loop that also stops when ``stop_test`` turns false: ``lax.while_loop`` (forward-mode only)."""
    carry = LoopCarry(state, loop.names, loop.site.with_traced_trip_count(), loop.fates)
    construct, location, stop_test = "`for` loop that can stop early (break or return)", loop.site.location, loop.stop_test
    assert stop_test is not None  # a counted loop stops early only through its break / return flags

    def keep_going(counter_and_arrays: tuple[Any, list[Any]]) -> Any:
        i, arrays = counter_and_arrays
        more = _forbid_appends(construct, location, stop_test, *carry.split.rebuild(arrays))
        return jnp.logical_and(i < count.upper, to_predicate(more, "`for` loop", location))

    def step(counter_and_arrays: tuple[Any, list[Any]]) -> tuple[Any, list[Any]]:
        i, arrays = counter_and_arrays
        with appends.inside(appends.AfterTracedExit(construct, location)):
            return i + 1, _run_body(lambda *v: loop.body(count.item_of(i), *v), arrays, carry, stop_test,
                                    runs=lambda: keep_going((i, arrays)))

    try:
        _, arrays = lax.while_loop(presenting(keep_going, stop_test), presenting(step, loop.body),
                                   (jnp.asarray(count.lower), carry.split.arrays))
    except TypeError as error:
        raise carry.translated(error)  # noqa: B904 (it sets the cause)
    return carry.split.rebuild(arrays)


def staged_while(predicate: Callable[..., Any], state: tuple, loop: Loop) -> tuple:
    """The ``while`` loop from ``state`` on, as one ``lax.while_loop`` whose ``cond_fun`` is the test; a test
    that stages a print or a run-time check is evaluated in the body instead (:func:`_testing_in_body`)."""
    carry = LoopCarry(state, loop.names, loop.site.with_traced_trip_count(), loop.fates)
    construct, location = loop.site.construct, loop.site.location

    def test(arrays: list[Any]) -> Any:
        with paths.noticing_callbacks() as noticed:
            holds = _forbid_appends(construct, location, predicate, *carry.split.rebuild(arrays))
        if noticed:
            raise _TestStagesCallbacks
        return holds

    try:
        try:
            arrays = lax.while_loop(
                presenting(test, predicate),
                presenting(lambda arrays: _forbid_appends(construct, location, _run_body, loop.body, arrays, carry,
                                                          predicate, lambda: predicate(*carry.split.rebuild(arrays))),
                           loop.body),
                carry.split.arrays,
            )
        except _TestStagesCallbacks:
            arrays = _testing_in_body(predicate, carry, loop)
    except TypeError as error:
        raise carry.translated(error)  # noqa: B904 (it sets the cause)
    return carry.split.rebuild(arrays)


class _TestStagesCallbacks(Exception):
    """The trace of a ``while`` test staged a host callback (a ``print``, a run-time check)."""


def _testing_in_body(predicate: Callable[..., Any], carry: LoopCarry, loop: Loop) -> list[Any]:
    """``while test: body`` as ``while going: going = test; if going: body``, for a test that stages a
    host callback. Under ``vmap`` with a test that differs between examples, JAX runs a ``while_loop``
    until every example's test fails and keeps each finished example's state, but not where
    ``cond_fun`` has an ordered effect: there every example ran as often as the longest one (and a
    check in the test failed for an example past its end, where eager stops). Here ``cond_fun`` reads
    a carried flag only, and the test's callbacks run, per example, only while it is going: in eager's
    order (test, body, test, ...), at the cost of one more iteration that evaluates the test only."""
    construct, location = loop.site.construct, loop.site.location

    def iteration(carried: tuple[list[Any], Any]) -> tuple[list[Any], Any]:
        arrays, going = carried
        with paths.runs_when(lambda: going):
            holds = _forbid_appends(construct, location, predicate, *carry.split.rebuild(arrays))
        runs = lambda: jnp.logical_and(going, holds)
        weak_in, weak_out = [_weak(value) for value in arrays], list[bool]()

        def ran(entered: list[Any]) -> list[Any]:
            out = _forbid_appends(construct, location, _run_body, loop.body, entered, carry, predicate, runs)
            weak_out.extend(_weak(value) for value in out)
            return out

        arrays = lax.cond(holds, ran, list, arrays)
        # lax.cond keeps a value weakly typed where one branch does (here the one that does not run the
        # body): strongly typed where the body made it so, lax.while_loop widens its entry, as it does for
        # a test with no callback (v = 0.5 entering, then v += x_f32: eager's float32 is strong).
        return [lax.convert_element_type(value, value.dtype) if was_weak and not weak else value
                for value, was_weak, weak in zip(arrays, weak_in, weak_out)], holds

    arrays, _ = lax.while_loop(lambda carried: carried[1], presenting(iteration, loop.body),
                               (carry.split.arrays, jnp.asarray(True)))
    return arrays


def _weak(value: Any) -> bool:
    return bool(getattr(value, "weak_type", False))


def _forbid_appends(construct: str, location: Location, function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` traced inside a staged statement whose number of runs is known at run time only."""
    with appends.inside(appends.Forbidden(construct, location)):
        return function(*args)


def _run_body(body: Callable[..., Any], arrays: Sequence[Any], carry: LoopCarry,
              test: Callable[..., Any] | None = None, runs: Callable[[], Any] | None = None) -> list[Any]:
    """One trace of a staged loop body on the carried ``arrays``, its result checked against the entry state.

    A carried bool that the body turns into a number starts as that number only where the first
    iteration (the body, and the loop's ``test`` if it has one) reads it as one (:mod:`.promotion`).
    ``runs`` tells when an iteration runs, for run-time checks in the body (a while loop's test); a body
    that raises at run time leaves the carry as it is: the program stops at the check. An error of
    Python's that the trace raises is such a check (a loop that runs zero times never raises it).
    """
    values = carry.split.rebuild(arrays)
    appends.carry_entered(values, carry.entry)
    try:
        with paths.runs_when(runs or (lambda: True)), python_errors_at_run_time(None):  # the user's frame locates it
            returned, fate = run_recording(body, tuple(values))
    except PathRaises:
        return list(arrays)
    carry.fates.append(fate)
    return _checked_arrays(returned, carry, (body,) if test is None else (body, test), arrays)


def _checked_arrays(returned: Any, carry: LoopCarry, readers: tuple[Callable[..., Any], ...],
                    given: Sequence[Any] | None = None) -> list[Any]:
    """The array leaves of what one iteration returned, checked against the carry (``given``: the
    iteration's inputs, see :meth:`.carry.LoopCarry.arrays_after`). A carried bool turned number is
    promoted (:class:`PromotionNeeded`) only where the first iteration, traced by ``readers``, reads it
    as a number; otherwise the dtype change is refused."""
    try:
        return carry.arrays_after(returned, given)
    except PromotionNeeded as needed:
        if reads_bools_as_numbers(readers, carry.entry, carry.split, needed.slots):
            raise
        raise needed.refusal from None

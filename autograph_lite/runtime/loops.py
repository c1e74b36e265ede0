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

import itertools
import operator
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from ..errors import ConversionError, StagingTypeError, TracedPredicateError
from . import appends, effects, first_iteration, items, report
from .carry import Carried
from .carry_errors import Site
from .conditionals import refuse_effect
from .first_iteration import sees_traced_values, without_cell_writes
from .iteration import Enumerate, LoopChoice, OpenIterator, TracedRange, Zip, draws_privately
from .kept_containers import kept_in_place, refuse_shared_updates, refuse_stale_reads
from .locations import location_of
from .raises import AssignedIfRan
from .staged_loops import Loop, run_if, staged_range, staged_static, staged_while
from .static_loop_policy import remembering_trial_decisions, static_sequence, why_python
from .unbound_loops import with_assigned_if_ran
from .values import Undefined, is_traced, to_predicate

STATIC_LOOP_MODES = ("auto", "stage", "unroll")


def while_stmt(
    test: Callable[..., Any], body: Callable[..., Any], init: tuple, names: tuple[str, ...], effect: str | None = None
) -> tuple:
    """Run ``while test(*state): state = body(*state)``."""
    loop = Loop(body, tuple(names), Site("`while` loop", location_of(body)), effect=effect)
    state = tuple(init)
    python_iterations = 0
    reason = "the test is traced"
    while True:
        condition, output_aside = _peek(test, state)
        if condition is _TRACED:
            break
        aside = None if python_iterations or not condition else first_iteration.traced_aside(
            test, body, state, loop.names, loop.site, effect)
        if aside is not None and aside.stage_from_start:
            reason = ("the test is concrete on entry and traced after one iteration (a trial trace); "
                      "staged from the start")
            break
        if output_aside:
            test(*state)  # what it staged in the throwaway trace (a print), staged here: before the iteration's
        if not condition:
            report.record(loop.site, "Python loop", f"the test stayed concrete ({python_iterations} iterations)")
            return state
        state = aside.replay() if aside is not None else tuple(body(*state))
        python_iterations += 1
    if python_iterations:
        reason = f"the test became traced after {python_iterations} Python iterations; the rest is staged"
    refuse_effect(effect, "`while` loop with a traced test", "its body is traced once", loop.site.location)
    test_aside = without_cell_writes(test)
    predicate = lambda *values: to_predicate(test_aside(*values), "`while` loop", loop.site.location)
    result = _kept_in_place(state, with_assigned_if_ran(lambda s: staged_while(predicate, s, loop), state), loop)
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
    stop_test = None if stop_test is None else without_cell_writes(stop_test)
    loop = Loop(body, tuple(names), Site("`for` loop", location_of(body)), stop_test, effect, tuple(assigned_first))
    effects.check_advance(iterable, "a `for` loop")  # an iterator from outside, drawn inside staged code
    with remembering_trial_decisions(), items.iterating(_iterated_arrays(iterable)):
        if isinstance(iterable, TracedRange):
            return _for_traced_range(iterable, tuple(init), loop, mode)
        if isinstance(iterable, OpenIterator) and iterable.started:
            return _python_for(iterable, tuple(init), loop)  # on from where it is, as Python goes on
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
    # Names the body assigns first, unbound before the loop and read after it: bound only if it ran.
    unbound = {index for index, (name, value) in enumerate(zip(loop.names, state))
               if name in loop.assigned_first and isinstance(value, Undefined) and loop.stop_test is None}
    state = tuple(Undefined(value.name, placeholder=True) if index in unbound else value
                  for index, value in enumerate(state))
    # Others (with an exit, or assigned on some paths): whether an iteration assigned them is carried.
    result = _kept_in_place(state, with_assigned_if_ran(lambda s: staged_range(traced_range, s, loop), state), loop)
    primitive = "lax.while_loop" if loop.stop_test is not None else "lax.fori_loop (a while_loop)"
    report.record(loop.site, primitive, "the range has a traced bound; forward-mode differentiation only",
                  Carried(loop.names, result))
    if not unbound:
        return result
    ran = (traced_range.trip_count() > 0).astype(jnp.bool_)  # strongly typed, as a later assignment's flag
    return tuple(AssignedIfRan(name, value, ran) if index in unbound else value
                 for index, (name, value) in enumerate(zip(loop.names, result)))


def _for_static(iterable: Any, state: tuple, loop: Loop, mode: str, early_exit: bool) -> tuple:
    """Any other iterable: Python, or staged over a static trip count (see :mod:`.static_loop_policy`)."""
    sequence = static_sequence(iterable)
    # A staged loop starts the names its body assigns first as placeholders; the trial starts there too.
    staged_state = tuple(
        Undefined(value.name, placeholder=True) if isinstance(value, Undefined) and name in loop.assigned_first else value
        for name, value in zip(loop.names, state)
    )
    decision = why_python(sequence, mode, loop.effect, loop.body, staged_state, loop.names, loop.fates)
    if decision.reason or sequence is None:
        report.record(loop.site, "Python loop", decision.reason)
        return _python_for(iterable, state, loop)
    refuse_effect(loop.effect, "`for` loop marked stage(...)", "its body is traced once", loop.site.location)
    result = staged_static(sequence, early_exit, staged_state, loop, decision.traced_body, decision.masks_exit)
    result = _kept_in_place(staged_state, result, loop)
    if isinstance(iterable, OpenIterator):
        iterable.drawn_by_staged_loop(None if loop.stop_test is None else loop.site.location)
    if early_exit and loop.stop_test is not None:
        primitive = "lax.while_loop (stops at the exit; forward-mode differentiation only)"
    elif loop.stop_test is not None and decision.masks_exit is False:
        primitive = "lax.while_loop (stops at the exit; it carries no float, so no gradient flows through it)"
    elif loop.stop_test is not None:
        primitive = "lax.scan, iterations after an exit masked by lax.cond (reverse-mode differentiable)"
    else:
        primitive = "lax.scan"
    report.record(loop.site, primitive, f"static trip count {sequence.length}", Carried(loop.names, result))
    return result


def _kept_in_place(entry: tuple, result: tuple, loop: Loop) -> tuple:
    """A staged loop's ``result`` with the lists and dicts its body updated in place written into the
    ``entry`` objects (:mod:`.kept_containers`), once no variable it does not carry can show them stale."""
    refuse_stale_reads(loop.body, entry, loop.fates, loop.site.construct, loop.site.location)
    refuse_shared_updates(entry, loop.names, loop.fates, loop.site.construct, loop.site.location)
    return kept_in_place(entry, result, loop.fates, same_place=True)


def _python_for(iterable: Any, state: tuple, loop: Loop) -> tuple:
    """The loop as Python runs it: the stop test (the exit flags) before each draw, so that no item is
    drawn past an exit. After a traced exit every item is drawn, each iteration under its condition,
    which only an iterable :func:`.iteration.draws_privately` allows."""
    iterator = iter(iterable)
    traced_exit = False
    while True:
        keep_going = True if loop.stop_test is None else loop.stop_test(*state)
        if is_traced(keep_going):
            if not traced_exit:
                _refuse_drawing_on(iterable, loop)
            traced_exit = True
        elif not keep_going:
            break
        try:
            item = next(iterator)
        except StopIteration:
            break
        state = run_if(keep_going, item, state, loop) if traced_exit else tuple(loop.body(item, *state))
    if traced_exit and isinstance(iterable, OpenIterator):
        iterable.drawn_by_staged_loop(loop.site.location)
    return state


def _refuse_drawing_on(iterable: Any, loop: Loop) -> None:
    """Past a traced exit the loop draws every item: refused for an endless iterator, and for one whose
    draws someone may see (:func:`.iteration.draws_privately`)."""
    if _endless(iterable):
        raise StagingTypeError(
            f"this `for` loop over an endless iterator ({type(iterable).__name__}) stops at a `break` or "
            "`return` whose condition is traced: each iteration would be traced, without end",
            loop.site.location,
            "Write it as a `while True:` loop with the same exit, counting the iterations yourself "
            "(`i = 0` before it, `i = i + 1` in it): a traced `while` becomes one lax.while_loop.",
        )
    if not draws_privately(iterable):
        raise TracedPredicateError(
            f"this `for` loop draws from a {type(iterable).__name__} and stops at a `break` or `return` whose "
            "condition is traced: eager Python draws no item past the exit, which is known only when the program "
            "runs, and drawing on would take items from whoever else holds the iterator, or run its code (a "
            "generator's, a map's function) past that point",
            loop.site.location,
            "Loop over a list of the items instead (items = list(...) before the loop: it draws them all), or an "
            "array, indexing it with a counter to read what follows the exit; or make the exit's condition "
            "concrete.",
        )


def _endless(iterable: Any) -> bool:
    """An iterator that never runs out: ``itertools.count``, ``cycle``, and ``repeat`` without a count."""
    if isinstance(iterable, itertools.repeat):
        return operator.length_hint(iterable, -1) == -1
    return isinstance(iterable, (itertools.count, itertools.cycle))


# --- evaluating a loop test aside ----------------------------------------------------------------

_TRACED = object()


def _peek(test: Callable, state: tuple) -> tuple[Any, bool]:
    """Evaluate ``test(*state)``: its Python value if concrete, else ``_TRACED``; and whether what it
    staged (a print, a check) was staged in a throwaway trace, where it would never run.

    A test that may be traced is evaluated in a throwaway trace, so that nothing is added to the
    caller's program that ``lax.while_loop`` would compute again. That trace is a trial: an effect in
    the test (``stack.pop()``) is refused there before it happens (what it stored would belong to the
    throwaway trace), and the test is evaluated once more, as Python evaluates it; if its value then
    turns out traced, staging the loop refuses the effect. A concrete test that staged something
    there is evaluated again by the caller unless the loop is then staged from the start (whose
    ``lax.while_loop`` evaluates it again).
    """
    if not sees_traced_values(state, test):
        return _concrete_or_traced(test(*state)), False
    seen: list[Any] = []

    def probe() -> tuple[()]:
        with appends.inside(appends.Forbidden("`while` loop's test", location_of(test), trial=True)):
            seen.append(_concrete_or_traced(test(*state)))
        return ()

    try:
        staged = jax.make_jaxpr(probe)()
    except effects.Refused:
        return _concrete_or_traced(test(*state)), False
    return seen[0], bool(staged.effects) and seen[0] is not _TRACED


def _concrete_or_traced(value: Any) -> Any:
    return _TRACED if is_traced(value) else value

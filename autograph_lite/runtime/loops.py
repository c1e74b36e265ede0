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

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from ..errors import ConversionError
from . import appends, effects, items, report, trial_cache
from .conditionals import refuse_effect, staged_cond
from .iteration import Enumerate, LoopChoice, TracedRange, Zip
from .locations import location_of
from .loop_carry import check_structure, translated, with_placeholders_filled
from .static_loop_policy import StaticSequence, static_sequence, why_python
from .values import Split, Undefined, is_traced, to_predicate

STATIC_LOOP_MODES = ("auto", "stage", "unroll")


def while_stmt(test: Callable, body: Callable, init: tuple, names: tuple[str, ...], effect: str | None = None) -> tuple:
    """Run ``while test(*state): state = body(*state)``."""
    state = tuple(init)
    python_iterations = 0
    while True:
        condition = _peek(test, state)
        if condition is _TRACED:
            break
        if not condition:
            report.record("`while` loop", location_of(body), "Python loop",
                          f"the test stayed concrete ({python_iterations} iterations)")
            return state
        state = tuple(body(*state))
        python_iterations += 1
    location = location_of(body)
    reason = "the test is traced" if not python_iterations else (
        f"the test became traced after {python_iterations} Python iterations; the rest is staged")
    refuse_effect(effect, "`while` loop with a traced test", "its body is traced once", location)
    predicate = lambda *values: to_predicate(test(*values), "`while` loop", location)
    result = with_placeholders_filled(
        lambda s: _staged_while(predicate, body, s, names, "`while` loop", location), state, names
    )
    report.record("`while` loop", location, "lax.while_loop", reason, names, result)
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
    with trial_cache.remembering(), items.iterating(_iterated_arrays(iterable)):
        return _for_stmt(iterable, body, tuple(init), names, mode, early_exit, effect, stop_test, assigned_first)


def _iterated_arrays(iterable: Any) -> list[Any]:
    """The JAX arrays a loop iterates over (through ``enumerate`` / ``zip``)."""
    if isinstance(iterable, jax.Array):
        return [iterable]
    if isinstance(iterable, Enumerate):
        return _iterated_arrays(iterable.iterable)
    if isinstance(iterable, Zip):
        return [array for inner in iterable.iterables for array in _iterated_arrays(inner)]
    return []


def _for_stmt(iterable, body, state, names, mode, early_exit, effect, stop_test, assigned_first) -> tuple:
    location = location_of(body)
    if isinstance(iterable, TracedRange):
        if mode == "unroll":
            raise ConversionError(
                "this `for` loop is marked unroll(...), but its range has a traced bound, so the "
                "number of iterations is unknown while tracing",
                location,
                "Make the bound static (static_argnums / static_argnames), or drop unroll(...).",
            )
        refuse_effect(effect, "`for` loop over a range with a traced bound", "its body is traced once", location)
        result = with_placeholders_filled(
            lambda s: _staged_range(iterable, body, stop_test, s, names, location), state, names
        )
        primitive = "lax.while_loop" if stop_test is not None else "lax.fori_loop (a while_loop)"
        report.record("`for` loop", location, primitive, "the range has a traced bound; forward-mode "
                      "differentiation only", names, result)
        return result

    sequence = static_sequence(iterable)
    reason = why_python(sequence, mode, effect, body, state, names)
    if reason:
        report.record("`for` loop", location, "Python loop", reason)
        return _python_for(iterable, body, stop_test, state, names, location)
    refuse_effect(effect, "`for` loop marked stage(...)", "its body is traced once", location)
    state = tuple(
        Undefined(value.name, placeholder=True) if isinstance(value, Undefined) and name in assigned_first else value
        for name, value in zip(names, state)
    )
    result = _staged_static(sequence, early_exit, body, stop_test, state, names, location)
    if early_exit and stop_test is not None:
        primitive = "lax.while_loop (stops at the exit; forward-mode differentiation only)"
    elif stop_test is not None:
        primitive = "lax.scan, iterations after an exit masked by lax.cond (reverse-mode differentiable)"
    else:
        primitive = "lax.scan"
    report.record("`for` loop", location, primitive, f"static trip count {sequence.length}", names, result)
    return result


def _staged_static(sequence, early_exit, body, stop_test, state, names, location) -> tuple:
    if early_exit and stop_test is not None:
        run = lambda s: _staged_counted_while(
            0, sequence.length, lambda k: sequence.make_item(k, _row(sequence.xs, k)), body, stop_test, s, names, location
        )
    else:
        step = _masked(body, stop_test, names, location)
        run = lambda s: _staged_sequence(sequence, step, s, names, location)
    return with_placeholders_filled(run, state, names)


def _python_for(iterable: Any, body: Callable, stop_test, state: tuple, names, location) -> tuple:
    for item in iterable:
        if stop_test is None:
            state = tuple(body(item, *state))
            continue
        keep_going = stop_test(*state)
        if not is_traced(keep_going):
            if not keep_going:
                break
            state = tuple(body(item, *state))
        else:
            state = _run_if(keep_going, body, item, state, names, location)
    return state


def _masked(body: Callable, stop_test: Callable | None, names, location) -> Callable:
    """The body of a staged loop with a static trip count: iterations after an exit leave the state as is."""
    if stop_test is None:
        return body

    def step(item, *values):
        keep_going = stop_test(*values)
        if not is_traced(keep_going):
            return tuple(body(item, *values)) if keep_going else values
        return _run_if(keep_going, body, item, values, names, location)

    return step


def _run_if(keep_going, body, item, values, names, location) -> tuple:
    predicate = to_predicate(keep_going, "`for` loop", location)
    return staged_cond(
        predicate, lambda: tuple(body(item, *values)), lambda: tuple(values), (), names,
        "`for` loop's per-iteration exit check", location,
    )


def _row(xs: Any, k: Any) -> Any:
    return None if xs is None else jax.tree_util.tree_map(lambda a: a[k], xs)


# --- staged lowerings ----------------------------------------------------------------------------


def _staged_sequence(sequence: StaticSequence, body, state, names, location) -> tuple:
    """One ``lax.scan`` over the sequence (with the counter in the carry when the items need it, which
    is the jaxpr ``fori_loop`` gives for static bounds); values appended to outer lists become its
    per-iteration outputs."""
    split = Split.of(state, names)
    record: dict[str, Any] = {}

    def scan_step(carry, x):
        k, arrays = carry
        with appends.inside(appends.Collector(location=location)) as collector:
            new_arrays = _run_body(
                lambda *v: body(sequence.make_item(k, x), *v), split, arrays, names, record, location, state
            )
        record["collector"] = collector
        return (None if k is None else k + 1, new_arrays), collector.outputs()

    counter = jnp.int32(0) if sequence.uses_index else None
    try:
        (_, arrays), outputs = lax.scan(scan_step, (counter, split.arrays), sequence.xs, length=sequence.length)
    except TypeError as error:
        raise translated(error, split, record, "`for` loop", location)  # noqa: B904 (it sets the cause)
    record["collector"].append_rows(outputs, sequence.length)
    return split.rebuild(arrays)


def _staged_range(traced_range: TracedRange, body, stop_test, state, names, location) -> tuple:
    start, stop, step = traced_range.start, traced_range.stop, traced_range.step
    if not is_traced(step) and step == 1:
        lower, upper = start, stop

        def index(i):
            return i
    else:
        lower, upper = 0, traced_range.trip_count()

        def index(k):
            return start + k * step

    if stop_test is not None:
        return _staged_counted_while(lower, upper, index, body, stop_test, state, names, location)
    split = Split.of(state, names)
    record: dict[str, Split] = {}

    def loop_body(i, arrays):
        with appends.inside(appends.Forbidden("`for` loop whose range has a traced bound", location)):
            return _run_body(lambda *v: body(index(i), *v), split, arrays, names, record, location, state)

    try:
        arrays = lax.fori_loop(lower, upper, loop_body, split.arrays)
    except TypeError as error:
        raise translated(error, split, record, "`for` loop", location)  # noqa: B904 (it sets the cause)
    return split.rebuild(arrays)


def _staged_counted_while(lower, upper, item_of, body, stop_test, state, names, location) -> tuple:
    """A counted loop that also stops when ``stop_test`` turns false: ``lax.while_loop`` (forward-mode only)."""
    split = Split.of(state, names)
    record: dict[str, Split] = {}

    construct = "`for` loop that can stop early (break or return)"

    def keep_going(carry):
        i, arrays = carry
        more = _forbid_appends(construct, location, stop_test, *split.rebuild(arrays))
        return jnp.logical_and(i < upper, to_predicate(more, "`for` loop", location))

    def step(carry):
        i, arrays = carry
        with appends.inside(appends.Forbidden(construct, location)):
            return i + 1, _run_body(lambda *v: body(item_of(i), *v), split, arrays, names, record, location, state)

    try:
        _, arrays = lax.while_loop(keep_going, step, (jnp.asarray(lower), split.arrays))
    except TypeError as error:
        raise translated(error, split, record, "`for` loop", location)  # noqa: B904 (it sets the cause)
    return split.rebuild(arrays)


def _staged_while(predicate, body, state, names, construct, location) -> tuple:
    split = Split.of(state, names)
    record: dict[str, Split] = {}
    try:
        arrays = lax.while_loop(
            lambda arrays: _forbid_appends(construct, location, predicate, *split.rebuild(arrays)),
            lambda arrays: _forbid_appends(
                construct, location, _run_body, body, split, arrays, names, record, location, state
            ),
            split.arrays,
        )
    except TypeError as error:
        raise translated(error, split, record, construct, location)  # noqa: B904 (it sets the cause)
    return split.rebuild(arrays)


def _forbid_appends(construct, location, function, *args):
    """``function(*args)`` traced inside a staged statement whose number of runs is known at run time only."""
    with appends.inside(appends.Forbidden(construct, location)):
        return function(*args)


def _run_body(body, split: Split, arrays, names, record: dict, location, entry: tuple) -> list:
    """One trace of a staged loop body on the carried ``arrays``; ``entry`` is the state before the loop."""
    values = split.rebuild(arrays)
    appends.carry_entered(values, entry)
    out = Split.of(body(*values), names)
    record["out"] = out.abstract()
    check_structure(split, out, names, location)
    return out.arrays


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

    def probe():
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

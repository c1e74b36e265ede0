"""``while`` and ``for`` loops.

``while``: the test is evaluated on the current state; while it is concrete the loop runs as Python,
and from the first traced test on, the rest of the loop is one ``lax.while_loop``.

``for``: a ``range`` with a traced bound becomes ``lax.fori_loop`` (a ``while_loop``: forward-mode
differentiable only). A loop with a static trip count (a concrete ``range``, an array's leading axis,
``enumerate`` / ``zip`` over them) is *staged* as ``fori_loop`` / ``scan``, which compiles once and keeps
reverse-mode gradients, or *unrolled* as Python, which is what plain ``jax.jit`` does:

- ``unroll(...)`` / ``stage(...)`` around the iterable, or the function's ``static_loops`` option,
  decide explicitly;
- otherwise (``"auto"``) the body is traced once, aside, with an abstract index. The loop is staged
  when that works and some carried value depends on traced data; it stays Python when the body needs
  a concrete index (a list lookup, a shape) or when everything it carries is a Python value (which
  staging would turn into traced values). A body with visible Python side effects (a call whose
  result is dropped, a store into an outer object) is never traced aside: it stays Python, so no
  side effect runs twice.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.extend import core as jex_core

from ..errors import ConversionError, StagingTypeError
from .iteration import Enumerate, LoopChoice, TracedRange, Zip
from .locations import location_of
from . import appends, report, trial_cache
from .conditionals import refuse_effect, staged_cond
from .values import Split, Undefined, is_array_leaf, is_traced, to_predicate, type_string, zeros_like_value

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
    predicate = lambda *values: to_predicate(test(*values), "`while` loop", location)  # noqa: E731
    result = _with_placeholders_filled(
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
    with trial_cache.remembering():
        return _for_stmt(iterable, body, tuple(init), names, mode, early_exit, effect, stop_test, assigned_first)


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
        result = _with_placeholders_filled(
            lambda s: _staged_range(iterable, body, stop_test, s, names, location), state, names
        )
        primitive = "lax.while_loop" if stop_test is not None else "lax.fori_loop (a while_loop)"
        report.record("`for` loop", location, primitive, "the range has a traced bound; forward-mode "
                      "differentiation only", names, result)
        return result

    sequence = _static_sequence(iterable)
    why_python = _why_python(sequence, mode, effect, body, state, names)
    if why_python:
        report.record("`for` loop", location, "Python loop", why_python)
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


def _why_python(sequence, mode, effect, body, state, names) -> str:
    """Why a loop runs as Python, or "" when it is staged."""
    if sequence is None:
        return "it iterates over a Python iterable"
    if sequence.length == 0:
        return "zero iterations"
    if mode == "unroll":
        return "unroll(...) or static_loops='unroll'"
    if mode == "stage":
        return ""
    if effect:
        return f"its body {effect}"
    if sequence.length == 1:
        return "one iteration"
    return _staging_pays(sequence, body, state, names)


def _staged_static(sequence, early_exit, body, stop_test, state, names, location) -> tuple:
    if early_exit and stop_test is not None:
        run = lambda s: _staged_counted_while(  # noqa: E731
            0, sequence.length, lambda k: sequence.make_item(k, _row(sequence.xs, k)), body, stop_test, s, names, location
        )
    else:
        step = _masked(body, stop_test, names, location)
        run = lambda s: _staged_sequence(sequence, step, s, names, location)  # noqa: E731
    return _with_placeholders_filled(run, state, names)


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


# --- what a static-trip-count loop iterates over -------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Sequence:
    """A loop over ``length`` items; item ``k`` is ``make_item(k, xs[k])``."""

    length: int
    xs: Any  # a pytree of arrays scanned along their leading axis, or None
    make_item: Callable[[Any, Any], Any]
    uses_index: bool
    traced_data: bool


def _static_sequence(iterable: Any) -> _Sequence | None:
    """Describe ``iterable`` when its length is static and it can be indexed by a traced counter."""
    if isinstance(iterable, range):
        start, step = iterable.start, iterable.step
        if start == 0 and step == 1:
            return _Sequence(len(iterable), None, lambda k, _: k, True, False)
        return _Sequence(len(iterable), None, lambda k, _: start + k * step, True, False)
    if isinstance(iterable, jax.Array) and iterable.ndim >= 1:
        return _Sequence(iterable.shape[0], iterable, lambda _, x: x, False, is_traced(iterable))
    if isinstance(iterable, Enumerate):
        inner = _static_sequence(iterable.iterable)
        if inner is None:
            return None
        start = iterable.start

        def make_item(k, x):
            return (k if isinstance(start, int) and start == 0 else start + k), inner.make_item(k, x)

        return _Sequence(inner.length, inner.xs, make_item, True, inner.traced_data or is_traced(start))
    if isinstance(iterable, Zip):
        parts = [_static_sequence(i) for i in iterable.iterables]
        if not parts or any(p is None for p in parts):
            return None
        length = min(p.length for p in parts)
        xs = tuple(None if p.xs is None else jax.tree_util.tree_map(lambda a: a[:length], p.xs) for p in parts)

        def make_item(k, x):
            return tuple(p.make_item(k, xi) for p, xi in zip(parts, x))

        return _Sequence(
            length, xs, make_item, any(p.uses_index for p in parts), any(p.traced_data for p in parts)
        )
    return None


# --- deciding whether a static loop is staged ----------------------------------------------------


def _staging_pays(sequence: _Sequence, body: Callable, state: tuple, names: tuple[str, ...]) -> str:
    """Trace the body once aside, with an abstract index; stage if a carried value depends on traced data.

    Returns "" to stage, or why the loop stays Python. A nested loop is reached again in each trace
    of the loop around it: its decision is remembered for a body that sees the same things.
    """
    key = trial_cache.key_of(body, (sequence.length, sequence.traced_data, sequence.xs, sequence.make_item), state)
    decision = trial_cache.recall(key)
    if decision is None:
        decision = _decide(sequence, body, state, names)
        trial_cache.remember(key, decision)
    return decision


def _decide(sequence: _Sequence, body: Callable, state: tuple, names: tuple[str, ...]) -> str:
    state = list(state)
    for _ in range(len(names) + 1):
        try:
            return _trial(sequence, body, tuple(state), names)
        except _PlaceholderNeeded as needed:
            state[needed.index] = zeros_like_value(needed.value)
    return "its carried values change structure"


def _trial(sequence: _Sequence, body: Callable, state: tuple, names: tuple[str, ...]) -> str:
    split = Split.of(state, names)
    item_avals = jax.tree_util.tree_map(lambda a: jax.ShapeDtypeStruct(a.shape[1:], a.dtype), sequence.xs)

    def one_iteration(k, x, *arrays):
        collector = appends.Collector()
        with appends.inside(collector):  # a trial: its appends are dropped, but they count as outputs
            out = Split.of(body(sequence.make_item(k, x), *split.rebuild(arrays)), names)
        _check_structure(split, out, names, location=None)
        appended = [leaf for leaf in jax.tree_util.tree_leaves(collector.outputs()) if is_array_leaf(leaf)]
        return out.arrays + appended

    array_avals = [_abstract(a) for a in split.arrays]
    try:
        with report.paused():  # a trial: its decisions are dropped
            closed = jax.make_jaxpr(one_iteration)(jnp.int32(0), item_avals, *array_avals)
    except _PlaceholderNeeded:
        raise
    except Exception as error:  # noqa: BLE001 - any failure means: run it as Python, which raises real errors
        return f"the body cannot run with a traced index or item ({type(error).__name__})"
    for name, before, after in zip(split.array_names(), array_avals, closed.out_avals):
        changes_dtype = before.dtype != after.dtype and not before.weak_type
        if before.shape != after.shape or changes_dtype:
            return f"'{name}' changes from {_short(before)} to {_short(after)} in one iteration"
    n_items = len(jax.tree_util.tree_leaves(item_avals))
    carried = [is_traced(a) for a in split.arrays]
    const_traced = [is_traced(c) for c in closed.consts]
    while True:
        inputs = [False] + [sequence.traced_data] * n_items + carried
        outputs = _dependence(closed.jaxpr, const_traced, inputs)  # the carried values, then the appended
        updated = [c or o for c, o in zip(carried, outputs)]
        if updated == carried:
            return "" if any(outputs) else "it carries and appends no value that depends on traced data"
        carried = updated


def _short(aval: Any) -> str:
    return f"{aval.dtype.name}{list(aval.shape)}"


def _abstract(value: Any) -> jax.ShapeDtypeStruct:
    aval = jax.typeof(value)
    return jax.ShapeDtypeStruct(aval.shape, aval.dtype, weak_type=aval.weak_type)


def _dependence(jaxpr, const_flags: list[bool], input_flags: list[bool]) -> list[bool]:
    """For each output of ``jaxpr``, whether it depends on a flagged constant or input."""
    tainted = {v for v, flag in zip(jaxpr.constvars, const_flags) if flag}
    tainted |= {v for v, flag in zip(jaxpr.invars, input_flags) if flag}
    for equation in jaxpr.eqns:
        if any(isinstance(v, jex_core.Var) and v in tainted for v in equation.invars):
            tainted.update(equation.outvars)
    return [isinstance(v, jex_core.Var) and v in tainted for v in jaxpr.outvars]


# --- staged lowerings ----------------------------------------------------------------------------


def _staged_sequence(sequence: _Sequence, body, state, names, location) -> tuple:
    """One ``lax.scan`` over the sequence (with the counter in the carry when the items need it, which
    is the jaxpr ``fori_loop`` gives for static bounds); values appended to outer lists become its
    per-iteration outputs."""
    split = Split.of(state, names)
    record: dict[str, Any] = {}

    def scan_step(carry, x):
        k, arrays = carry
        with appends.inside(appends.Collector()) as collector:
            new_arrays = _run_body(
                lambda *v: body(sequence.make_item(k, x), *v), split, arrays, names, record, location
            )
        record["collector"] = collector
        return (None if k is None else k + 1, new_arrays), collector.outputs()

    counter = jnp.int32(0) if sequence.uses_index else None
    try:
        (_, arrays), outputs = lax.scan(scan_step, (counter, split.arrays), sequence.xs, length=sequence.length)
    except TypeError as error:
        raise _translated(error, split, record, "`for` loop", location)
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
            return _run_body(lambda *v: body(index(i), *v), split, arrays, names, record, location)

    try:
        arrays = lax.fori_loop(lower, upper, loop_body, split.arrays)
    except TypeError as error:
        raise _translated(error, split, record, "`for` loop", location)
    return split.rebuild(arrays)


def _staged_counted_while(lower, upper, item_of, body, stop_test, state, names, location) -> tuple:
    """A counted loop that also stops when ``stop_test`` turns false: ``lax.while_loop`` (forward-mode only)."""
    split = Split.of(state, names)
    record: dict[str, Split] = {}

    def keep_going(carry):
        i, arrays = carry
        more = to_predicate(stop_test(*split.rebuild(arrays)), "`for` loop", location)
        return jnp.logical_and(i < upper, more)

    def step(carry):
        i, arrays = carry
        with appends.inside(appends.Forbidden("`for` loop that can stop early (break or return)", location)):
            return i + 1, _run_body(lambda *v: body(item_of(i), *v), split, arrays, names, record, location)

    try:
        _, arrays = lax.while_loop(keep_going, step, (jnp.asarray(lower), split.arrays))
    except TypeError as error:
        raise _translated(error, split, record, "`for` loop", location)
    return split.rebuild(arrays)


def _staged_while(predicate, body, state, names, construct, location) -> tuple:
    split = Split.of(state, names)
    record: dict[str, Split] = {}
    try:
        arrays = lax.while_loop(
            lambda arrays: predicate(*split.rebuild(arrays)),
            lambda arrays: _forbid_appends(construct, location, _run_body, body, split, arrays, names, record, location),
            split.arrays,
        )
    except TypeError as error:
        raise _translated(error, split, record, construct, location)
    return split.rebuild(arrays)


def _forbid_appends(construct, location, function, *args):
    with appends.inside(appends.Forbidden(construct, location)):
        return function(*args)


def _run_body(body, split: Split, arrays, names, record: dict, location) -> list:
    out = Split.of(body(*split.rebuild(arrays)), names)
    record["out"] = out.abstract()
    _check_structure(split, out, names, location)
    return out.arrays


def _check_structure(split: Split, out: Split, names, location) -> None:
    """The body must return the same Python values and structure; a placeholder may become an array."""
    index = out.first_difference(split)
    if index is None:
        return
    before = split.rebuild(split.arrays)[index]
    after = out.rebuild(out.abstract().arrays)[index]
    if isinstance(before, Undefined) and before.placeholder and not isinstance(after, Undefined):
        raise _PlaceholderNeeded(index, after)
    raise _python_value_error(names[index], split, out, index, location)


class _PlaceholderNeeded(Exception):
    """The body assigns a name that is unassigned before the loop and read only after assignments."""

    def __init__(self, index: int, value: Any):
        super().__init__(index)
        self.index = index
        self.value = value


def _with_placeholders_filled(run: Callable[[tuple], tuple], state: tuple, names) -> tuple:
    """Run a staged loop, starting unassigned placeholder names as zeros of the type the body gives them.

    The zeros are never seen: every read of such a name follows an assignment (for the return value:
    it is read only once the ``returned`` flag, set together with it, is true).
    """
    state = list(state)
    for _ in range(len(names) + 1):
        try:
            return run(tuple(state))
        except _PlaceholderNeeded as needed:
            state[needed.index] = zeros_like_value(needed.value)
    return run(tuple(state))


# --- errors --------------------------------------------------------------------------------------


def _python_value_error(name, before: Split, after: Split, index, location) -> StagingTypeError:
    old = before.rebuild(before.arrays)[index]
    new = after.rebuild(after.arrays)[index]
    if isinstance(old, Undefined):
        return StagingTypeError(
            f"'{name}' is first assigned inside the staged loop, and it is used after the loop or in "
            "the next iteration. A staged loop needs a value for it before the first iteration.",
            location,
            f"Initialise '{name}' before the loop, with the type it has after one iteration "
            f"({type_string(new) if not isinstance(new, tuple) else 'a tuple'}).",
        )
    return StagingTypeError(
        f"'{name}' is {_describe(old)} before the staged loop but {_describe(new)} after one "
        "iteration. Only arrays can be carried through a lax loop; Python values must stay the same.",
        location,
        f"Give '{name}' its final structure before the loop, or iterate over unroll(...) to keep the "
        "loop in Python.",
    )


def _translated(error: TypeError, split: Split, record: dict, construct: str, location) -> Exception:
    """JAX's carry type error in the user's terms (with JAX's as the cause), or JAX's own."""
    if isinstance(error, ConversionError):
        return error  # ours already, raised inside the body: it names the right variable
    translated = _carry_error(split, record, construct, location)
    if translated is None:
        return error
    translated.__cause__ = error
    return translated


def _carry_error(split: Split, record: dict, construct: str, location) -> StagingTypeError | None:
    """Name the variable whose array type the loop body changed, from what the body returned."""
    out = record.get("out")
    if out is None:
        return None
    owners = split.array_names()
    for owner, before, after in zip(owners, split.arrays, out.arrays):
        old, new = jax.typeof(before), jax.typeof(after)
        if old.shape == new.shape and (old.dtype == new.dtype or old.weak_type):
            continue
        if old.shape == new.shape:
            fix = f"Start it with the dtype it gets in the loop, e.g. {owner} = jnp.asarray({owner}, {new.dtype.name!r})."
            if np.issubdtype(new.dtype, np.floating) and not np.issubdtype(old.dtype, np.floating):
                fix = f"Start it as a float: {owner} = 0.0, or jnp.asarray({owner}, jnp.{new.dtype.name})."
        else:
            fix = f"Keep its shape fixed: preallocate '{owner}' at its final shape and update it with {owner}.at[i].set(...)."
        return StagingTypeError(
            f"'{owner}' is {type_string(before)} before the {construct} but {type_string(after)} after one "
            "iteration. A staged loop keeps one type per carried variable.",
            location,
            fix,
        )
    return None


def _describe(value: Any) -> str:
    if isinstance(value, (tuple, list, dict)):
        inner = ", ".join(type_string(leaf) for leaf in jax.tree_util.tree_leaves(value))
        return f"a {type(value).__name__} of ({inner})"
    return type_string(value)


# --- evaluating a loop test aside ----------------------------------------------------------------

_TRACED = object()


def _peek(test: Callable, state: tuple) -> Any:
    """Evaluate ``test(*state)``: its Python value if concrete, else ``_TRACED``.

    A traced test is evaluated in a throwaway trace, so that nothing is added to the caller's program
    that ``lax.while_loop`` would compute again.
    """
    if not any(is_traced(leaf) for leaf in jax.tree_util.tree_leaves(state)) and not _closes_over_tracers(test):
        value = test(*state)
        return _TRACED if is_traced(value) else value
    seen: list[Any] = []

    def probe():
        value = test(*state)
        seen.append(_TRACED if is_traced(value) else value)
        return ()

    jax.make_jaxpr(probe)()
    return seen[0]


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

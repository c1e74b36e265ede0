"""``if`` statements and ``a if c else b`` expressions.

A concrete condition runs one branch as Python does; the other is never traced. A traced condition
becomes one ``lax.cond`` whose branches return the carried names. ``lax.cond`` does not unify a
weakly typed Python scalar in one branch (``y = 0``) with an array in the other (``y = x * 2.0``),
so when its type check fails we promote such outputs, as eager Python's arithmetic would, and trace
again; a genuine difference becomes a ``StagingTypeError`` naming the variable.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from ..errors import ConversionError, Location, StagingTypeError, UnassignedReadError
from . import appends, report
from .carry import Carried, CondAdjustment, bound, cond_adjustments
from .carry_errors import Sides, Site
from .kept_containers import Fate, copied, kept_in_place, refuse_stale_reads, run_recording
from .locations import assigned_by_caller, location_of, presenting
from .narrow_numbers import Shown, a_dtype, cast_loses_value, lossy_choice, shown
from .path_constants import constants_of, kept_where_constant
from .paths import runs_when
from .raises import PathRaises, python_errors_at_run_time
from .selects import COND, SELECT, SELECT_REASON, cond_or_select
from .session import current
from .values import Split, is_traced, to_predicate
from .weak_types import cast_as_eager, python_bools_weak, zeros_of_type


def if_stmt(
    condition: Any,
    true_fn: Callable[..., tuple],
    false_fn: Callable[..., tuple],
    operands: tuple,
    names: tuple[str, ...],
    effect: str | None = None,
    after_exit: tuple[str, str] | None = None,
) -> tuple:
    """Run ``if condition:`` whose branches take and return the carried ``names``.

    ``effect`` describes a Python side effect in a branch, which staging cannot reproduce.
    ``after_exit`` marks the branch that holds the code after a ``break`` / ``return`` (see
    :class:`.carry_errors.Site`), so that errors about it name the user's exit.
    """
    site = Site("`if`", location_of(true_fn), after_exit=after_exit)
    if not is_traced(condition):
        report.record(site, "Python if", "the condition is concrete")
        return true_fn(*operands) if condition else false_fn(*operands)
    refuse_effect(effect, "`if` with a traced condition", "both branches are traced once", site.location)
    predicate = to_predicate(condition, "`if`", site.location)
    return staged_cond(predicate, Branches(true_fn, false_fn, tuple(operands)), names, site)


def refuse_effect(effect: str | None, construct: str, why: str, location: Location) -> None:
    """Raise if a staged statement's body has a side effect that would run once at trace time."""
    if effect is None:
        return
    raise ConversionError(
        f"this {construct} cannot be staged: its body {effect}, and {why}, so the effect would happen "
        "once while tracing instead of when (and as often as) Python would run it",
        location,
        "Compute the new value as an array and return it (or carry it as a local variable), and update "
        "objects outside the function after it returns; or make the condition static.",
    )


def if_exp(condition: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any]) -> Any:
    """Evaluate ``true_fn() if condition else false_fn()``, lazily as Python does."""
    site = Site("conditional expression", location_of(true_fn))
    if not is_traced(condition):
        report.record(site, "Python", "the condition is concrete")
        return true_fn() if condition else false_fn()
    predicate = to_predicate(condition, site.construct, site.location)
    branches = Branches(presenting(lambda: (true_fn(),), true_fn), presenting(lambda: (false_fn(),), false_fn))
    (value,) = staged_cond(predicate, branches, (assigned_by_caller() or "<expression value>",), site)
    return value


@dataclasses.dataclass(frozen=True)
class Branches:
    """The two branches of a staged ``if``: functions of the same operands, returning the carried values."""

    true_fn: Callable[..., tuple]
    false_fn: Callable[..., tuple]
    operands: tuple = ()


def staged_cond(predicate: jax.Array, branches: Branches, names: tuple[str, ...], site: Site) -> tuple:
    """``lax.cond`` over branches returning a tuple of carried values, with their Python leaves kept.

    The first attempt traces the branches as they are. If their outputs differ (whether or not
    ``lax.cond`` noticed: two unset names, one per branch, can line up), what each branch returned
    tells whether an adjustment makes them agree (:func:`.carry.cond_adjustments`): zeros for a
    name that one branch has not set yet, where no read can see them, or a cast of a weakly typed
    scalar to the other branch's dtype. Then it traces again; a difference that no adjustment
    removes is a ``StagingTypeError`` naming every differing variable. A branch that raises at run
    time (:mod:`.raises`) returns zeros of the other branch's outputs; if both do, so does the ``if``.
    """
    sides = Sides.of_branches(site, branches.true_fn, branches.false_fn)
    adjustments = {"true": CondAdjustment(), "false": CondAdjustment()}
    traces = _Traces()
    lowering = COND
    while True:
        traces.splits, traces.lossy, traces.fates, traces.constants = {}, {}, {}, {}
        on_true, on_false = [_traced(_Branch(key, fn, branches.operands, names, site, predicate), adjustments[key], traces)
                             for key, fn in (("true", branches.true_fn), ("false", branches.false_fn))]
        arrays: Any
        try:
            (arrays, lowering), failure = cond_or_select(predicate, on_true, on_false, lambda: not traces.raised), None
        except TypeError as error:
            arrays, failure = None, error
        if len(traces.raised) == 2:
            return _both_raise(site, traces.errors)
        splits = traces.with_raised_filled()
        if failure is not None and traces.raised and not traces.retried:
            traces.retried = True  # the raising branch now knows the other branch's outputs
            continue
        if failure is None and splits["true"].first_difference(splits["false"]) is None:
            break
        try:
            improved = cond_adjustments(splits["true"], splits["false"], adjustments, sides) if len(splits) == 2 else None
        except StagingTypeError as staging_error:
            raise staging_error from failure
        if improved is None:
            # lax.cond failed on something other than the outputs (a branch raised TypeError), or on
            # outputs that no adjustment changes: JAX's own error is the clearest.
            assert failure is not None
            raise failure
        adjustments = improved
    for key, (index, value, dtype) in traces.lossy.items():
        name = splits[key].array_names()[index]
        subject = "the chosen value" if name.startswith("<") else f"'{name}'"
        where = f"in the {key} branch of the {site.construct}, and {a_dtype(dtype)} in the other"
        raise lossy_choice(subject, value, dtype, where, site.location)
    arrays = strongly_typed_where_a_branch_is(arrays, [splits["true"], splits["false"]])
    returning = [key for key in ("true", "false") if key in traces.fates and key not in traces.raised]
    choose = None if len(returning) != 2 else (
        lambda values: values[0] if values[0] is values[1] else jnp.where(predicate, values[0], values[1]))
    outputs = settled(branches.operands, splits["true"], arrays, [traces.constants[key] for key in returning],
                      [traces.fates[key] for key in returning], choose)
    reason = SELECT_REASON if lowering == SELECT else "the condition is traced"
    report.record(site, lowering, reason, Carried(names, outputs),
                  _adjustment_notes(adjustments, names, splits))
    return outputs


def settled(operands: tuple, template: Split, arrays: Sequence[Any], constants: Sequence[Sequence[Any]],
            fates: Sequence[Fate], choose: Callable[[list[Any]], Any] | None = None) -> tuple:
    """A staged ``if``'s or switch's values from its array outputs, given what each returning branch
    returned (``constants``, :func:`.path_constants.constants_of`) and did with the containers it was
    given (``fates``): each output that every such branch gave as the same value kept as that value,
    the rest rebuilt in ``template``'s structure, and the containers the branches updated in place
    written into the ``operands`` (:func:`.kept_containers.kept_in_place`; ``choose`` picks a branch's
    items by the condition where the branches disagree)."""
    return kept_in_place(operands, template.rebuild(kept_where_constant(arrays, constants)), list(fates), choose=choose)


def strongly_typed_where_a_branch_is(arrays: Sequence[Any], branches: Sequence[Split]) -> list[Any]:
    """The outputs of a ``lax.cond`` / ``lax.switch``, strongly typed where some branch's value is.

    Both give each output the weak type of the branch they trace first (the false one, the final
    ``else``), so a weakly typed value there (``s = jnp.arange(3) * 0.5``, a Python number) made the
    output weakly typed on every path, where eager Python's value is strongly typed on the paths of
    the strongly typed branches: ``s + x_bf16`` after it would compute in bfloat16 where eager
    computes in float32. Strongly typed is what ``jnp.where`` of the two gives; on a weakly typed
    branch's path eager has a Python number or a weakly typed value, which staged code returns as an
    array of its dtype anyway (the documented difference).
    """
    result = []
    for index, array in enumerate(arrays):
        aval = jax.typeof(array)
        if aval.weak_type and any(strong_beside(jax.typeof(split.arrays[index]), aval) for split in branches):
            array = lax.convert_element_type(array, aval.dtype)
        result.append(array)
    return result


def strong_beside(branch: Any, output: Any) -> bool:
    """Whether a branch's value of type ``branch`` makes the number ``output`` strongly typed. A bool
    does not: it is the lowest dtype, so beside any array it promotes as a weakly typed number does
    (``(x > 0) * v_u8`` is uint8, as ``1 * v_u8`` is; an int32 made it 400 for eager's wrapped 144)."""
    return not branch.weak_type and not (branch.dtype == jnp.bool_ and output.dtype != jnp.bool_)


@dataclasses.dataclass
class _Traces:
    """What the traces of one staged ``if`` found: each branch's outputs, and the branches that raise."""

    splits: dict[str, Split] = dataclasses.field(default_factory=dict)
    fates: dict[str, Fate] = dataclasses.field(default_factory=dict)  # what a branch did with the containers given
    constants: dict[str, list[Any]] = dataclasses.field(default_factory=dict)  # per branch (path_constants)
    known: dict[str, list[Any]] = dataclasses.field(default_factory=dict)  # a branch's output avals
    raised: set[str] = dataclasses.field(default_factory=set)
    errors: dict[str, Exception] = dataclasses.field(default_factory=dict)  # a raising branch's error of Python's
    retried: bool = False
    # per branch: the first output whose cast to a narrower dtype may change it (index, value, dtype)
    lossy: dict[str, tuple[int, Shown, Any]] = dataclasses.field(default_factory=dict)

    def raising(self, key: str, error: Exception | None) -> list[Any]:
        """The outputs of a branch that raises at run time: zeros like the other branch's, if known."""
        self.raised.add(key)
        if error is not None:
            self.errors[key] = error
        other = self.known.get(_other(key))
        if other is None:
            return []  # unless there is nothing to return, lax.cond fails; the next attempt knows the other
        return [jnp.zeros(aval.shape, aval.dtype) for aval in other]

    def note_lossy_casts(self, key: str, arrays: Sequence[Any], casts: Sequence[Any]) -> None:
        """Keep the first weakly typed output of branch ``key`` that its cast to a narrower dtype (a
        float16, a uint8) may change (:mod:`.narrow_numbers`): the value as errors show it, no tracer."""
        for index, (array, dtype) in enumerate(zip(arrays, casts)):
            if dtype is not None and cast_loses_value(array, dtype):
                self.lossy[key] = (index, shown(array, dtype), dtype)
                return

    def with_raised_filled(self) -> dict[str, Split]:
        """The splits of both branches, a raising one's being the other's."""
        for key in self.raised:
            if _other(key) in self.splits:
                self.splits[key] = self.splits[_other(key)]
        return self.splits


def _other(key: str) -> str:
    return "false" if key == "true" else "true"


def _both_raise(site: Site, errors: dict[str, Exception]) -> tuple:
    """Both branches raise at run time: so does whatever encloses the ``if``, unless nothing does. Then
    an error of Python's that one raises is raised now, as eager Python raises it on one of the paths."""
    python_error = errors.get("true") or errors.get("false")
    if current().staged:
        raise PathRaises(python_error)
    if python_error is not None:
        raise python_error
    raise ConversionError(
        f"every path through this {site.construct} raises, and its condition is traced, so the function "
        "has no value to return while tracing",
        site.location,
        "Raise after the `if` (or make the condition static), e.g. check the condition with "
        "`assert` and raise in one branch only.",
    )


def _adjustment_notes(adjustments: dict[str, CondAdjustment], names: tuple[str, ...], splits: dict[str, Split]) -> list[str]:
    notes = []
    for key, adjustment in adjustments.items():
        for index, _ in adjustment.fills:
            notes.append(f"{report.readable(names[index])} starts as zeros in the {key} branch (assigned before every read)")
        owners = splits[key].array_names()
        for owner, dtype in zip(owners, adjustment.casts or ()):
            if dtype is not None:
                notes.append(f"{owner} promoted to {jnp.dtype(dtype).name} in the {key} branch (weakly typed Python scalar)")
    return notes


@dataclasses.dataclass(frozen=True)
class _Branch:
    """One branch as ``lax.cond`` traces it: which one, its function and operands, and its statement."""

    key: str  # "true" or "false", as messages name it
    fn: Callable[..., tuple]
    operands: tuple
    names: tuple[str, ...]
    site: Site
    predicate: jax.Array

    def runs_when(self) -> jax.Array:
        return self.predicate if self.key == "true" else jnp.logical_not(self.predicate)


def _traced(branch: _Branch, adjustment: CondAdjustment, traces: _Traces) -> Callable[[], list[Any]]:
    """The function ``lax.cond`` traces for ``branch``; it leaves the outputs' abstract split in ``traces``."""

    def traced_branch() -> list[Any]:
        try:
            with runs_when(branch.runs_when):
                values = _run_branch(branch, traces.fates)
        except PathRaises as raised:
            return traces.raising(branch.key, raised.error)
        for index, template in adjustment.fills:
            values[index] = zeros_of_type(template)
        for index in adjustment.assigned:
            values[index] = bound(branch.names[index], values[index])
        for index, stand_in in adjustment.hidden:
            values[index] = stand_in
        split = Split.of(values, branch.names)
        traces.constants[branch.key] = constants_of(split.arrays, branch.operands)
        split = python_bools_weak(split)
        traces.splits[branch.key] = split.abstract()
        arrays = split.arrays
        if adjustment.casts is not None:
            traces.note_lossy_casts(branch.key, arrays, adjustment.casts)  # refused after the cond
            arrays = [a if d is None else cast_as_eager(a, d) for a, d in zip(arrays, adjustment.casts)]
        traces.known[branch.key] = [jax.typeof(a) for a in arrays]
        return arrays

    return presenting(traced_branch, branch.fn)


def _run_branch(branch: _Branch, fates: dict[str, Fate]) -> list[Any]:
    """One trace of the branch's function, on fresh copies of its operands; its fate noted in ``fates``."""
    site = branch.site
    try:
        with python_errors_at_run_time(site.location):
            values, fates[branch.key] = run_on_copies(branch.fn, branch.operands, site.location,
                                                      _staged_context(branch.key, site))
            return values
    except UnassignedReadError as error:
        raise StagingTypeError(
            f"'{error.name}' is read in the {branch.key} branch of the {site.construct}, where it may be "
            "unassigned. With a traced condition both branches are traced, so the read happens "
            "even if Python would not take that branch.",
            site.location,
            f"Assign '{error.name}' before the {site.construct} on every path.",
        ) from error


def _staged_context(key: str, site: Site) -> appends.Forbidden | None:
    """What a branch's trace runs in, as a refused append names it: the code after a traced exit where
    the branch holds it (the user wrote no `if` around it), else the branch of a traced `if`."""
    if site.construct == EXIT_CHECK:
        return appends.AfterTracedExit(_EXIT_MASK, site.location)
    if site.after_exit is not None and site.after_exit[0] == key:
        exits = site.after_exit[1]
        later = "" if exits == "`continue`" else ", as are the iterations after it"  # a `continue` ends one only
        return appends.AfterTracedExit(f"part of the code after a {exits} on a traced condition (staged under that "
                                       f"condition{later})", site.location)
    return None


EXIT_CHECK = "`for` loop's per-iteration exit check"  # the staged `if` that masks iterations after an exit
_TRACED_BRANCH = "branch of an `if` with a traced condition"
# What an append inside the exit check's branch is refused in: the loop, where the user wrote no `if`.
_EXIT_MASK = "`for` loop that can stop early (break or return) on a traced condition"


def run_on_copies(branch: Callable[..., Any], operands: tuple, location: Location | None,
                  inside: appends.Forbidden | None = None) -> tuple[list[Any], Fate]:
    """One trace of a staged branch, on fresh containers: an in-place update (d[k] += v) in one
    branch's trace must not reach the other branches or the caller; noted as copies, so that such an
    update is allowed (appends are not: the branch runs a number of times known only at run time;
    ``inside``, the staged context the trace runs in, names it in that refusal: a traced `if`'s
    branch unless given). With its :class:`.kept_containers.Fate`: the update reaches the operands
    after the statement."""
    with appends.inside(inside or appends.Branch(_TRACED_BRANCH, location)):
        copies = copied(operands)
        appends.carry_entered(copies, operands)
        values, fate = run_recording(branch, copies, originals=operands)
    refuse_stale_reads(branch, operands, [fate], "branch of the `if`", location)
    return list(values), fate

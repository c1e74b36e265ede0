"""``if`` statements and ``a if c else b`` expressions.

A concrete condition runs one branch as Python does; the other is never traced. A traced condition
becomes one ``lax.cond`` whose branches return the carried names. ``lax.cond`` does not unify a
weakly typed Python scalar in one branch (``y = 0``) with an array in the other (``y = x * 2.0``),
so when its type check fails we promote such outputs, as eager Python's arithmetic would, and trace
again; a genuine difference becomes a ``StagingTypeError`` naming the variable.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from ..errors import ConversionError, StagingTypeError, UnassignedReadError
from ..generated_names import RETURN_VALUE
from . import appends, report
from .locations import location_of, stored_lines
from .values import Split, Undefined, is_traced, to_predicate, type_string, zeros_like_value


def if_stmt(
    condition: Any,
    true_fn: Callable[..., tuple],
    false_fn: Callable[..., tuple],
    operands: tuple,
    names: tuple[str, ...],
    effect: str | None = None,
) -> tuple:
    """Run ``if condition:`` whose branches take and return the carried ``names``.

    ``effect`` describes a Python side effect in a branch, which staging cannot reproduce.
    """
    if not is_traced(condition):
        report.record("`if`", location_of(true_fn), "Python if", "the condition is concrete")
        return true_fn(*operands) if condition else false_fn(*operands)
    refuse_effect(effect, "`if` with a traced condition", "both branches are traced once", location_of(true_fn))
    predicate = to_predicate(condition, "`if`", location_of(true_fn))
    return staged_cond(predicate, true_fn, false_fn, operands, names, "`if`")


def refuse_effect(effect: str | None, construct: str, why: str, location) -> None:
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
    if not is_traced(condition):
        report.record("conditional expression", location_of(true_fn), "Python", "the condition is concrete")
        return true_fn() if condition else false_fn()
    predicate = to_predicate(condition, "conditional expression", location_of(true_fn))
    (value,) = staged_cond(
        predicate, lambda: (true_fn(),), lambda: (false_fn(),), (), ("<expression value>",),
        "conditional expression", location_of(true_fn),
    )
    return value


def staged_cond(predicate, true_fn, false_fn, operands, names, construct, location=None) -> tuple:
    """``lax.cond`` over branches returning a tuple of carried values, with their Python leaves kept.

    The first attempt traces the branches as they are. If their outputs differ (whether or not
    ``lax.cond`` noticed: two unset names, one per branch, can line up), what each branch returned
    tells whether an adjustment makes them agree: zeros for a name that one branch has not set yet
    (when no read can see them: ``Undefined.placeholder``), or a cast of a weakly typed scalar to the
    other branch's dtype. Then it traces again; a difference that no adjustment removes is a
    ``StagingTypeError``.
    """
    location = location or location_of(true_fn)
    adjustments = {"true": _Adjustment(), "false": _Adjustment()}
    while True:
        splits: dict[str, Split] = {}
        branches = [_branch(key, fn, operands, names, adjustments[key], splits, construct, location)
                    for key, fn in (("true", true_fn), ("false", false_fn))]
        try:
            arrays, failure = lax.cond(predicate, *branches), None
        except TypeError as error:
            arrays, failure = None, error
        if failure is None and splits["true"].first_difference(splits["false"]) is None:
            break
        try:
            improved = _adjust(splits, names, adjustments, construct, location, true_fn, false_fn)
        except StagingTypeError as staging_error:
            raise staging_error from failure
        if improved is None:
            if failure is not None:
                raise failure
            _check_python_leaves(splits, names, construct, location, true_fn, false_fn)
        adjustments = improved
    outputs = splits["true"].rebuild(arrays)
    report.record(construct, location, "lax.cond", "the condition is traced", names, outputs,
                  _adjustment_notes(adjustments, names, splits))
    return outputs


def _adjustment_notes(adjustments: dict, names, splits) -> list[str]:
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
class _Adjustment:
    """What to change in one branch's outputs so that both branches agree."""

    fills: tuple[tuple[int, Any], ...] = ()  # (output index, value whose array leaves become zeros)
    casts: tuple[Any, ...] | None = None  # per array leaf: the dtype to cast to, or None


def _branch(key, fn, operands, names, adjustment: _Adjustment, splits: dict, construct: str, location):
    def traced_branch():
        with appends.inside(appends.Forbidden("branch of an `if` with a traced condition", location)):
            # Fresh containers: an in-place update (d[k] += v) in one branch's trace must not reach
            # the other branch or the caller; noted as copies, so that such an update is allowed.
            copies = jax.tree_util.tree_map(lambda leaf: leaf, operands)
            appends.carry_entered(copies, operands)
            try:
                values = list(fn(*copies))
            except UnassignedReadError as error:
                raise StagingTypeError(
                    f"'{error.name}' is read in the {key} branch of the {construct}, where it may be "
                    "unassigned. With a traced condition both branches are traced, so the read happens "
                    "even if Python would not take that branch.",
                    location,
                    f"Assign '{error.name}' before the {construct} on every path.",
                ) from error
        for index, template in adjustment.fills:
            values[index] = zeros_like_value(template)
        split = Split.of(values, names)
        splits[key] = split.abstract()
        if adjustment.casts is None:
            return split.arrays
        return [a if d is None else lax.convert_element_type(a, d) for a, d in zip(split.arrays, adjustment.casts)]

    return traced_branch


def _adjust(splits, names, adjustments, construct, location, true_fn, false_fn) -> dict | None:
    """The next adjustments to try, or ``None`` when the failure is not about the branch outputs."""
    if set(splits) != {"true", "false"}:
        return None
    true_values = splits["true"].rebuild(splits["true"].arrays)
    false_values = splits["false"].rebuild(splits["false"].arrays)
    fills = {"true": [], "false": []}
    for index in range(len(names)):
        left, right = true_values[index], false_values[index]
        if _is_placeholder(left) and not isinstance(right, Undefined):
            fills["true"].append((index, right))
        elif _is_placeholder(right) and not isinstance(left, Undefined):
            fills["false"].append((index, left))
    if fills["true"] or fills["false"]:
        return {key: dataclasses.replace(adjustments[key], fills=adjustments[key].fills + tuple(fills[key]))
                for key in adjustments}
    _check_python_leaves(splits, names, construct, location, true_fn, false_fn)
    casts = _promotions(splits, names, construct, location, true_fn, false_fn)
    if casts is None or all(adjustments[key].casts == casts[key] for key in casts):
        return None
    return {key: dataclasses.replace(adjustments[key], casts=casts[key]) for key in adjustments}


def _promotions(splits, names, construct, location, true_fn, false_fn) -> dict[str, tuple] | None:
    """Per branch, the dtype to cast each array output to, or a ``StagingTypeError`` if none works."""
    true, false = splits["true"], splits["false"]
    owners = true.array_names()
    casts = {"true": [], "false": []}
    for owner, left, right in zip(owners, true.arrays, false.arrays):
        left_type, right_type = jax.typeof(left), jax.typeof(right)
        if left_type.shape != right_type.shape or _is_genuine_change(left_type, right_type):
            raise _differs(owner, type_string(left), type_string(right), construct, location, true_fn, false_fn,
                           "lax.cond needs one type per output.",
                           f"Give {_subject(owner)} the same dtype and shape in both branches, e.g. with "
                           "jnp.asarray(..., dtype=...) or by starting from a float literal.")
        joined = jnp.result_type(left, right)
        casts["true"].append(joined if left_type.dtype != joined else None)
        casts["false"].append(joined if right_type.dtype != joined else None)
    return {key: tuple(value) for key, value in casts.items()}


def _is_genuine_change(left_type, right_type) -> bool:
    """Two strongly typed outputs of different dtypes: no Python scalar to promote."""
    return left_type.dtype != right_type.dtype and not (left_type.weak_type or right_type.weak_type)


def _check_python_leaves(splits, names, construct, location, true_fn, false_fn) -> None:
    true, false = splits["true"], splits["false"]
    index = true.first_difference(false)
    if index is None:
        return
    name = names[index]
    left, right = true.rebuild(true.arrays)[index], false.rebuild(false.arrays)[index]
    if isinstance(left, Undefined) or isinstance(right, Undefined):
        branch = "true" if isinstance(right, Undefined) else "false"
        raise StagingTypeError(
            f"{_subject(name)} is assigned only in the {branch} branch of the {construct}, and it is "
            "used after it. With a traced condition both branches run as one lax.cond, which must "
            "return a value for it either way.",
            location,
            f"Assign {_subject(name)} before the {construct} (for example `{name} = jnp.zeros_like(...)`), "
            "or in both branches.",
        )
    raise _differs(
        name, _describe(left), _describe(right), construct, location, true_fn, false_fn,
        "Only arrays can differ between the branches of a lax.cond; Python values (None, strings, "
        "functions, containers of another shape) must agree.",
        f"Make {_subject(name)} an array of the same structure in both branches, or decide it with a "
        "condition that is not traced.",
    )


def _is_placeholder(value: Any) -> bool:
    return isinstance(value, Undefined) and value.placeholder


def _differs(name, left, right, construct, location, true_fn, false_fn, why, fix) -> StagingTypeError:
    """The error for an output whose type differs between the branches."""
    if name != RETURN_VALUE:
        return StagingTypeError(
            f"{_subject(name)} is {left} in the true branch of the {construct} but {right} in the false "
            f"branch. {why}",
            location,
            fix,
        )
    return StagingTypeError(
        f"the function returns {left} {_where_returned(true_fn)} but {right} {_where_returned(false_fn)}, "
        f"and the {construct} that chooses between them has a traced condition. {why}",
        location,
        "Return values of the same structure, dtype and shape on every path (a function that reaches "
        "its end without `return` returns None).",
    )


def _where_returned(branch: Callable) -> str:
    lines = stored_lines(branch, RETURN_VALUE)
    if not lines:
        return "on the path that returned earlier"
    return "at line " + ", ".join(str(line) for line in lines)


def _subject(name: str) -> str:
    return name if name.startswith("<") else f"'{name}'"


def _describe(value: Any) -> str:
    if isinstance(value, (tuple, list, dict)):
        inner = ", ".join(type_string(leaf) for leaf in jax.tree_util.tree_leaves(value))
        return f"a {type(value).__name__} of ({inner})"
    return type_string(value)

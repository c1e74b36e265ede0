"""``if`` statements and ``a if c else b`` expressions.

A concrete condition runs one branch as Python does; the other is never traced. A traced condition
becomes one ``lax.cond`` whose branches return the carried names. ``lax.cond`` does not unify a
weakly typed Python scalar in one branch (``y = 0``) with an array in the other (``y = x * 2.0``),
so when its type check fails we promote such outputs, as eager Python's arithmetic would, and trace
again; a genuine difference becomes a ``StagingTypeError`` naming the variable.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp
from jax import lax

from ..errors import StagingTypeError
from .locations import location_of
from .values import Split, Undefined, is_traced, to_predicate, type_string


def if_stmt(
    condition: Any,
    true_fn: Callable[..., tuple],
    false_fn: Callable[..., tuple],
    operands: tuple,
    names: tuple[str, ...],
) -> tuple:
    """Run ``if condition:`` whose branches take and return the carried ``names``."""
    if not is_traced(condition):
        return true_fn(*operands) if condition else false_fn(*operands)
    predicate = to_predicate(condition, "`if`", location_of(true_fn))
    return staged_cond(predicate, true_fn, false_fn, operands, names, "`if`")


def if_exp(condition: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any]) -> Any:
    """Evaluate ``true_fn() if condition else false_fn()``, lazily as Python does."""
    if not is_traced(condition):
        return true_fn() if condition else false_fn()
    predicate = to_predicate(condition, "conditional expression", location_of(true_fn))
    (value,) = staged_cond(
        predicate, lambda: (true_fn(),), lambda: (false_fn(),), (), ("<expression value>",),
        "conditional expression", location_of(true_fn),
    )
    return value


def staged_cond(predicate, true_fn, false_fn, operands, names, construct, location=None) -> tuple:
    """``lax.cond`` over branches returning a tuple of carried values, with their Python leaves kept."""
    location = location or location_of(true_fn)
    splits: dict[str, Split] = {}

    def branch(key: str, fn: Callable[..., tuple], casts: Sequence[Any] | None):
        def traced_branch():
            split = Split.of(fn(*operands), names)
            splits[key] = split
            if casts is None:
                return split.arrays
            return [lax.convert_element_type(a, d) if d is not None else a for a, d in zip(split.arrays, casts)]
        return traced_branch

    try:
        arrays = lax.cond(predicate, branch("true", true_fn, None), branch("false", false_fn, None))
    except TypeError as error:
        casts = _promotions(splits, names, construct, location)
        if casts is None:
            raise
        try:
            arrays = lax.cond(
                predicate, branch("true", true_fn, casts["true"]), branch("false", false_fn, casts["false"])
            )
        except TypeError:
            raise error from None
    _check_python_leaves(splits, names, construct, location)
    return splits["true"].rebuild(arrays)


def _promotions(splits, names, construct, location) -> dict[str, list[Any]] | None:
    """Per branch, the dtype to cast each array output to, or a ``StagingTypeError`` if none works."""
    if set(splits) != {"true", "false"}:
        return None
    _check_python_leaves(splits, names, construct, location)
    true, false = splits["true"], splits["false"]
    owners = true.array_names()
    casts = {"true": [], "false": []}
    for owner, left, right in zip(owners, true.arrays, false.arrays):
        left_type, right_type = jax.typeof(left), jax.typeof(right)
        if left_type.shape != right_type.shape or _is_genuine_change(left_type, right_type):
            raise StagingTypeError(
                f"{_subject(owner)} is {type_string(left)} in the true branch of the {construct} but "
                f"{type_string(right)} in the false branch. lax.cond needs one type per output.",
                location,
                f"Give {_subject(owner)} the same dtype and shape in both branches, e.g. with "
                f"jnp.asarray(..., dtype=...) or by starting from a float literal.",
            )
        joined = jnp.result_type(left, right)
        casts["true"].append(joined if left_type.dtype != joined else None)
        casts["false"].append(joined if right_type.dtype != joined else None)
    return casts


def _is_genuine_change(left_type, right_type) -> bool:
    """Two strongly typed outputs of different dtypes: no Python scalar to promote."""
    return left_type.dtype != right_type.dtype and not (left_type.weak_type or right_type.weak_type)


def _check_python_leaves(splits, names, construct, location) -> None:
    if set(splits) != {"true", "false"}:
        return
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
    raise StagingTypeError(
        f"{_subject(name)} is {_describe(left)} in the true branch of the {construct} but "
        f"{_describe(right)} in the false branch. Only arrays can differ between the branches of a "
        "lax.cond; Python values (None, strings, functions, containers of another shape) must agree.",
        location,
        f"Make {_subject(name)} an array of the same structure in both branches, or decide it with a "
        "condition that is not traced.",
    )


def _subject(name: str) -> str:
    return name if name.startswith("<") else f"'{name}'"


def _describe(value: Any) -> str:
    if isinstance(value, (tuple, list, dict)):
        inner = ", ".join(type_string(leaf) for leaf in jax.tree_util.tree_leaves(value))
        return f"a {type(value).__name__} of ({inner})"
    return type_string(value)

"""What a staged loop carries: its structure from one iteration to the next, and the errors about it.

A ``lax`` loop carries arrays of one type; the Python values among the carried names (``None``, a
tuple's structure, an unassigned marker) must come back from the body unchanged. The checks here run
on what the body returned, and turn JAX's carry type errors into errors that name the variable.
Shared by the staged lowerings (:mod:`.loops`) and the static-loop policy's trial
(:mod:`.static_loop_policy`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from ..errors import ConversionError, StagingTypeError
from .values import Split, Undefined, type_string, zeros_like_value


def check_structure(split: Split, out: Split, names, location) -> None:
    """The body must return the same Python values and structure; a placeholder may become an array."""
    index = out.first_difference(split)
    if index is None:
        return
    before = split.rebuild(split.arrays)[index]
    after = out.rebuild(out.abstract().arrays)[index]
    if isinstance(before, Undefined) and before.placeholder and not isinstance(after, Undefined):
        raise PlaceholderNeeded(index, after)
    raise python_value_error(names[index], split, out, index, location)


class PlaceholderNeeded(Exception):
    """The body assigns a name that is unassigned before the loop and read only after assignments."""

    def __init__(self, index: int, value: Any):
        super().__init__(index)
        self.index = index
        self.value = value


def with_placeholders_filled(run: Callable[[tuple], tuple], state: tuple, names) -> tuple:
    """Run a staged loop, starting unassigned placeholder names as zeros of the type the body gives them.

    The zeros are never seen: every read of such a name follows an assignment (for the return value:
    it is read only once the ``returned`` flag, set together with it, is true).
    """
    state = list(state)
    for _ in range(len(names) + 1):
        try:
            return run(tuple(state))
        except PlaceholderNeeded as needed:
            state[needed.index] = zeros_like_value(needed.value)
    return run(tuple(state))



def python_value_error(name, before: Split, after: Split, index, location) -> StagingTypeError:
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


def translated(error: TypeError, split: Split, record: dict, construct: str, location) -> Exception:
    """JAX's carry type error in the user's terms (with JAX's as the cause), or JAX's own."""
    if isinstance(error, ConversionError):
        return error  # ours already, raised inside the body: it names the right variable
    translated = carry_error(split, record, construct, location)
    if translated is None:
        return error
    translated.__cause__ = error
    return translated


def carry_error(split: Split, record: dict, construct: str, location) -> StagingTypeError | None:
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

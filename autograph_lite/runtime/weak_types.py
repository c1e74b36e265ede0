"""Weak types across a staged loop's carry: one type per carried value, eager's where it can be.

A ``lax`` loop takes each carried value's output type, weak type included, from its body (a plain
``lax.while_loop`` does the same): a carry that enters strongly typed (``s = n_i32``) and that the
body gives a Python number (``s = 1``) left the loop weakly typed even after no iteration, where eager
Python still has the strongly typed ``n``. A weakly typed int32 beside a uint8 or a bfloat16 then
computes in the other's dtype, where eager's strong int32 promotes it: a different value, not only
a different type. So a body value whose only difference from the entry is its weak type is cast to the
entry's strong type (:func:`as_entered`), as a staged ``if`` makes its output strongly typed where a
branch's value is (the documented unification: a weakly typed value may come back strongly typed).

That cast must not reach the zeros that stand for a name unassigned before the loop: they are no
value eager Python ever had, so they take the body's type exactly, weak type included
(:func:`zeros_of_type`), and the body's value stays as eager's is (``last = x * 0.5``: weakly typed
when ``x`` is a Python float).

The other way round, a weakly typed entry that the body widens and leaves weakly typed (``total = 0``,
then ``total + 0.5``: a Python float from the first iteration on) must enter as that wider weak type
(:class:`EntryCastNeeded`, :func:`cast_like`): JAX's own promotion of the entry makes it strongly typed.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..generated_names import PREFIX, RETURN_VALUE
from .values import Split, is_array_leaf

# The Python zero that JAX makes a weakly typed array of each kind of dtype from.
_PYTHON_ZERO = {"i": 0, "f": 0.0, "c": 0j}


def as_entered(entry: Any, value: Any) -> Any:
    """``value`` (an array leaf one iteration returned) strongly typed where only that distinguishes it
    from the ``entry`` leaf it is carried in; any other value as it is (the carry checks judge those)."""
    before, after = jax.typeof(entry), jax.typeof(value)
    if after.weak_type and not before.weak_type and after.dtype == before.dtype:
        return lax.convert_element_type(value, before.dtype)
    return value


def cast_as_eager(value: Any, dtype: Any) -> Any:
    """``value`` converted to ``dtype``, weakly typed if it was or is a bool turned number (the lowest
    dtype promotes as a Python number does; the other side decides the output's weak type,
    :func:`.conditionals.strongly_typed_where_a_branch_is`): a Python number that a staged choice
    takes into another dtype (``y = 2`` beside ``y = 0.5``) is still a Python number eagerly, and stays
    one beside a later Python number (``lax.convert_element_type`` would make it strongly typed, and
    a strongly typed float32 may not become the complex64 that ``1j`` asks for). A number the dtype
    cannot hold is refused after the choice (:mod:`.narrow_numbers`): its cast warns of nothing."""
    aval = jax.typeof(value)
    weak = bool(aval.weak_type) or (aval.dtype == jnp.bool_ and jnp.dtype(dtype) != jnp.bool_)
    with np.errstate(over="ignore", invalid="ignore"):  # JAX folds a constant's cast with NumPy
        return converted(value, dtype, weak=weak)


def converted(value: Any, dtype: Any, weak: bool) -> Any:
    """``value`` as ``dtype``, weakly typed or not as asked: ``lax.convert_element_type`` always makes
    it strongly typed, and offers no other choice."""
    return lax.convert_element_type_p.bind(value, new_dtype=jnp.dtype(dtype), weak_type=weak, sharding=None)


def python_bools_weak(split: Split) -> Split:
    """``split`` with each Python bool among its array leaves a weakly typed bool array.

    A Python bool is a Python number (``True`` is 1): beside a Python int, a float or an array it
    takes the other's dtype, as eager arithmetic gives ``True * v_u8`` uint8. JAX stages it as a
    strongly typed bool, which a staged choice then joined as an array: ``True`` beside ``1`` made a
    strongly typed int32 (``on * v_u8`` computed in int32, 400 for eager's wrapped 144), and beside an
    int32 a refusal. Weakly typed, it joins as the other Python numbers do (:func:`.carry.joined_dtype`);
    a weakly typed bool computes as a bool, since JAX promotes it as one. The converter's own flags
    (``_ag_returned``, a loop's ``break`` flag) meet only bools: they stay as they are, no conversion.
    """
    users = {slot for name, slots in zip(split.names, split.slots) if _users(name) for slot in slots if isinstance(slot, int)}
    if not any(type(split.arrays[slot]) is bool for slot in users):
        return split
    arrays = [converted(jnp.asarray(leaf), jnp.bool_, weak=True) if type(leaf) is bool and slot in users else leaf
              for slot, leaf in enumerate(split.arrays)]
    return dataclasses.replace(split, arrays=arrays)


def _users(name: str) -> bool:
    """Whether the carried ``name`` holds the user's values: their variables and their return value."""
    return not name.startswith(PREFIX) or name == RETURN_VALUE


def zeros_of_type(value: Any) -> Any:
    """``value`` with every array leaf replaced by zeros of its shape, dtype and weak type."""
    def zeros(leaf: Any) -> Any:
        if not is_array_leaf(leaf):
            return leaf
        aval = jax.typeof(leaf)
        strong = jnp.zeros(aval.shape, aval.dtype)
        if aval.weak_type and aval.dtype == jnp.bool_:  # a Python bool's (python_bools_weak)
            return converted(strong, jnp.bool_, weak=True)
        if not aval.weak_type or aval.dtype.kind not in _PYTHON_ZERO:
            return strong
        weak = jnp.broadcast_to(jnp.asarray(_PYTHON_ZERO[aval.dtype.kind]), aval.shape)
        return weak if weak.dtype == aval.dtype else strong

    return jax.tree_util.tree_map(zeros, value)


class EntryCastNeeded(Exception):
    """One iteration gives carried values a type that the loop's entry must take before the loop:
    ``casts`` holds, per name (its index), the value one iteration gave it, abstract; the loop starts
    again with the entry cast like it (:func:`cast_like`, from :func:`.carry.with_placeholders_filled`)."""

    def __init__(self, casts: tuple[tuple[int, Any], ...]) -> None:
        super().__init__(casts)
        self.casts = casts


def weak_entries_widened(before: Split, after: Split) -> tuple[tuple[int, Any], ...]:
    """(name index, abstract value after one iteration) for each name with a weakly typed leaf that the
    iteration widens, still weakly typed: ``total = 0`` then ``total = total + 0.5`` is a Python float
    from the first iteration on, eagerly. JAX's own promotion of a loop's weakly typed entry makes it
    strongly typed (a float32 ``total``, which then computes a float16 product in float32)."""
    abstract_after = after.rebuild(after.abstract().arrays)
    found = []
    for index, (before_slots, after_slots) in enumerate(zip(before.slots, after.slots)):
        if any(isinstance(old, int) and isinstance(new, int) and
               _widened(jax.typeof(before.arrays[old]), jax.typeof(after.arrays[new]))
               for old, new in zip(before_slots, after_slots)):
            found.append((index, abstract_after[index]))
    return tuple(found)


def _widened(before: Any, after: Any) -> bool:
    return bool(before.weak_type and after.weak_type) and before.shape == after.shape and \
        before.dtype != after.dtype and jnp.promote_types(before.dtype, after.dtype) == after.dtype


def cast_like(entry: Any, target: Any) -> Any:
    """``entry`` with each array leaf cast where one iteration changes its type: a strongly typed bool
    that the body turns into a number becomes that number (True is 1; :mod:`.promotion` decides when
    that start is exact), and a weakly typed number that the body widens is widened, weakly typed."""
    def cast(leaf: Any, wanted: Any) -> Any:
        if not is_array_leaf(leaf):
            return leaf
        have = jax.typeof(leaf)
        if type(leaf) is bool:  # a Python number, as weakly typed as a Python int (python_bools_weak)
            have = have.update(weak_type=True)
        if _widened(have, wanted):
            return converted(jnp.asarray(leaf), wanted.dtype, weak=True)
        if have.dtype == jnp.bool_ and wanted.dtype != jnp.bool_:  # weakly typed where the body's number is
            return converted(jnp.asarray(leaf), wanted.dtype, weak=bool(wanted.weak_type))
        return leaf

    return jax.tree_util.tree_map(cast, entry, target)


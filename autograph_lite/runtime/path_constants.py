"""A carried value that every path of a staged ``if`` or switch leaves the same stays that value.

A staged statement hands each name it carries out as an output of ``lax.cond`` / ``lax.switch``,
which would make a Python number a traced array: an int an int32, which wraps past its range where
Python's grows. Where every branch that returns gives the very same value (it passed the value
through: a name the branch only reads, or hands to a helper; an item of a dict it updates elsewhere),
or an equal Python number of the same type, the statement's value is that value whatever the
condition, as in eager Python: a Python number stays the Python number it was, and an array from
outside the statement the array it was (not the statement's copy of it). A staged loop uses
:func:`same_constant` too: a body that sets a carried Python number to the number it entered with
hands back its own input there, which ``lax`` returns as the entry's value
(:meth:`.carry.LoopCarry.arrays_after`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax

from .values import is_traced

_VARIES = object()  # a leaf that the branch computed
_NUMBERS = (bool, int, float, complex)


def constants_of(arrays: Sequence[Any], operands: Any) -> list[Any]:
    """Per array leaf a branch returned: the leaf itself where it is not traced or is a leaf of the
    statement's ``operands`` (a value from outside the branch, passed through), else a marker. Only
    values from outside the branch's trace are kept: its own tracers must not outlive it."""
    given = {id(leaf) for leaf in jax.tree_util.tree_leaves(operands)}
    return [leaf if not is_traced(leaf) or id(leaf) in given else _VARIES for leaf in arrays]


def kept_where_constant(outputs: Sequence[Any], per_branch: Sequence[Sequence[Any]]) -> list[Any]:
    """The statement's array ``outputs``, each one that every returning branch gave as the same constant
    (``per_branch``: :func:`constants_of` of each) put back as that constant."""
    kept = list(outputs)
    if not per_branch:
        return kept
    for index, first in enumerate(per_branch[0]):
        if first is not _VARIES and all(same_constant(first, other[index]) for other in per_branch[1:]):
            kept[index] = first
    return kept


def same_constant(first: Any, other: Any) -> bool:
    """The same constant: one object, or Python numbers of one type and one value (``repr`` tells
    ``-0.0`` from ``0.0`` and sees NaN as NaN)."""
    if first is other:
        return True
    return type(first) is type(other) and type(first) in _NUMBERS and repr(first) == repr(other)

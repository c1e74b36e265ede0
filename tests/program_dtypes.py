"""The dtypes a converted function's results must have: the check's half of exactness.

Comparing values alone hides a wrong dtype: float32 holds every integer up to 2**24 exactly, so an
int32 result that comes back as float32 compares equal on small numbers (an ``and`` / ``or`` that
promoted an int32 operand beside a float32 one returned 16777216.0 for 16777217). The check
(program_check.py) therefore also compares the *kind* of every numeric leaf: its dtype, whether it
is weakly typed, and whether it is a Python scalar.

Eager Python's leaf is described by :func:`leaf_kind` before anything copies it. Run on concrete
inputs, ``convert(f)`` keeps Python's semantics, so each leaf must be of eager's kind exactly: a
Python int stays a Python int, an int32 array an int32 array (weakly typed or not, as eager's).
Under ``jit`` every result is an array, and docs/semantics.md ("Weak types and type unification")
documents the only other differences, which :func:`staged_kind_allowed` encodes:

- a Python scalar comes back as the array ``jax.jit`` makes of it: a weakly typed int32 / float32,
  or a bool (weakly typed where a staged statement carried it: JAX promotes it as any bool);
- a weakly typed value (a Python number, or a weakly typed array) may take the dtype of a value it
  met in a staged ``if``, ternary, ``and`` / ``or`` or loop carry: ``jnp.result_type`` of the two,
  so an int becomes any integer or floating dtype, a float any floating dtype, weakly typed or not
  (``0.0`` where eager Python has the integer ``0``);
- a strongly typed value may come back in a dtype that holds every value of its own (a bool carry
  that a loop turns into a number is carried as that number from the start; an ``and`` / ``or``
  choosing between a bool and a number, or an int16 and a float32, picks their common dtype).

Anything else (an int32 that comes back as float32, a float that comes back as an int, a strongly
typed value that comes back weakly typed) is a dtype mismatch: the value the caller computes with
next would differ.

An int that comes back as a float, where that is documented, must still be eager's int exactly
(:func:`rounded_int`): the values' comparison allows float rounding, which would hide 16777216.0 for
eager's Python int 16777217 (a staged choice of it beside a float, or a list of both indexed by a
traced value).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import numpy as np


class Kind(NamedTuple):
    """What a numeric leaf is: its dtype as ``jax.jit`` would return it, whether it is weakly typed,
    and its Python type when it is a Python scalar (``bool``, ``int``, ``float``), else None."""

    dtype: np.dtype
    weak: bool
    python: type | None

    def __str__(self) -> str:
        if self.python is not None:
            return f"Python {self.python.__name__}"
        return f"{self.dtype.name}{' (weakly typed)' if self.weak else ''}"


def leaf_kind(leaf: Any) -> Kind | None:
    """The kind of ``leaf``; None for a leaf that is no number or array (a string, a function)."""
    if isinstance(leaf, jax.Array):
        return Kind(np.dtype(leaf.dtype), bool(getattr(leaf, "weak_type", False)), None)
    if isinstance(leaf, (np.ndarray, np.generic)):  # before float: np.float64 is a float
        if leaf.dtype.kind not in "biuf":
            return None
        return Kind(np.dtype(jax.dtypes.canonicalize_dtype(leaf.dtype)), False, None)
    for python, dtype in ((bool, np.bool_), (int, np.int32), (float, np.float32)):  # bool before int
        if isinstance(leaf, python):
            return Kind(np.dtype(dtype), python is not bool, python)
    return None


def kinds(tree: Any) -> list[Kind | None]:
    """The kinds of the leaves of ``tree``, in ``jax.tree_util`` order."""
    return [leaf_kind(leaf) for leaf in jax.tree_util.tree_leaves(tree)]


def staged_kind_allowed(got: Kind, eager: Kind) -> bool:
    """Whether a ``jit`` result of kind ``got`` is a documented form of eager's leaf of kind ``eager``."""
    if got.dtype == eager.dtype:  # a Python bool may come back weakly typed: it promotes as a bool
        return eager.weak or not got.weak or eager.python is bool
    if not eager.weak:  # a bool as a number, an int16 as float32: a common dtype holding every value
        # (weakly typed only for a bool, which promotes with other dtypes as a weakly typed int does)
        return np.can_cast(eager.dtype, got.dtype, "safe") and (not got.weak or eager.dtype == np.dtype(bool))
    return _kind(got.dtype) in ("iuf" if eager.dtype.kind in "iu" else "f")


def _kind(dtype: np.dtype) -> str:
    """NumPy's kind letter, with JAX's extra floats (bfloat16, float8: kind "V" to NumPy) as floats."""
    return "f" if jax.numpy.issubdtype(dtype, jax.numpy.floating) else dtype.kind


class DtypeDifference(NamedTuple):
    """The first leaf whose kind differs from eager's: where, what it is, and what eager's is."""

    index: int
    got: Kind
    eager: Kind
    leaf: Any

    @property
    def kinds(self) -> str:
        """The two kinds, which name the class of the difference (survey signatures group by them)."""
        return f"{self.got} for {self.eager}"

    def __str__(self) -> str:
        return f"leaf {self.index}: {self.got} where eager Python's is {self.eager} (value {self.leaf!r})"


def dtype_difference(actual: Any, eager_kinds: list[Kind | None], staged: bool) -> DtypeDifference | None:
    """How the leaves of ``actual`` differ in kind from eager's, or None.

    ``staged``: ``actual`` came from ``jit`` (the documented differences apply); otherwise it came
    from ``convert`` on concrete inputs and must be of eager's kind exactly.
    """
    for index, (leaf, eager) in enumerate(zip(jax.tree_util.tree_leaves(actual), eager_kinds)):
        got = leaf_kind(leaf)
        if eager is None or got is None:
            continue
        allowed = staged_kind_allowed(got, eager) if staged else got == eager
        if not allowed:
            return DtypeDifference(index, got, eager, leaf)
    return None


def rounded_int(actual: Any, eager: Any) -> str | None:
    """The first integer leaf of eager's that ``actual`` holds as a float of another value, described;
    None if there is none (an int a float holds, such as ``2`` as ``2.0``, is eager's value)."""
    for index, (got, want) in enumerate(zip(jax.tree_util.tree_leaves(actual), jax.tree_util.tree_leaves(eager))):
        got_array, want_array = np.asarray(got), np.asarray(want)
        if want_array.dtype.kind not in "iu" or got_array.dtype.kind != "f" or got_array.shape != want_array.shape:
            continue
        if not np.array_equal(got_array.astype(np.float64), want_array):
            return f"leaf {index}: {got_array.tolist()!r} ({got_array.dtype.name}) where eager Python's int is {want_array.tolist()!r}"
    return None

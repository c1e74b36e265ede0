"""``x[index] = v`` and ``x[index] op= v`` on a JAX array, as NumPy's in-place store computes them.

A program stores into an array item only where the array is NumPy's (a JAX array cannot change), so
the traced copy that the rewrite updates with ``x.at[index]`` stands for a NumPy array, and the
update must compute what NumPy's store computes:

- an augmented store is ``x[index] = x[index] op v``: one update per distinct index, where
  ``.at[index].add(v)`` adds once per repeat of an index array (``x[[0, 0]] += 1`` adds 1, not 2);
- the result is cast back to the array's dtype, as NumPy's store casts (``x[i] /= 2`` on an int
  array truncates the quotient; ``.at[i].divide`` would give a float array, ``.at[i].power(0.5)`` a
  power of the truncated exponent), and NumPy's errors are raised where NumPy raises them (a slice
  of an int array divided in place, a Python int out of the dtype's bounds): :func:`_numpy_errors`
  runs the same operation on stand-ins of the same dtypes while tracing, which costs no equation;
- a concrete index past the end raises NumPy's ``IndexError``, where ``.at[]`` drops the update.

``.at[index].add`` and its kin stay where they compute the same: an index without arrays (no
repeats) and an operation whose result keeps the array's dtype, so that programs that stored that
way before trace the same equations.
"""

from __future__ import annotations

import operator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .locations import caller_location
from .loop_counters import bounds_of
from .printing import DeferredText
from .run_time_checks import stage_exception
from .values import is_traced

AT_METHODS = {"+=": "add", "-=": "subtract", "*=": "multiply", "/=": "divide", "**=": "power"}
BINARY = {
    "+=": operator.add, "-=": operator.sub, "*=": operator.mul, "/=": operator.truediv,
    "//=": operator.floordiv, "%=": operator.mod, "**=": operator.pow, "@=": operator.matmul,
    "&=": operator.and_, "|=": operator.or_, "^=": operator.xor, "<<=": operator.lshift, ">>=": operator.rshift,
}
IN_PLACE = {
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "@=": operator.imatmul,
    "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift, ">>=": operator.irshift,
}
_PYTHON_NUMBERS = (bool, int, float, complex)


def store(array: jax.Array, index: Any, value: Any, augmented: str | None) -> jax.Array:
    """``array`` after NumPy's ``array[index] = value`` (or ``array[index] augmented value``)."""
    parts = index if isinstance(index, tuple) else (index,)
    _check_bounds(array.shape, parts)
    if isinstance(value, (list, tuple)):
        value = jnp.asarray(value)  # NumPy's operand: an array of the items
    where = array.at[index]
    if augmented is None:
        _numpy_errors(array, index, value, None)
        return where.set(_cast(value, array.dtype))
    _numpy_errors(array, index, value, augmented)
    if augmented in AT_METHODS and _at_method_is_numpy(array, parts, value, augmented):
        return getattr(where, AT_METHODS[augmented])(value)
    return where.set(_cast(BINARY[augmented](array[index], value), array.dtype))


def _at_method_is_numpy(array: jax.Array, parts: tuple[Any, ...], value: Any, augmented: str) -> bool:
    """Whether ``.at[index].add(value)`` and its kin compute NumPy's store: no index array (which
    may repeat an index), and a result of the array's own dtype (not bool, which JAX cannot add;
    not an int array's quotient)."""
    if array.dtype == np.bool_ or not all(_is_basic(part) for part in parts):
        return False
    if augmented == "/=" and not jnp.issubdtype(array.dtype, jnp.inexact):
        return False  # a true quotient of ints is a float
    return bool(jnp.result_type(array.dtype, value) == array.dtype)  # (a Python number, weakly typed)


def _is_basic(part: Any) -> bool:
    """An index part that selects each element at most once: an integer, a slice, ``None``, ``...``."""
    return part is None or part is Ellipsis or isinstance(part, slice) or _is_position(part)


def _is_position(part: Any) -> bool:
    """An integer index part (a Python int, or a 0-d integer array, traced or not): it selects one
    position along its axis."""
    return _integers(part) and np.ndim(part) == 0


def _cast(value: Any, dtype: Any) -> Any:
    """``value`` in the array's dtype, as NumPy's store casts it (JAX's scatter would warn first)."""
    if isinstance(value, _PYTHON_NUMBERS) and jnp.result_type(value, dtype) == dtype:
        return value
    value = jnp.asarray(value)
    return value if value.dtype == dtype else lax.convert_element_type(value, dtype)


def _numpy_errors(array: jax.Array, index: Any, value: Any, augmented: str | None) -> None:
    """Raise what NumPy raises for this store: the same operation on zeros of the same dtypes and
    shapes (the item a NumPy scalar where every axis gets an integer, as NumPy's ``x[i]`` is; else
    an array, which NumPy updates in place with same-kind casting); a Python number is kept as it
    is, whose value decides (``300`` does not fit a uint8)."""
    stand_in = _stand_in(value)
    if augmented is None:
        if isinstance(stand_in, _PYTHON_NUMBERS):  # NumPy casts an array into the store unconditionally
            with np.errstate(all="ignore"):
                np.zeros((1,), array.dtype)[0] = stand_in
        return
    parts = index if isinstance(index, tuple) else (index,)
    with np.errstate(all="ignore"):
        IN_PLACE[augmented](_item_stand_in(array, parts), stand_in)


def _item_stand_in(array: jax.Array, parts: tuple[Any, ...]) -> Any:
    """Zeros standing for ``array[index]`` as NumPy reads it: a NumPy scalar where every axis gets an
    integer, else a (writable) array of the item's shape, found by NumPy's indexing of a stand-in of
    the array with each traced part made zeros (no equation is traced)."""
    if len(parts) == array.ndim and all(_is_position(part) for part in parts):
        return np.zeros((), array.dtype)[()]
    concrete = tuple(np.zeros(part.shape, part.dtype) if is_traced(part) else part for part in parts)
    return np.zeros(np.broadcast_to(np.zeros((), array.dtype), array.shape)[concrete].shape, array.dtype)


def _stand_in(value: Any) -> Any:
    """A value of ``value``'s dtype for :func:`_numpy_errors`: a Python number as it is, a weakly
    typed value (a Python number while tracing) as a Python number of its kind, else zeros."""
    if isinstance(value, _PYTHON_NUMBERS):
        return value
    if isinstance(value, np.generic):
        return value
    typed = jax.typeof(value) if isinstance(value, jax.Array) else None
    if typed is None:
        return np.asarray(value)
    if typed.weak_type:
        return np.zeros((), typed.dtype).item()
    return np.zeros(typed.shape, typed.dtype)


def _check_bounds(shape: tuple[int, ...], parts: tuple[Any, ...]) -> None:
    """NumPy's ``IndexError`` for a concrete integer index past an axis (``.at[]`` would drop the
    update); a traced index is known only when the program runs (see docs/semantics.md)."""
    axis = 0
    for position, part in enumerate(parts):
        if part is Ellipsis:
            axis = len(shape) - sum(_axes_taken(rest) for rest in parts[position + 1:])
            continue
        if axis < len(shape) and _integers(part):
            if is_traced(part):
                _stage_bounds_check(part, axis, shape[axis])
            else:
                _raise_past_bounds(part, axis, shape[axis])
        axis += _axes_taken(part)


def _out_of_bounds(axis: int, size: int) -> str:
    """NumPy's message, with a ``{}`` for the index."""
    return "index {} is out of bounds for axis " + f"{axis} with size {size}"


def _raise_past_bounds(part: Any, axis: int, size: int) -> None:
    """NumPy's ``IndexError`` now, for the first index of a concrete ``part`` past the axis."""
    for number in np.asarray(part).ravel().tolist():
        if not -size <= number < size:
            error = IndexError(_out_of_bounds(axis, size).format(number))
            error.add_note(f"(stored into an array at {caller_location()})")
            raise error


def _stage_bounds_check(part: Any, axis: int, size: int) -> None:
    """NumPy's ``IndexError`` when the program runs, for the first index of a traced ``part`` past the
    axis; none for a counter of a concrete ``range`` whose values all lie within it."""
    known = bounds_of(part)
    if known is not None and -size <= known[0] and known[1] < size:
        return
    outside = jnp.logical_or(part < -size, part >= size)
    first = part
    if part.ndim:
        first = part.ravel()[jnp.argmax(outside.ravel())]
        outside = jnp.any(outside)
    error = IndexError(DeferredText(_out_of_bounds(axis, size), (first,)))
    stage_exception(outside, error, caller_location())


def _integers(part: Any) -> bool:
    """Whether ``part`` is an integer index or an array of them (bools are masks, not positions)."""
    if isinstance(part, bool):
        return False
    if isinstance(part, (int, np.integer)):
        return True
    return isinstance(part, (jax.Array, np.ndarray)) and np.issubdtype(part.dtype, np.integer)


def _axes_taken(part: Any) -> int:
    """How many axes of the array an index part consumes."""
    if part is None or part is Ellipsis:
        return 0
    if isinstance(part, (jax.Array, np.ndarray)) and part.dtype == np.bool_:
        return max(part.ndim, 1)
    return 1

"""``items[index]`` on a Python list, tuple or range once the index is traced.

Python's ``list.__getitem__`` asks the index for ``__index__``, which a traced value cannot answer,
so converted code reads every subscript whose index may be traced through :func:`make_getitem`'s
operator. With a concrete index, or a value that is not a Python sequence (a JAX array, a dict), it
is the plain subscript, at the cost of one call at trace time. With a traced index into a Python
sequence, the item is chosen at run time:

- the index must be a 0-d integer array, as JAX's ``__index__`` demands of a concrete one (eager
  raises the same ``TypeError`` for a float or bool index; NumPy's ``IndexError`` for a NumPy array's
  float index, which eager NumPy refuses before asking for an int);
- numbers, arrays, or pytrees of one structure with such leaves are stacked leaf by leaf and the
  stack is indexed. A Python number is weakly typed as JAX treats the scalar it stands for, so
  ``x_bf16 + TORQUES[a]`` stays bf16; ints mixed with floats give a float, as a traced
  ``1 if c else 2.5`` does. Elements whose shapes, dtypes or Python parts differ cannot be stacked:
  a located ``StagingTypeError``; so is a Python number that the stack's dtype does not hold, as in
  any staged choice (:mod:`.narrow_numbers`: ``[16777217, 0.5]`` as float32 has 16777216.0, ``[70000.0,
  x_f16]`` as float16 ``inf``), and a Python int past the int32 that ``jit`` makes of one;
- functions become one callable whose call is ``lax.switch`` over them, each converted as any call
  from converted code; their results must agree as a ``lax.cond``'s branches must;
- a ``range`` item is ``start + index * step``, computed, for a range whose ints a staged int holds.

Negative indices count from the end, as in Python. An index out of range raises Python's
``IndexError`` when the program runs (:func:`.run_time_checks.stage_exception`): a clamped item would be
a silent wrong value. Inside a static loop's trial trace such a subscript makes the loop run as
Python, as it did before subscripts were converted: an unrolled loop indexes with concrete values.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import Location, StagingTypeError
from . import appends, effects, report
from .carry import differences
from .carry_errors import DTYPE, SHAPE, SHAPE_AND_DTYPE, Difference, Site
from .locations import caller_location
from .narrow_numbers import a_dtype, cast_loses_value, python_number_dtype, shown
from .run_time_checks import stage_exception
from .values import Split, is_traced

# Subscripts answered by these methods are Python's sequence lookups (subclasses that keep them too:
# a namedtuple); any other ``__getitem__`` is the value's own business.
_SEQUENCE_LOOKUPS = frozenset({list.__getitem__, tuple.__getitem__, range.__getitem__, str.__getitem__,
                               bytes.__getitem__, np.ndarray.__getitem__})
_INDEX_ERROR = "Only integer scalar arrays can be converted to a scalar index."  # JAX's, for eager
_NUMPY_INDEX_ERROR = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or "
                      "boolean arrays are valid indices")
_ITEM = ("<item>",)
_CONCRETE_FIX = "or index with a concrete value (a Python int, or an argument made static with static_argnames)"

Call = Callable[..., Any]


def make_getitem(call: Call) -> Callable[[Any, Any], Any]:
    """``_ag.getitem(value, index)``: ``value[index]``; ``call`` converts the functions a traced index picks."""

    def getitem(value: Any, index: Any) -> Any:
        if not is_traced(index) or getattr(type(value), "__getitem__", None) not in _SEQUENCE_LOOKUPS:
            return value[index]
        return _traced_item(value, index, call)

    return getitem


def _traced_item(items: Sequence[Any], index: Any, call: Call) -> Any:
    if isinstance(items, np.ndarray) and not jnp.issubdtype(index.dtype, jnp.integer) and index.dtype != jnp.bool_:
        error = IndexError(_NUMPY_INDEX_ERROR)  # NumPy's, eager's for a float index: before it asks for an int
        error.add_note(f"(a NumPy array indexed by a traced {index.dtype} at {caller_location()}: index a JAX "
                       "array with an integer, jnp.asarray(table)[i.astype(int)], whose int truncates as int(i) does)")
        raise error
    if isinstance(items, np.ndarray):
        raise StagingTypeError(
            "a NumPy array indexed by a traced value: NumPy asks the index for a Python int, which a traced "
            "value has only when the program runs",
            caller_location(),
            "Make it a JAX array first: jnp.asarray(table)[i] (JAX clamps an index out of range instead of "
            "raising, and computes in JAX's dtypes: float32 for float64 unless jax_enable_x64 is set); or index "
            f"it with a concrete value ({_CONCRETE_FIX.removeprefix('or index with a concrete value (')}.",
        )
    if isinstance(items, (str, bytes)):
        raise StagingTypeError(
            f"a {type(items).__name__} indexed by a traced value: its characters are Python values, and a traced "
            "index is known only when the program runs, where no Python value can be chosen",
            caller_location(),
            "Index it with a concrete value (a Python int, or an argument made static with static_argnames), "
            "or encode the characters as numbers in an array.",
        )
    kind = _kind(items)
    aval = jax.typeof(index)
    if aval.shape != () or not jnp.issubdtype(aval.dtype, jnp.integer):
        raise TypeError(_INDEX_ERROR)
    if len(items) == 0:
        raise IndexError(f"{kind} index out of range")
    if appends.in_trial():
        raise effects.Refused(f"indexes a Python {kind} with a traced value")
    location = caller_location()
    position = _checked_position(index, len(items), kind, location)
    if isinstance(items, range):
        _refuse_ints_past_staged([items[0], items[-1]], kind, location)
        return _range_item(items, position)
    elements = list(items)
    if all(callable(element) for element in elements):
        _record(location, kind, f"lax.switch over {len(elements)} functions when called")
        return Switched(position, tuple(elements), call, kind, location)
    return _stacked_item(elements, position, kind, location)


def _kind(items: Sequence[Any]) -> str:
    """The sequence as Python's ``IndexError`` names it."""
    if isinstance(items, range):
        return "range object"
    return "list" if isinstance(items, list) else "tuple"


def _checked_position(index: jax.Array, length: int, kind: str, location: Location | None) -> jax.Array:
    """``index`` counted from the start (a negative one from the end, as Python does); an index
    outside the sequence raises Python's ``IndexError`` at run time, with the user's line."""
    if jnp.iinfo(index.dtype).bits < 32:
        index = index.astype(jnp.int32)  # room for index + length
    if jnp.issubdtype(index.dtype, jnp.signedinteger):
        index = lax.select(index < 0, index + length, index)
        outside = lax.bitwise_or(index < 0, index >= length)
    else:
        outside = index >= length
    stage_exception(outside, IndexError(f"{kind} index out of range"), location)
    return index


def _range_item(numbers: range, position: jax.Array) -> jax.Array:
    """``numbers[position]``, weakly typed as the Python int it stands for (computed, never listed:
    a range may be long). A weak type survives a scatter into a weakly typed scalar."""
    value = numbers.start + position.astype(python_number_dtype(int)) * numbers.step  # an unsigned index, counted as signed
    return jnp.asarray(0).at[()].set(value)


# --- numbers, arrays and pytrees of them: stacked -------------------------------------------------


def _stacked_item(elements: list[Any], position: jax.Array, kind: str, location: Location | None) -> Any:
    """The element at ``position``: every array leaf stacked over the elements, then indexed."""
    splits = [Split.of([element], _ITEM) for element in elements]
    element_leaves = [list(split.arrays) for split in splits]
    for split in splits:
        _refuse_ints_past_staged(split.arrays, kind, location)
        split.arrays = [jnp.asarray(leaf) for leaf in split.arrays]  # a Python number: weakly typed
    _agreeing_dtypes([split.abstract() for split in splits], _ElementMismatch(kind, location))
    with np.errstate(over="ignore"):  # a number the stack's dtype does not hold is refused just below
        stacked = [jnp.stack(leaves) for leaves in zip(*(split.arrays for split in splits))]
    _refuse_numbers_not_held(element_leaves, [column.dtype for column in stacked], kind, location)
    picked = [_row(leaves, position) for leaves in stacked]
    _record(location, kind, "its elements stacked as " + ", ".join(_short(leaves) for leaves in stacked))
    (item,) = splits[0].rebuild(picked)
    return item


def _refuse_ints_past_staged(numbers: Sequence[Any], kind: str, location: Location | None) -> None:
    """Refuse a Python int among ``numbers`` (a sequence's leaves, or a range's ends) that the int32
    ``jit`` makes of a Python int (int64 with 64-bit types on) cannot hold: eager Python's ints do not
    overflow, and JAX's own error for one names neither the line nor the sequence."""
    staged = python_number_dtype(int)
    bounds = np.iinfo(staged)
    for number in numbers:
        if type(number) is int and not bounds.min <= number <= bounds.max:
            x64 = ("; or turn on jax_enable_x64, where a Python int is an int64"
                   if staged == np.int32 and np.iinfo(np.int64).min <= number <= np.iinfo(np.int64).max else "")
            raise StagingTypeError(
                f"a Python {kind} indexed by a traced value holds the Python int {number}, which no {staged.name} "
                f"holds: a traced index picks its item when the program runs, as {a_dtype(staged)} (a Python int's "
                "dtype under jit), where eager Python's ints do not overflow",
                location,
                f"Index it with a concrete value (a Python int, or an argument made static with static_argnames){x64}.",
            )


def _refuse_numbers_not_held(leaves: list[list[Any]], dtypes: list[Any], kind: str, location: Location | None) -> None:
    """Refuse a Python number among the elements' ``leaves`` that its stack's dtype (``dtypes``, per
    leaf) does not hold exactly, as any staged choice does (:mod:`.narrow_numbers`): eager Python
    returns the element as it is."""
    for position, element in enumerate(leaves):
        for leaf, dtype in zip(element, dtypes):
            if not cast_loses_value(leaf, dtype):
                continue
            what, why, int_beside_float = shown(leaf, dtype)
            name = jnp.dtype(dtype).name
            fix = (f"Choose the dtype yourself: jnp.asarray(items, jnp.{name})[i] where {name} is meant (rounded, as "
                   f"eager {name} arithmetic rounds it), or make every element an int where ints are meant"
                   if int_beside_float else
                   f"Give every element a dtype that holds each (jnp.asarray(..., dtype)), or write the number as "
                   f"jnp.{name}(...) to choose in {name} as eager arithmetic beside it would")
            raise StagingTypeError(
                f"a Python {kind} indexed by a traced value holds {what} (element {position}) among elements stacked "
                f"as {a_dtype(dtype)} array, which {why}, where eager Python returns the element as it is",
                location,
                f"{fix}; {_CONCRETE_FIX}.",
            )


def _row(stacked: jax.Array, position: jax.Array) -> jax.Array:
    """``stacked[position]`` for a position known to be in range (checked, normalized already)."""
    starts = (position,) + (0,) * (stacked.ndim - 1)
    row = lax.dynamic_slice(stacked, starts, (1, *stacked.shape[1:]), allow_negative_indices=False)
    return lax.squeeze(row, (0,))


def _agreeing_dtypes(splits: list[Split], mismatch: Callable[[int, int, Difference], Exception]) -> list[Any]:
    """Per array leaf, the dtype all of ``splits`` (abstract) share once weakly typed leaves take the
    others' dtype, as a traced ``if``'s branches do; ``mismatch(i, j, difference)`` is the error when
    ``splits[i]`` and ``splits[j]`` differ otherwise (structure, Python leaves, shapes, strong dtypes)."""
    first = splits[0]
    strong_owner: dict[int, int] = {}  # array slot -> the first split with a strongly typed leaf there
    for number, split in enumerate(splits):
        found = differences(first, split, _either_weak)
        if found:
            raise mismatch(0, number, found[0])
        for slot, leaf in enumerate(split.arrays):
            if leaf.weak_type:
                continue
            owner = strong_owner.setdefault(slot, number)
            if splits[owner].arrays[slot].dtype != leaf.dtype:
                raise mismatch(owner, number, differences(splits[owner], split, _either_weak)[0])
    return [jnp.result_type(*(split.arrays[slot] for split in splits)) for slot in range(len(first.arrays))]


def _either_weak(first: Any, second: Any) -> bool:
    return bool(first.weak_type or second.weak_type)


@dataclasses.dataclass(frozen=True)
class _ElementMismatch:
    """The error for elements that cannot be stacked."""

    kind: str
    location: Location | None

    def __call__(self, first: int, second: int, difference: Difference) -> StagingTypeError:
        return StagingTypeError(
            f"a Python {self.kind} indexed by a traced value holds elements of different types: element "
            f"{first} is {difference.first} but element {second} is {difference.second} ({difference.what}). "
            "A traced index picks its element when the program runs, so the elements are stacked into "
            "arrays, one per leaf, which needs one structure, shape and dtype.",
            self.location,
            f"{_type_fix(difference.what, 'element')} {_CONCRETE_FIX}.",
        )


def _type_fix(what: str, subject: str) -> str:
    if what == SHAPE:
        return f"Give every {subject} one shape (slice, pad with jnp.pad, or broadcast them),"
    if what in (DTYPE, SHAPE_AND_DTYPE):
        return (f"Give every {subject} one shape and dtype (pad with jnp.pad, convert with "
                "jnp.asarray(..., dtype)),")
    return f"Make every {subject} an array, or a tuple / dict of arrays, of one structure,"


def _short(aval: Any) -> str:
    return str(jax.typeof(aval).str_short(short_dtypes=True))


def _record(location: Location | None, kind: str, outcome: str) -> None:
    if location is not None:
        report.record(Site(f"Python {kind} indexed by a traced value", location), outcome)


# --- functions: one lax.switch ----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Switched:
    """``functions[index]`` for a traced ``index``: a call of it is ``lax.switch(index, functions)``."""

    index: jax.Array
    functions: tuple[Any, ...]
    call: Call  # converts each function as a call from converted code does
    kind: str
    location: Location | None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Trace every function on the arguments as one ``lax.switch``; if that fails on outputs that
        differ only by weakly typed Python scalars, cast those to the dtype they share and trace again."""
        dtypes: list[Any] | None = None
        while True:
            splits: dict[int, Split] = {}
            branches = [self._branch(number, function, args, kwargs, splits, dtypes)
                        for number, function in enumerate(self.functions)]
            try:
                arrays, failure = lax.switch(self.index, branches), None
            except TypeError as error:
                arrays, failure = None, error
            if len(splits) < len(self.functions):  # a function raised TypeError itself
                assert failure is not None
                raise failure
            ordered = [splits[number] for number in range(len(self.functions))]
            joined = _agreeing_dtypes(ordered, self._mismatch)
            if failure is None:
                (result,) = ordered[0].rebuild(arrays)
                return result
            if dtypes is not None:
                raise failure
            dtypes = joined

    def _branch(self, number: int, function: Any, args: tuple, kwargs: dict, splits: dict[int, Split],
                dtypes: list[Any] | None) -> Callable[[], list[Any]]:
        def traced_branch() -> list[Any]:
            construct = f"function picked from a Python {self.kind} by a traced index"
            with appends.inside(appends.Forbidden(construct, self.location)):
                split = Split.of([self.call(function, *args, **kwargs)], _ITEM)
            splits[number] = split.abstract()
            if dtypes is None:
                return split.arrays
            return [a if jax.typeof(a).dtype == d else lax.convert_element_type(a, d)
                    for a, d in zip(split.arrays, dtypes)]

        return traced_branch

    def _mismatch(self, first: int, second: int, difference: Difference) -> StagingTypeError:
        names = [getattr(self.functions[n], "__name__", type(self.functions[n]).__name__) for n in (first, second)]
        return StagingTypeError(
            f"the functions of a Python {self.kind} indexed by a traced value return different types: element "
            f"{first} ({names[0]}) returns {difference.first} but element {second} ({names[1]}) returns "
            f"{difference.second} ({difference.what}). A traced index calls them as one lax.switch, which "
            "needs one type per output.",
            self.location,
            f"{_type_fix(difference.what, 'function result')} {_CONCRETE_FIX}.",
        )

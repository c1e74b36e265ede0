"""Python builtins given traced arguments, with the result eager NumPy-backed Python would give.

With concrete arguments every one of them is the builtin itself. With a traced argument:
``min`` / ``max`` keep Python's choice (the first value unless a later one compares smaller /
larger, so a NaN after the first value never wins and of equal values, ``0.0`` and ``-0.0``, the
first is kept, where ``jnp.minimum`` would spread the NaN; of one 1-D array, the same over its
elements; with ``key=``, the first element whose key is smallest / largest), ``sum`` of an array
adds its rows in turn, in the dtype of ``start + row`` (as Python's loop does), ``any`` / ``all``
test its elements (of a list of traced conditions, their truths in order: :func:`.logic.truth_fold`),
``int`` / ``float`` / ``bool`` are casts (``int`` truncates toward zero, as Python does), and
``print`` writes eager Python's text when the program runs, on every call (see :mod:`.printing`).
``next`` is here for its effect, not for traced arguments: inside staged code, advancing an iterator
would happen once while tracing, so it is refused there (:func:`.effects.check_advance`); ``setattr``
and ``delattr`` too, checked as an attribute store written out (:func:`.effects.check_attribute_assignment`).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator, KeysView, ValuesView
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from ..errors import Location, StagingTypeError, TracedPredicateError
from . import effects, printing, python_numbers, text
from .iteration import made_already, wide_python_int
from .locations import caller_location
from .logic import held_by_common_dtype, truth_fold, unknown_stop
from .narrow_numbers import a_dtype, cast_loses_value, lossy_choice, shown
from .private_iterators import drawn_privately
from .run_time_checks import stage_exception
from .values import any_traced, inside_a_trace, is_array_leaf, truth_of_one_element, type_string
from .weak_types import converted


def _min_max(
    python_builtin: Callable[..., Any], combine: Callable[[Any, Any], Any], best_index: Callable[[Any], Any]
) -> Callable[..., Any]:
    def traced_version(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and isinstance(args[0], (Iterator, ValuesView, KeysView)):
            args = (list(args[0]),)  # a generator, map(...), iter(xs), d.values(): Python takes every element, in order
        if "key" in kwargs and kwargs["key"] is None:
            kwargs = {name: value for name, value in kwargs.items() if name != "key"}  # Python's own default
        if len(args) == 1 and "key" not in kwargs and "default" in kwargs and hasattr(args[0], "__len__"):
            if not len(args[0]):
                return kwargs["default"]  # (an array's len is its static leading axis)
            kwargs = {}  # items to compare: the default is not used
        if len(args) == 1 and not kwargs and isinstance(args[0], (list, tuple)) and len(args[0]) == 1:
            return args[0][0]  # one item: Python compares nothing (an array item is returned as it is)
        if set(kwargs) <= {"key", "default"} and kwargs.get("key") is not None:
            return _min_max_by_key(python_builtin, args, **kwargs)
        if kwargs or not any_traced(args):
            return python_builtin(*args, **kwargs)
        if len(args) == 1:
            if isinstance(args[0], (list, tuple)):  # Python compares its items as it compares operands
                _refuse_unlike_operands(python_builtin.__name__, tuple(args[0]))
            values = jnp.asarray(args[0])
            if values.ndim != 1:
                raise TracedPredicateError(
                    f"{python_builtin.__name__}() of a traced array of shape {values.shape} compares its "
                    "rows, which have no single truth value",
                    caller_location(),
                    f"Use jnp.{python_builtin.__name__}(x, axis=...) for element-wise reductions.",
                )
            return _first_best_element(values, best_index)
        _refuse_unlike_operands(python_builtin.__name__, args)
        result = args[0]
        for value in args[1:]:
            result = combine(result, value)
        return result

    traced_version.__name__ = python_builtin.__name__
    return traced_version


def _refuse_unlike_operands(name: str, args: tuple[Any, ...]) -> None:
    """``max(a, b, ...)`` compares its operands as Python does, which takes each comparison's truth
    value: an operand of more than one element raises eager's ``ValueError`` (``jnp.maximum`` would
    compare element-wise); operands of other shapes, of dtypes whose common one does not hold each
    (an int32 beside a Python float or a float32: 16777217 would be 16777216.0; the rule of ``and`` /
    ``or``, :func:`.logic.held_by_common_dtype`), or a Python number that the others' narrow dtype
    cannot hold, are values that no one staged result holds, where Python returns the winner as it is."""
    if any(jnp.size(arg) > 1 for arg in args):
        raise ValueError("The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()")
    location = caller_location()
    if len({jnp.shape(arg) for arg in args}) > 1:
        raise StagingTypeError(
            f"{name}() returns one of its operands as it is, and here they have different shapes "
            f"({', '.join(str(jnp.shape(arg)) for arg in args)}): staged, one value must hold whichever wins",
            location, "Give the operands one shape first (x.reshape(()) of a one-element array).")
    dtype = jnp.result_type(*args)
    if not held_by_common_dtype(args, dtype):
        raise StagingTypeError(
            f"{name}() returns one of its operands as it is, and here they are "
            f"{', '.join(type_string(arg) for arg in args)}: staged, the one value that holds whichever wins "
            f"is their common dtype, {jnp.dtype(dtype).name}, which cannot hold every value of each (or would "
            "change how a strongly typed one computes: a uint8 made a float32 doubles 255 to 510)",
            location,
            "Give the operands one dtype (jnp.asarray(n, jnp.float32) where a float32 result is meant), or use "
            f"jnp.{'maximum' if name == 'max' else 'minimum'}(a, b), which promotes them to a common dtype.")
    for arg in args:
        if cast_loses_value(arg, dtype):  # a weakly typed operand that the narrower dtype may not hold
            raise lossy_choice("an operand", shown(arg, dtype), dtype, f"of {name}(), and {a_dtype(dtype)} another",
                               location)


def _python_choice(combine: Callable[[Any, Any], Any], wins: Callable[[Any, Any], Any], kept: Any, value: Any) -> Any:
    """``min(kept, value)`` as Python picks it: ``value`` only if it ``wins`` (compares smaller / larger).
    Integers have no NaN nor signed zero, so there ``jnp.minimum`` / ``maximum`` is the same choice."""
    if not jnp.issubdtype(jnp.result_type(kept, value), jnp.inexact):
        return combine(kept, value)
    if _same_type(kept, value):  # the common case, without jnp.where's promotion (and its jit wrapper)
        return lax.select(wins(value, kept), value, kept)
    return jnp.where(wins(value, kept), value, kept)


def _same_type(a: Any, b: Any) -> bool:
    if not (isinstance(a, jax.Array) and isinstance(b, jax.Array)):
        return False
    a_type, b_type = jax.typeof(a), jax.typeof(b)
    return (a_type.shape, a_type.dtype, a_type.weak_type) == (b_type.shape, b_type.dtype, b_type.weak_type)


def _first_best_element(values: jax.Array, best_index: Callable[[Any], Any]) -> Any:
    """``min(values)`` / ``max(values)`` over a 1-D array as Python's loop picks it: the first element
    unless a later one compares smaller (larger). A NaN compares false, so it wins only as the first."""
    if not jnp.issubdtype(values.dtype, jnp.inexact):
        return values[best_index(values)]
    never_wins = jnp.inf if best_index is jnp.argmin else -jnp.inf
    pick = values[best_index(jnp.where(jnp.isnan(values), never_wins, values))]
    return jnp.where(jnp.isnan(values[0]), values[0], pick)


def _min_max_by_key(python_builtin: Callable[..., Any], args: tuple[Any, ...], key: Callable[[Any], Any],
                    **default: Any) -> Any:
    """``max(items, key=key)``: the first item whose key no later key exceeds (``min``: undercuts).

    The keys are computed once per item, in order, as Python does. Concrete keys pick the item in
    Python; traced keys pick it with ``argmax`` / ``argmin``, which also returns the first of equal
    keys. A NaN key never wins against an earlier key (Python's ``>`` is false), so NaN keys are
    skipped, except the first key: nothing replaces it when it is NaN.
    """
    items = list(args[0]) if len(args) == 1 else list(args)
    if not items:
        return python_builtin(items, **default)
    keys = [key(item) for item in items]
    if not any_traced(keys):
        best = 0
        for index in range(1, len(keys)):
            if (keys[index] > keys[best]) if python_builtin is builtins.max else (keys[index] < keys[best]):
                best = index
        return items[best]
    return _select(items, _first_best(python_builtin, keys))


def _first_best(python_builtin: Callable[..., Any], keys: list[Any]) -> Any:
    """The index Python's ``max`` / ``min`` with a key would pick, as a traced int32."""
    name = python_builtin.__name__
    arrays = [jnp.asarray(k) for k in keys]
    for array in arrays:
        if array.size != 1:
            raise TracedPredicateError(
                f"{name}() with key= got a key of shape {array.shape}, and comparing it takes a truth value "
                "that an array with more than one element does not have",
                caller_location(),
                "Make the key return one number per item, e.g. key=lambda v: v.sum().",
            )
    stacked = jnp.stack([a.reshape(()) for a in arrays])
    if not jnp.issubdtype(stacked.dtype, jnp.inexact):
        return (jnp.argmax if name == "max" else jnp.argmin)(stacked)
    worst = -jnp.inf if name == "max" else jnp.inf
    finite = jnp.where(jnp.isnan(stacked), worst, stacked)
    best = (jnp.argmax if name == "max" else jnp.argmin)(finite)
    return jnp.where(jnp.isnan(stacked[0]), 0, best)


def _select(items: list[Any], index: Any) -> Any:
    """``items[index]`` for a traced ``index``: the items must be arrays of one structure and shape."""
    structures = {jax.tree_util.tree_structure(item) for item in items}
    leaves = [jax.tree_util.tree_leaves(item) for item in items]
    shapes = {tuple(jnp.shape(leaf) for leaf in item_leaves) for item_leaves in leaves}
    if len(structures) != 1 or len(shapes) != 1 or not all(is_array_leaf(x) for row in leaves for x in row):
        raise StagingTypeError(
            "max() / min() with key= on traced keys must return one of its items, chosen at run time, "
            "and its items differ in structure or shape (or are not arrays), so no one staged value can "
            "hold each of them",
            caller_location(),
            "Give the items one shape (pad or broadcast them), or compute the index with jnp.argmax / "
            "jnp.argmin over the keys and index an array with it.",
        )
    chosen = [jnp.stack([jnp.asarray(row[position]) for row in leaves])[index] for position in range(len(leaves[0]))]
    return jax.tree_util.tree_unflatten(structures.pop(), chosen)


def _sum(iterable: Any, /, start: Any = 0) -> Any:
    """``sum`` of a traced array as Python computes it: ``start`` plus each row in turn, every sum in
    the dtype of ``start + row``. An integer sum wraps the same however it is grouped, so one
    ``jnp.sum`` in that dtype is eager's; a float sum rounds at every step (a bfloat16 sum of 300 ones
    is 256 eagerly), so it is a ``lax.scan`` over the rows, where ``jnp.sum`` would group them otherwise."""
    if not any_traced((iterable, start)) or not hasattr(iterable, "shape") or not jnp.ndim(iterable):
        return builtins.sum(iterable, start)  # (a 0-d array: Python's own TypeError)
    rows = jnp.asarray(iterable)
    if rows.shape[0] == 0:
        return start
    total = jax.eval_shape(lambda s, row: s + row, start, rows[0])
    if not jnp.issubdtype(total.dtype, jnp.inexact):
        return converted(start + jnp.sum(rows, axis=0, dtype=total.dtype), total.dtype, weak=total.weak_type)
    return lax.scan(lambda partial, row: (partial + row, None), start + rows[0], rows[1:])[0]


def _any(iterable: Any, /) -> Any:
    if hasattr(iterable, "shape") and any_traced(iterable):
        return jnp.any(_elements_as_truth(iterable, "any"))
    return _truth_of_elements(iterable, True, builtins.any)


def _all(iterable: Any, /) -> Any:
    if hasattr(iterable, "shape") and any_traced(iterable):
        return jnp.all(_elements_as_truth(iterable, "all"))
    return _truth_of_elements(iterable, False, builtins.all)


def _truth_of_elements(iterable: Any, stops_on: bool, python_builtin: Callable[[Any], bool]) -> Any:
    """Python's own ``any`` / ``all`` where no element can be traced; in a trace, the fold of
    :func:`.logic.truth_fold` where taking elements past a traced one changes nothing anyone sees (it
    asks each element's truth once, as Python does), else Python's own up to a traced truth, refused."""
    if not inside_a_trace():
        return python_builtin(iterable)
    if drawn_privately(iterable):
        return truth_fold(iterable, stops_on)
    try:
        return python_builtin(iterable)
    except jax.errors.TracerBoolConversionError as error:
        raise unknown_stop(iterable, python_builtin.__name__) from error


def _elements_as_truth(array: Any, name: str) -> Any:
    if array.ndim != 1:
        raise TracedPredicateError(
            f"{name}() of a traced array of shape {array.shape} takes the truth value of each row",
            caller_location(),
            f"Use jnp.{name}(x) or jnp.{name}(x, axis=...) instead.",
        )
    return array != 0


def _int(value: Any = 0, *args: Any) -> Any:
    if args or not any_traced(value):
        return builtins.int(value, *args)
    array = _scalar(value, builtins.int)
    integer = jnp.result_type(int)
    if jnp.issubdtype(array.dtype, jnp.integer):
        advice = (f" (eager Python's int holds any {array.dtype.name}); keep the value a {array.dtype.name}, or "
                  "enable jax_enable_x64 for int64")
        return python_numbers.noted(wide_python_int(array, "int()", advice))
    if jnp.issubdtype(array.dtype, jnp.floating):
        array = jnp.trunc(array)
        _refuse_floats_without_int_at_run_time(array, integer, caller_location())
    return python_numbers.noted(converted(array, integer, weak=True))


def _refuse_floats_without_int_at_run_time(truncated: jax.Array, integer: Any, location: Location | None) -> None:
    """Python's ``int()`` raises for a NaN (ValueError) and an infinity (OverflowError), and holds any
    other float exactly; the traced ``int()`` is an int32 (int64 with x64), and a cast past its range
    is no number of Python's (``int(3e9)`` was -2147483648). The three are checks where the program runs:
    eager's two errors, and an OverflowError naming the dtype for the third."""
    stage_exception(jnp.isnan(truncated), ValueError("cannot convert float NaN to integer"), location)
    stage_exception(jnp.isinf(truncated), OverflowError("cannot convert float infinity to integer"), location)
    limit = 2.0 ** (jnp.iinfo(integer).bits - 1)  # exact in every float dtype
    name = jnp.dtype(integer).name
    stage_exception(
        jnp.isfinite(truncated) & ((truncated >= limit) | (truncated < -limit)),
        OverflowError(f"int() of a float past {name}'s range: under jit a Python int is {name} (eager Python's "
                      "int holds any float); keep the value a float, or enable jax_enable_x64 for int64"),
        location,
    )


def _float(value: Any = 0.0) -> Any:
    if not any_traced(value):
        return builtins.float(value)
    return python_numbers.noted(converted(_scalar(value, builtins.float), jnp.result_type(float), weak=True))


def _scalar(value: Any, python_builtin: Callable[[Any], Any]) -> jax.Array:
    """A traced value that ``int()`` / ``float()`` (``python_builtin``) make a Python number of: a real
    scalar, as JAX's own ``__int__`` / ``__float__`` ask. The number they give is weakly typed, as a
    Python number is beside an array (``b * float(x)`` computes in ``b``'s bfloat16, ``u8 * int(k)``
    wraps in uint8). A complex one has no real value: JAX's methods make it a Python complex, which
    ``python_builtin`` refuses with a TypeError; its dtype says so while tracing, so that error is
    raised now (a cast would drop the imaginary part)."""
    array = jnp.asarray(value)
    if array.ndim:
        raise TypeError(f"Only scalar arrays can be converted to Python scalars; got arr.ndim={array.ndim}")
    if jnp.issubdtype(array.dtype, jnp.complexfloating):
        python_builtin(complex(0.0))  # Python's own TypeError, with eager's message
    return array


def _bool(value: Any = False) -> Any:
    if not any_traced(value):
        return builtins.bool(value)
    array = jnp.asarray(value)
    if array.size != 1:
        raise TracedPredicateError(
            f"bool() of a traced array of shape {array.shape}: an array with more than one element has "
            "no single truth value",
            caller_location(),
            "Reduce it first with `.any()` or `.all()`.",
        )
    return truth_of_one_element(array)


def _iter(*args: Any) -> Any:
    """``iter(xs)``: a new iterator over items made already is the staged code's own (it may draw from
    it); ``iter(it)`` of an iterator is ``it`` itself, which others may hold, and a class's
    ``__iter__`` may hand back one that it keeps."""
    made = builtins.iter(*args)
    if len(args) == 1 and made is not args[0] and made_already(args[0]):
        effects.note_made(made)
    return made


def _next(iterator: Any, /, *default: Any) -> Any:
    effects.check_advance(iterator)
    return builtins.next(iterator, *default)


def _setattr(owner: Any, name: str, value: Any, /) -> None:
    _check_attribute_store(owner, name, "setattr")
    builtins.setattr(owner, name, value)


def _delattr(owner: Any, name: str, /) -> None:
    _check_attribute_store(owner, name, "delattr")
    builtins.delattr(owner, name)


def _check_attribute_store(owner: Any, name: Any, builtin: str) -> None:
    """``setattr`` / ``delattr`` change an object as ``owner.name = v`` does: checked alike
    (:func:`.effects.check_attribute_assignment`). A name that is not a string is left to the builtin's
    own TypeError."""
    if isinstance(name, str):
        effects.check_attribute_assignment(lambda: owner, f"{name!r} ({builtin} on a {type(owner).__name__})", name)


TRACED_BUILTINS: dict[Any, Callable[..., Any]] = {
    builtins.min: _min_max(builtins.min, lambda kept, value: _python_choice(jnp.minimum, jnp.less, kept, value),
                           jnp.argmin),
    builtins.max: _min_max(builtins.max, lambda kept, value: _python_choice(jnp.maximum, jnp.greater, kept, value),
                           jnp.argmax),
    builtins.sum: _sum,
    builtins.any: _any,
    builtins.all: _all,
    builtins.int: _int,
    builtins.float: _float,
    builtins.bool: _bool,
    builtins.print: printing.print_,
    builtins.str: text.str_,
    builtins.repr: text.repr_,
    builtins.ascii: text.ascii_,
    builtins.format: text.format_,
    builtins.next: _next,
    builtins.iter: _iter,
    builtins.setattr: _setattr,
    builtins.delattr: _delattr,
}

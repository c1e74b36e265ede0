"""``and``, ``or``, ``not`` and chained comparisons.

On concrete operands they are Python's own: short-circuit, and returning an operand rather than a
bool (``0 or 5`` is ``5``). Once an operand is traced its truth is unknown at trace time, so the rest
of the chain is evaluated and the result selected at run time: ``jnp.logical_and`` / ``logical_or``
for booleans (what hand-written code uses), ``jnp.where`` on the operands otherwise, which returns
the operand Python would have returned.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import Location, StagingTypeError, TracedPredicateError
from . import appends, membership
from .carry_errors import describe
from .locations import assigned_by_caller, caller_location, location_of
from .narrow_numbers import a_dtype, cast_loses_value, lossy_choice, shown
from .paths import skippable
from .run_time_checks import raised_as_eager_would, stage_exception
from .values import is_array_leaf, is_traced, truth_of_one_element, type_string

_COMPARISONS: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge, "is": operator.is_, "is not": operator.is_not,
}
_MEMBERSHIP = {"in": False, "not in": True}  # symbol -> negated


def and_(first: Any, *rest: Callable[[], Any]) -> Any:
    """``first and rest[0]() and ...``."""
    value = first
    for operand in rest:
        if not is_traced(value):
            if not value:
                return value
            value = operand()
        else:
            needed = _truth_of(value, operand)
            value = _select(value, _evaluated_anyway(operand, "and", needed, fallback=value), operand, "and")
    return value


def or_(first: Any, *rest: Callable[[], Any]) -> Any:
    """``first or rest[0]() or ...``."""
    value = first
    for operand in rest:
        if not is_traced(value):
            if value:
                return value
            value = operand()
        else:
            needed = _truth_of(value, operand, False)
            value = _select(value, _evaluated_anyway(operand, "or", needed, fallback=value), operand, "or")
    return value


def not_(value: Any) -> Any:
    """``not value``; a traced scalar gives a traced bool."""
    if not is_traced(value):
        return not value
    truth = _truth(value, None)
    return jnp.logical_not(truth)


def truth(value: Any) -> Any:
    """``not not value``, all that a ``while`` takes of its test (the early-exit pass joins it to a flag):
    Python's bool of a concrete value, a traced scalar's truth as a traced bool (itself, if a bool)."""
    return bool(value) if not is_traced(value) else _truth(value, None)


def compare(left: Any, *chain: Any) -> Any:
    """``left op1 b op2 c ...`` from ``compare(left, op1, lambda: b, op2, lambda: c)``.

    Each middle operand is evaluated once, and only if the comparisons before it did not already
    decide the result, as in Python; after a traced comparison it is evaluated anyway, and an error
    of Python's it raises then is a run-time check where the comparisons before it hold
    (:func:`_evaluated_anyway`). ``in`` / ``not in`` with a traced element or container give a
    traced bool (``membership``).
    """
    operators, operands = chain[0::2], chain[1::2]
    result = None
    for symbol, operand in zip(operators, operands):
        if result is not None and not is_traced(result) and not result:
            return result
        right = (operand() if result is None or not is_traced(result)
                 else _evaluated_anyway(operand, "comparison", _truth_of(result, operand), fallback=_END))
        if right is _END:  # raises at run time where needed; elsewhere the chain is decided: False
            return result
        if symbol in _MEMBERSHIP:
            step = membership.contains(left, right, _MEMBERSHIP[symbol], operand)
        else:
            step = _COMPARISONS[symbol](left, right)
        if result is None or not is_traced(result):
            result = step
        else:
            result = _select(result, step, operand, "comparison")
        left = right
    return result


def _evaluated_anyway(operand: Callable[[], Any], construct: str, needed: Callable[[], Any],
                      location: Location | None = None, *, fallback: Any) -> Any:
    """An operand that Python may skip, evaluated because the result so far is traced; eager Python
    evaluates it only where ``needed()`` holds (``location``: the operand's line, if not its own).

    It runs once while tracing, whatever the run-time values, so it counts as staged code: a call
    that would mutate a list or assign a nonlocal there is refused rather than made once too often,
    and what it stages for run time (a check, a ``print``) waits for ``needed()`` (:mod:`.paths`).
    So does an error of Python's it raises (``T[5]`` past a list's end, ``-`` of a bool array): with
    ``fallback``, the value the result takes where the operand is not needed, the error becomes a
    run-time check that raises it where ``needed()`` holds, as eager Python does, and the trace goes on
    with ``fallback``. An error only tracing raises (JAX's tracer errors) or the converter's own (a refused
    effect, a signal to trace again) stays (:func:`.run_time_checks.raised_as_eager_would`).
    """
    location = location or location_of(operand)
    context = appends.Forbidden(f"lazy operand of `{construct}` (an earlier operand is traced)", location)
    with appends.inside(context), skippable(needed):
        try:
            return operand()
        except Exception as error:
            if not raised_as_eager_would(error):
                raise
            stage_exception(True, error, location)
            return fallback


_END = object()


def truth_fold(iterable: Any, stops_on: bool) -> Any:
    """``any(iterable)`` (``stops_on`` True) or ``all(iterable)`` (False) of elements that may be traced,
    for a container or a generator expression over a private source (:func:`drawn_privately`).

    Python takes each element's truth in order and stops at the first that decides. A traced element's
    truth is known at run time only, so the elements after it are taken too and the truths combined
    at run time; a concrete element that decides ends the fold where Python ends it. The elements of a
    container are made already: taking them changes nothing. The generator expression runs its code
    for them as the operands after a traced one of ``or`` / ``and`` are evaluated: a print or a check
    in it waits for the condition that no earlier element decided, a mutation is refused.
    """
    name = "any(...)" if stops_on else "all(...)"
    iterator = iter(iterable)
    combined: Any = None  # the truths of the traced elements so far, OR-ed (any) or AND-ed (all)
    element: Any
    location = None  # the user's line, found at the first traced element
    while True:
        if combined is None:
            element = next(iterator, _END)
        else:
            undecided = _truth_of(combined, None, holds=not stops_on)
            # an error drawing it raises at run time where undecided; a generator that raised is done
            element = _evaluated_anyway(lambda: next(iterator, _END), name, undecided, location, fallback=_END)
        if element is _END:
            return not stops_on if combined is None else combined
        if not is_traced(element):
            if bool(element) is stops_on:
                return stops_on
            continue
        if combined is None:
            location = caller_location()
            if np.size(element) != 1:
                bool(element)  # eager Python asks this one's truth: JAX's own ValueError for several elements
        truth = _truth(element, None)
        combined = truth if combined is None else (jnp.logical_or if stops_on else jnp.logical_and)(combined, truth)


def unknown_stop(iterable: Any, builtin: str) -> TracedPredicateError:
    """The refusal of ``any`` / ``all`` (``builtin``) of an iterator not :func:`drawn_privately`, at a traced truth."""
    return TracedPredicateError(
        f"{builtin}() of a {type(iterable).__name__} met a traced truth value: Python stops drawing elements at "
        "the first that decides, which is known only when the program runs, and this iterator may be held "
        "elsewhere or run code of its own",
        caller_location(),
        f"Write the generator expression as the argument itself, over a list or an array "
        f"({builtin}(x > t for x in xs)), make the elements first as a list ({builtin}([x > t for x in xs]), "
        f"a list comprehension), or reduce an array: jnp.{builtin}(xs > t).",
    )


def _truth_of(value: Any, where: Callable[[], Any] | None, holds: bool = True) -> Callable[[], Any]:
    """Whether a traced operand is true (``holds``) or false at run time, computed only if a check or
    print needs it: the condition under which eager Python evaluates the operand after it."""
    return lambda: _truth(value, where) if holds else jnp.logical_not(_truth(value, where))


# What the two operands of ``_select`` are, in its errors (a chain ``a < b < c`` is ``a < b and b < c``).
_SELECTED = {"and": "the operands of `and`", "or": "the operands of `or`",
             "comparison": "two comparisons of a chain (`a < b < c` is `a < b and b < c`)"}


def _select(left: Any, right: Any, where: Callable[[], Any] | None, construct: str) -> jax.Array:
    """The run-time choice between two operands of ``and`` (keep left when false) or ``or``
    (``construct``; a chained comparison is an ``and``).

    Python returns one of the operands, so the result has its shape: a one-element array stays one
    (``jnp.where`` on a scalar truth keeps the operands' shape). Operands of different shapes would
    give a result whose shape depends on a run-time value, which no traced array can have: refused.
    """
    truth = _truth(left, where)
    _check_arrays(left, right, where, construct)
    left_array, right_array = jnp.asarray(left), jnp.asarray(right)
    _check_same_shape(left_array, right_array, where, construct)
    common = jnp.result_type(left, right)  # as jnp.where promotes them: a weak type counts, unlike an aval's
    _check_same_dtype(left_array, right_array, common, where, construct)
    _check_number_held(left, right, common, where, construct)
    keep_left_when_true = construct == "or"
    if left_array.dtype == jnp.bool_ and right_array.dtype == jnp.bool_:  # exact: same shape, both bool
        return jnp.logical_or(left_array, right_array) if keep_left_when_true else jnp.logical_and(left_array, right_array)
    if keep_left_when_true:
        return jnp.where(truth, left_array, right_array)
    return jnp.where(truth, right_array, left_array)


def _check_arrays(left: Any, right: Any, where: Callable[[], Any] | None, construct: str) -> None:
    """Refuse an operand that is no array or number (None, a string, a list, a dict, a function): Python
    returns it as it is where the traced one decides so, and only an array can be chosen at run time.
    Made an array, a list of numbers would be returned as an array where eager returns the list."""
    if is_array_leaf(left) and is_array_leaf(right):
        return
    operator_name = "or" if construct == "or" else "and"
    assigned = assigned_by_caller()
    chosen = f"'{assigned}' is" if assigned else "the result is"
    raise StagingTypeError(
        f"{chosen} the left operand of `{operator_name}` or the right one, as Python returns one of them as it "
        f"is, and the left one is traced ({type_string(left)}), so which is known only when the program runs; "
        f"the right one is {describe(right)}, and only arrays and numbers can be chosen at run time, not Python "
        "values (None, strings, lists, tuples, dicts, functions)",
        _location(where),
        f"Give `{operator_name}` an array or a number of the left operand's shape as its right operand "
        f"(`x {operator_name} 0.0`; jnp.asarray([...]) for a list of numbers), or decide it with a value that is "
        f"not traced (static_argnums / static_argnames), so that Python's `{operator_name}` runs as it is.",
    )


def _check_same_shape(left: jax.Array, right: jax.Array, where: Callable[[], Any] | None, construct: str) -> None:
    """Refuse operands whose shapes differ: the left one has one element (``_truth`` checked it)."""
    if right.shape == left.shape:
        return
    location = _location(where)
    if right.size != 1:
        operator_name = "or" if construct == "or" else "and"
        raise TracedPredicateError(
            f"the left operand of `{operator_name}` is traced and the right one is an array of shape "
            f"{right.shape}; the result would depend on a run-time value in its shape",
            location,
            "Reduce the operands to scalars, or use jnp.logical_and / jnp.logical_or / jnp.where "
            "for element-wise logic.",
        )
    raise TracedPredicateError(
        f"{_SELECTED[construct]} have shapes {left.shape} and {right.shape}, and the first is traced: Python "
        "returns one of them, so the shape of the result would depend on a run-time value",
        location,
        "Give both operands the same shape (`x[0]` or `x.reshape(())` for a scalar, `jnp.reshape(x, (1,))` "
        "for one element), or use jnp.logical_and / jnp.logical_or for a truth value.",
    )


def _held(side: Any, other: Any, common: Any) -> bool:
    """Whether the operand of abstract type ``side`` computes as eagerly once chosen in ``common``: a
    weakly typed one takes it (a Python number's); a strongly typed one beside a Python number must keep
    its own dtype (a uint8 made float32 by ``or 2.5`` would double to 510 where eager's wraps to 254);
    beside another array it must be held exactly (a bool, an int16 beside a float32)."""
    if side.weak_type:
        return True
    if other.weak_type:
        return side.dtype in (common, jnp.bool_)
    return bool(np.can_cast(side.dtype, common, "safe"))


def held_by_common_dtype(operands: Sequence[Any], common: Any) -> bool:
    """Whether a run-time choice of one of ``operands``, staged as one value of dtype ``common``,
    computes as eager Python's choice of that operand as it is: each held beside each other
    (:func:`_held`). One rule for every construct that returns an operand as it is: ``and`` / ``or``,
    a chained comparison, ``max`` / ``min`` (an int32 beside a Python float or a float32 is refused)."""
    types = [jax.typeof(operand) for operand in operands]
    return all(_held(side, other, common) for index, side in enumerate(types)
               for other in types[:index] + types[index + 1:])


def _check_same_dtype(left: jax.Array, right: jax.Array, common: Any, where: Callable[[], Any] | None,
                      construct: str) -> None:
    """Refuse operands of two dtypes whose common dtype cannot hold every value of one of them.

    The choice made at run time has one dtype, the operands' common one, where Python returns one
    operand as it is: a float32 for an int32 operand would lose its value past 2**24. A bool, or an
    int16 beside a float32, is held exactly (``False`` becomes ``0.0``, equal to it). A weakly typed
    operand (a Python number's) takes the common dtype as it is, as in JAX arithmetic and a staged
    ternary; only a strongly typed operand must be held exactly (not an int32 beside a Python float).
    """
    if held_by_common_dtype((left, right), common):
        return
    raise StagingTypeError(
        f"{_SELECTED[construct]} are {type_string(left)} and {type_string(right)}, and the first is "
        "traced: Python returns one of them as it is, and their common dtype cannot hold every value of both "
        "(or would change how the strongly typed one computes: a uint8 made a float32 doubles 255 to 510)",
        _location(where),
        "Give both operands the same dtype (jnp.asarray(..., jnp.float32)), or choose explicitly with "
        "jnp.where(condition, a, b), which promotes both to a common dtype.",
    )


def _check_number_held(left: Any, right: Any, common: Any, where: Callable[[], Any] | None, construct: str) -> None:
    """Refuse a weakly typed operand that the choice's narrower dtype may not hold (``k and 70000.0 or
    v_f16``: ``inf``, and ``k and 70000 or v_u8``: 112, where eager Python returns the number;
    :mod:`.narrow_numbers`). A number it holds is chosen in that dtype (``k and 3 or v_u8`` is a
    uint8, as eager ``v_u8 + 3`` is). Judged on the operands as given: a Python number is known
    while tracing, its array is not."""
    for operand in (left, right):
        if cast_loses_value(operand, common):
            where_text = f"beside {a_dtype(common)}, and the first is traced"
            raise lossy_choice(f"one of {_SELECTED[construct]}", shown(operand, common), common, where_text,
                               _location(where))


def _location(where: Callable[[], Any] | None) -> Location | None:
    """Where an operand's error points: the lazy operand's own line, or the caller's for the first one."""
    return location_of(where) if where is not None else caller_location()


def _truth(value: Any, where: Callable[[], Any] | None) -> jax.Array:
    array = jnp.asarray(value)
    if array.size != 1:
        raise TracedPredicateError(
            f"a traced array of shape {array.shape} is used as a truth value; an array with more than "
            "one element has no single truth value",
            _location(where),
            "Reduce it first with `.any()` or `.all()`, or use jnp.logical_and / logical_or / "
            "logical_not for element-wise logic.",
        )
    return truth_of_one_element(array)

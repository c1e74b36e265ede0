"""Python builtins given traced arguments, with the result eager NumPy-backed Python would give.

With concrete arguments every one of them is the builtin itself. With a traced argument:
``min`` / ``max`` of several values is ``jnp.minimum`` / ``jnp.maximum`` (of one 1-D array, its
smallest / largest element), ``sum`` of an array adds its rows, ``any`` / ``all`` test its elements,
``int`` / ``float`` / ``bool`` are casts (``int`` truncates toward zero, as Python does), and
``print`` writes eager Python's text when the program runs, on every call (see :mod:`.printing`).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from ..errors import TracedPredicateError
from . import printing
from .locations import caller_location
from .values import any_traced


def _min_max(
    python_builtin: Callable[..., Any], combine: Callable[[Any, Any], Any], reduce: Callable[[Any], Any]
) -> Callable[..., Any]:
    def traced_version(*args: Any, **kwargs: Any) -> Any:
        if kwargs or not any_traced(args):
            return python_builtin(*args, **kwargs)
        if len(args) == 1:
            values = jnp.asarray(args[0])
            if values.ndim != 1:
                raise TracedPredicateError(
                    f"{python_builtin.__name__}() of a traced array of shape {values.shape} compares its "
                    "rows, which have no single truth value",
                    caller_location(),
                    f"Use jnp.{reduce.__name__}(x, axis=...) for element-wise reductions.",
                )
            return reduce(values)
        result = args[0]
        for value in args[1:]:
            result = combine(result, value)
        return result

    traced_version.__name__ = python_builtin.__name__
    return traced_version


def _sum(iterable: Any, /, start: Any = 0) -> Any:
    if not any_traced((iterable, start)) or not hasattr(iterable, "shape"):
        return builtins.sum(iterable, start)
    return start + jnp.sum(iterable, axis=0)


def _any(iterable: Any, /) -> Any:
    if not any_traced(iterable) or not hasattr(iterable, "shape"):
        return builtins.any(iterable)
    return jnp.any(_elements_as_truth(iterable, "any"))


def _all(iterable: Any, /) -> Any:
    if not any_traced(iterable) or not hasattr(iterable, "shape"):
        return builtins.all(iterable)
    return jnp.all(_elements_as_truth(iterable, "all"))


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
    array = jnp.asarray(value)
    if jnp.issubdtype(array.dtype, jnp.floating):
        array = jnp.trunc(array)
    return array.astype(jnp.int32)


def _float(value: Any = 0.0) -> Any:
    if not any_traced(value):
        return builtins.float(value)
    return jnp.asarray(value).astype(jnp.float32)


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
    return array.reshape(()) != 0


TRACED_BUILTINS: dict[Any, Callable[..., Any]] = {
    builtins.min: _min_max(builtins.min, jnp.minimum, jnp.min),
    builtins.max: _min_max(builtins.max, jnp.maximum, jnp.max),
    builtins.sum: _sum,
    builtins.any: _any,
    builtins.all: _all,
    builtins.int: _int,
    builtins.float: _float,
    builtins.bool: _bool,
    builtins.print: printing.print_,
}

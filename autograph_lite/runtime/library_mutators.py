"""Library functions that change an argument they are given, and which argument: data for
:func:`.call_effects.check_call`.

``heapq.heappush(HEAP, v)`` in a helper called from a staged loop body changes ``HEAP`` once while
tracing, whatever the trip count, as ``HEAP.append(v)`` would; the method form is seen by the
receiver's type (:data:`.ownership.MUTATING_METHODS`), but here the container is an argument of a
plain function, which nothing in its name or type gives away. The table holds the mutating
functions of the standard library and NumPy that numerical code calls on containers (a heap or a
sorted list kept in a module-level list, ``operator.setitem`` / the in-place operator functions,
NumPy's in-place fillers), found by identity, so an alias (``from heapq import heappush``, a local
``push = heapq.heappush``) is found too. Beside the table: an unbound method of a builtin container
(``list.append(POOL, v)``, ``dict.update(D, ...)``) mutates its first argument exactly as the bound
method would, ``object.__setattr__`` / ``__delattr__`` change an attribute, ``ufunc.at`` changes its
first argument, and a NumPy function's, ufunc's or array method's ``out=`` array is written, as is an
output passed by position (``np.multiply(a, 2.0, BUF)``, ``np.cumsum(a, 0, None, BUF)``,
``BUF.cumsum(0, None, BUF)``, ``np.ndarray.cumsum(BUF, 0, None, BUF)``).

Not covered (docs/semantics.md says so): other libraries' functions that mutate in place, a
mutation that a function does to an object it reaches by itself (a module-level cache), and
``random.shuffle`` / ``np.random.shuffle`` (refused already as draws from a hidden generator).
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import heapq
import inspect
import operator
import types
from collections.abc import Callable
from typing import Any

import numpy as np

ITEMS = "items"  # the argument's items or contents change, as by an item store
ATTRIBUTE = "attribute"  # an attribute of the argument changes (its name is the next argument)
DELETES = "deletes"  # an item of the argument is deleted
METHOD = "method"  # an unbound method of a builtin container: the argument is its receiver
_MISSING = object()


@dataclasses.dataclass(frozen=True)
class Mutation:
    """What one call changes: ``value``, in the way ``how`` says (:data:`ITEMS`, :data:`ATTRIBUTE`,
    :data:`DELETES`, :data:`METHOD`, or an augmented operator such as ``'+='`` for ``operator.iadd``);
    ``call`` names the callee in messages."""

    value: Any
    how: str
    call: str
    name: str | None = None  # ATTRIBUTE: the attribute's (where it is a string); METHOD: the method's


def _entries() -> dict[int, tuple[Callable[..., Any], str, str | None, str]]:
    """``id(function)`` -> (the function, its text, the keyword name of its first argument if it has
    one, how it changes that argument)."""
    table: list[tuple[Callable[..., Any], str, str | None, str]] = [
        *((getattr(heapq, name), f"heapq.{name}", None, ITEMS)
          for name in ("heappush", "heappop", "heapify", "heapreplace", "heappushpop")),
        *((getattr(bisect, name), f"bisect.{name}", "a", ITEMS) for name in ("insort_left", "insort_right", "insort")),
        (operator.setitem, "operator.setitem", None, ITEMS),
        (operator.delitem, "operator.delitem", None, DELETES),
        *((getattr(operator, f"i{name}"), f"operator.i{name}", None, f"{symbol}=")
          for name, symbol in (("add", "+"), ("concat", "+"), ("sub", "-"), ("mul", "*"), ("truediv", "/"),
                               ("floordiv", "//"), ("mod", "%"), ("pow", "**"), ("matmul", "@"), ("and", "&"),
                               ("or", "|"), ("xor", "^"), ("lshift", "<<"), ("rshift", ">>"))),
        (np.copyto, "np.copyto", "dst", ITEMS),
        (np.put, "np.put", "a", ITEMS),
        (np.place, "np.place", "arr", ITEMS),
        (np.putmask, "np.putmask", None, ITEMS),
        (np.fill_diagonal, "np.fill_diagonal", "a", ITEMS),
        (np.put_along_axis, "np.put_along_axis", "arr", ITEMS),
    ]
    return {id(function): (function, text, keyword, how) for function, text, keyword, how in table}


_MUTATORS = _entries()
LISTED = frozenset(_MUTATORS)  # the ids of the table's functions, for a quick look first
_DESCRIPTORS = (types.MethodDescriptorType, types.WrapperDescriptorType)


# The array methods with an output parameter, and its index among the method's arguments (one less
# than in the NumPy function of the same name, which takes the array first).
_METHOD_OUT_POSITIONS = {
    "all": 1, "any": 1, "argmax": 1, "argmin": 1, "choose": 1, "clip": 2, "compress": 2, "conj": 0, "conjugate": 0,
    "cumprod": 2, "cumsum": 2, "dot": 1, "max": 1, "mean": 2, "min": 1, "prod": 2, "round": 1, "std": 2, "sum": 2,
    "take": 2, "trace": 4, "var": 2,
}


def is_mutator(function: Any) -> bool:
    """Whether ``function`` is one of the table's, a ufunc, or a NumPy function whose output may be
    passed by position (``np.cumsum(a, 0, None, BUF)``): the conversion sends its calls through the
    runtime (it would otherwise leave a library function's call as written, unchecked)."""
    entry = _MUTATORS.get(id(function))
    return ((entry is not None and entry[0] is function) or isinstance(function, np.ufunc)
            or _function_out_position(function) is not None)


def mutations(function: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Mutation]:
    """What calling ``function(*args, **kwargs)`` changes in its arguments, as far as the table and
    the rules above know; ``[]`` for most calls (a check on every call from converted code: cheap)."""
    found = []
    entry = _MUTATORS.get(id(function))
    if entry is not None and entry[0] is function:
        _, text, keyword, how = entry
        value = args[0] if args else kwargs.get(keyword, _MISSING) if keyword else _MISSING
        if value is not _MISSING:
            found.append(Mutation(value, how, f"{text}()"))
    elif isinstance(function, _DESCRIPTORS) and args:
        found += _unbound_method(function, args)
    elif _is_ufunc_at(function) and args:
        found.append(Mutation(args[0], ITEMS, f"np.{function.__self__.__name__}.at()"))
    if _is_numpy(function):
        found += [Mutation(output, ITEMS, f"{_numpy_name(function)}(out=...)") for output in _outputs(function, args, kwargs)]
    return found


def _outputs(function: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[np.ndarray]:
    """The arrays a NumPy call writes its results into: ``out=``, a ufunc's positional arguments after
    its inputs (``np.multiply(a, 2.0, BUF)`` writes ``BUF``), or the argument in the position of the
    ``out`` parameter of an array method or a NumPy function (``BUF.cumsum(0, None, BUF)``)."""
    given = kwargs.get("out", ())
    outputs = list(given) if isinstance(given, tuple) else [given]
    if isinstance(function, np.ufunc):
        outputs += args[function.nin:]
    else:
        position = _out_position(function)
        if position is not None and len(args) > position:
            outputs.append(args[position])
    return [output for output in outputs if isinstance(output, np.ndarray)]


def _out_position(function: Any) -> int | None:
    """The index of the ``out`` argument of an array method, bound (``BUF.cumsum``) or unbound (its
    receiver first: ``np.ndarray.cumsum``), or of a NumPy function (``np.cumsum``)."""
    if isinstance(getattr(function, "__self__", None), np.ndarray):
        return _METHOD_OUT_POSITIONS.get(getattr(function, "__name__", ""))
    if _is_array_method(function):
        position = _METHOD_OUT_POSITIONS.get(function.__name__)
        return None if position is None else position + 1
    return _function_out_position(function)


def _function_out_position(function: Any) -> int | None:
    """The index of the ``out`` parameter of a NumPy function that takes it by position (``np.sum``:
    3), read from its signature once."""
    module = getattr(function, "__module__", None) or ""
    if not (module == "numpy" or module.startswith("numpy.")) or isinstance(function, (np.ufunc, type)):
        return None
    try:
        return _signature_out_position(function)
    except TypeError:  # unhashable
        return None


@functools.cache
def _signature_out_position(function: Any) -> int | None:
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):  # no signature to read
        return None
    for index, parameter in enumerate(parameters):
        if parameter.name == "out" and parameter.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD:
            return index
    return None


def _is_ufunc_at(function: Any) -> bool:
    """``np.add.at(a, indices, v)``: adds in place, into its first argument."""
    return (isinstance(function, types.BuiltinMethodType) and isinstance(function.__self__, np.ufunc)
            and function.__name__ == "at")


def _unbound_method(function: Any, args: tuple[Any, ...]) -> list[Mutation]:
    """``list.append(POOL, v)``: the receiver is the first argument; ``object.__setattr__(o, n, v)``."""
    owner, name = function.__objclass__, function.__name__
    text = f"{owner.__name__}.{name}()"
    if owner is object and name in ("__setattr__", "__delattr__"):
        attribute = args[1] if len(args) > 1 and isinstance(args[1], str) else None
        return [Mutation(args[0], ATTRIBUTE, text, attribute)]
    return [Mutation(args[0], METHOD, text, name)] if isinstance(args[0], owner) else []


def _is_numpy(function: Any) -> bool:
    """A ufunc, a NumPy function, or a method of an array or a ufunc (``BUF.clip(..., out=BUF)``,
    ``np.add.reduce(..., out=...)``), whose ``out=`` is written (a function of the user's with an
    ``out`` parameter is converted, and its own stores are checked)."""
    module = getattr(function, "__module__", None) or ""
    return (isinstance(function, np.ufunc) or isinstance(getattr(function, "__self__", None), (np.ndarray, np.ufunc))
            or module == "numpy" or module.startswith("numpy.") or _is_array_method(function))


def _is_array_method(function: Any) -> bool:
    """``np.ndarray.cumsum``: an array method reached through the class, its receiver passed first."""
    return isinstance(function, _DESCRIPTORS) and issubclass(function.__objclass__, np.ndarray)


def _numpy_name(function: Any) -> str:
    """``np.add``, ``np.add.accumulate``, ``ndarray.clip``: as messages name the callee."""
    name, owner = getattr(function, "__name__", "function"), getattr(function, "__self__", None)
    if isinstance(owner, np.ufunc):
        return f"np.{owner.__name__}.{name}"
    return f"ndarray.{name}" if isinstance(owner, np.ndarray) or _is_array_method(function) else f"np.{name}"

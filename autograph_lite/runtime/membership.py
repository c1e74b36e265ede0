"""``element in container`` and ``not in`` once the element or the container is traced.

Python's ``in`` on a tuple or list asks each item in turn ``item is element or item == element``
and stops at the first true answer; ``bool`` of a traced comparison is unknown at trace time, so the
items whose comparison is traced are OR-ed at run time instead (an item whose answer is concrete is
decided in Python, in Python's order). The result is a scalar bool, as Python's ``in`` returns a bool.
A ``range`` is tested by its bounds and step (what ``range.__contains__`` computes, without visiting
every item), traced bounds included; a JAX array keeps JAX's own rule (``any(container == element)``, a 1-D container and a
scalar element), a NumPy array NumPy's (``(container == element).any()``). Sets and dicts hash the
element, and a JAX array has no hash: eager Python raises there too, so that is a located error.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, ItemsView, KeysView, ValuesView
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import TracedPredicateError
from .iteration import TracedRange
from .locations import location_of
from .values import is_traced, truth_of_one_element

_ISIN_FIX = ("For element-wise membership use `jnp.isin(element, jnp.asarray(items))`; for one truth value "
             "reduce it with `.any()` / `.all()`, or compare a scalar (`x[0]`, `x.reshape(())`).")


def contains(element: Any, container: Any, negated: bool, where: Callable[[], Any]) -> Any:
    """``element in container`` (``not in`` when ``negated``); ``where`` is the container's lazy operand."""
    found = _found(element, container, where)
    if not is_traced(found):
        return not found if negated else found
    return jnp.logical_not(found) if negated else found


def _found(element: Any, container: Any, where: Callable[[], Any]) -> Any:
    if isinstance(container, TracedRange):
        return _in_traced_range(element, container, where)
    if isinstance(container, jax.Array):
        if is_traced(element) or is_traced(container):
            return _in_jax_array(element, container, where)
        return element in container
    if not is_traced(element) and not _holds_traced(container):
        return element in container
    if isinstance(container, np.ndarray):
        return jnp.any(jnp.asarray(container) == element)  # NumPy's __contains__: (self == x).any()
    if isinstance(container, range):
        return _in_range(element, container, where)
    if isinstance(container, (tuple, list, ValuesView)):
        return _in_items(element, container, where)
    if isinstance(container, (set, frozenset, dict, KeysView, ItemsView)):
        raise TracedPredicateError(
            f"`in` on a {type(container).__name__} hashes the element, and a traced JAX value has no hash "
            "(eager Python raises `TypeError: unhashable type` here too)",
            location_of(where),
            "Test membership in a tuple of the keys instead (`x in tuple(keys)`): that compares with `==`, "
            "which is staged.",
        )
    return element in container


def _holds_traced(container: Any) -> bool:
    """Whether a sequence that Python would compare item by item has a traced item."""
    return isinstance(container, (tuple, list, ValuesView)) and any(is_traced(item) for item in container)


def _in_items(element: Any, items: Any, where: Callable[[], Any]) -> Any:
    """Python's item-by-item test; the traced comparisons are OR-ed at run time."""
    traced_truths = []
    for item in items:
        if item is element:
            return True
        equal = item == element
        if not is_traced(equal):
            if equal:  # bool() as Python's `in` calls it (a concrete array keeps its own errors)
                return True
            continue
        traced_truths.append(_truth_of_comparison(equal, where))
    if not traced_truths:
        return False
    return functools.reduce(jnp.logical_or, traced_truths)


def _truth_of_comparison(equal: Any, where: Callable[[], Any]) -> jax.Array:
    array = jnp.asarray(equal)
    if array.size != 1:
        raise TracedPredicateError(
            f"`in` compares the element with each item, and one comparison is a traced array of shape "
            f"{array.shape}: an array with more than one element has no single truth value (eager Python "
            "raises ValueError here)",
            location_of(where),
            _ISIN_FIX,
        )
    return truth_of_one_element(array)


def _in_range(element: Any, numbers: range, where: Callable[[], Any]) -> Any:
    """``element in range(...)`` from the bounds: Python compares with each number, which this equals."""
    if len(numbers) == 0:
        return False
    value = _one_number(element, where)
    first, last = numbers[0], numbers[-1]
    if jnp.issubdtype(value.dtype, jnp.integer):
        limits = jnp.iinfo(value.dtype)
        if not (limits.min <= min(first, last) and max(first, last) <= limits.max):
            raise TracedPredicateError(
                f"`in {numbers!r}` on a traced {value.dtype} value: the range's bounds do not fit in {value.dtype}",
                location_of(where),
                "Narrow the range to the values the element can hold, or cast the element to a wider dtype.",
            )
    low, high = min(first, last), max(first, last)
    within = jnp.logical_and(value >= low, value <= high)
    return jnp.logical_and(within, (value - first) % numbers.step == 0)


def _in_traced_range(element: Any, numbers: TracedRange, where: Callable[[], Any]) -> Any:
    """``element in range(...)`` whose bounds are traced, from the bounds as for a concrete range."""
    value, start, stop, step = _one_number(element, where), numbers.start, numbers.stop, numbers.step
    within = jnp.where(step > 0, (value >= start) & (value < stop), (value <= start) & (value > stop))
    return within & ((value - start) % step == 0)


def _one_number(element: Any, where: Callable[[], Any]) -> jax.Array:
    """The element of ``in range(...)`` as a scalar (a bool as the int Python compares it as)."""
    value = jnp.asarray(element)
    if value.size != 1:
        raise TracedPredicateError(
            f"`in range(...)` compares a traced array of shape {value.shape} with each number: an array "
            "with more than one element has no single truth value (eager Python raises ValueError here)",
            location_of(where),
            _ISIN_FIX,
        )
    if value.ndim:
        value = value.reshape(())
    return value.astype(jnp.int32) if value.dtype == jnp.bool_ else value  # True == 1, as Python compares it


def _in_jax_array(element: Any, container: jax.Array, where: Callable[[], Any]) -> jax.Array:
    """JAX's ``Array.__contains__`` (``any(container == element)``), whose result is traced here."""
    if container.ndim != 1 or jnp.ndim(element) != 0:
        raise TracedPredicateError(
            f"`in` on a JAX array needs a 1-D array and a scalar element (JAX's rule; eager raises ValueError "
            f"too): here the array has shape {container.shape} and the element shape {jnp.shape(element)}",
            location_of(where),
            "Use `jnp.isin(element, array)` for element-wise membership, or `(array == element).any()`.",
        )
    return container.__contains__(element)  # type: ignore[operator]  # defined by JAX, absent from its stub

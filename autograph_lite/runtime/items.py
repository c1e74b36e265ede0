"""``x[i] = v`` and ``x[i] op= v`` on any container: NumPy's store as ``.at[]`` updates for JAX arrays
(:mod:`.array_stores`), in place otherwise.

A JAX array's update is a new array bound to ``x`` alone, and so is an update of the traced copy a
staged loop body works on. Where the rewriter found that Python's in-place update would also be
seen elsewhere (by the caller, or through another name), it passes ``name`` and what to check; such
an update raises a located error instead of being lost. So does an update of an array that a running
``for`` statement iterates over. In place, on a container from outside staged code, it is an effect
(:func:`.effects.check_item_assignment`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import jax

from ..errors import ConversionError
from . import appends, array_stores, effects, shared_memory
from .locations import caller_location
from .session import TraceSession, current


@contextlib.contextmanager
def iterating(arrays: list[Any]) -> Iterator[None]:
    """While a ``for`` statement runs over ``arrays``: an in-place update of one of them is refused."""
    session = current()
    session.iterated_arrays.append(arrays)
    try:
        yield
    finally:
        session.iterated_arrays.pop()


def setitem(
    container: Any, index: Any, value: Any, augmented: str | None = None, *,
    name: str | None = None, from_caller_of: str | None = None, aliases: dict[str, Callable[[], Any]] | None = None,
    item_from_outside: str | None = None, views: tuple[shared_memory.View, ...] = (),
) -> Any:
    """The container after ``container[index] = value`` (or ``container[index] augmented value``).

    ``name`` is the container's variable; ``from_caller_of`` names the function when the variable may
    hold its caller's value and the function never hands it back (returns it or stores it into an
    object); ``aliases`` gives, lazily, the other variables that may refer to the same value and are
    read after it; ``views``, the names that may show its memory as a NumPy view
    (:mod:`.shared_memory`). ``item_from_outside`` names the container where the rewrite could not prove the item
    built by the function (``rows = {"r": POOL}; rows["r"] += [v]``), whose in-place operator would
    change it where it is.
    """
    if name is not None:
        _check_seen(container, name, from_caller_of, aliases or {}, views)
    if isinstance(container, jax.Array):
        session = current()
        if session.iterated_arrays:
            _check_not_iterated(session, container)
        return array_stores.store(container, index, value, augmented)
    effects.check_item_assignment(container)
    store_in_place(container, index, value, augmented, item_from_outside)
    return container


def store_in_place(container: Any, index: Any, value: Any, augmented: str | None, item_from_outside: str | None) -> None:
    """``container[index] = value`` (or ``augmented``) on a container Python changes where it is, once the
    container is checked; the item too, where ``item_from_outside`` names it as maybe not the function's
    own (its in-place operator, ``+=`` on a list, would change it where it is)."""
    if augmented is None:
        container[index] = value
        return
    item = container[index]
    if item_from_outside is not None:
        effects.check_in_place_operator(item, augmented, item_of=item_from_outside)
    container[index] = array_stores.IN_PLACE[augmented](item, value)


def _check_not_iterated(session: TraceSession, array: jax.Array) -> None:
    """Python iterates over a NumPy array as it changes; a loop over a JAX array keeps the old values."""
    held = appends.with_originals(array)
    if any(candidate is iterated for arrays in session.iterated_arrays for iterated in arrays for candidate in held):
        raise ConversionError(
            "an item of an array is updated in place while a `for` loop iterates over that array. A JAX "
            "array cannot change: the update makes a new array, and the loop goes on over the old values "
            "(over a NumPy array, Python would see the new ones).",
            caller_location(),
            "Iterate over a copy made before the loop (for x in xs.copy()), or index the array with a "
            "counter (for i in range(len(xs)): x = xs[i]) so that each iteration reads the updated array.",
        )


def _check_seen(
    container: Any, name: str, from_caller_of: str | None, aliases: dict[str, Callable[[], Any]],
    views: tuple[shared_memory.View, ...],
) -> None:
    """Raise where Python would update ``container`` in place for a reader the update never reaches.

    A JAX array never changes in place. Any other container changes in place where it is, for every
    name, unless it is the traced copy that a staged loop body works on: then the value it stands
    for (``appends.stood_for``), which the other names and the caller hold, keeps the old contents;
    but for a list or a dict, whose items the statement writes into the object it stands for after it
    (:mod:`.kept_containers`). A JAX array may also stand for a NumPy view of another name's array.
    """
    copied_from = appends.stood_for(container)
    is_array = isinstance(container, jax.Array)
    if not is_array and (not copied_from or type(container) in (list, dict)):
        return  # changed in place where it is, or written back there: every name and the caller see it
    kind = "JAX array" if is_array else f"{type(copied_from[-1]).__name__} (copied by a staged loop)"
    held = [container, *copied_from]
    for other, value_of in aliases.items():
        try:
            value = value_of()
        except NameError:  # not bound yet (UnboundLocalError and a free variable's NameError included)
            continue
        # Both names may be copies made by the same staged loop: compare what each stands for.
        if any(value is candidate for value in appends.with_originals(value) for candidate in held):
            raise ConversionError(
                f"'{name}' is updated in place, but '{name}' and '{other}' refer to the same {kind} "
                f"and '{other}' is read afterwards. The update makes a new value, bound to '{name}' only, "
                f"so '{other}' keeps the old values (outside staged code a NumPy array, list or dict would "
                "change through both names).",
                caller_location(),
                f"Update '{other}' itself, or rebind it after the update (`{other} = {name}`); if '{other}' "
                f"must keep the old values, copy where the second name is bound (`{name} = {other}.copy()`).",
            )
    if is_array:
        shared_memory.check_views(container, name, views)
    if from_caller_of is not None:
        raise ConversionError(
            f"'{name}' is updated in place, but it may hold a {kind} from the caller of {from_caller_of} "
            f"which the function does not return. The update makes a new value, bound "
            f"to '{name}' inside {from_caller_of} only, so the caller cannot see the update of a JAX "
            "array or of a staged copy (outside staged code a NumPy array, list or dict changes in place).",
            caller_location(),
            f"Return the array and assign it at the call site: `return {name}` in {from_caller_of}, and "
            f"`x = {from_caller_of}(x, ...)` where it is called.",
        )


def store_item(value: Any, container: Any, index: Any, text: str) -> None:
    """``container[index] = value`` for a container read off a call (``vars(o)[k] = v``): read once,
    after the value, as Python reads it, and checked as a name's container is before the store."""
    effects.check_item_assignment(container, text)
    container[index] = value


def augmented(current: Any, operand: Any, symbol: str) -> Any:
    """``current op= operand`` as Python computes it for an attribute or an item read once (``q.w +=
    v``): the in-place method where the value has one (a list's ``+=`` extends it where it is), else
    the operator."""
    return array_stores.IN_PLACE[symbol](current, operand)


def augment_item(container: Any, index: Any, operand_of: Callable[[], Any], symbol: str, text: str) -> None:
    """``container[index] op= operand`` for a container read off a call (``make()[0] += v``): checked
    as :func:`store_item` checks, then Python's order: the item, the operand (``operand_of``, the
    rewrite's ``lambda: v``), the in-place operator, the store. The item is checked too: the container
    may be the trace's own while the item is not (``Pools(r=POOL)['r'] += [v]`` extends ``POOL``)."""
    effects.check_item_assignment(container, text)
    current = container[index]
    effects.check_in_place_operator(current, symbol, item_of=text)
    container[index] = augmented(current, operand_of(), symbol)


def delete_item(container: Any, index: Any, text: str) -> None:
    """``del container[index]``, as :func:`store_item` stores."""
    effects.check_item_assignment(container, text, True)
    del container[index]

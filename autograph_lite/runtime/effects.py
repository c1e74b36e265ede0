"""Effects that only show at run time: container mutations and writes to outer variables.

The rewriter sees an effect when it is a statement of its own (``log.append(x)``, ``self.n += 1``).
A call whose result is used can mutate too: ``total += stack.pop()``, ``v = cache.setdefault(k, 0)``,
or a call of a function that assigns a ``nonlocal`` or ``global`` variable. Inside a staged branch
or loop body such a call would run once while tracing, whatever the condition or the trip count, so
before it runs it is refused: inside a trial trace (the static-loop policy's, or a ``while`` test
evaluated aside) by :class:`Refused`, which makes the statement run as Python; inside a real staging
by a located ``ConversionError``. Outside staged code nothing is checked.

What mutates is decided by the receiver's run-time type, never by the method's name alone: ``pop``
on a list mutates it, ``update`` on an optimizer object of the user's may well be pure. A container
built inside the trace itself is private to it and may be mutated (see :mod:`.freshness`).
"""

from __future__ import annotations

import collections
import types
from typing import Any

import numpy as np

from ..errors import ConversionError
from . import appends
from .freshness import created_inside
from .locations import caller_location

_SEQUENCE = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "reverse",
    "__setitem__", "__delitem__", "__iadd__", "__imul__",
})
_SET = frozenset({
    "add", "discard", "remove", "pop", "clear", "update", "intersection_update", "difference_update",
    "symmetric_difference_update", "__ior__", "__iand__", "__isub__", "__ixor__",
})
# (the receiver's type, its name in messages, the methods that mutate it); subclasses count.
_MUTATING_METHODS = (
    (list, "list", _SEQUENCE | {"sort"}),
    (collections.deque, "deque", _SEQUENCE | {"appendleft", "extendleft", "popleft", "rotate"}),
    (bytearray, "bytearray", _SEQUENCE),
    (dict, "dict", frozenset({
        "pop", "popitem", "setdefault", "update", "clear", "move_to_end", "__setitem__", "__delitem__", "__ior__",
    })),
    (set, "set", _SET),
)
_BOUND_BUILTINS = (types.BuiltinMethodType, types.MethodWrapperType)
_KIND_NAMES = {np.ndarray: "NumPy array"}


class Refused(Exception):
    """An effect inside a trial trace: the statement being tried must run as Python instead.

    ``effect`` completes "its body ...", the reason ``explain`` gives for running it as Python.
    """

    def __init__(self, effect: str) -> None:
        super().__init__(effect)
        self.effect = effect


def check_call(function: Any) -> None:
    """Before a call from converted code: refuse it if it mutates a container from outside the trace."""
    if not isinstance(function, _BOUND_BUILTINS):
        return
    context = appends.innermost()
    if context is None:
        return
    receiver = function.__self__
    kind = _mutated_kind(receiver, function.__name__)
    if kind is None or created_inside(receiver, context.entered_from):
        return
    call = f"{type(receiver).__name__}.{function.__name__}(), which mutates a {kind}"
    _refuse(
        f"calls {call}", f"this call of {call},", context,
        f"carry the values in a JAX array instead of a Python {kind} (read xs[i] with a counter, write "
        "xs = xs.at[i].set(v))",
    )


def check_item_assignment(container: Any) -> None:
    """Before ``container[i] = v`` changes a container in place (a list, dict or NumPy array).

    Inside staged code that is an effect like ``list.pop()``, unless the container is the staged
    statement's own copy of a carried value (its update is carried out of the statement) or was built
    inside the trace.
    """
    context = appends.innermost()
    if context is None or appends.stood_for(container) or created_inside(container, context.entered_from):
        return
    kind = _KIND_NAMES.get(type(container), type(container).__name__)
    _refuse(
        f"assigns to an item of a {kind} from outside it, which mutates a {kind}",
        f"this item assignment, which mutates a {kind} from outside the staged code,", context,
        "carry the values in a JAX array and update it with xs = xs.at[i].set(v), returning it",
    )


def outer_write(name: str, scope: str) -> None:
    """Before a statement that assigns the ``global`` / ``nonlocal`` variable ``name``."""
    context = appends.innermost()
    if context is None:
        return
    _refuse(
        f"calls a function that assigns to the {scope} variable '{name}'",
        f"this statement assigns to the {scope} variable '{name}', and it", context,
        f"return the new value of '{name}' from the function and assign it where the function is called",
    )


def _mutated_kind(receiver: Any, method: str) -> str | None:
    for container, kind, methods in _MUTATING_METHODS:
        if isinstance(receiver, container):
            return kind if method in methods else None
    return None


def _refuse(effect: str, subject: str, context: appends.Staged, alternative: str) -> None:
    """``effect`` completes "its body ..." (a trial's reason); ``subject`` starts the error message."""
    if appends.in_trial():
        raise Refused(effect)
    where = f" ({context.location})" if context.location is not None else ""
    raise ConversionError(
        f"{subject} runs inside a {context.construct}{where}: a staged statement is traced once, so the "
        "effect would happen once while tracing instead of when (and as often as) Python would run it",
        caller_location(),
        "Make the condition or the loop bound static (static_argnums / static_argnames) so that the "
        "statement runs as Python, and iterate a static loop over autograph_lite.unroll(...) rather "
        f"than stage(...); or {alternative}.",
    )

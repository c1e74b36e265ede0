"""What staged code owns, what mutates, and how an effect is refused: the rules every check of
:mod:`.effects` and :mod:`.call_effects` applies.

A container or object is the trace's own when the staged code itself made it: a staged body's copy
of a carried value (its update is carried out of the statement), an instance or iterator its code
made (:func:`note_made`), or a display built inside the trace (:mod:`.freshness`). Changing one of
those while tracing is what Python does once per run of that code. Anything else may be seen from
outside the staged statement, and changing it there would happen once while tracing instead of
when (and as often as) Python would: refused, by :class:`Refused` inside a trial trace (the statement
then runs as Python) and by a located ``ConversionError`` inside a real staging.
"""

from __future__ import annotations

import collections
from typing import Any, NoReturn

import numpy as np

from ..errors import ConversionError
from . import appends
from .freshness import created_inside
from .locations import caller_location
from .store_hooks import user_hook

_SEQUENCE = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "reverse",
    "__setitem__", "__delitem__", "__iadd__", "__imul__",
})
_SET = frozenset({
    "add", "discard", "remove", "pop", "clear", "update", "intersection_update", "difference_update",
    "symmetric_difference_update", "__ior__", "__iand__", "__isub__", "__ixor__",
})
# (the receiver's type, its name in messages, the methods that mutate it); subclasses count.
MUTATING_METHODS = (
    (list, "list", _SEQUENCE | {"sort"}),
    (collections.deque, "deque", _SEQUENCE | {"appendleft", "extendleft", "popleft", "rotate"}),
    (bytearray, "bytearray", _SEQUENCE),
    (dict, "dict", frozenset({
        "pop", "popitem", "setdefault", "update", "clear", "move_to_end", "__setitem__", "__delitem__", "__ior__",
    })),
    (set, "set", _SET),
    (np.ndarray, "NumPy array", frozenset({"fill", "sort", "partition", "put", "resize", "itemset", "__setitem__"})
     | {f"__i{name}__" for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and",
                                   "or", "xor", "lshift", "rshift")}),
)
# The containers whose methods the effect checks know: a call of one is checked, mutating or not.
CONTAINERS = tuple(container for container, _, _ in MUTATING_METHODS)
_KIND_NAMES: dict[type, str] = {np.ndarray: "NumPy array"}
OPERATOR_METHODS = {
    "+=": "add", "-=": "sub", "*=": "mul", "/=": "truediv", "//=": "floordiv", "%=": "mod", "**=": "pow",
    "@=": "matmul", "&=": "and", "|=": "or", "^=": "xor", "<<=": "lshift", ">>=": "rshift",
}


class Refused(Exception):
    """An effect inside a trial trace: the statement being tried must run as Python instead.

    ``effect`` completes "its body ...", the reason ``explain`` gives for running it as Python.
    """

    def __init__(self, effect: str) -> None:
        super().__init__(effect)
        self.effect = effect


def note_made(value: Any) -> None:
    """After ``iter()`` or a call of a class from converted code: inside staged code, the new iterator
    or instance is that code's own (it may be advanced or changed there, as eagerly).

    Not where the class's own ``__new__`` or its metaclass's ``__call__`` is the user's code: that
    code may hand back an instance that already existed (a singleton, a cache, interning), which
    eager Python would change on every call. Its identity cannot tell: the first call inside a trace
    returns the shared instance as a new one would be returned.
    """
    context = appends.innermost()
    if context is not None and not (user_hook(type(value), "__new__") or user_hook(type(type(value)), "__call__")):
        context.made.append(value)


def made_by(context: appends.Staged, value: Any) -> bool:
    """Whether the code of the trace ``context`` made ``value`` (:func:`note_made`)."""
    return any(made is value for made in context.made)


def private(context: appends.Staged, container: Any) -> bool:
    """Whether ``container`` is the trace's own: a staged body's copy of a carried value, made by the
    trace's code, or a display built inside it."""
    return appends.copied_by(context, container) or made_by(context, container) or created_inside(
        container, context.entered_from)


def mutated_kind(receiver: Any, method: str) -> str | None:
    """The name of ``receiver``'s kind (``list``, ``NumPy array``, ...) if its ``method`` mutates it."""
    for container, kind, methods in MUTATING_METHODS:
        if isinstance(receiver, container):
            return kind if method in methods else None
    return None


def kind_name(container_type: type | None) -> str:
    """How messages name a container of ``container_type`` (``None``: one that was not read)."""
    return "container" if container_type is None else _KIND_NAMES.get(container_type, container_type.__name__)


def refuse_hook(hook: str | None, context: appends.Staged) -> None:
    """Refuse a store into the trace's own object when it runs ``hook``, the user's code, unconverted."""
    if hook is None:
        return
    refuse(
        f"stores into an object whose class runs {hook} for it, unconverted",
        f"this store, which runs {hook} (the user's code, unconverted, so that what it changes "
        "besides the object goes unchecked),", context,
        "store into a plain attribute or a list instead (whose class has no property setter, __setattr__, "
        "__setitem__ or in-place operator of its own), or call the method that makes the change explicitly",
    )


def refuse(effect: str, subject: str, context: appends.Staged, alternative: str) -> NoReturn:
    """``effect`` completes "its body ..." (a trial's reason); ``subject`` starts the error message."""
    if appends.in_trial():
        raise Refused(effect)
    where = f" ({context.location})" if context.location is not None else ""
    static = ("Make the exit's condition static (static_argnums / static_argnames) so that the loop runs as "
              "Python (unroll(...) alone does not help: the iterations after a traced exit are traced under "
              "it either way)") if isinstance(context, appends.AfterTracedExit) else (
        "Make the condition or the loop bound static (static_argnums / static_argnames) so that the "
        "statement runs as Python, and iterate a static loop over autograph_lite.unroll(...) rather "
        "than stage(...)")
    raise ConversionError(
        f"{subject} runs inside a {context.construct}{where}: a staged statement is traced once, so the "
        "effect would happen once while tracing instead of when (and as often as) Python would run it",
        caller_location(), f"{static}; or {alternative}.",
    )

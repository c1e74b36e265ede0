"""Effects that only show at run time: container mutations, writes to outer variables, hidden state.

The rewriter sees an effect when it is a statement of its own (``log.append(x)``, ``self.n += 1``).
A call whose result is used can mutate too: ``total += stack.pop()``, ``v = cache.setdefault(k, 0)``,
a call of a function that assigns a ``nonlocal`` or ``global`` variable or an item of a container
from outside (``COUNTS[0] += 1``), ``next(iterator)``, or a draw from a random number generator
(``rng.integers(0, 10)``, ``np.random.normal()``, ``random.random()``: the module-level functions are
methods of a hidden global generator), each of which changes state. Inside a staged branch
or loop body such a call would run once while tracing, whatever the condition or the trip count, so
before it runs it is refused: inside a trial trace (the static-loop policy's, or a ``while`` test
evaluated aside) by :class:`Refused`, which makes the statement run as Python; inside a real staging
by a located ``ConversionError``. Outside staged code nothing is checked.

What mutates is decided by the receiver's run-time type, never by the method's name alone: ``pop``
on a list mutates it, ``update`` on an optimizer object of the user's may well be pure. A container
built inside the trace itself is private to it and may be mutated (see :mod:`.freshness`); an
iterator or a generator carries no such proof, so advancing or drawing from one is always refused there.
"""

from __future__ import annotations

import collections
import random
import types
from collections.abc import Callable
from typing import Any, NoReturn

import jax
import numpy as np

from ..errors import ConversionError
from . import appends
from .freshness import created_inside
from .locations import caller_location
from .store_hooks import attribute_hook, user_hook

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
    (np.ndarray, "NumPy array", frozenset({"fill", "sort", "partition", "put", "resize", "itemset"})
     | {f"__i{name}__" for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and",
                                   "or", "xor", "lshift", "rshift")}),
)
# Random number generators: every method but these changes the generator's state.
_RANDOM_GENERATORS = (
    (np.random.Generator, "NumPy random Generator"),
    (np.random.RandomState, "NumPy RandomState"),
    (np.random.BitGenerator, "NumPy BitGenerator"),
    (random.Random, "random.Random"),
)
_STATE_READERS = frozenset({
    "get_state", "getstate", "jumped", "__getstate__", "__reduce__", "__reduce_ex__", "__copy__", "__deepcopy__",
    "__repr__", "__str__", "__sizeof__",
})
# The generators behind the module-level functions (np.random.normal is a bound method of the first).
_HIDDEN_GENERATORS = ((np.random.mtrand._rand, "np.random"), (random._inst, "random"))
# Bound methods: of builtin types (list.pop), of extension types (Generator.integers), of Python classes.
_BOUND_METHODS = (types.BuiltinMethodType, types.MethodWrapperType, types.MethodType)
_KIND_NAMES: dict[type, str] = {np.ndarray: "NumPy array"}
_UNREAD = object()  # a nested store's container that was not read
_ITEM_HOOKS = {False: "__setitem__", True: "__delitem__"}  # by ``deletes``
_OPERATOR_METHODS = {
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


def check_call(function: Any) -> None:
    """Before a call from converted code: refuse it if it mutates a container from outside the trace,
    or changes the state of a random number generator."""
    if not isinstance(function, _BOUND_METHODS):
        return
    context = appends.innermost()
    if context is None:
        return
    receiver = function.__self__
    generator = _generator_kind(receiver, function.__name__)
    if generator is not None:
        call = f"{_receiver_text(receiver)}.{function.__name__}(), which changes the state of a {generator}"
        _refuse(
            f"calls {call}", f"this call of {call},", context,
            "draw with jax.random from a key passed in and split for each use (key, subkey = "
            "jax.random.split(key)), or draw every number before the staged code (rng.normal(size=n)) and "
            "index them with the loop counter",
        )
    kind = _mutated_kind(receiver, function.__name__)
    if kind is None or created_inside(receiver, context.entered_from):
        return
    call = f"{type(receiver).__name__}.{function.__name__}(), which mutates a {kind}"
    _refuse(
        f"calls {call}", f"this call of {call},", context,
        f"carry the values in a JAX array instead of a Python {kind} (read xs[i] with a counter, write "
        "xs = xs.at[i].set(v))",
    )


def changes_random_state(function: Any) -> bool:
    """Whether calling ``function`` draws from a random number generator (changing its state), as the
    module-level ``np.random.normal`` and ``random.random`` do: converted code must call it through
    the runtime, where :func:`check_call` sees it."""
    receiver = getattr(function, "__self__", None) if isinstance(function, _BOUND_METHODS) else None
    return receiver is not None and _generator_kind(receiver, function.__name__) is not None


def check_construction(cls: type) -> None:
    """Before converted code calls ``cls``. A Flax linen module made inside another's ``@nn.compact``
    method registers with it as its next submodule (``Dense_0``, ``Dense_1``, ...): made inside staged
    code, once while tracing, every iteration of a staged loop would share the one submodule and its
    parameters, where eager Python makes one per iteration. Refused there (a static loop's trial then
    runs the loop as Python, unrolled, as Flax expects)."""
    context = appends.innermost()
    if context is None or not registers_with_parent(cls):
        return
    _refuse(
        f"makes a Flax linen module ({cls.__name__}), which registers a new submodule of its parent",
        f"this call of {cls.__name__}, a Flax linen module that registers a new submodule of its parent each time "
        "it is made,", context,
        "make the loop static and unrolled (autograph_lite.unroll(range(n))), or create the submodules in setup() "
        "and call them in the loop",
    )


def registers_with_parent(cls: type) -> bool:
    """Whether ``cls`` is a Flax linen module (by its bases' names: Flax need not be installed)."""
    return any(base.__name__ == "Module" and base.__module__ == "flax.linen.module" for base in cls.__mro__)


def check_advance(iterator: Any) -> None:
    """Before ``next(iterator)`` from converted code: refuse it inside staged code.

    An iterator that ``iter()`` made in the same staged code (``next(iter(ys))``) is private to it
    (:func:`note_made`); any other (a generator, an iterator from outside) carries no proof
    of where it was made and is refused: the statement then runs as Python, or the error says how to
    do without it.
    """
    context = appends.innermost()
    if context is None or not hasattr(type(iterator), "__next__"):
        return  # outside staged code; or not an iterator, which next() itself refuses
    if _made_by(context, iterator):
        return
    call = f"next() on a {type(iterator).__name__}, which advances an iterator"
    _refuse(
        f"calls {call}", f"this call of {call},", context,
        "index a list or an array with the loop counter (xs[i]) instead of advancing an iterator",
    )


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


def _made_by(context: appends.Staged, value: Any) -> bool:
    return any(made is value for made in context.made)


def check_item_assignment(container: Any, outer_name: str | None = None, deletes: bool = False) -> None:
    """Before ``container[i] = v`` (or ``del container[i]``: ``deletes``) changes a container in place
    (a list, dict or NumPy array).

    Inside staged code that is an effect like ``list.pop()``, unless the container is the staged
    statement's own copy of a carried value (its update is carried out of the statement) or was built
    inside the trace (a display, or a call of ``list`` / ``dict`` / a class from converted code). A JAX
    array never changes in place: its item assignment raises JAX's own error, and a NumPy array's
    deletion NumPy's. ``outer_name`` is the container's expression where it is not the function's own
    variable.
    """
    context = appends.innermost()
    if context is None or isinstance(container, jax.Array) or (deletes and isinstance(container, np.ndarray)):
        return
    if _private(context, container):
        _refuse_hook(user_hook(type(container), _ITEM_HOOKS[deletes]), context)
        return
    _refuse_item_store(type(container), outer_name, deletes, context)


def check_nested_item_assignment(
    root_of: Callable[[], Any], container_of: Callable[[], Any] | None, text: str, deletes: bool = False,
    items_only: bool = True,
) -> None:
    """Before ``a[i][j] = v`` (or ``del a[i][j]``: ``deletes``), whose container ``text`` (``a[i]``) is
    itself read off a root (``a``): ``root_of`` reads the root, ``container_of`` the container where
    reading it again is harmless (else ``None``); ``items_only``: only subscripts lead from root to it.

    Inside staged code the store is allowed where the container is private to the trace (as for
    :func:`check_item_assignment`) or, through items only, the root is: a display built inside the
    trace (``rows = [[0.0]]``) or a staged body's copy of a carried value, whose nested lists are
    copies too. A root made by a call does not count (``list(GRID)`` shares ``GRID``'s rows). A root
    that is a JAX array leaves the error to JAX. Anything else is refused before the store happens.
    """
    context = appends.innermost()
    if context is None:
        return
    root = container = _UNREAD  # (an object of no hook, private to nobody)
    try:
        root = root_of()
        container = container_of() if container_of is not None else _UNREAD
    except Exception:  # an unbound name, a missing key: the statement raises it itself, in Python's order
        if root is _UNREAD:
            return
    if isinstance(root, jax.Array):
        return
    if _private(context, container) or (
        items_only and (appends.stood_for(root) or created_inside(root, context.entered_from))
    ):
        _refuse_hook(user_hook(type(container), _ITEM_HOOKS[deletes]), context)
        return
    _refuse_item_store(type(container) if container is not _UNREAD else None, text, deletes, context)


def check_in_place_operator(value: Any, operator: str, from_caller: bool = False, deferred: bool = False) -> None:
    """Before ``a += v`` (any augmented ``operator``) on a name, given its ``value`` (read where the
    statement reads it first: an unbound name raises Python's own error), or on an attribute chain,
    which ``value`` then reads (``deferred``: only inside staged code, since a property's getter may
    run; an error there is left to the statement itself).

    Inside staged code the statement runs once while tracing. Where the value's class has the
    in-place method of the user's (``Acc.__iadd__``), that code runs unconverted: refused, as a
    store that runs it is. Where the value is a parameter's (``from_caller``) list, set, dict, deque,
    bytearray or NumPy array, ``+=`` / ``|=`` / ... mutates the caller's container: refused unless it is the
    trace's own. A local variable's container is left alone: a list built and extended inside the
    trace (``parts = [x]; parts += [y]``) carries no proof of where it was built once rebound.
    """
    context = appends.innermost()
    if context is None:
        return
    if deferred:
        try:
            value = value()
        except Exception:  # a missing attribute: the statement raises Python's error itself
            return
    method = f"__i{_OPERATOR_METHODS[operator]}__"
    kind = _mutated_kind(value, method) if from_caller else None
    if kind is not None and not _private(context, value):
        _refuse(
            f"applies {operator} to a {kind} from outside it, which mutates a {kind}",
            f"this {operator} on a {kind} from the caller, which mutates a {kind} from outside the staged code,",
            context, "build a new value instead (xs = xs + [v]) and return it, or carry the values in a JAX array",
        )
    _refuse_hook(user_hook(type(value), method), context)


def _private(context: appends.Staged, container: Any) -> bool:
    """Whether ``container`` is the trace's own: a staged body's copy of a carried value, made by the
    trace's code, or a display built inside it."""
    return bool(appends.stood_for(container)) or _made_by(context, container) or created_inside(
        container, context.entered_from)


def _refuse_item_store(container_type: type | None, outer_name: str | None, deletes: bool,
                       context: appends.Staged) -> NoReturn:
    """Refuse an item assignment or deletion into a container of ``container_type`` (``None``: not read)."""
    kind = "container" if container_type is None else _KIND_NAMES.get(container_type, container_type.__name__)
    if deletes:
        _refuse(
            f"deletes an item of a {kind} from outside it, which mutates a {kind}",
            f"this deletion of an item{' of ' + outer_name if outer_name else ''}, which mutates a {kind} "
            "from outside the staged code,", context,
            "build a new value instead of deleting in place (xs = xs[:i] + xs[i + 1:] on a list made in the "
            "function), or carry the values in a JAX array",
        )
    into = "" if outer_name is None else f" into {outer_name}"
    alternative = "carry the values in a JAX array and update it with xs = xs.at[i].set(v), returning it"
    if outer_name is not None:
        alternative = (f"return the new value from the function that stores it and update {outer_name} "
                       "after the staged code; or " + alternative)
    _refuse(
        f"assigns to an item of a {kind} from outside it, which mutates a {kind}",
        f"this item assignment{into}, which mutates a {kind} from outside the staged code,", context, alternative,
    )


def check_attribute_assignment(owner_of: Callable[[], Any], target: str, attribute: str | None = None) -> None:
    """Before ``owner.attribute = v`` (or ``+=``, ``del``) in converted code; ``target`` is its text
    (``owner.attribute``, whose last part names the attribute unless ``attribute`` does) and
    ``owner_of`` reads the owner (only inside staged code: outside it, Python's order of evaluation
    is untouched).

    Inside staged code this changes an object while tracing, once, however often Python would run it:
    an effect like ``COUNTS[0] += 1``, refused unless the staged code made the object itself (called
    its class from converted code: :func:`note_made`), which is then the trace's own. There is no
    proof that any other object is private to the trace (a module-level instance, a model the
    function was given, an object cached by a library), so the check stays on the safe side. Even on
    an object it made, a store that runs the user's code (a property's setter, a descriptor's
    ``__set__``, a ``__setattr__`` of the class's) is refused: that code runs unconverted, so its own
    effects (a module-level log) would go unchecked.
    """
    context = appends.innermost()
    if context is None:
        return
    owner = owner_of()
    if _made_by(context, owner):
        _refuse_hook(attribute_hook(owner, attribute or target.rpartition(".")[2]), context)
        return
    kind = type(owner).__name__
    _refuse(
        f"changes the attribute {target} of an object of class {kind} that it did not make",
        f"this assignment to {target}, which changes an object of class {kind} that the staged code did not make,", context,
        f"return the new value from the function that assigns it and assign {target} after the staged code, "
        "or keep the value in a variable of the function (a staged loop carries it)",
    )


def _refuse_hook(hook: str | None, context: appends.Staged) -> None:
    """Refuse a store into the trace's own object when it runs ``hook``, the user's code, unconverted."""
    if hook is None:
        return
    _refuse(
        f"stores into an object whose class runs {hook} for it, unconverted",
        f"this store, which runs {hook} (the user's code, unconverted, so that what it changes "
        "besides the object goes unchecked),", context,
        "store into a plain attribute or a list instead (whose class has no property setter, __setattr__, "
        "__setitem__ or in-place operator of its own), or call the method that makes the change explicitly",
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


def _generator_kind(receiver: Any, method: str) -> str | None:
    """The name of ``receiver``'s kind if it is a random number generator that ``method`` draws from."""
    for generator, kind in _RANDOM_GENERATORS:
        if isinstance(receiver, generator):
            return None if method in _STATE_READERS else kind
    return None


def _receiver_text(receiver: Any) -> str:
    """``np.random`` / ``random`` for the hidden generators of the module-level functions, else the type's name."""
    for hidden, module in _HIDDEN_GENERATORS:
        if receiver is hidden:
            return module
    return type(receiver).__name__


def _mutated_kind(receiver: Any, method: str) -> str | None:
    for container, kind, methods in _MUTATING_METHODS:
        if isinstance(receiver, container):
            return kind if method in methods else None
    return None


def _refuse(effect: str, subject: str, context: appends.Staged, alternative: str) -> NoReturn:
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

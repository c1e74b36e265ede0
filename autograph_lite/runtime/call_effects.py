"""Calls from converted code that change state: checked before they run (see :mod:`.effects`).

A call whose result is used can mutate too: ``total += stack.pop()``, ``v = cache.setdefault(k, 0)``,
``heapq.heappush(HEAP, v)``, ``next(iterator)``, or a draw from a random number generator
(``rng.integers(0, 10)``, ``np.random.normal()``, ``random.random()``: the module-level functions are
methods of a hidden global generator), each of which changes state. What mutates is decided by the
receiver's run-time type, never by the method's name alone: ``pop`` on a list mutates it, ``update``
on an optimizer object of the user's may well be pure; a library function that mutates an argument
is found by identity (:mod:`.library_mutators`). The rules of what the trace owns are
:mod:`.ownership`'s.
"""

from __future__ import annotations

import builtins
import random
import types
from typing import Any

import jax
import numpy as np

from . import appends, library_mutators
from .library_mutators import ATTRIBUTE, DELETES, METHOD, Mutation
from .ownership import OPERATOR_METHODS, kind_name, made_by, mutated_kind, private, refuse, refuse_hook
from .private_iterators import generator_drawn_privately
from .store_hooks import attribute_hook, user_hook
from .values import with_article

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
# Values that no call changes: a mutator given one raises its own error, as eagerly.
_IMMUTABLE = (tuple, str, bytes, int, float, complex, bool, frozenset, type(None), jax.Array)
# Builtins that draw every item of the iterable they are given.
DRAINING_BUILTINS = frozenset({builtins.sum, builtins.list, builtins.tuple, builtins.set, builtins.frozenset,
                                builtins.sorted, builtins.min, builtins.max, builtins.any, builtins.all, builtins.dict})
_CONTAINER_ALTERNATIVE = "carry the values in a JAX array instead of a Python {kind} (read xs[i] with a counter, write " \
                         "xs = xs.at[i].set(v))"


def check_call(function: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None) -> None:
    """Before a call from converted code: refuse it if it mutates a container from outside the trace
    (as a method of it, or as a library function given it), or changes the state of a random number
    generator."""
    if type(function) is types.FunctionType and not kwargs and id(function) not in library_mutators.LISTED:
        return  # the common call, of a Python function that is not in the table: nothing more to look up
    context = appends.innermost()
    if context is None:
        return  # outside staged code every call runs as Python, once per call: nothing to refuse
    if isinstance(function, _BOUND_METHODS):
        _check_bound_method(function, context)
    check_drained(function, args)
    for mutation in library_mutators.mutations(function, args, kwargs or {}):
        _check_mutation(mutation, context)


def _check_bound_method(function: Any, context: appends.Staged) -> None:
    receiver = function.__self__
    generator = _generator_kind(receiver, function.__name__)
    if generator is not None:
        call = f"{_receiver_text(receiver)}.{function.__name__}(), which changes the state of a {generator}"
        refuse(
            f"calls {call}", f"this call of {call},", context,
            "draw with jax.random from a key passed in and split for each use (key, subkey = "
            "jax.random.split(key)), or draw every number before the staged code (rng.normal(size=n)) and "
            "index them with the loop counter",
        )
    kind = mutated_kind(receiver, function.__name__)
    if kind is None or private(context, receiver):
        return
    call = f"{type(receiver).__name__}.{function.__name__}(), which mutates a {kind}"
    refuse(f"calls {call}", f"this call of {call},", context, _CONTAINER_ALTERNATIVE.format(kind=kind))


def _check_mutation(mutation: Mutation, context: appends.Staged) -> None:
    """Refuse ``mutation`` unless what it changes is the trace's own (the rules of an item store, an
    attribute store, an in-place operator or a method call, as the call amounts to one of them)."""
    value, how = mutation.value, mutation.how
    if isinstance(value, _IMMUTABLE):
        return  # the call raises its own error (a JAX array: JAX's), or changes nothing
    if how == ATTRIBUTE:
        _check_attribute_call(mutation, context)
        return
    if how in OPERATOR_METHODS:  # operator.iadd(a, b) is a += b
        method = f"__i{OPERATOR_METHODS[how]}__"
        kind = mutated_kind(value, method)
        if kind is not None and not private(context, value):
            _refuse_mutation(mutation, kind, context)
        refuse_hook(user_hook(type(value), method), context)
        return
    if how == METHOD:
        kind = mutated_kind(value, mutation.name or "")
        if kind is not None and not private(context, value):
            _refuse_mutation(mutation, kind, context)
        return
    if not private(context, value):
        _refuse_mutation(mutation, kind_name(type(value)), context)
    refuse_hook(user_hook(type(value), "__delitem__" if how == DELETES else "__setitem__"), context)


def _check_attribute_call(mutation: Mutation, context: appends.Staged) -> None:
    """``object.__setattr__(owner, name, v)``: as ``owner.name = v`` (without the class's own
    ``__setattr__``, which it bypasses; a property's setter still runs)."""
    owner = mutation.value
    if made_by(context, owner):
        hook = attribute_hook(owner, mutation.name, through_object=True) if mutation.name is not None else None
        refuse_hook(hook, context)
        return
    kind = type(owner).__name__
    refuse(
        f"calls {mutation.call}, which changes an object of class {kind} that it did not make",
        f"this call of {mutation.call}, which changes an object of class {kind} that the staged code did not make,",
        context, "return the new value from the function and set the attribute after the staged code, or keep the "
        "value in a variable of the function (a staged loop carries it)",
    )


def _refuse_mutation(mutation: Mutation, kind: str, context: appends.Staged) -> None:
    refuse(
        f"calls {mutation.call}, which mutates a {kind} from outside it",
        f"this call of {mutation.call}, which mutates a {kind} from outside the staged code,", context,
        f"build a new value instead and return it, or {_CONTAINER_ALTERNATIVE.format(kind=kind)}",
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
    refuse(
        f"makes a Flax linen module ({cls.__name__}), which registers a new submodule of its parent",
        f"this call of {cls.__name__}, a Flax linen module that registers a new submodule of its parent each time "
        "it is made,", context,
        "make the loop static and unrolled (autograph_lite.unroll(range(n))), or create the submodules in setup() "
        "and call them in the loop",
    )


def registers_with_parent(cls: type) -> bool:
    """Whether ``cls`` is a Flax linen module (by its bases' names: Flax need not be installed)."""
    return any(base.__name__ == "Module" and base.__module__ == "flax.linen.module" for base in cls.__mro__)


def check_advance(iterator: Any, drawn_by: str = "next()") -> None:
    """Before ``next(iterator)`` from converted code (or another draw from an iterator, ``drawn_by``: a
    builtin that takes all its items, a ``for`` loop): refuse it inside staged code.

    An iterator that ``iter()`` (or ``enumerate`` / ``zip`` / ``reversed``) made in the same staged code
    (``next(iter(ys))``) is private to it (:func:`.ownership.note_made`), and so is a generator
    expression not started (``sum(x * x for x in xs)``, written where it is drawn); any other (a
    generator, an iterator from outside) carries no proof of where it was made and is refused: the
    statement then runs as Python, or the error says how to do without it.
    """
    context = appends.innermost()
    if context is None or not hasattr(type(iterator), "__next__"):
        return  # outside staged code; or not an iterator, which next() itself refuses
    if made_by(context, iterator) or (drawn_by != "next()" and generator_drawn_privately(iterator)):
        return
    draw = f"{drawn_by} on {with_article(type(iterator).__name__)}, which advances an iterator"
    loop = drawn_by.startswith("a `for`")
    refuse(
        f"has {draw}" if loop else f"calls {draw}", f"this {draw[2:]}," if loop else f"this call of {draw},", context,
        "index a list or an array with the loop counter (xs[i]) instead of advancing an iterator",
    )


def check_drained(function: Any, args: tuple[Any, ...]) -> None:
    """Before a builtin that takes every item of its first argument (``sum(it)``, ``list(it)``): as a
    ``next()`` of each (:func:`check_advance`)."""
    if args and isinstance(function, (types.BuiltinFunctionType, type)) and function in DRAINING_BUILTINS:
        check_advance(args[0], f"{function.__name__}()")


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

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

This module checks stores (items, attributes, in-place operators, outer variables) and is the one
the rest of the runtime asks: the checks of calls live in :mod:`.call_effects`, the rules of what the
trace owns and the refusal itself in :mod:`.ownership`, and both are reached through here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

import jax
import numpy as np

from . import appends
from .call_effects import changes_random_state, check_advance, check_call, check_construction, registers_with_parent
from .freshness import created_inside
from .ownership import (
    OPERATOR_METHODS,
    Refused,
    kind_name,
    made_by,
    mutated_kind,
    note_made,
    private,
    refuse,
    refuse_hook,
)
from .store_hooks import attribute_hook, user_hook

__all__ = [
    "Refused", "changes_random_state", "check_advance", "check_attribute_assignment", "check_call",
    "check_construction", "check_in_place_operator", "check_item_assignment", "check_nested_item_assignment",
    "note_made", "outer_write", "registers_with_parent",
]

_UNREAD = object()  # a nested store's container that was not read
_ITEM_HOOKS = {False: "__setitem__", True: "__delitem__"}  # by ``deletes``


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
    if private(context, container):
        refuse_hook(user_hook(type(container), _ITEM_HOOKS[deletes]), context)
        return
    _refuse_item_store(type(container), outer_name, deletes, context)


def check_nested_item_assignment(
    root_of: Callable[[], Any], container_of: Callable[[], Any] | None, text: str, deletes: bool = False,
    items_only: bool = True,
) -> None:
    """Before ``a[i][j] = v`` (or ``del a[i][j]``: ``deletes``), whose container ``text`` (``a[i]``) is
    itself read off a root (``a``): ``root_of`` reads the root, ``container_of`` the container where
    reading it again is harmless (else ``None``); ``items_only``: only subscripts lead from root to it,
    and, for a local root, the function builds every container on the way new (``rows = [[0.0]]``, not
    ``rows = [GRID[0]]``: the rewrite's proof, :mod:`..passes.fresh_values`).

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
    if private(context, container) or (
        items_only and (appends.copied_by(context, root) or created_inside(root, context.entered_from))
    ):
        refuse_hook(user_hook(type(container), _ITEM_HOOKS[deletes]), context)
        return
    _refuse_item_store(type(container) if container is not _UNREAD else None, text, deletes, context)


def check_in_place_operator(
    value: Any, operator: str, from_caller: bool = False, deferred: bool = False, from_outside: bool = False,
    item_of: str | None = None,
) -> None:
    """Before ``a += v`` (any augmented ``operator``) on a name, given its ``value`` (read where the
    statement reads it first: an unbound name raises Python's own error), or on an attribute chain,
    which ``value`` then reads (``deferred``: only inside staged code, since a property's getter may
    run; an error there is left to the statement itself).

    Inside staged code the statement runs once while tracing. Where the value's class has the
    in-place method of the user's (``Acc.__iadd__``), that code runs unconverted: refused, as a
    store that runs it is. Where the value is a parameter's (``from_caller``) list, set, dict, deque,
    bytearray or NumPy array, ``+=`` / ``|=`` / ... mutates the caller's container: refused unless it is the
    trace's own; so it is where a local name may hold a container from outside the function
    (``from_outside``: ``xs = POOL; xs += [v]``, which the rewrite tells from ``parts = [x]; parts += [y]``,
    a list built in the function, by :mod:`..passes.fresh_values`), where an item of the container
    ``item_of`` holds it (``rows["r"] += [v]``, ``Pools(r=POOL)["r"] += [v]``), and where an attribute holds it
    (``a.xs += [v]``: an object the trace made may hold a list from outside; its own new containers
    are noted made by ``_ag.fresh`` when stored). A list built and extended inside the trace carries
    no proof of where it was built once rebound, so the rewrite's proof is the one used.
    """
    context = appends.innermost()
    if context is None:
        return
    if deferred:
        try:
            value = value()
        except Exception:  # a missing attribute: the statement raises Python's error itself
            return
    method = f"__i{OPERATOR_METHODS[operator]}__"
    kind = mutated_kind(value, method) if from_caller or from_outside or item_of else None
    if kind is not None and not private(context, value):
        source = _outside_source(kind, from_caller, deferred, item_of)
        refuse(
            f"applies {operator} to a {kind} from outside it, which mutates a {kind}",
            f"this {operator} on a {kind} {source}, which mutates a {kind} from outside the staged code,",
            context, "build a new value instead (xs = xs + [v]) and return it, or carry the values in a JAX array",
        )
    refuse_hook(user_hook(type(value), method), context)


def _outside_source(kind: str, from_caller: bool, deferred: bool, item_of: str | None) -> str:
    """Where the value an in-place operator would change may come from, for the refusal's message."""
    if from_caller:
        return "from the caller"
    if deferred:
        return f"held by an attribute, which may hold a {kind} from outside"
    if item_of is not None:
        return f"held as an item of {item_of}, which may hold a {kind} from outside"
    return f"that may come from outside the function (the name is not bound to a new {kind} on every path)"


def _refuse_item_store(container_type: type | None, outer_name: str | None, deletes: bool,
                       context: appends.Staged) -> NoReturn:
    """Refuse an item assignment or deletion into a container of ``container_type`` (``None``: not read)."""
    kind = kind_name(container_type)
    if deletes:
        refuse(
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
    refuse(
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
    if made_by(context, owner):
        refuse_hook(attribute_hook(owner, attribute or target.rpartition(".")[2]), context)
        return
    kind = type(owner).__name__
    refuse(
        f"changes the attribute {target} of an object of class {kind} that it did not make",
        f"this assignment to {target}, which changes an object of class {kind} that the staged code did not make,", context,
        f"return the new value from the function that assigns it and assign {target} after the staged code, "
        "or keep the value in a variable of the function (a staged loop carries it)",
    )


def outer_write(name: str, scope: str) -> None:
    """Before a statement that assigns the ``global`` / ``nonlocal`` variable ``name``."""
    context = appends.innermost()
    if context is None:
        return
    refuse(
        f"calls a function that assigns to the {scope} variable '{name}'",
        f"this statement assigns to the {scope} variable '{name}', and it", context,
        f"return the new value of '{name}' from the function and assign it where the function is called",
    )

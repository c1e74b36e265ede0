"""Storing into or deleting an attribute from converted code: a setter of the user's runs converted.

``q.w = v`` runs ``Q.w``'s setter where ``w`` is a ``property`` (a data descriptor's ``__set__`` where
its class is the user's), and ``Q.__setattr__`` where the class has one of the user's: code Python
runs implicitly, which ran unconverted when converted code stored as written. An effect there (a
module-level log) happened once while tracing a staged loop body instead of once per iteration,
silently, and a class with such a hook had its ``__init__`` run unconverted too (its stores into
``self`` would have run the hook). The rewrite stores through :func:`store` (``_ag.setattr(v, q,
'w', effect='assigns to q.w')``: the value first, then the owner, as Python evaluates them; ``q.w +=
v`` reads ``q.w`` through ``_ag.getattr`` and applies :func:`.items.augmented` first) and deletes through
:func:`delete` (``_ag.delattr(q, 'w', 'q.w')``); ``setattr`` / ``delattr`` called by converted code
come to the same functions (:func:`change_by_builtin`). They follow Python's lookup
(``object.__setattr__``: the class's ``__setattr__``, else a data descriptor found on the class, else
the instance's ``__dict__``) and call the user's hook through the runtime, converted, with its
effects checked like any helper's.

Inside staged code the owner must still be an object the staged code made (the same refusal as
:func:`.effects.check_attribute_assignment`, whose message it gives); on such an object the converted
hook's own stores and effects are checked where they are written. A library's hook (a Flax or
Equinox module's ``__setattr__``) and anything else runs as written, after that check.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from . import appends, effects
from .attribute_loads import class_attribute, users_function
from .builtins import TRACED_BUILTINS
from .ownership import made_by

_ASSIGNS = "assigns to "  # as passes.attribute_stores writes it
# Python's own stores: a data descriptor found on the class (the metaclass, for a class), else the
# instance's (the class's) __dict__.
_PYTHONS_OWN = frozenset({object.__setattr__, object.__delattr__, type.__setattr__, type.__delattr__})
# Per kind of change: the class's hook, the data descriptor's method, the property's function.
_STORE = ("__setattr__", "__set__", "fset")
_DELETE = ("__delattr__", "__delete__", "fdel")


def store(value: Any, owner: Any, name: str, effect: str, call: Callable[..., Any]) -> None:
    """``owner.name = value``, a hook of the user's called through ``call`` (the runtime's, which
    converts it). ``effect`` is the rewrite's description, ``"assigns to q.w"``, which the statement
    passes read as the store's effect; the target's text after it names it in messages."""
    _change(owner, name, effect.removeprefix(_ASSIGNS), _STORE, call, value)


def delete(owner: Any, name: str, target: str, call: Callable[..., Any]) -> None:
    """``del owner.name``, as :func:`store` stores."""
    _change(owner, name, target, _DELETE, call)


def _change(owner: Any, name: str, target: str, way: tuple[str, str, str], call: Callable[..., Any],
            *value: Any) -> None:
    """The store (``value`` given) or the deletion of ``owner.name``: the user's hook called converted
    after the owner's check, else Python's own change after an attribute store's check."""
    hook = _users_hook(owner, name, way)
    if hook is None:
        effects.check_attribute_assignment(lambda: owner, target, name)
        (setattr if way is _STORE else delattr)(owner, name, *value)
        return
    _check_owner(owner, target, name)
    function, leading = hook
    call(function, *leading, *value)


def change_by_builtin(builtin: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
                      call: Callable[..., Any]) -> None:
    """``setattr(q, 'w', v)`` / ``delattr(q, 'w')`` called by converted code: the same store as
    ``q.w = v`` / ``del q.w``, so that a hook of the user's runs converted there too. A call that does
    not fit (a name that is not a ``str``, keywords, a wrong count) is the builtin's own, after its
    check (:data:`.builtins.TRACED_BUILTINS`)."""
    if kwargs or len(args) != (3 if builtin is setattr else 2) or type(args[1]) is not str:
        TRACED_BUILTINS[builtin](*args, **kwargs)
        return
    owner, name = args[0], args[1]
    target = f"{name!r} ({builtin.__name__} on a {type(owner).__name__})"  # as builtins' check names it
    if builtin is setattr:
        store(args[2], owner, name, _ASSIGNS + target, call)
    else:
        delete(owner, name, target, call)


def is_objects_own_change(function: Any) -> bool:
    """Whether ``function`` is ``object``'s own ``__setattr__`` / ``__delattr__`` bound to an instance:
    what ``super().__setattr__`` gives in a ``__setattr__`` of the user's."""
    return (isinstance(function, types.MethodWrapperType) and function.__name__ in ("__setattr__", "__delattr__")
            and function == getattr(object, function.__name__).__get__(function.__self__))


def objects_own_change(function: Any, args: tuple[Any, ...], kwargs: dict[str, Any], call: Callable[..., Any]) -> None:
    """``super().__setattr__(name, value)`` / ``super().__delattr__(name)``: Python's own store (the
    class's hook skipped), which runs a property's setter or a descriptor's ``__set__`` of the user's:
    through ``call``, converted, as :func:`store` runs it. A call that does not fit is the builtin's."""
    storing = function.__name__ == "__setattr__"
    if kwargs or len(args) != (2 if storing else 1) or type(args[0]) is not str:
        function(*args, **kwargs)
        return
    owner, name = function.__self__, args[0]
    hook = _users_hook(owner, name, _STORE if storing else _DELETE, class_hook=False)
    _check_owner(owner, f"{name!r} (object.{function.__name__} on a {type(owner).__name__})", name)
    if hook is None:
        function(*args)
        return
    hook_function, leading = hook
    call(hook_function, *leading, *args[1:])


def _users_hook(owner: Any, name: str, way: tuple[str, str, str],
                class_hook: bool = True) -> tuple[types.FunctionType, tuple[Any, ...]] | None:
    """The user's function that Python's store (or deletion) of ``owner.name`` runs, with the arguments
    that come before the value: ``(Q.__setattr__, (owner, name))``, ``(fset, (owner,))``,
    ``(Descriptor.__set__, (descriptor, owner))``; ``None`` where it runs none of the user's code.
    Without ``class_hook``, as ``object``'s own store runs it: the class's ``__setattr__`` skipped."""
    hook_name, descriptor_method, property_function = way
    cls = type(owner)
    hook = getattr(cls, hook_name, None)
    if class_hook and hook not in _PYTHONS_OWN:
        function = users_function(hook)
        return None if function is None else (function, (owner, name))
    descriptor = class_attribute(cls.__mro__, name)
    method = getattr(type(descriptor), descriptor_method, None)
    if method is getattr(property, descriptor_method):
        function = users_function(getattr(descriptor, property_function))
        return None if function is None else (function, (owner,))
    function = users_function(method)
    return None if function is None else (function, (descriptor, owner))


def _check_owner(owner: Any, target: str, name: str) -> None:
    """Inside staged code, refuse a store into an object the staged code did not make, with the message
    of an attribute store's check (on an object it made, that check would refuse the hook itself, which
    here runs converted and checks its own effects)."""
    context = appends.innermost()
    if context is not None and not made_by(context, owner):
        effects.check_attribute_assignment(lambda: owner, target, name)

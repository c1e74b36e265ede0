"""Reading an attribute from converted code: a getter of the user's runs converted.

``q.w`` runs ``Q.w``'s getter where ``w`` is a ``property`` (a ``functools.cached_property`` the first
time), and ``Q.__getattr__`` where the attribute is not found otherwise: the user's code, which ran
unconverted when converted code read the attribute as written. An effect there (a module-level log,
a print) happened once while tracing a staged loop body instead of once per iteration, and an ``if``
on a traced value failed. The rewrite reads such attributes through :func:`load` (``_ag.getattr(q,
'w')``), which follows Python's lookup and calls the user's getter through the runtime, converted
and with its effects checked. Reads through a library module (``jnp.sin``, ``np.pi``) are left as
written, and an object of a library class (a JAX array, a NumPy array, a module) is read with
``getattr`` at once, so the common reads cost one type lookup.

Left as they are (docs/semantics.md): a class with a ``__getattribute__`` of its own, a descriptor
other than a property or a cached_property (its ``__get__`` runs as written), and the target of a
store left as written (``a.b.c, d = v`` reads ``a.b`` as written; :mod:`.attribute_stores` makes the
others, whose owner ``a.b`` is read here).
"""

from __future__ import annotations

import functools
import types
import weakref
from collections.abc import Callable
from typing import Any

from .. import callees
from . import appends
from .ownership import private, refuse

_MISSING = object()


def load(owner: Any, name: str, call: Callable[..., Any]) -> Any:
    """``owner.name`` as Python reads it, with a getter of the user's called through ``call``
    (the runtime's, which converts it)."""
    cls = type(owner)
    if cls is super:
        return _load_through_super(owner, name, call)
    if _read_as_written(cls):
        return getattr(owner, name)
    descriptor = class_attribute(cls.__mro__, name)
    fallback = users_function(getattr(cls, "__getattr__", None))
    try:
        if _users_getter(descriptor) is not None:
            return call(descriptor.fget, owner)
        if _is_kind(descriptor, functools.cached_property) and users_function(descriptor.func) is not None:
            return _cached(owner, name, descriptor, call)
        return getattr(owner, name) if fallback is None else object.__getattribute__(owner, name)
    except AttributeError:
        if fallback is None:
            raise
    return call(fallback, owner, name)


def _read_as_written(cls: type) -> bool:
    """Whether ``owner.name`` is read with ``getattr`` for every object of ``cls``: a library class
    (no getter of the user's), or one with a ``__getattribute__`` of its own (left as it is);
    remembered per class under the rules' version."""
    version = callees.rules_version()
    known = _decisions.get(cls)
    if known is None or known[0] != version:
        as_written = cls.__getattribute__ is not object.__getattribute__ or all(
            callees.is_library_module(klass.__module__) for klass in cls.__mro__)
        known = _decisions[cls] = (version, as_written)
    return known[1]


# Per class: the rules' version and whether its attributes are read as written (_read_as_written).
_decisions: weakref.WeakKeyDictionary[type, tuple[int, bool]] = weakref.WeakKeyDictionary()


def read_by_builtin(builtin: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
                    call: Callable[..., Any]) -> Any:
    """``getattr(q, 'w'[, default])`` / ``hasattr(q, 'w')`` called by converted code: the same lookup
    as ``q.w``, so that a getter of the user's runs converted there too. A call that does not fit
    (a name that is not a ``str``, keywords, a wrong count) is the builtin's own, with its error."""
    most = 3 if builtin is getattr else 2
    if kwargs or not 2 <= len(args) <= most or type(args[1]) is not str:
        return builtin(*args, **kwargs)
    try:
        value = load(args[0], args[1], call)
    except AttributeError:
        if builtin is hasattr:
            return False
        if len(args) == 3:
            return args[2]
        raise
    return True if builtin is hasattr else value


def _load_through_super(proxy: Any, name: str, call: Callable[..., Any]) -> Any:
    """``super().w``: a property of the user's, found in the instance's MRO after the class that
    ``super`` names, runs converted on the instance (as ``super`` calls its ``__get__``); anything
    else, a class-level ``super`` (whose ``__get__`` gives the property itself) included, is read
    as written."""
    instance, start = proxy.__self__, proxy.__self_class__
    if instance is None or instance is start or name == "__class__":
        return getattr(proxy, name)
    mro = start.__mro__
    descriptor = class_attribute(mro[mro.index(proxy.__thisclass__) + 1:], name)
    if _users_getter(descriptor) is None:
        return getattr(proxy, name)
    return call(descriptor.fget, instance)


def _users_getter(descriptor: Any) -> types.FunctionType | None:
    """The user's getter of a ``property``."""
    return users_function(descriptor.fget) if _is_kind(descriptor, property) else None


def _is_kind(descriptor: Any, kind: type) -> bool:
    """Whether ``descriptor`` is read as a ``kind`` is: a subclass with a ``__get__`` of its own
    decides what a read gives (a class-level property), and is read as written."""
    return getattr(type(descriptor), "__get__", None) is kind.__get__  # type: ignore[attr-defined]


def class_attribute(mro: tuple[type, ...], name: str) -> Any:
    """What ``name`` is on the first class of ``mro`` to have it, without running anything."""
    for klass in mro:
        found = klass.__dict__.get(name, _MISSING)
        if found is not _MISSING:
            return found
    return _MISSING


def users_function(function: Any) -> types.FunctionType | None:
    """``function`` if it is the user's Python function, to be converted."""
    if isinstance(function, types.FunctionType) and not callees.is_library_function(function) and \
            not callees.is_marked_do_not_convert(function):
        return function
    return None


def _cached(owner: Any, name: str, descriptor: functools.cached_property, call: Callable[..., Any]) -> Any:
    """A ``cached_property``: the value in the instance's ``__dict__`` (which comes first, as for any
    non-data descriptor), else computed by its converted function and stored there. Inside staged
    code the store must be into an object the staged code made: into any other, the value computed
    while tracing would stay in it (refused, as an attribute store is)."""
    namespace = getattr(owner, "__dict__", None)
    if type(namespace) is not dict or descriptor.attrname != name:
        return getattr(owner, name)  # no __dict__, or a renamed one: cached_property's own error or value
    if name in namespace:
        return namespace[name]
    context = appends.innermost()
    if context is not None and not private(context, owner):
        refuse(
            f"reads the cached_property {type(owner).__name__}.{name} of an object it did not make, which stores "
            "the value into that object",
            f"this read of the cached_property {type(owner).__name__}.{name}, which stores its value into an object "
            "that the staged code did not make,", context,
            f"read {name} once before the staged code (the object then holds its value), or compute the value in "
            "a method and keep it in a variable of the function",
        )
    value = call(descriptor.func, owner)
    namespace[name] = value
    return value

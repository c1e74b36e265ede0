"""Calls made by converted code: user functions are converted on first call, library code is not.

The rewriter leaves calls to library module attributes (``jnp.sin(x)``) as they are; every other
call reaches :meth:`Calls.call` at trace time. The callee is then, in order: a builtin with traced
semantics (``min``, ``print``, ... and ``range`` / ``enumerate`` / ``zip`` kept open for loops); code
converted already (nested functions are rewritten with their parent); library code or a function
marked ``do_not_convert``, called as is; a user function, bound method, ``functools.partial`` or
object with a user ``__call__``, converted once (cached) and called. A user function that cannot be
converted (no source, a generator) runs as written, and if it then fails on a traced condition the
error says why it was not converted. Inside staged code, a call that would mutate a Python container
from outside the trace is refused before it runs (:mod:`.effects`).
"""

from __future__ import annotations

import functools
import linecache
import operator
import types
import weakref
from collections.abc import Callable
from typing import Any

import jax

from .. import callables, callees
from ..errors import ConversionError
from . import (
    appends,
    attribute_loads,
    attribute_stores,
    context_managers,
    dataclass_init,
    effects,
    function_arguments,
    staged_logging,
)
from .builtins import TRACED_BUILTINS
from .code_sets import CodeSet
from .iteration import open_builtin
from .locations import caller_location
from .ownership import CONTAINERS, refuse
from .session import TraceSession, current
from .text import bound_text_method

# Deeper than this, a converted function calling itself is taken to recurse on a traced condition.
_RECURSION_LIMIT = 200



# The functions of callees.STAGED_BY_JAX, JAX's own effects that staged code may call.
_STAGED_BY_JAX = tuple(operator.attrgetter(name.removeprefix("jax."))(jax) for name in callees.STAGED_BY_JAX)


def _staged_by_jax(function: Any) -> bool:
    return any(function is staged for staged in _STAGED_BY_JAX)


class Calls:
    """Dispatch of calls from converted code; ``convert_function`` is the conversion layer's entry."""

    def __init__(
        self,
        convert_function: Callable[[types.FunctionType], Callable[..., Any]],
        converted_codes: CodeSet,
        convert_argument: Callable[[Any], Any],
    ) -> None:
        self.convert_function = convert_function
        self.converted_codes = converted_codes
        self.convert_argument = convert_argument  # any callable: the user's converted, the rest as is

    def call(self, function: Any, *args: Any, **kwargs: Any) -> Any:
        if staged_logging.staged(function):
            return staged_logging.log_at_run_time(function, args, kwargs)
        effects.check_call(function, args, kwargs)
        if function_arguments.takes_functions(function):
            args, kwargs = function_arguments.convert_function_arguments(function, args, kwargs, self.convert_argument)
        if isinstance(function, type):
            effects.check_construction(function)
        if attribute_stores.is_objects_own_change(function):  # super().__setattr__(...) in a __setattr__
            return attribute_stores.objects_own_change(function, args, kwargs, self.call)
        if function is getattr or function is hasattr:
            return attribute_loads.read_by_builtin(function, args, kwargs, self.call)
        if function is setattr or function is delattr:
            return attribute_stores.change_by_builtin(function, args, kwargs, self.call)
        if isinstance(function, (types.BuiltinFunctionType, type)):
            opened = open_builtin(function)
            if opened is not None:  # enumerate / zip / reversed: an iterator that the staged code made is its own
                made = opened(*args, **kwargs)
                effects.note_made(made)
                return made
            handler = TRACED_BUILTINS.get(function) or bound_text_method(function)
            if handler is not None:
                return handler(*args, **kwargs)
            if not isinstance(function, type):
                return function(*args, **kwargs)
            return self._construct(function, args, kwargs)
        if isinstance(function, types.FunctionType):
            if callables.is_transformation_wrapper(function):
                return self._call_wrapper(function, args, kwargs)
            return self._call_function(function, args, kwargs)
        if isinstance(function, types.MethodType) and isinstance(function.__func__, types.FunctionType):
            return self._call_function(function.__func__, (function.__self__, *args), kwargs)
        if isinstance(function, functools.partial):
            return self.call(function.func, *function.args, *args, **{**function.keywords, **kwargs})
        if callables.wrapped_user_function(function) is not None:  # jax.jit(f), jax.custom_jvp(f)
            return self._call_wrapper(function, args, kwargs)
        method = callables.call_method(function)
        if method is None or callees.is_marked_do_not_convert(function):
            return function(*args, **kwargs)
        if callees.is_library_function(method):  # a library's wrapper of the user's method (Flax linen)
            return self.convert_argument(function)(*args, **kwargs)
        return self._call_function(method, (function, *args), kwargs)

    def call_for_effect(self, callee_text: str, function: Any, *args: Any, **kwargs: Any) -> Any:
        """A call made for its effect, an expression statement (``log_state(x)``). Inside staged code a
        function of the user's runs converted, its effects checked where they are written, as for a
        call whose result is used; a container's method is checked by :func:`.effects.check_call`; any
        other callee (library code, a builtin, a class, a function that cannot be converted) has an
        effect the runtime cannot see, which would happen once while tracing: refused at the call, but
        for JAX's own staged effects (``jax.debug.print``)."""
        context = appends.innermost()
        if context is not None and not _staged_by_jax(function) and not self._effects_seen(function) and \
                not staged_logging.staged(function):
            refuse(
                f"calls {callee_text}(...) for its effect",
                f"this call of {callee_text}(), made for its effect and not converted (library code or a "
                "builtin, whose effect the runtime cannot see),", context,
                "compute the new value and return it, and update objects outside the function after it returns",
            )
        return self.call(function, *args, **kwargs)

    def _effects_seen(self, function: Any) -> bool:
        """Whether a call of ``function`` runs where the runtime checks its effects: converted code of the
        user's, or a method of a container :func:`.effects.check_call` knows."""
        if isinstance(function, functools.partial):
            return self._effects_seen(function.func)
        if isinstance(function, types.MethodType):
            function = function.__func__
        if isinstance(function, types.BuiltinMethodType):
            return isinstance(function.__self__, CONTAINERS)
        if not isinstance(function, types.FunctionType):
            method = None if isinstance(function, type) else callables.call_method(function)
            return method is not None and self._effects_seen(method)
        if function.__code__ in self.converted_codes:
            return True
        if callees.is_marked_do_not_convert(function) or callees.is_library_function(function):
            return False
        try:
            self.convert_function(function)
        except ConversionError:
            return False
        return True

    def load_attribute(self, owner: Any, name: str) -> Any:
        """``owner.name``, a getter of the user's converted (:mod:`.attribute_loads`)."""
        return attribute_loads.load(owner, name, self.call)

    def context(self, manager: Any) -> Any:
        """A ``with`` item's manager, its ``__enter__`` / ``__exit__`` of the user's converted (:mod:`.context_managers`)."""
        return context_managers.managed(manager, self.call)

    def store_attribute(self, value: Any, owner: Any, name: str, *, effect: str) -> None:
        """``owner.name = value``, a setter or ``__setattr__`` of the user's converted (:mod:`.attribute_stores`)."""
        attribute_stores.store(value, owner, name, effect, self.call)

    def delete_attribute(self, owner: Any, name: str, target: str) -> None:
        """``del owner.name``, a deleter or ``__delattr__`` of the user's converted."""
        attribute_stores.delete(owner, name, target, self.call)

    def _construct(self, cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``cls(*args, **kwargs)``, with the user's ``__init__`` converted where Python's own steps
        are plain (``type.__call__``: ``object.__new__``, then ``__init__``): run as it is, an
        ``__init__`` that logs, counts or prints would do so once while tracing a staged body instead
        of once per iteration. The instance is noted as made before ``__init__`` runs, so that its
        stores into ``self`` are the staged code's own (:func:`.effects.note_made`). A dataclass's
        generated ``__init__`` has no source: its steps are taken by :mod:`.dataclass_init`."""
        init = _convertible_init(cls)
        if init is None:
            dataclass_init.refuse_unconverted(cls)
            made = cls(*args, **kwargs)
            _note_made_with_namespace(made)  # inside staged code, the new instance is that code's own
            return made
        # cls.__new__ is object.__new__, or a Python exception's, which keeps the arguments (_builtin_new)
        made = object.__new__(cls) if cls.__new__ is object.__new__ else cls.__new__(cls, *args, **kwargs)
        _note_made_with_namespace(made)
        if isinstance(init, dataclass_init.DataclassInit):  # a dataclass's __init__, without source
            init.run(made, args, kwargs, self.call)
            return made
        returned = self._call_function(init, (made, *args), kwargs)
        if returned is not None:
            _RETURNS_ITS_ARGUMENT(returned)  # raises the TypeError that type.__call__ raises, word for word
        return made

    def _call_wrapper(self, wrapper: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """A JAX transformation of a user's function made outside converted code (a helper decorated with
        ``@jax.vmap`` or ``@jax.checkpoint``), called rebuilt around the converted function as
        ``autograph_lite.jit(wrapper)`` would be, so that its ``if`` on a traced value stages. One that is
        not rebuilt (``jax.jit``, whose prints come out once per trace eagerly; ``jax.custom_jvp``) runs as
        it is; a traced ``if`` in it is reported at the call, naming the wrapper and how to convert inside it."""
        rebuilt = self.convert_argument(wrapper)
        if rebuilt is not wrapper:
            return rebuilt(*args, **kwargs)
        try:
            return wrapper(*args, **kwargs)
        except jax.errors.ConcretizationTypeError as error:
            inner = callables.wrapped_user_function(wrapper)
            if inner is None or isinstance(error, ConversionError):  # located already: converted code's own
                raise
            kind = type(wrapper).__qualname__ if type(wrapper).__qualname__ in ("custom_jvp", "custom_vjp") else "jit"
            name = getattr(inner, "__name__", "f")
            raise ConversionError(
                f"{name!r} needs a concrete value where it gets a traced one (an `if` on it), and runs "
                f"unconverted inside its jax.{kind} wrapper, which autograph_lite cannot rebuild around the "
                "converted function",
                caller_location(), callables.wrapper_fix(kind, name),
            ) from error

    def _call_function(self, function: types.FunctionType, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if callees.is_marked_do_not_convert(function) or callees.is_library_function(function):
            return function(*args, **kwargs)
        if function.__code__ in self.converted_codes:  # a nested def, converted with its parent
            converted: Callable[..., Any] = function
        else:
            try:
                converted = self.convert_function(function)
            except ConversionError as reason:
                return _run_unconverted(function, reason, args, kwargs)
        # Counted either way: a nested def that recurses on a traced condition never ends tracing either
        session = current()
        depth = self._enter(session, function)
        try:
            return converted(*args, **kwargs)
        except RecursionError as error:
            if depth > 2:
                raise  # unwind to its first call of itself (there is stack there to report it)
            raise _recursion_error(function) from error  # at depth 2, located at that call of itself
        finally:
            self._leave(session, function, depth)

    def _enter(self, session: TraceSession, function: types.FunctionType) -> int:
        """Count one more running call of ``function``; past the limit, it recurses without end."""
        depth = session.call_depths.get((self, function.__code__), 0) + 1
        if depth > _RECURSION_LIMIT:
            raise _recursion_error(function)
        session.call_depths[(self, function.__code__)] = depth
        return depth

    def _leave(self, session: TraceSession, function: types.FunctionType, depth: int) -> None:
        if depth > 1:
            session.call_depths[(self, function.__code__)] = depth - 1
        else:
            del session.call_depths[(self, function.__code__)]


def _note_made_with_namespace(made: Any) -> None:
    """Note a new instance as the staged code's own, and its ``__dict__`` with it (``vars(self)`` /
    ``self.__dict__.update(kw)`` in its ``__init__`` changes only the new object)."""
    effects.note_made(made)
    namespace = getattr(made, "__dict__", None)
    if type(namespace) is dict:
        effects.note_made(namespace)


def _convertible_init(cls: type) -> types.FunctionType | dataclass_init.DataclassInit | None:
    """The ``__init__`` that :meth:`Calls._construct` may run converted (see :func:`_init_to_convert`),
    or the steps of a dataclass's, remembered per class for as long as its ``__init__`` and ``__new__``
    stay the same objects."""
    init, new, version = cls.__init__, cls.__new__, callees.rules_version()  # type: ignore[misc]
    known = _init_decisions.get(cls)
    if known is None or known[:3] != (init, new, version):
        known = (init, new, version, _init_to_convert(cls, init))
        _init_decisions[cls] = known
    return known[3]


# Per class: the __init__ and __new__ the decision was made for, the rules' version, the decision.
_init_decisions: weakref.WeakKeyDictionary[
    type, tuple[Any, Any, int, types.FunctionType | dataclass_init.DataclassInit | None]] = weakref.WeakKeyDictionary()

# What a library base may define and still take no part in making an instance (abc.ABC, typing.Generic).
_CONSTRUCTION_HOOKS = frozenset({"__init__", "__new__", "__setattr__", "__delattr__", "__getattribute__",
                                 "__post_init__"})


def _init_to_convert(cls: type, init: Any) -> types.FunctionType | dataclass_init.DataclassInit | None:
    """``init`` where it is the user's, with source, or the steps of a dataclass's (made by ``exec``,
    without source: :mod:`.dataclass_init`), in a class whose metaclass ``__call__`` and ``__new__``
    are Python's own, whose library bases (a Flax or Equinox module) take no part in making an
    instance. A plain ``__init__``'s stores into ``self`` run a property setter or ``__setattr__`` of
    the user's converted (:mod:`.attribute_stores`); a dataclass's generated one stores as Python does
    (:func:`_stores_run_users_code`)."""
    if type(cls).__call__ is not type.__call__ or not _builtin_new(cls):
        return None
    if not isinstance(init, types.FunctionType) or callees.is_marked_do_not_convert(init) or \
            callees.is_library_function(init):
        return None
    steps = dataclass_init.plan(cls, init)
    filename = init.__code__.co_filename
    if steps is None and filename.startswith("<") and not linecache.getlines(filename):
        return None
    for base in cls.__mro__[:-1]:
        if base.__module__ == "builtins" and issubclass(base, BaseException):
            continue  # Python's exceptions: their __new__ keeps the arguments, their __init__ sets them again
        if callees.is_library_module(base.__module__) and _CONSTRUCTION_HOOKS.intersection(vars(base)):
            return None
        if steps is not None and _stores_run_users_code(base, steps.frozen):
            return None
    return init if steps is None else steps


def _builtin_new(cls: type) -> bool:
    """Whether ``cls.__new__`` is ``object.__new__``, or the ``__new__`` of the Python exception it derives
    from (which keeps the arguments as ``args``): no code of the user's or a library's makes the instance."""
    if cls.__new__ is object.__new__:
        return True
    base = next(b for b in cls.__mro__ if b.__module__ == "builtins")
    return issubclass(base, BaseException) and cls.__new__ is base.__new__


def _stores_run_users_code(base: type, frozen: bool) -> bool:
    """Whether a dataclass's generated ``__init__`` (its stores are ``setattr``, or ``object.__setattr__``
    on a frozen class, run as written by :mod:`.dataclass_init`) would run the user's code in storing
    into ``self`` through ``base``: a ``__setattr__`` / ``__delattr__`` (but a frozen dataclass's own,
    which its ``object.__setattr__`` goes around), a property setter or a descriptor's ``__set__``.
    Refused in staged code, it would make an ``__init__`` that worked as it was fail."""
    hooks = {"__setattr__", "__delattr__"} & vars(base).keys()
    if hooks and not (frozen and _made_by_dataclasses(base, hooks)):
        return True
    return any(map(_runs_code_on_store, vars(base).values()))


def _made_by_dataclasses(base: type, hooks: set[str]) -> bool:
    """Whether ``base``'s ``__setattr__`` / ``__delattr__`` are a frozen dataclass's, which raise
    ``FrozenInstanceError`` (made by ``exec``: without source)."""
    return "__dataclass_fields__" in vars(base) and all(
        isinstance(vars(base)[hook], types.FunctionType) and vars(base)[hook].__code__.co_filename.startswith("<")
        for hook in hooks)


def _runs_code_on_store(descriptor: Any) -> bool:
    """Whether storing through ``descriptor`` (a class attribute) runs Python code: a property with a
    setter, or a descriptor whose class defines ``__set__`` in Python."""
    if isinstance(descriptor, property):
        return descriptor.fset is not None
    return isinstance(getattr(type(descriptor), "__set__", None), types.FunctionType)


# A class whose __init__ returns its argument: making one raises Python's own TypeError for it.
_RETURNS_ITS_ARGUMENT = type("ReturnsItsArgument", (), {"__init__": lambda self, value: value})


def _recursion_error(function: types.FunctionType) -> ConversionError:
    return ConversionError(
        f"{function.__qualname__!r} calls itself without end while tracing: its recursion probably "
        "stops on a traced condition, and a staged branch traces both sides, so tracing never ends",
        caller_location(),
        "Write the recursion as a `while` loop over an explicit state, or make the condition that "
        "stops it static (static_argnums).",
    )


def _run_unconverted(
    function: types.FunctionType, reason: ConversionError, args: tuple[Any, ...], kwargs: dict[str, Any],
) -> Any:
    """Run a user function that cannot be converted; explain why if it trips over a traced value."""
    try:
        return function(*args, **kwargs)
    except jax.errors.ConcretizationTypeError as error:
        raise ConversionError(
            f"{function.__qualname__!r} uses Python control flow on a traced value, and it runs "
            f"unconverted because: {reason.bare_message}",
            reason.location,
            reason.hint,
        ) from error

"""What ``autograph_lite.jit`` returns: ``jax.jit``'s own function, or a thin wrapper that raises a failing
run-time check's own exception (the user's ``ValueError``, eager's message) where ``jax.jit`` raises
its ``JaxRuntimeError`` (docs/semantics.md, "Run-time checks").

Three cases, because a Python call around ``jax.jit``'s costs about 0.35 µs per call (4 to 6 % of the
dispatch of the benchmark's programs, whose limit is 5 %), and whether a program holds a check is
known only when it is traced, after ``jit`` returned:

- a function whose own code holds a check (``raise``, ``assert``, ``warnings.warn``, a read of a name
  that may be unbound): :class:`JitWithChecks`, which always catches;
- a function that may reach a check only through what it calls (another function, converted when the
  call is traced; an index into a Python list; a ``range`` step): :class:`JitReachingChecks`, which
  catches until a call has shown that no trace of the function staged a check, and then calls
  ``jax.jit``'s function directly (its class's ``__call__`` becomes that function: about 0.08 µs).
  ``jax.jit`` compiles a thin entry that counts the checks each trace stages: a trace that stages one
  makes every such wrapper of the function catch again, from the next call on;
- any other function: ``jax.jit``'s own, untouched.

What stays JAX's: the call that traces a new signature (new shapes, dtypes or static arguments) of a
:class:`JitReachingChecks` after earlier traces staged no check, and whose inputs fail a check that
this trace staged: it runs in ``jax.jit``'s code, with no frame of ours to catch the error.
"""

from __future__ import annotations

import functools
import types
import weakref
from collections.abc import Callable
from typing import Any

import jax

from . import conversion
from .runtime.run_time_checks import checks_staged, count_staged, failed_check

_ENTRY_ATTRIBUTE = "__autograph_lite_jit_entry__"


def jitted(converted: Callable[..., Any], jit_kwargs: dict[str, Any]) -> Any:
    """``jax.jit(converted, **jit_kwargs)``, wrapped as the module docstring says."""
    if not conversion.stages_checks(converted, through_calls=True):
        return jax.jit(converted, **jit_kwargs)
    # Its own checks, or a method or partial (one wrapper's frame): always catching.
    if conversion.stages_checks(converted) or not isinstance(converted, types.FunctionType):
        return JitWithChecks(jax.jit(converted, **jit_kwargs))
    entry = _entry(converted)
    return JitReachingChecks(jax.jit(entry.function, **jit_kwargs), converted, entry)


class JitWithChecks:
    """``jax.jit``'s function for a function that may stage run-time checks, raising a failing check's own
    exception: the user's ``ValueError`` with eager's message, its traceback ending at the user's line,
    where ``jax.jit`` raises its ``JaxRuntimeError``. Every attribute is ``jax.jit``'s (``lower``,
    ``trace``, ``eval_shape``, ``clear_cache``, ``__wrapped__``, ``__name__``, ...).
    """

    def __init__(self, jitted: Any) -> None:
        functools.update_wrapper(self, jitted)
        self.__wrapped__ = jitted.__wrapped__  # as jax.jit's: the function it compiles
        self._jitted = jitted

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # Called while tracing another function, its program (perhaps from JAX's cache, with no check
        # staged anew) is part of the caller's: the caller may stage checks.
        count_staged()
        try:
            return self._jitted(*args, **kwargs)
        except jax.errors.JaxRuntimeError as error:
            failure = failed_check(error)
            if failure is None:
                raise
        raise failure  # outside the handler: eager's exception has no JAX error as its context

    def __getattr__(self, name: str) -> Any:
        if name == "_jitted":  # not set yet (an instance made without __init__, as copy does)
            raise AttributeError(name)
        return getattr(self._jitted, name)

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        """As ``jax.jit``'s function, a method when looked up on an instance."""
        return self if instance is None else types.MethodType(self, instance)

    def __repr__(self) -> str:
        return repr(self._jitted)


class _Entry:
    """The function ``jax.jit`` compiles for a converted function that may reach a check through its
    calls (one per converted function, so that ``jax.jit``'s caches are shared as for the function
    itself): it calls the converted function and notes whether the trace staged a check."""

    def __init__(self, converted: types.FunctionType) -> None:
        self.converted = converted
        self.stages_checks = False
        self.wrappers: weakref.WeakSet[type] = weakref.WeakSet()

        def entry(*args: Any, **kwargs: Any) -> Any:
            before = checks_staged()
            try:
                return converted(*args, **kwargs)
            finally:
                if checks_staged() != before:
                    self.stages_checks = True
                    for wrapper in list(self.wrappers):
                        wrapper.__call__ = JitReachingChecks.__call__  # type: ignore[method-assign]

        self.function = functools.update_wrapper(entry, converted, updated=())


def _entry(converted: types.FunctionType) -> _Entry:
    """The entry of ``converted``, kept in its ``__dict__`` (which ``functools.wraps`` copies onto a
    wrapper of it: an entry is only used by the function it was made for)."""
    entry = converted.__dict__.get(_ENTRY_ATTRIBUTE)
    if entry is None or entry.converted is not converted:
        entry = converted.__dict__[_ENTRY_ATTRIBUTE] = _Entry(converted)
    return entry


class JitReachingChecks(JitWithChecks):
    """:class:`JitWithChecks` for a function that may reach a check only through its calls: it catches
    until no trace of the function has staged a check, then its ``__call__`` is ``jax.jit``'s function
    itself (each instance has a class of its own, whose ``__call__`` is swapped)."""

    def __new__(cls, *args: Any) -> JitReachingChecks:
        own_class = type(cls.__name__, (cls,), {"__module__": cls.__module__, "__qualname__": cls.__qualname__})
        return super().__new__(own_class)

    def __init__(self, jitted: Any, converted: types.FunctionType, entry: _Entry) -> None:
        super().__init__(jitted)
        self.__wrapped__ = converted
        self._entry = entry
        entry.wrappers.add(type(self))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return JitWithChecks.__call__(self, *args, **kwargs)
        finally:
            if not self._entry.stages_checks:
                type(self).__call__ = staticmethod(self._jitted)  # type: ignore[method-assign]

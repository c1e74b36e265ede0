"""The public entry points: ``jit``, ``convert`` and ``to_source``."""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any, TypeVar, overload

import jax

from . import conversion
from .runtime.run_time_checks import failed_check

F = TypeVar("F", bound=Callable[..., Any])


@overload
def convert(fn: F, *, static_loops: str = "auto") -> F: ...
@overload
def convert(fn: None = None, *, static_loops: str = "auto") -> Callable[[F], F]: ...


def convert(fn: Callable[..., Any] | None = None, *, static_loops: str = "auto") -> Any:
    """Rewrite ``fn``'s ``if`` / ``while`` / ``for`` / ``and`` / ``or`` / ``not`` / ternaries into
    calls that stage them as ``lax`` control flow when their conditions are traced.

    The result is not jitted: use it inside ``jax.jit``, ``jax.grad``, ``jax.vmap`` or a Flax /
    Equinox module. ``static_loops`` is the default for ``for`` loops with a static trip count:
    ``"auto"`` (stage when the body runs with a traced index and carries traced data), ``"stage"``
    or ``"unroll"``; ``autograph_lite.stage(...)`` / ``unroll(...)`` around an iterable override it
    per loop. Converting the same function again returns the same converted function.
    """
    if fn is None:
        return lambda function: convert(function, static_loops=static_loops)
    return conversion.convert_callable(fn, static_loops)


@overload
def jit(fn: Callable[..., Any], *, static_loops: str = "auto", **jit_kwargs: Any) -> jax.stages.Wrapped: ...
@overload
def jit(
    fn: None = None, *, static_loops: str = "auto", **jit_kwargs: Any
) -> Callable[[Callable[..., Any]], jax.stages.Wrapped]: ...


def jit(fn: Callable[..., Any] | None = None, *, static_loops: str = "auto", **jit_kwargs: Any) -> Any:
    """``jax.jit(convert(fn))``: every ``jax.jit`` argument (``static_argnums``, ``static_argnames``,
    ``donate_argnums``, ...) is passed through with its usual meaning.

    Usable bare (``@autograph_lite.jit``) or with arguments (``@autograph_lite.jit(static_argnames="n")``).
    The result is ``jax.jit``'s own function, unless ``fn``'s code holds what may become a run-time
    check (a ``raise``, ``assert`` or ``warnings.warn``, a read of a name that may be unbound): then a
    thin ``JitWithChecks`` around it raises a failing check's exception itself, as eager Python would,
    rather than JAX's error.
    """
    if fn is None:
        return lambda function: jit(function, static_loops=static_loops, **jit_kwargs)
    converted = convert(fn, static_loops=static_loops)
    jitted = jax.jit(converted, **jit_kwargs)
    return JitWithChecks(jitted) if conversion.stages_checks(converted) else jitted


class JitWithChecks:
    """``jax.jit``'s function for a function that may stage run-time checks (docs/semantics.md,
    "Run-time checks"), raising a failing check's own exception: the user's ``ValueError`` with eager's
    message, its traceback ending at the user's line, where ``jax.jit`` raises its ``JaxRuntimeError``.

    Only such functions get it: a Python call around ``jax.jit``'s costs about 0.3 µs per call, and a
    function without checks keeps ``jax.jit``'s dispatch, untouched. Every attribute is ``jax.jit``'s
    (``lower``, ``trace``, ``eval_shape``, ``clear_cache``, ``__wrapped__``, ``__name__``, ...).
    """

    def __init__(self, jitted: Any) -> None:
        functools.update_wrapper(self, jitted)
        self.__wrapped__ = jitted.__wrapped__  # as jax.jit's: the function it compiles
        self._jitted = jitted

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
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


def to_source(fn: Callable[..., Any]) -> str:
    """The rewritten source of ``fn``, as the converted function runs it."""
    function = conversion.unwrap_for_source(fn)
    return conversion.rewritten_source(function) + "\n"

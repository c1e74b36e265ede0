"""The public entry points: ``jit``, ``convert`` and ``to_source``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar, Unpack, overload

from . import callables, checked_jit, conversion
from .checked_jit import JitWithChecks as JitWithChecks  # where it was (tests/program_check.py)
from .jit_types import JitOptions, JittedFunction

F = TypeVar("F", bound=Callable[..., Any])
P = ParamSpec("P")
R = TypeVar("R")


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

    ``fn`` may also be a bound method, a ``functools.partial``, an object whose class defines
    ``__call__`` in Python (an Equinox / Flax NNX module: the result is its converted ``__call__`` bound
    to it, still a pytree) or a JAX transformation of a user function (``jax.vmap(f)``: the same
    transformation of the converted ``f``); see "Modules and transforms" in supported-constructs.md.
    """
    if fn is None:
        return lambda function: convert(function, static_loops=static_loops)
    return conversion.convert_callable(fn, static_loops)


@overload
def jit(fn: Callable[P, R], *, static_loops: str = "auto", **jit_kwargs: Unpack[JitOptions]) -> JittedFunction[P, R]: ...
@overload
def jit(
    fn: None = None, *, static_loops: str = "auto", **jit_kwargs: Unpack[JitOptions]
) -> Callable[[Callable[P, R]], JittedFunction[P, R]]: ...


def jit(
    fn: Callable[..., Any] | None = None, *, static_loops: str = "auto", **jit_kwargs: Unpack[JitOptions]
) -> Any:
    """``jax.jit(convert(fn))``: every ``jax.jit`` argument (``static_argnums``, ``static_argnames``,
    ``donate_argnums``, ...) is passed through with its usual meaning (and, for type checkers, its
    type: ``JitOptions``). Type checkers see the result as a ``JittedFunction``: ``fn``'s parameters and
    return type, and ``lower`` / ``trace`` / ``eval_shape`` / ``clear_cache``.

    Usable bare (``@autograph_lite.jit``) or with arguments (``@autograph_lite.jit(static_argnames="n")``).
    For an object with a ``__call__`` (a module), the object's arrays are arguments of the program,
    read from it at every call (``callables.JittedCall``), never constants baked into it.
    The result is ``jax.jit``'s own function, unless ``fn``'s code holds what may become a run-time
    check (a ``raise``, ``assert`` or ``warnings.warn``, a read of a name that may be unbound), or may
    reach one through what it calls (another function, an index into a Python list): then a thin
    wrapper around it raises a failing check's exception itself, as eager Python would, rather than
    JAX's error (``checked_jit`` says when each wrapper is used, and what it costs).
    """
    if fn is None:
        return lambda function: jit(function, static_loops=static_loops, **jit_kwargs)
    converted = convert(fn, static_loops=static_loops)
    if isinstance(converted, callables.ConvertedCall):  # an object's arrays are the program's arguments
        wrap = checked_jit.JitWithChecks if conversion.stages_checks(converted, through_calls=True) else None
        return callables.JittedCall(converted, dict(jit_kwargs), wrap)
    return checked_jit.jitted(converted, dict(jit_kwargs))


def to_source(fn: Callable[..., Any]) -> str:
    """The rewritten source of ``fn``, as the converted function runs it."""
    function = conversion.unwrap_for_source(fn)
    return conversion.rewritten_source(function) + "\n"

"""The public entry points: ``jit``, ``convert`` and ``to_source``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

import jax

from . import conversion

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
    """
    if fn is None:
        return lambda function: jit(function, static_loops=static_loops, **jit_kwargs)
    return jax.jit(convert(fn, static_loops=static_loops), **jit_kwargs)


def to_source(fn: Callable[..., Any]) -> str:
    """The rewritten source of ``fn``, as the converted function runs it."""
    function = conversion.unwrap_for_source(fn)
    return conversion.rewritten_source(function) + "\n"

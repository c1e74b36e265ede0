"""What ``jit`` accepts and returns, as type checkers see it.

At run time ``jit`` returns ``jax.jit``'s own function, or a thin ``JitWithChecks`` around it; neither
says, in a way a type checker can read, that calling it takes the wrapped function's parameters and
returns its result. ``JittedFunction`` says so (a ``ParamSpec`` carries the parameters), so that
mypy / pyright check a user's calls of a jitted function as they check calls of the function itself,
and still know ``lower`` / ``trace`` / ``eval_shape`` / ``clear_cache``. ``JitOptions`` spells out
``jax.jit``'s keyword arguments with ``jax.jit``'s own types, so that a misspelt or mistyped option
is reported where it is written rather than inside ``jax.jit`` at run time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ParamSpec, Protocol, TypedDict, TypeVar, overload

import jax

P = ParamSpec("P")
R_co = TypeVar("R_co", covariant=True)


class JitOptions(TypedDict, total=False):
    """``jax.jit``'s keyword arguments (JAX 0.10), each with the type ``jax.jit`` declares for it;
    ``autograph_lite.jit`` passes them to ``jax.jit`` unchanged: ``static_argnums`` /
    ``static_argnames`` (``int | Sequence[int]`` / ``str | Iterable[str]``), ``donate_argnums`` /
    ``donate_argnames`` (the same), ``keep_unused`` and ``inline`` (``bool``), ``in_shardings`` and
    ``out_shardings`` (``Any``), ``device`` (``jax.Device``), ``backend`` (``str``) and
    ``compiler_options`` (``dict[str, Any]``); each may also be ``None`` where ``jax.jit`` allows it."""

    in_shardings: Any
    out_shardings: Any
    static_argnums: int | Sequence[int] | None
    static_argnames: str | Iterable[str] | None
    donate_argnums: int | Sequence[int] | None
    donate_argnames: str | Iterable[str] | None
    keep_unused: bool
    device: jax.Device | None
    backend: str | None
    inline: bool
    compiler_options: dict[str, Any] | None


class JittedFunction(Protocol[P, R_co]):
    """The function ``autograph_lite.jit(f)`` returns: called with ``f``'s arguments, it returns what
    ``f`` returns; ``lower`` / ``trace`` / ``eval_shape`` take the same arguments, as ``jax.jit``'s do.

    A typing-only description: the object itself is ``jax.jit``'s function (or ``JitWithChecks``).
    """

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R_co: ...

    def lower(self, *args: P.args, **kwargs: P.kwargs) -> jax.stages.Lowered: ...

    def trace(self, *args: P.args, **kwargs: P.kwargs) -> jax.stages.Traced: ...

    def eval_shape(self, *args: P.args, **kwargs: P.kwargs) -> Any: ...

    def clear_cache(self) -> None: ...

    # A jitted method is looked up through the class, as a function is: bound on an instance. The
    # bound method's parameters are ``f``'s without the first, which a ParamSpec cannot express.
    @overload
    def __get__(self, instance: None, owner: type | None = None) -> JittedFunction[P, R_co]: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None) -> Callable[..., R_co]: ...

"""Library functions that call a function they are given: that function is converted before the call.

``jax.grad(inner)``, ``lax.scan(step, ...)``, ``functools.reduce(f, ...)`` run JAX's or Python's own
code, which autograph_lite never rewrites; but the function handed to them is often the user's, with
an ``if`` on a traced value in it. The calls pass routes calls of the functions listed here through
``_ag.call`` (every other library call stays as written and costs nothing), and :class:`.calls.Calls`
converts the arguments in the listed positions before calling. Only those positions: the other
arguments are data (``tree_map(f, model)`` must see the model, callable or not, as it is). Flax
linen's ``model.apply(params, x)`` calls the module's method given as ``method=``: it is converted too.
"""

from __future__ import annotations

import builtins
import functools
import sys
import types
from collections.abc import Callable, Iterable
from typing import Any

import jax

# For each library function: the positions and keyword names of its function arguments.
_FIRST = ((0, "fun"),)
_SPECS: tuple[tuple[Callable[..., Any], tuple[tuple[int, str], ...]], ...] = (
    (jax.grad, _FIRST), (jax.value_and_grad, _FIRST), (jax.vmap, _FIRST), (jax.jit, _FIRST),
    (jax.jacfwd, _FIRST), (jax.jacrev, _FIRST), (jax.hessian, _FIRST), (jax.checkpoint, _FIRST),
    (jax.jvp, _FIRST), (jax.vjp, _FIRST), (jax.linearize, _FIRST), (jax.eval_shape, _FIRST),
    (jax.lax.scan, ((0, "f"),)), (jax.lax.map, ((0, "f"),)), (jax.lax.associative_scan, ((0, "fn"),)),
    (jax.lax.fori_loop, ((2, "body_fun"),)), (jax.lax.while_loop, ((0, "cond_fun"), (1, "body_fun"))),
    (jax.lax.cond, ((1, "true_fun"), (2, "false_fun"))), (jax.tree_util.tree_map, ((0, "f"),)),
    (jax.tree.map, ((0, "f"),)), (functools.reduce, ((0, "function"),)), (builtins.map, ((0, "func"),)),
    (builtins.filter, ((0, "function"),)),
)
_FUNCTION_POSITIONS: dict[Any, tuple[tuple[int, str], ...]] = dict(_SPECS)
# lax.switch takes a sequence of branches, each converted.
_BRANCH_SEQUENCES: dict[Any, tuple[int, str]] = {jax.lax.switch: (1, "branches")}


def takes_functions(callee: Any) -> bool:
    """Whether ``callee`` is a library function that calls a function passed to it."""
    try:
        return callee in _FUNCTION_POSITIONS or callee in _BRANCH_SEQUENCES or _is_linen_apply(callee)
    except TypeError:  # unhashable: not one of them
        return False


def _is_linen_apply(callee: Any) -> bool:
    """``model.apply`` / ``model.init`` of a Flax linen module: they call ``method`` (``__call__`` by
    default). Flax is looked up only when the program imported it."""
    linen = sys.modules.get("flax.linen")
    return (
        linen is not None and isinstance(callee, types.MethodType)
        and callee.__func__ in (linen.Module.apply, linen.Module.init)
    )


def _linen_method(callee: types.MethodType, kwargs: dict[str, Any], convert: Callable[[Any], Any]) -> dict[str, Any]:
    """``kwargs`` with ``method`` the module's method (``__call__`` unless named) converted."""
    method = kwargs.get("method") or "__call__"
    if isinstance(method, str):
        method = getattr(type(callee.__self__), method)
    return {**kwargs, "method": convert(method)}


def convert_function_arguments(
    callee: Any, args: tuple[Any, ...], kwargs: dict[str, Any], convert: Callable[[Any], Any],
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``args`` / ``kwargs`` with ``convert`` applied to ``callee``'s function arguments."""
    if _is_linen_apply(callee):
        return args, _linen_method(callee, kwargs, convert)
    converted_args, converted_kwargs = list(args), dict(kwargs)
    for position, name in _FUNCTION_POSITIONS.get(callee, ()):
        _apply(converted_args, converted_kwargs, position, name, convert)
    if callee in _BRANCH_SEQUENCES:
        position, name = _BRANCH_SEQUENCES[callee]
        _apply(converted_args, converted_kwargs, position, name, lambda branches: _each(branches, convert))
    return tuple(converted_args), converted_kwargs


def _apply(
    args: list[Any], kwargs: dict[str, Any], position: int, name: str, convert: Callable[[Any], Any],
) -> None:
    if position < len(args):
        args[position] = convert(args[position])
    elif name in kwargs:
        kwargs[name] = convert(kwargs[name])


def _each(branches: Iterable[Any], convert: Callable[[Any], Any]) -> list[Any]:
    return [convert(branch) for branch in branches]

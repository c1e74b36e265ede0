"""A generated program under ``jax.grad`` (generator feature ``grad``): on each input set,
``jit(grad(loss(convert(f))))`` against ``grad(loss(f))`` run eagerly, where ``loss`` sums the float
leaves of ``f``'s result and the gradient is taken with respect to every float argument.

Eager ``jax.grad`` runs ``f``'s Python on tracers that still hold their values, so its ``if`` and
``while`` decide as Python does; the converted program stages them, and what it must give is the
same derivative: a ``lax.cond`` differentiates the branch that runs, a masked ``scan`` the
iterations before the exit. A traced ``while`` (a ``lax.while_loop``) has forward mode only: its
reverse-mode error is documented (docs/semantics.md, "Gradients and vmap"). Checked where eager's
results say all there is to compare, as under ``vmap`` (program_vmap.py), and where eager's gradient
exists and is finite.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import autograph_lite

MODE = "jit[grad]"


def float_positions(arguments: tuple) -> tuple[int, ...]:
    """The positions of the float arguments, those the gradient is taken with respect to."""
    return tuple(k for k, value in enumerate(arguments) if np.issubdtype(np.asarray(value).dtype, np.floating))


def _loss(fn: Callable[..., Any]) -> Callable[..., Any]:
    def loss(*arguments: Any) -> Any:
        leaves = [leaf for leaf in jax.tree_util.tree_leaves(fn(*arguments))
                  if jnp.issubdtype(jnp.result_type(leaf), jnp.floating)]
        return sum((jnp.sum(jnp.asarray(leaf, jnp.float32)) for leaf in leaves), jnp.float32(0.0))

    return loss


def eager_gradient(fn: Callable[..., Any], arguments: tuple) -> Any | None:
    """``grad(loss(fn))`` run eagerly on ``arguments``, or None where it does not exist (no float
    argument, an error, a value that is not finite)."""
    positions = float_positions(arguments)
    if not positions:
        return None
    try:
        gradient = jax.grad(_loss(fn), argnums=positions)(*(jnp.asarray(a) for a in arguments))
    except Exception:
        return None
    leaves = [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(gradient)]
    return gradient if all(np.all(np.isfinite(leaf)) for leaf in leaves) else None


def staged_gradient(fn: Callable[..., Any], arguments: tuple) -> Any:
    """``jit(grad(loss(convert(fn))))`` on ``arguments``."""
    gradient = jax.jit(jax.grad(_loss(autograph_lite.convert(fn)), argnums=float_positions(arguments)))
    return gradient(*(jnp.asarray(a) for a in arguments))


def gradients(fn: Callable[..., Any], argument_sets: Sequence[tuple]) -> list[tuple[tuple, Any]]:
    """The input sets on which eager's gradient exists, each with it."""
    found = [(arguments, eager_gradient(fn, arguments)) for arguments in argument_sets]
    return [(arguments, gradient) for arguments, gradient in found if gradient is not None]

"""A generated program under ``jax.vmap`` (generator feature ``vmap``): ``jax.jit(jax.vmap(convert(f)))``
over the program's input sets stacked along a new first axis, each lane compared with eager ``f`` on
that set.

Under ``vmap`` every argument is a batched tracer, so every condition is traced: ``lax.cond`` runs
both branches as a select and a ``while_loop`` runs its body for lanes that have finished, so the
converter's path predicates (a check or a value that must hold only where eager Python runs that code)
are what keeps each lane eager's. Checked where eager's results say all there is to compare: not
where an input set raises (a check fails for the whole batch: there ``autograph_lite.jit(jax.vmap(f))``
must raise what one of the raising sets raises eagerly, not JAX's ``JaxRuntimeError``), prints (JAX prints per lane, statement
by statement, documented), or changes hidden state or its arguments (effects happen once per trace).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import autograph_lite

MODE = "jit[vmap]"
RAISING_MODE = "autograph_lite.jit(vmap)"


def comparable(references: Sequence[Any], hidden_effects: bool, numpy_inputs: bool) -> bool:
    """Whether each lane's eager result is all a vmapped run must agree with (see the module doc)."""
    return not (hidden_effects or numpy_inputs) and all(
        reference.error is None and not reference.stdout for reference in references)


def _stacked(arguments: Sequence[tuple]) -> list[Any]:
    return [jnp.stack([jnp.asarray(args[position]) for args in arguments]) for position in range(len(arguments[0]))]


def raised_unlike_eager(fn: Callable[..., Any], arguments: Sequence[tuple], errors: Sequence[Exception | None]) -> str | None:
    """Where some input sets raise eagerly (a generated check, an unbound name), what
    ``autograph_lite.jit(jax.vmap(fn))`` over all of them does unlike raising one of those exceptions,
    type and message, as ``autograph_lite.jit(fn)`` raises each (a staged check fails for the whole
    batch); ``None`` when it does raise one. A refusal (``ConversionError``) propagates."""
    raised = [error for error in errors if error is not None]
    try:
        result = autograph_lite.jit(jax.vmap(fn))(*_stacked(arguments))
    except autograph_lite.ConversionError:
        raise
    except Exception as error:
        if any(type(error) is type(expected) and str(error) == str(expected) for expected in raised):
            return None
        return f"raised {type(error).__name__}: {error}, where eager raises {raised[0]!r}"
    return f"returned {result!r}, where eager raises {raised[0]!r}"


def vmapped_lanes(fn: Callable[..., Any], arguments: Sequence[tuple]) -> list[Any]:
    """``jit(vmap(convert(fn)))`` over ``arguments`` stacked along a new first axis, split into lanes."""
    batched = jax.jit(jax.vmap(autograph_lite.convert(fn)))(*_stacked(arguments))
    return [jax.tree_util.tree_map(lambda leaf, lane=lane: np.asarray(leaf)[lane], batched) for lane in range(len(arguments))]

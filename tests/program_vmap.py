"""A generated program under ``jax.vmap`` (generator feature ``vmap``): ``jax.jit(jax.vmap(convert(f)))``
over the program's input sets stacked along a new first axis, each lane compared with eager ``f`` on
that set.

Under ``vmap`` every argument is a batched tracer, so every condition is traced: ``lax.cond`` runs
both branches as a select and a ``while_loop`` runs its body for lanes that have finished, so the
converter's path predicates (a check or a value that must hold only where eager Python runs that code)
are what keeps each lane eager's. Checked where eager's results say all there is to compare: not
where an input set raises (a check fails for the whole batch), prints (JAX prints per lane, statement
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


def comparable(references: Sequence[Any], hidden_effects: bool, numpy_inputs: bool) -> bool:
    """Whether each lane's eager result is all a vmapped run must agree with (see the module doc)."""
    return not (hidden_effects or numpy_inputs) and all(
        reference.error is None and not reference.stdout for reference in references)


def vmapped_lanes(fn: Callable[..., Any], arguments: Sequence[tuple]) -> list[Any]:
    """``jit(vmap(convert(fn)))`` over ``arguments`` stacked along a new first axis, split into lanes."""
    stacked = [jnp.stack([jnp.asarray(args[position]) for args in arguments]) for position in range(len(arguments[0]))]
    batched = jax.jit(jax.vmap(autograph_lite.convert(fn)))(*stacked)
    return [jax.tree_util.tree_map(lambda leaf, lane=lane: np.asarray(leaf)[lane], batched) for lane in range(len(arguments))]

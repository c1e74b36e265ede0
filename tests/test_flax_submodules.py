"""A Flax linen module made inside a loop of an ``@nn.compact`` method: one submodule per iteration.

Each ``nn.Dense(4)`` made while the parent's ``@nn.compact`` method runs registers as the parent's
next submodule (``Dense_0``, ``Dense_1``, ...), with parameters of its own. A loop that
``static_loops="auto"`` staged as a scan traced its body once, so every iteration applied
``Dense_0`` (under ``jit``: a wrong value, max |diff| 2.45 on the review's example; under ``convert``:
``ScopeParamNotFoundError``). Making a linen module inside staged code is now refused: the static
loop's trial runs the loop as Python (unrolled, as Flax expects), and a staged loop is a located error.
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp
import pytest
from support import assert_same

import autograph_lite


class Stack(nn.Module):
    @nn.compact
    def __call__(self, x):
        for i in range(3):
            x = jnp.tanh(nn.Dense(4)(x))
        return x


class Block(nn.Module):  # the user's own linen module, made in the loop below
    @nn.compact
    def __call__(self, x):
        return nn.Dense(4)(x) + x


class Blocks(nn.Module):
    @nn.compact
    def __call__(self, x):
        for i in range(2):
            x = Block()(x)
        return x


class TracedDepth(nn.Module):
    @nn.compact
    def __call__(self, x, depth):
        for i in range(depth):
            x = nn.Dense(4)(x)
        return x


@pytest.mark.parametrize("model", [Stack(), Blocks()], ids=["dense", "users_block"])
def test_submodules_made_in_a_static_loop_are_one_per_iteration(model):
    x = jnp.arange(8.0).reshape(2, 4) / 8.0
    params = model.init(jax.random.PRNGKey(0), x)
    eager = model.apply(params, x)
    assert_same(autograph_lite.jit(lambda p, v: model.apply(p, v))(params, x), eager, rtol=1e-5)
    assert_same(autograph_lite.convert(lambda p, v: model.apply(p, v))(params, x), eager, rtol=1e-5)


def test_a_submodule_made_in_a_staged_loop_is_refused():
    model = TracedDepth()
    x = jnp.ones((2, 4))
    params = Stack().init(jax.random.PRNGKey(0), x)
    with pytest.raises(autograph_lite.ConversionError, match="a Flax linen module that registers a new submodule"):
        autograph_lite.jit(lambda p, v, n: model.apply(p, v, n))(params, x, jnp.int32(2))

"""A dict carried by a staged loop keeps its key order inside the body (runtime/values.py
``key_orders``). JAX's pytree of a dict rebuilds it with sorted keys, so the body saw ``params`` sorted:
``{k: p - lr * g for k, p in params.items()}`` kept that order, and ``list(params.values())[0]`` was
another parameter than eager's, silently (and so was a print of the dict in the body)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from print_support import assert_prints_like_eager
from support import assert_same

import autograph_lite

F32 = jnp.float32


def sgd_first(w, b, g):
    params = {"w": w, "b": b}
    for _ in range(3):
        params = {k: v - 0.1 * g for k, v in params.items()}
    return list(params.values())[0]  # noqa: RUF015 (the user's idiom: order-dependent)


def sgd_flat_traced_steps(w, b, n):
    params = {"w": w, "b": b}
    for _ in range(n):
        params = {k: v * 0.5 for k, v in params.items()}
    return jnp.concatenate(list(params.values()))


def weighted_until(w, b, limit):
    params = {"w": w, "b": b}
    total = jnp.zeros(())
    while total < limit:
        total = total + sum((p + 1) * jnp.sum(v) for p, v in enumerate(params.values()))
        params = {k: v + 1.0 for k, v in params.items()}
    return total


@pytest.mark.parametrize("function, args", [
    (sgd_first, (jnp.ones(3), jnp.zeros(1), F32(1.0))),
    (sgd_flat_traced_steps, (jnp.ones(3), jnp.zeros(1), jnp.int32(2))),
    (weighted_until, (jnp.ones(2), jnp.zeros(1), F32(20.0))),
])
def test_a_dict_carried_by_a_staged_loop_keeps_its_key_order(function, args):
    assert_same(autograph_lite.jit(function)(*args), function(*args))


def test_the_gradient_through_the_loop_follows_the_key_order():
    loss = lambda w, f: jnp.sum(f(w, jnp.zeros(1), F32(1.0)))
    assert_same(jax.grad(loss)(jnp.ones(3), autograph_lite.convert(sgd_first)), jax.grad(loss)(jnp.ones(3), sgd_first))


def logged_steps(x, n):
    metrics = {"step": jnp.int32(0), "loss": x}
    for _ in range(n):
        metrics["step"] = metrics["step"] + 1
        metrics["loss"] = metrics["loss"] * 0.5
        print(metrics)
    return metrics["loss"]


def test_a_dict_printed_in_a_staged_loop_prints_in_its_key_order():
    expected = ("{'step': Array(1, dtype=int32), 'loss': Array(0.5, dtype=float32)}\n"
                "{'step': Array(2, dtype=int32), 'loss': Array(0.25, dtype=float32)}\n")
    assert_prints_like_eager(logged_steps, F32(1.0), 2, expected=expected)

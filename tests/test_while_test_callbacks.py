"""A ``while`` test that stages a host callback (a run-time check, a ``print``) under ``vmap``: each example
stops where eager stops, and a check in the test fails only where eager's does
(autograph_lite/runtime/staged_loops.py, ``_testing_in_body``). JAX runs a ``while_loop`` whose
``cond_fun`` has an ordered effect until the longest example ends, for every example, so such a test
is evaluated in the loop's body instead; a test without callbacks keeps its ``cond_fun``."""

from __future__ import annotations

import jax
import jax.numpy as jnp

import autograph_lite
from tests.support import assert_same
from tests.test_runtime_checks import assert_like_eager

THRESHOLDS = [1.0, 2.0, 3.0, 4.0]


def steps_below(k):
    n = 0
    while THRESHOLDS[k] < 2.5:
        k = k + 1
        n = n + 1
    return n


def sum_from(k, x):
    s = x
    while THRESHOLDS[k] < x:
        s = s + THRESHOLDS[k]
        k = k + 1
    return s, k


def counted(x, n):
    i = 0
    while i < n:
        x = x * 2.0
        i = i + 1
    return x


def printing_test(x):
    while (print("test", x) or x) < 4.0:
        print("body", x)
        x = x + 1.5
    return x


def test_each_example_stops_where_eager_stops_under_vmap():
    starts = jnp.array([0, 1, 2, 3], jnp.int32)
    batched = jax.jit(jax.vmap(autograph_lite.convert(steps_below)))(starts)
    assert batched.tolist() == [steps_below(int(k)) for k in starts]


def test_examples_of_different_lengths_under_vmap_carry_their_own_state():
    starts, xs = jnp.array([0, 1, 3], jnp.int32), jnp.array([3.5, 2.5, 0.5], jnp.float32)
    sums, ks = jax.jit(jax.vmap(autograph_lite.convert(sum_from)))(starts, xs)
    for lane, (k, x) in enumerate(zip(starts.tolist(), xs.tolist())):
        expected_sum, expected_k = sum_from(k, jnp.float32(x))
        assert (float(sums[lane]), int(ks[lane])) == (float(expected_sum), expected_k)


def test_the_check_in_the_test_raises_as_eager_under_jit():
    assert_like_eager(steps_below, jnp.int32(0))
    assert_like_eager(sum_from, jnp.int32(0), jnp.float32(20.0))  # eager's IndexError at THRESHOLDS[4]


def test_a_printing_test_prints_in_eagers_order(capsys):
    expected = printing_test(jnp.float32(0.5))
    eager_output = capsys.readouterr().out
    assert_same(autograph_lite.jit(printing_test)(jnp.float32(0.5)), expected)
    assert capsys.readouterr().out == eager_output


def while_loops(fn, *args):
    """The ``while`` equations of the converted ``fn``'s jaxpr on ``args`` (top level)."""
    jaxpr = jax.make_jaxpr(autograph_lite.convert(fn))(*args).jaxpr
    return [equation for equation in jaxpr.eqns if equation.primitive.name == "while"]


def test_a_test_with_a_check_leaves_the_cond_fun_without_effects():
    (loop,) = while_loops(steps_below, jnp.int32(0))
    assert not loop.params["cond_jaxpr"].effects
    assert loop.params["body_jaxpr"].effects


def test_a_test_without_callbacks_stays_the_cond_fun():
    (loop,) = while_loops(counted, jnp.float32(1.0), jnp.int32(3))
    assert "cond" not in {equation.primitive.name for equation in loop.params["body_jaxpr"].jaxpr.eqns}
    assert "lt" in {equation.primitive.name for equation in loop.params["cond_jaxpr"].jaxpr.eqns}


def widened_by_the_body(k, x):
    total = jnp.clip(0.5, -10.0, 10.0)  # a weakly typed float32 on entry
    while THRESHOLDS[k] < 3.5:
        total = total + x  # a float32 argument: strongly typed, eagerly, from the first iteration
        k = k + 1
    return total


def test_a_weak_entry_the_body_makes_strong_is_strong_after_the_loop():
    """Evaluating the test in the body put the body under a lax.cond whose other branch kept the weak
    entry, and the cond kept the weak type: weakly typed float32 where eager's is strongly typed (a
    later `* x_bf16` would then have computed in bfloat16 where eager computes in float32)."""
    args = (jnp.int32(0), jnp.float32(2.0))
    result = autograph_lite.jit(widened_by_the_body)(*args)
    expected = widened_by_the_body(*args)
    assert_same(result, expected)
    assert not expected.weak_type and not result.weak_type

"""A loop with an exit that carries integers and bools only stops there (``lax.while_loop``).

The default for ``break`` / ``return`` in a loop with a static trip count is a masked ``scan`` (every
iteration runs; those after the exit leave the state as is), because ``lax.while_loop`` has no
reverse-mode derivative. A loop that carries no float has nothing to differentiate: JAX gives
integers and bools no tangent, so ``grad`` goes around it. Such a loop is staged as the
``while_loop`` an expert writes; a float in the carry, seen at entry or made by the body, keeps the
masked scan. Each case is checked against eager Python and, for the transforms, against the
hand-written ``lax`` program.
"""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import assert_equivalent, count_equations, primitives

import autograph_lite
from bench.programs.expert import first_above as first_above_by_hand
from bench.programs.natural import first_above

XS = jnp.array([0.5, -1.0, 2.0, 3.5, -0.25, 4.0], jnp.float32)


def first_value_above(xs, limit):
    for i in range(xs.shape[0]):
        if xs[i] > limit:
            return xs[i]
    return -1.0


def best_made_float_by_the_body(xs, limit):
    best = -1  # an int at entry; the body makes it a float
    for i in range(xs.shape[0]):
        if xs[i] > limit:
            best = xs[i] * 2.0
            break
    return best


def last_seen_assigned_first(xs, limit):
    for i in range(xs.shape[0]):
        seen = xs[i]  # assigned before any read: no value at entry
        if seen > limit:
            break
    return seen


def staged_best_made_float(xs, limit):
    best = -1  # stage(...) runs no trial: its exit is masked
    for i in autograph_lite.stage(range(xs.shape[0])):
        if xs[i] > limit:
            best = xs[i] * 2.0
            break
    return best


def staged_last_seen(xs, limit):
    for i in autograph_lite.stage(range(xs.shape[0])):
        seen = xs[i]
        if seen > limit:
            break
    return seen


def count_until(xs, limit):
    steps, hits = 0, 0
    for x in xs:
        if x > limit:
            hits += 1
            if hits == 2:
                break
        steps += 1
    return steps, hits


@pytest.mark.parametrize("limit", [-2.0, 0.0, 3.0, 10.0])
@pytest.mark.parametrize("function", [first_above, first_value_above, best_made_float_by_the_body,
                                      last_seen_assigned_first, staged_best_made_float, staged_last_seen,
                                      count_until])
def test_values_are_eager_ones(function, limit):
    assert_equivalent(function, XS, jnp.float32(limit))


def test_an_integer_carry_stops_at_the_exit_as_the_hand_written_loop():
    args = (XS, jnp.float32(0.7))
    assert "while" in primitives(autograph_lite.convert(first_above), *args) and "scan" not in primitives(autograph_lite.convert(first_above), *args)
    assert count_equations(autograph_lite.convert(first_above), *args) <= count_equations(first_above_by_hand, *args)
    report = str(autograph_lite.explain(first_above, *args))
    assert "lax.while_loop (stops at the exit; it carries no float, so no gradient flows through it)" in report


@pytest.mark.parametrize("function", [first_value_above, best_made_float_by_the_body, last_seen_assigned_first,
                                      staged_best_made_float, staged_last_seen])
def test_a_float_in_the_carry_keeps_the_masked_scan(function):
    args = (XS, jnp.float32(0.7))
    found = primitives(autograph_lite.convert(function), *args)
    assert "scan" in found and "while" not in found
    assert "iterations after an exit masked by lax.cond" in str(autograph_lite.explain(function, *args))


def _weighted_pick(search):
    def loss(scale):
        xs = XS * scale
        return xs[search(xs, jnp.float32(1.0))] * scale

    return loss


def test_transforms_agree_with_the_hand_written_while_loop():
    ours, theirs = _weighted_pick(autograph_lite.convert(first_above)), _weighted_pick(first_above_by_hand)
    scales = jnp.array([0.5, 1.0, 3.0], jnp.float32)
    for transform in (jax.grad, jax.jacfwd, jax.hessian, lambda f: jax.jit(jax.grad(f)), lambda f: jax.grad(jax.jit(f))):
        for scale in scales:
            np.testing.assert_allclose(transform(ours)(scale), transform(theirs)(scale))
    np.testing.assert_allclose(jax.vmap(jax.grad(ours))(scales), jax.vmap(jax.grad(theirs))(scales))
    np.testing.assert_allclose(jax.grad(lambda s: jax.vmap(ours)(s).sum())(scales),
                               jax.grad(lambda s: jax.vmap(theirs)(s).sum())(scales))


@pytest.mark.parametrize("function", [best_made_float_by_the_body, staged_best_made_float])
def test_a_float_carry_keeps_reverse_mode(function):
    def loss(scale):
        return autograph_lite.convert(function)(XS * scale, jnp.float32(1.0))

    np.testing.assert_allclose(jax.grad(loss)(jnp.float32(2.0)), 4.0)  # best = xs[2] * 2 = 2.0 * scale * 2


def test_asking_for_the_early_exit_still_stops_a_float_loop():
    def staged_search(xs, limit):
        for i in autograph_lite.stage(range(xs.shape[0]), early_exit=True):
            if xs[i] > limit:
                return xs[i]
        return -1.0

    args = (XS, jnp.float32(0.7))
    assert "while" in primitives(autograph_lite.convert(staged_search), *args)
    assert float(autograph_lite.jit(staged_search)(*args)) == 2.0


def searches_printing(xs, limit):
    index = -1
    for i in range(xs.shape[0]):
        print("at", i)
        if xs[i] > limit:
            index = i
            break
    return index


def searches_checking(xs, limit):
    index = -1
    for i in range(xs.shape[0]):
        assert xs[i] < 100.0, "out of range"
        if xs[i] > limit:
            index = i
            break
    return index


def searches_staged_over_a_list(xs, limit):
    limits = [limit, limit * 2.0, limit * 3.0, limit, limit, limit]
    index = -1
    for i in autograph_lite.stage(range(xs.shape[0])):
        if xs[i] > limits[i]:  # a Python list read with the traced index: a run-time bounds check
            index = i
            break
    return index


@pytest.mark.parametrize("search", [searches_printing, searches_checking, searches_staged_over_a_list])
def test_a_run_time_effect_in_the_body_keeps_the_masked_scan_and_reverse_mode(search, capsys):
    """A staged print or check is a JAX effect: reverse mode keeps a loop that has one, and JAX
    cannot reverse a while_loop, so such a loop stays masked even when it carries integers only."""
    def loss(scale):
        xs = XS * scale
        return xs[autograph_lite.convert(search)(xs, jnp.float32(1.0))] * scale

    assert "scan" in primitives(autograph_lite.convert(search), XS, jnp.float32(1.0))
    np.testing.assert_allclose(jax.grad(loss)(jnp.float32(2.0)), 8.0)  # it stops at 2: xs[2] * scale = 2 * scale ** 2
    np.testing.assert_allclose(jax.jit(jax.grad(loss))(jnp.float32(2.0)), 8.0)
    capsys.readouterr()


def test_prints_run_once_per_iteration_that_ran():
    noisy = searches_printing
    eager, staged = io.StringIO(), io.StringIO()
    with redirect_stdout(eager):
        noisy(XS, 1.0)
    with redirect_stdout(staged):
        jax.block_until_ready(autograph_lite.jit(noisy)(XS, jnp.float32(1.0)))
    assert staged.getvalue() == eager.getvalue() == "at 0\nat 1\nat 2\n"

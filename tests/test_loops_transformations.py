"""Loops under jax transformations (vmap, grad, jvp) and their cost: no more equations than hand-written lax.

Checked against eager Python and against the same loop written by hand with ``lax``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from support import assert_equivalent, assert_same, count_equations
from test_loops import F32, I32, XS, halve_until_small, staged, sum_range, sum_rows
from test_loops_static_policy import branch_in_loop

import autograph_lite

# --- transformations ---------------------------------------------------------------------------------------


def polynomial(x):
    acc = 0.0
    for i in range(4):
        acc = acc * x + (i + 1)
    return acc


def test_grad_through_a_static_for_loop():
    grad = jax.grad(autograph_lite.convert(polynomial))(F32(2.0))
    # acc = x^3 + 2x^2 + 3x + 4  ->  3x^2 + 4x + 3
    assert float(grad) == pytest.approx(3 * 4 + 4 * 2 + 3)
    assert "scan" in staged(polynomial, F32(2.0))


def test_grad_through_a_scan_over_rows():
    grad = jax.grad(lambda xs: autograph_lite.convert(sum_rows)(xs).sum())(XS)
    np.testing.assert_allclose(grad[:, 0], [0.125, 0.25, 0.5, 1.0])


def test_grad_through_a_break_in_a_static_loop_keeps_reverse_mode():
    def capped(x):
        total = x
        for _ in range(5):
            if total > 10:
                break
            total = total * 2
        return total

    assert float(jax.grad(autograph_lite.convert(capped))(F32(1.0))) == 16.0


def test_vmap_of_a_while():
    xs = jnp.asarray([0.5, 3.0, 100.0], F32)
    got = jax.vmap(autograph_lite.convert(halve_until_small))(xs)
    want = [halve_until_small(float(x)) for x in xs]
    assert_same(got[0], np.asarray([w[0] for w in want], np.float32))
    assert_same(got[1], np.asarray([w[1] for w in want], np.int32))


def test_vmap_of_a_traced_range_with_batched_bounds():
    ns = jnp.asarray([0, 1, 4], I32)
    got = jax.vmap(autograph_lite.convert(sum_range), in_axes=(0, None))(ns, F32(1.5))
    assert_same(got, np.asarray([sum_range(int(n), 1.5) for n in ns], np.float32))


def test_vmap_of_a_scan_with_a_branch():
    batch = jnp.asarray([[1.0, -2.0], [-1.0, 0.0], [3.0, 4.0]], F32)
    got = jax.vmap(autograph_lite.convert(branch_in_loop))(batch)
    want = [branch_in_loop([float(v) for v in row]) for row in batch]
    assert_same(got, tuple(np.asarray([w[i] for w in want], np.float32) for i in range(2)))


# --- cost: no more equations than hand-written lax ----------------------------------------------------


def user_fori(n, x):
    acc = jnp.zeros_like(x)
    for i in range(n):
        acc = acc + x * i
    return acc


def lax_fori(n, x):
    return lax.fori_loop(0, n, lambda i, acc: acc + x * i, jnp.zeros_like(x))


def user_while(x):
    n = jnp.int32(0)
    while x > 1:
        x = x / 2
        n = n + 1
    return x, n


def lax_while(x):
    return lax.while_loop(lambda s: s[0] > 1, lambda s: (s[0] / 2, s[1] + 1), (x, jnp.int32(0)))


def user_scan(xs):
    acc = jnp.zeros(xs.shape[1:], xs.dtype)
    for row in xs:
        acc = acc * 0.5 + row
    return acc


def lax_scan(xs):
    return lax.scan(lambda acc, row: (acc * 0.5 + row, None), jnp.zeros(xs.shape[1:], xs.dtype), xs)[0]


def user_cond(x, y):
    if x > y:
        z = x - y
    else:
        z = y * 2
    return z


def lax_cond(x, y):
    return lax.cond(x > y, lambda: x - y, lambda: y * 2)


@pytest.mark.parametrize("user, hand_written, args", [
    (user_fori, lax_fori, (I32(5), F32(1.0))),
    (user_while, lax_while, (F32(9.0),)),
    (user_scan, lax_scan, (XS,)),
    (user_cond, lax_cond, (F32(1.0), F32(2.0))),
], ids=["fori", "while", "scan", "cond"])
def test_equation_count_no_larger_than_hand_written_lax(user, hand_written, args):
    assert_equivalent(user, *args)
    assert count_equations(autograph_lite.convert(user), *args) <= count_equations(hand_written, *args)
    assert_same(autograph_lite.jit(user)(*args), jax.jit(hand_written)(*args))

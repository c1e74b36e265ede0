"""Refusals about the code after a traced ``break`` / ``return`` name the user's exit, not a branch the
user did not write: the early-exit pass moves what follows ``if c: break`` into that ``if``'s other
branch (or under a flag's ``if``), and errors used to blame "the true branch of the `if`" (whose only
statement is ``break``), "the `for` loop's per-iteration exit check", or "a branch of an `if`" for an
append that is in no branch. The fixes they give must work: each is checked against eager Python.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograph_lite


def sum_until_negative(x):
    tot = 0.0
    while x.shape[0] > 0:
        if x[0] < 0:
            break
        tot += x[0]
        x = x[1:]
    return tot


def first_big(x):
    for _ in range(3):
        if x[0] > 2:
            return x[0]
        x = x[1:]
    return x[0] * 0 - 1.0


def shrink_then_break(x):
    tot = 0.0
    for _ in range(3):
        tot = tot + x[0]
        x = x[1:]
        if tot > 2:
            break
    return tot


# The fix the message gives: keep x whole and read x[k] with a counter k.
def sum_until_negative_fixed(x):
    tot = 0.0
    k = 0
    while k < x.shape[0]:
        if x[k] < 0:
            break
        tot += x[k]
        k = k + 1
    return tot


def first_big_fixed(x):
    k = 0
    for _ in range(3):
        if x[k] > 2:
            return x[k]
        k = k + 1
    return x[k] * 0 - 1.0


def shrink_then_break_fixed(x):
    tot = 0.0
    k = 0
    for _ in range(3):
        tot = tot + x[k]
        k = k + 1
        if tot > 2:
            break
    return tot


INPUTS = [[1.0, 2.0, -3.0, 4.0], [1.0, 0.5, 0.25, 5.0], [3.0, -1.0, 0.0, 0.0], [0.5, 0.5, 0.5, 0.5]]


@pytest.mark.parametrize(("function", "exits", "line"), [
    (sum_until_negative, "`break`", sum_until_negative.__code__.co_firstlineno + 6),
    (first_big, "`return`", first_big.__code__.co_firstlineno + 4),
])
def test_a_shape_changed_after_a_traced_exit_is_named_in_the_users_terms(function, exits, line):
    with pytest.raises(autograph_lite.StagingTypeError) as caught:
        autograph_lite.jit(function)(jnp.asarray(INPUTS[0]))
    message = str(caught.value)
    assert f"'x' is f32[4] where the {exits} is taken but f32[3] after the code that follows the {exits}" in message
    assert f"(assigned at line {line})" in message
    assert "true branch" not in message and "false branch" not in message
    assert "k = k + 1 in place of the slice" in caught.value.hint
    assert "jnp.pad" not in caught.value.hint


def test_the_exit_check_of_a_for_loop_is_not_named():
    with pytest.raises(autograph_lite.StagingTypeError) as caught:
        autograph_lite.jit(shrink_then_break)(jnp.asarray(INPUTS[0]))
    message = str(caught.value)
    assert "exit check" not in message
    assert "where the `break` / `return` is taken" in message
    assert "k = k + 1 in place of the slice" in caught.value.hint


@pytest.mark.parametrize(("original", "fixed"), [(sum_until_negative, sum_until_negative_fixed),
                                                 (first_big, first_big_fixed),
                                                 (shrink_then_break, shrink_then_break_fixed)])
@pytest.mark.parametrize("values", INPUTS)
def test_the_counter_fix_converts_and_agrees_with_eager(original, fixed, values):
    x = jnp.asarray(values, dtype=jnp.float32)
    converted = autograph_lite.jit(fixed)(x)
    np.testing.assert_array_equal(np.asarray(converted), np.asarray(original(x)))
    np.testing.assert_array_equal(np.asarray(converted), np.asarray(fixed(x)))


def rosen(p):
    return (1 - p[0]) ** 2 + 10 * (p[1] - p[0] ** 2) ** 2


def descend_with_history(p, steps=6, tol=1e-3):
    hist = []
    for _ in range(steps):
        g = jax.grad(rosen)(p)
        if jnp.linalg.norm(g) < tol:
            break
        p = p - 0.01 * g
        hist.append(rosen(p))
    return p, jnp.stack(hist)


def descend_with_history_fixed(p, steps=6, tol=1e-3):
    hist = jnp.zeros(steps)
    count = 0
    for _ in range(steps):
        g = jax.grad(rosen)(p)
        if jnp.linalg.norm(g) < tol:
            break
        p = p - 0.01 * g
        hist = hist.at[count].set(rosen(p))
        count = count + 1
    return p, hist, count


def test_an_append_after_a_traced_break_is_named_as_such():
    with pytest.raises(autograph_lite.ConversionError) as caught:
        autograph_lite.jit(descend_with_history)(jnp.array([-1.0, 1.0]))
    message = str(caught.value)
    assert "after a `break` on a traced condition" in message
    assert "branch of an `if`" not in message
    assert "Preallocate an array" in caught.value.hint


@pytest.mark.parametrize("start", [[-1.0, 1.0], [0.5, 0.2], [1.0, 1.002]])  # the last breaks after two steps
def test_the_preallocate_and_count_fix_agrees_with_eager(start):
    p = jnp.asarray(start)
    eager_p, eager_hist = descend_with_history(p)
    converted_p, converted_hist, count = autograph_lite.jit(descend_with_history_fixed)(p)
    np.testing.assert_allclose(np.asarray(converted_p), np.asarray(eager_p), rtol=1e-5, atol=1e-9)
    assert int(count) == eager_hist.shape[0]
    np.testing.assert_allclose(np.asarray(converted_hist[:int(count)]), np.asarray(eager_hist), rtol=1e-5, atol=1e-9)


def user_written_branch(x, ys):
    for v in x:
        if v > 0:
            ys.append(v)
    return ys


def test_an_append_in_a_branch_the_user_wrote_keeps_its_wording():
    with pytest.raises(autograph_lite.ConversionError, match="inside a branch of an `if` with a traced condition"):
        autograph_lite.jit(lambda x: user_written_branch(x, []))(jnp.asarray(INPUTS[0]))

"""A name first assigned in a ``while`` loop with a traced test, or in a ``for`` loop over a traced range
with a ``break`` or on some paths only, and read after it (issue #15): bound after the loop only if an
iteration assigned it, and a read of it raises eager's ``UnboundLocalError`` exactly when none did
(autograph_lite/runtime/unbound_loops.py). A body that reads the name before assigning it keeps the
located error.

PYTEST_DONT_REWRITE: eager exceptions are compared as Python raises them."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import autograph_lite
from tests.support import assert_same
from tests.test_runtime_checks import assert_like_eager

I32 = jnp.int32
X = jnp.arange(5.0)


def countdown(x, n):
    while n > 0:
        last = x[n]
        n = n - 1
    return last


def assigned_on_some_iterations(x, n):
    i = 0
    while i < n:
        if x[i] > 2:
            last = x[i]
        i = i + 1
    return last


def read_in_the_body_after_the_first_iteration(x, n):
    i = 0
    total = 0.0
    while i < n:
        if i > 0:
            total = total + previous  # noqa: F821 (bound by an earlier iteration)
        previous = x[i]
        i = i + 1
    return total


def read_only_when_flagged(x, n, flag):
    while n > 0:
        last = x[n]
        n = n - 1
    if flag > 0:
        return last
    return -1.0


def assigned_after_the_loop_too(x, n, flag):
    while n > 0:
        last = x[n]
        n = n - 1
    if flag > 0:
        last = 10.0
    return last


def break_before_assigning(x, n):
    for i in range(n):
        if x[i] > 2:
            break
        last = x[i]
    return last


def break_after_assigning(x, n):
    for i in range(n):
        last = x[i] * 2
        if last > 5:
            break
    return last


def assigned_in_a_branch_of_a_for(x, n):
    for i in range(n):
        if x[i] > 1:
            last = x[i]
    return last


def returns_from_the_loop(x, n):
    for i in range(n):
        found = x[i]
        if found > 2:
            return found
    return found


REVERSED = X[::-1]
CASES = [
    (countdown, [(X, I32(2)), (X, I32(0))]),
    (assigned_on_some_iterations, [(X, I32(5)), (X, I32(2)), (X, I32(0))]),
    (read_only_when_flagged, [(X, I32(0), I32(0)), (X, I32(0), I32(1)), (X, I32(3), I32(1))]),
    (assigned_after_the_loop_too, [(X, I32(0), I32(1)), (X, I32(0), I32(0)), (X, I32(2), I32(0))]),
    (break_before_assigning, [(X, I32(5)), (X, I32(2)), (X, I32(0)), (REVERSED, I32(5))]),
    (break_after_assigning, [(X, I32(5)), (X, I32(2)), (X, I32(0))]),
    (assigned_in_a_branch_of_a_for, [(X, I32(5)), (X, I32(2)), (X, I32(0))]),
    (returns_from_the_loop, [(X, I32(5)), (X, I32(2)), (X, I32(0))]),
]


@pytest.mark.parametrize("fn, args", [(fn, args) for fn, sets in CASES for args in sets],
                         ids=[f"{fn.__name__}-{k}" for fn, sets in CASES for k in range(len(sets))])
def test_like_eager_whether_an_iteration_assigned_it_or_not(fn, args):
    assert_like_eager(fn, *args)


def test_vmap_raises_when_a_lane_never_assigned_it():
    batched = jax.jit(jax.vmap(autograph_lite.convert(break_before_assigning), in_axes=(0, None)))
    xs = jnp.stack([X, X + 1.0])
    assert_same(batched(xs, I32(5)), jnp.array([2.0, 2.0]))
    with pytest.raises(jax.errors.JaxRuntimeError, match="UnboundLocalError: cannot access local variable 'last'"):
        jax.block_until_ready(batched(jnp.stack([X, REVERSED]), I32(5)))


def test_forward_derivatives_follow_the_iterations_that_ran():
    # a while_loop has forward-mode derivatives only
    tangent = jax.jvp(lambda x: autograph_lite.convert(countdown)(x, I32(3)), (X,), (jnp.ones(5),))[1]
    assert_same(tangent, jax.jvp(lambda x: countdown(x, 3), (X,), (jnp.ones(5),))[1])


def reads_before_assigning(x, n):
    while n > 0:
        total = total + x[n]  # noqa: F821 (unbound: the point of the test)
        n = n - 1
    return total


def test_a_body_that_reads_it_before_assigning_keeps_the_located_error():
    with pytest.raises(autograph_lite.StagingTypeError, match="'previous' is read in the true branch"):
        autograph_lite.jit(read_in_the_body_after_the_first_iteration)(X, I32(2))
    # a read on every path before any assignment: Python's error while tracing, as eager raises on any input
    for n in (0, 2):
        with pytest.raises(UnboundLocalError, match="local variable 'total'"):
            reads_before_assigning(X, n)
        with pytest.raises(UnboundLocalError, match="local variable 'total'"):
            autograph_lite.jit(reads_before_assigning)(X, I32(n))

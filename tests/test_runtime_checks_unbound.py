"""A name first assigned in a ``for`` loop over a range with a traced bound, and read after it (issue
#15, item 7): the read raises Python's ``UnboundLocalError`` when the program runs and the loop ran
zero times, and nowhere else; later assignments bind the name as Python would."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import autograph_lite
from tests.support import assert_same
from tests.test_runtime_checks import assert_like_eager

I32 = jnp.int32
X = jnp.arange(1.0, 5.0)


def last_item(x, n):
    for i in range(n):
        last = x[i] * 2
    return last


def read_on_one_path(x, n, flag):
    for i in range(n):
        last = x[i]
    if flag > 0:
        return last
    return x[0]


def assigned_again_in_a_branch(x, n, flag):
    for i in range(n):
        last = x[i]
    if flag > 0:
        last = -1.0
    return last


def read_in_a_later_loop(x, n, m):
    for i in range(n):
        last = x[i]
    total = 0.0
    for j in range(m):
        total += last
    return total


def assigned_again_in_a_later_loop(x, n, m):
    for i in range(n):
        last = x[i]
    for j in range(m):
        last = x[j] * 10
    return last


def loop_variable_itself(x, n):
    for i in range(n):
        x = x + 1
    return x, i


CASES = [
    (last_item, [(X, I32(3)), (X, I32(0))]),
    (read_on_one_path, [(X, I32(0), I32(0)), (X, I32(0), I32(1)), (X, I32(2), I32(1))]),
    (assigned_again_in_a_branch, [(X, I32(0), I32(1)), (X, I32(0), I32(0)), (X, I32(2), I32(0))]),
    (read_in_a_later_loop, [(X, I32(0), I32(0)), (X, I32(0), I32(2)), (X, I32(2), I32(2))]),
    (assigned_again_in_a_later_loop, [(X, I32(0), I32(2)), (X, I32(0), I32(0)), (X, I32(2), I32(0))]),
    (loop_variable_itself, [(X, I32(4)), (X, I32(0))]),
]


@pytest.mark.parametrize("fn, args", [(fn, args) for fn, sets in CASES for args in sets],
                         ids=[f"{fn.__name__}-{k}" for fn, sets in CASES for k in range(len(sets))])
def test_like_eager_for_zero_and_more_iterations(fn, args):
    assert_like_eager(fn, *args)


def test_vmap_raises_when_a_lane_reads_it_after_zero_iterations():
    batched = jax.jit(jax.vmap(autograph_lite.convert(read_on_one_path), in_axes=(None, 0, 0)))
    assert_same(batched(X, jnp.array([0, 3]), jnp.array([0, 1])), jnp.array([1.0, 3.0]))
    with pytest.raises(jax.errors.JaxRuntimeError, match="UnboundLocalError: cannot access local variable 'last'"):
        jax.block_until_ready(batched(X, jnp.array([0, 3]), jnp.array([1, 1])))


def first_assigned_in_while(x, n):
    while x < n:
        y = x = x + 1.0
    return y


@pytest.mark.parametrize("x", [1.0, 5.0])
def test_a_while_loop_like_eager(x):
    # Was a located StagingTypeError; now bound only if an iteration ran (tests/test_runtime_checks_loops.py).
    assert_like_eager(first_assigned_in_while, jnp.float32(x), I32(3))


def last_then_traced_if(x, n):
    for i in range(n):
        last = x * i
    if x > 0:
        last = last + 1
    return last


def test_explain_names_the_value_not_the_plumbing():
    """The name left bound only if the loop ran is carried with its flag; explain shows its type."""
    text = str(autograph_lite.explain(last_then_traced_if, 2.0, 3))
    assert "carries last: weakly typed f32[] (bound only if its loop ran)" in text
    assert "AssignedIfRan" not in text


def inner_loop_in_staged_branch(b, c):
    """The name is first assigned by a loop over a traced range, inside a staged `if` inside another
    such loop (found by the fuzzer: a false StagingTypeError, the name's type learned wrapped twice)."""
    s0 = 0
    for i1 in range(0, b, 2):
        if c[i1 % 4] == 2:
            for i2 in range(1, b - i1):
                s0 = s0 + 1
    return s0 + i2


@pytest.mark.parametrize("b, c", [(5, [2, 1, 2, 3]), (5, [0, 1, 0, 3]), (0, [2, 1, 2, 3]), (2, [2, 1, 2, 3])])
def test_a_name_first_assigned_by_a_loop_nested_in_a_staged_branch_of_a_loop(b, c):
    assert_like_eager(inner_loop_in_staged_branch, jnp.int32(b), jnp.array(c, jnp.int32))

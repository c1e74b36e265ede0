"""``break``, ``continue``, ``return`` and ``else`` in loops: Python when concrete, flags in a staged loop.

Checked against eager Python with ``support.assert_equivalent`` on inputs that leave early and inputs
that do not.
"""

from __future__ import annotations

import jax.numpy as jnp
import pytest
from support import assert_equivalent, conversion_error, where
from test_loops import F32, I32, staged

import autograph_lite


def first_index_above(xs, limit):
    index = -1
    for i, x in enumerate(xs):
        if x > limit:
            index = i
            break
    return index


def sum_skipping_negatives(xs):
    total = 0.0
    for x in xs:
        if x < 0:
            continue
        total = total + x
    return total


def return_from_while(x):
    while x < 100:
        if x > 10:
            return x * 2
        x = x * 3
    return -x


def search_with_else(xs, target):
    for x in xs:
        if x == target:
            found = True
            break
    else:
        found = False
    return found


@pytest.mark.parametrize("limit", [-1.0, 2.5, 10.0])
def test_break_in_a_scan(limit):
    assert_equivalent(first_index_above, jnp.asarray([1.0, 2.0, 3.0, 4.0], F32), F32(limit))


def test_continue_in_a_scan():
    assert_equivalent(sum_skipping_negatives, jnp.asarray([1.0, -2.0, 3.0, -4.0], F32))


@pytest.mark.parametrize("x", [0.5, 5.0, 50.0, 200.0])
def test_return_inside_a_while(x):
    assert_equivalent(return_from_while, F32(x))


@pytest.mark.parametrize("target", [2.0, 7.0])
def test_for_else_search(target):
    assert_equivalent(search_with_else, jnp.asarray([1.0, 2.0, 3.0], F32), F32(target))


def break_in_traced_range(n, x):
    acc = x
    for i in range(n):
        if acc > 20:
            break
        acc = acc * 2 + i
    return acc


def return_index_from_scan(xs):
    for i, x in enumerate(xs):
        if x < 0:
            return i
    return -1


def continue_in_while(x):
    total = 0.0
    while x > 0:
        x = x - 1
        if x % 2 == 0:
            continue
        total = total + x
    return total


def break_with_early_exit_stage(xs):
    total = 0.0
    for x in autograph_lite.stage(xs, early_exit=True):
        if total > 3:
            break
        total = total + x
    return total


def or_in_while_test(x, y):
    while x > 0 or y > 0:
        x = x - 1
        y = y - 2
    return x, y


@pytest.mark.parametrize("n", [0, 3, 10])
def test_break_in_a_traced_range(n):
    assert_equivalent(break_in_traced_range, I32(n), F32(1.0))
    assert "while" in staged(break_in_traced_range, I32(n), F32(1.0))


@pytest.mark.parametrize("xs", [[1.0, 2.0, -3.0, 4.0], [1.0, 2.0]])
def test_return_from_a_scan(xs):
    assert_equivalent(return_index_from_scan, jnp.asarray(xs, F32))


@pytest.mark.parametrize("x", [0.0, 7.0])
def test_continue_in_a_while(x):
    assert_equivalent(continue_in_while, F32(x))


def test_stage_with_early_exit_is_a_while_loop():
    xs = jnp.asarray([1.0, 2.0, 3.0, 4.0], F32)
    assert_equivalent(break_with_early_exit_stage, xs)
    assert "while" in staged(break_with_early_exit_stage, xs)
    assert "scan" not in staged(break_with_early_exit_stage, xs)


@pytest.mark.parametrize("x, y", [(3.0, 1.0), (-1.0, -1.0), (0.0, 5.0)])
def test_boolean_operators_in_a_while_test(x, y):
    assert_equivalent(or_in_while_test, F32(x), F32(y))


def grows_until_large(x):
    k = 0
    while True:
        k += 1
        if x > 100:
            return x, k
        x = x * 3


@pytest.mark.parametrize("x", [1.0, 500.0])
def test_while_true_left_only_by_return(x):
    # Python's implicit `return None` after an endless loop is no path: it was taken for one, and the
    # staged choice between None and the tuple refused
    assert_equivalent(grows_until_large, F32(x))


DFA_TABLE = jnp.asarray([[0, 1, 2, -1], [1, 1, 3, -1], [2, 3, 2, 2], [3, 3, 3, -1]], I32)


def dfa_accepts(chars, table):
    s = 0
    for c in chars:
        s = table[s, c]
        if s < 0:
            return False
    else:
        return s == 3


def drain(x):
    while x > 0:
        x = x - 3
        if x == 1:
            return 100
    else:
        return x


def first_pair_above(xs, limit):
    for i in range(3):
        for j in range(3):
            if xs[i] + j > limit:
                return i * 10 + j
        else:
            continue
    else:
        return -1


@pytest.mark.parametrize("chars", [[1, 2], [1, 3], [0, 0]])
def test_a_for_else_that_returns_ends_every_path(chars):
    # no break: only a return in the body skips the else, so no path reaches Python's implicit
    # `return None` (it was taken for one, and the staged choice between None and a bool refused)
    assert_equivalent(dfa_accepts, jnp.asarray(chars, I32), DFA_TABLE)


@pytest.mark.parametrize("x", [10, 9, -2])
def test_a_while_else_that_returns_ends_every_path(x):
    assert_equivalent(drain, I32(x))


@pytest.mark.parametrize("limit", [2.5, 9.0])
def test_a_loop_else_that_continues_inside_one_that_returns(limit):
    assert_equivalent(first_pair_above, jnp.asarray([1.0, 2.0, 3.0], F32), F32(limit))


def steps_until_above(x):
    n = 0
    pending = [0]
    while pending:
        n += 1
        if x < n:
            break
    return n


def steps_over_a_tuple(x):
    n = 0
    while (1, 2):
        n += 1
        if x < n:
            return n * 2.0
    return -1.0


def total_until_above(xs, limit):
    rows = list(xs)
    total = 0.0
    while rows:
        v = rows.pop()
        if v > limit:
            break
        total = total + v
    return total


@pytest.mark.parametrize("x", [0.5, 2.5])
def test_a_while_over_a_list_left_by_a_traced_break(x):
    # the exit flag is traced and the list's truth a Python True: joined by their truths, not their
    # values (a traced choice between a bool and a list was refused as an `and` the user never wrote)
    assert_equivalent(steps_until_above, F32(x))
    assert_equivalent(steps_over_a_tuple, F32(x))


def test_a_while_over_a_list_it_pops_is_refused_at_the_pop():
    message = conversion_error(total_until_above, jnp.asarray([1.0, 6.0, 5.0, 2.0], F32), F32(4.0))
    assert message.startswith(where(total_until_above, "rows.pop()"))
    assert "list.pop()" in message and "`and`" not in message

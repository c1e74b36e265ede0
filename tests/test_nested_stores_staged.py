"""Nested item stores into a list of lists the function builds, under a traced ``if`` or in a staged loop
(passes/item_updates.py, runtime/nested_items.py).

``grid[i][j] = v`` under a traced ``if`` was refused as an effect ("its body assigns to grid[i][j] ...
update objects outside the function after it returns"), though ``grid`` is the function's own display
or comprehension and the one-level ``out[i] = v`` is staged: the textbook LCS table hit it. Where the
function builds the root new at every level the store goes through, the store now rebinds the root,
which the staged statement carries; the results agree with eager, and a row bound before the store
sees it, as eagerly. A root that may hold a list from outside stays refused.
"""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograph_lite
from autograph_lite import ConversionError


def pairwise_gaps(x):
    grid = [[0.0, 0.0], [0.0, 0.0]]
    for i in range(2):
        for j in range(2):
            if x[i] > x[j]:
                grid[i][j] = x[i] - x[j]
    return grid


def lcs(a, b):
    n, m = a.shape[0], b.shape[0]
    dp = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                dp[i][j] = dp[i - 1][j - 1] + 1
            else:
                dp[i][j] = max(dp[i - 1][j], dp[i][j - 1])
    return dp[n][m]


def row_bound_before(x):
    grid = [[1.0, 2.0], [3.0, 4.0]]
    row = grid[1]
    if x[0] > 0:
        grid[1][0] = x[0]
    else:
        grid[1][1] += x[1]
    return grid, row


def staged_while(x, n):
    grid = [[c] * 2 for c in (1.0, 2.0)]
    k = 0
    while k < n:
        k = k + 1
        grid[0][1] = grid[0][1] * 0.5 - x[0]
    return grid


def dict_of_rows(x):
    table = {"a": [[0.0], [1.0]]}
    if x[0] > 0:
        table["a"][1][0] = x[1]
    return table


X = jnp.array([1.0, -2.0])
CASES = [
    (pairwise_gaps, (X,)),
    (pairwise_gaps, (-X,)),
    (lcs, (jnp.array([1, 2, 3, 2]), jnp.array([2, 1, 2]))),
    (lcs, (jnp.array([4, 4]), jnp.array([1, 4, 4]))),
    (row_bound_before, (X,)),
    (row_bound_before, (-X,)),
    (staged_while, (X, 3)),
    (staged_while, (X, 0)),
    (dict_of_rows, (X,)),
    (dict_of_rows, (-X,)),
]


@pytest.mark.parametrize("function, arguments", CASES, ids=[f"{case[0].__name__}-{k}" for k, case in enumerate(CASES)])
def test_nested_store_into_the_functions_own_rows_is_staged_like_eager(function, arguments):
    expected = function(*arguments)
    result = autograph_lite.jit(function)(*arguments)
    assert jax.tree.structure(result) == jax.tree.structure(expected)
    for got, want in zip(jax.tree.leaves(result), jax.tree.leaves(expected)):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_a_row_bound_before_sees_the_staged_store():
    grid, row = autograph_lite.jit(row_bound_before)(X)
    assert [float(v) for v in row] == [1.0, 4.0] == [float(v) for v in grid[1]]


def test_outside_staged_code_the_store_is_in_place():
    grid, row = autograph_lite.convert(row_bound_before)(np.array([1.0, 2.0]))
    assert row is grid[1] and row == [1.0, 4.0]


OUTER_ROW = [1.0, 2.0]


def outer_row(x):
    rows = [OUTER_ROW]  # rows[0] is a list from outside: the store would change it once while tracing
    if x[0] > 0:
        rows[0][1] = x[0]
    return rows


def parameter_rows(x, rows):
    if x[0] > 0:
        rows[0][1] = x[0]
    return rows


@pytest.mark.parametrize("function, arguments, text", [
    (outer_row, (X,), "rows[0][1]"), (parameter_rows, (X, [[0.0, 0.0]]), "rows[0][1]"),
])
def test_a_nested_store_into_rows_that_may_be_from_outside_stays_refused(function, arguments, text):
    with pytest.raises(ConversionError, match="its body assigns to " + re.escape(text)):
        autograph_lite.jit(function)(*arguments)
    assert OUTER_ROW == [1.0, 2.0]

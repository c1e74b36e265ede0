"""Item stores through a NumPy view or a second name of an array (analysis/shared_memory.py,
runtime/shared_memory.py, analysis/lost_updates.py).

Eagerly, on NumPy arguments, ``row[0] = 0`` in ``for row in g`` changes ``g``: the row is a view.
Converted, the store rebinds ``row`` to a new JAX array, and ``g`` (read afterwards, or the caller's)
kept the old values, a silent wrong value. Such a store is now a located ``ConversionError`` under
``jit`` whose fix works; stores that share no memory with a reader stay allowed, and ``convert``
outside ``jit`` keeps NumPy's in-place semantics.
"""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import refused_at_marked_line

import autograph_lite


def grid():
    return np.array([[1.0, 2.0], [-1.0, 3.0]], np.float32)


def vector():
    return np.array([1.0, 2.0, 3.0, 4.0], np.float32)



# --- stores through views (F1) -------------------------------------------------------------------


def clamp_rows(g):
    for row in g:
        if row[0] < 0:
            row[0] = 0  # store
    return g


def zero_middle(x):
    sub = x[1:3]
    sub[:] = 0  # store
    return x


def set_via_transpose(g):
    t = g.T
    t[0, 1] = 9  # store
    return g


def set_in_row(g, i):
    r = g[i]
    r[0] = 5  # store
    return g


def set_via_reshape(x):
    v = x.reshape(2, 2)
    v[0, 1] = 7  # store
    return x


def set_via_ravel(g):
    v = g.ravel()
    v[0] = 7  # store
    return g


def number_rows(g):
    for i, row in enumerate(g):
        row[0] = i  # store
    return g


def update_rows_of_caller(g):
    total = 0.0
    for row in g:
        row[1] = row[1] * 2.0  # store
        total = total + row[1]
    return total  # g is not read, but the caller's array changes eagerly


def store_then_read_row(g):
    t = g[0]
    g[0] = g[1]  # store
    g[1] = t
    return g


# --- stores through second names the alias check did not record (F2) ------------------------------


def unpacked_alias(x):
    a, b = x, x
    a[0] = 9  # store
    return b


def ternary_alias(x, z, c):
    y = x if c > 0 else z
    y[0] = 9  # store
    return x


def list_item_alias(x):
    rows = [x]
    r = rows[0]
    r[0] = 9  # store
    return x


def loop_over_arguments(x, z):
    for arr in (x, z):
        arr[0] = 0  # store
    return x, z


def loop_over_arguments_unread(x, z):
    for arr in (x, z):
        arr[0] = 0  # store
    return 0.0


REFUSED = [
    (clamp_rows, lambda: (grid(),), ("'row'", "'g'")),
    (zero_middle, lambda: (vector(),), ("'sub'", "'x'")),
    (set_via_transpose, lambda: (grid(),), ("'t'", "'g'")),
    (set_in_row, lambda: (grid(), 1), ("'r'", "'g'")),
    (set_via_reshape, lambda: (vector(),), ("'v'", "'x'")),
    (set_via_ravel, lambda: (grid(),), ("'v'", "'g'")),
    (number_rows, lambda: (grid(),), ("'row'", "'g'")),
    (update_rows_of_caller, lambda: (grid(),), ("'row'", "the argument 'g' of update_rows_of_caller")),
    (store_then_read_row, lambda: (grid(),), ("'g'", "'t'")),
    (unpacked_alias, lambda: (vector(),), ("'a'", "'b'")),
    (ternary_alias, lambda: (vector(), vector() + 2, 1), ("'y'", "'x'")),
    (list_item_alias, lambda: (vector(),), ("'r'", "'x'")),
    (loop_over_arguments, lambda: (vector(), vector() + 2), ("'arr'", "'x'")),
    (loop_over_arguments_unread, lambda: (vector(), vector() + 2), ("'arr'", "loop_over_arguments_unread")),
]


@pytest.mark.parametrize("function, arguments, names", REFUSED, ids=[case[0].__name__ for case in REFUSED])
def test_store_through_a_view_or_second_name_is_refused_at_its_line(function, arguments, names):
    message = refused_at_marked_line(function, *arguments())  # a silent wrong value before
    assert "updated in place" in message
    for name in names:
        assert name in message


@pytest.mark.parametrize("function, arguments, names", REFUSED, ids=[case[0].__name__ for case in REFUSED])
def test_convert_outside_jit_keeps_numpy_in_place_semantics(function, arguments, names):
    eager_arguments, converted_arguments = arguments(), arguments()
    expected = function(*eager_arguments)
    result = autograph_lite.convert(function)(*converted_arguments)
    np.testing.assert_array_equal(np.asarray(result), np.asarray(expected))
    for eager_argument, converted_argument in zip(eager_arguments, converted_arguments):
        np.testing.assert_array_equal(converted_argument, eager_argument)


# --- NumPy's row swap: the second value is a view the first store changed ----------------------


def swap_rows(g):
    g[0], g[1] = g[1], g[0]  # store
    return g


def swap_halves(x):
    x[::2], x[1::2] = x[1::2], x[::2]  # store
    return x


@pytest.mark.parametrize("function, make", [(swap_rows, grid), (swap_halves, vector)])
def test_unpacking_that_reads_a_view_of_its_own_container_is_refused(function, make):
    eager = function(make())
    assert eager[0].tolist() == eager[1].tolist()  # NumPy: both parts equal, no swap
    message = refused_at_marked_line(function, make())
    assert re.search("stores into '(g|x)' more than once", message) and ".copy()" in message


# --- the fixes the hints give, and stores that share no memory with a reader ---------------------


def clamp_rows_by_index(g):  # the hint: store through g with the full index
    for i in range(len(g)):
        if g[i, 0] < 0:
            g[i, 0] = 0
    return g


def rows_copied(g):  # the hint: store into a copy, where g must keep its values
    total = 0.0
    for row in g:
        row = row.copy()
        row[0] = 0
        total = total + row.sum()
    return g * total


def swap_rows_copied(g):  # the hint for the row swap
    g[0], g[1] = g[1].copy(), g[0].copy()
    return g


def swap_rows_one_at_a_time(g):  # the hint for NumPy's result
    g[0] = g[1]
    g[1] = g[0]
    return g


def swap_items(x):  # an item of a 1-D array is a copy: a swap is a swap
    x[0], x[1] = x[1], x[0]
    t = x[2]
    x[2] = x[3]
    x[3] = t
    return x


def read_rows_only(g):
    total = 0.0
    for row in g:
        total = total + row[0]
    return total


def store_into_copy(x):
    y = x.copy()
    y[0] = 5
    return y, x


def store_into_own_array(x):
    w = jnp.zeros(3)
    w[0] = x[0]
    rows = jnp.zeros((2, 2))
    row = rows[1]
    row[0] = x[1]
    return w, row


def row_rebound_before_store(g):
    row = g[0]
    row = row * 2.0
    row[0] = 1.0
    return row, g


ALLOWED = [
    (clamp_rows_by_index, lambda: (grid(),)),
    (rows_copied, lambda: (grid(),)),
    (swap_rows_copied, lambda: (grid(),)),
    (swap_rows_one_at_a_time, lambda: (grid(),)),
    (swap_items, lambda: (vector(),)),
    (read_rows_only, lambda: (grid(),)),
    (store_into_copy, lambda: (vector(),)),
    (row_rebound_before_store, lambda: (grid(),)),
]


@pytest.mark.parametrize("function, arguments", ALLOWED, ids=[case[0].__name__ for case in ALLOWED])
def test_stores_sharing_no_memory_with_a_reader_agree_with_eager(function, arguments):
    expected = function(*arguments())
    result = autograph_lite.jit(function)(*arguments())
    results, expectations = jax.tree.leaves(result), jax.tree.leaves(expected)
    assert len(results) == len(expectations)
    for got, want in zip(results, expectations):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_store_into_an_array_the_function_builds_is_allowed():
    w, row = autograph_lite.jit(store_into_own_array)(vector())
    assert w.tolist() == [1.0, 0.0, 0.0]
    assert row.tolist() == [2.0, 0.0]

"""``x[index] = v`` / ``x[index] op= v`` on a NumPy argument under ``jit`` compute NumPy's store.

Eager runs these programs on NumPy arrays (a JAX argument raises eagerly: its items cannot be
assigned), so the rewrite's ``x = x.at[index]...`` must give what NumPy's in-place store gives: one
update per distinct index of an index array, the result cast back to the array's dtype, NumPy's
errors (a slice of an int array divided in place, a Python int out of a dtype's bounds, a concrete
index past the end). Each case runs eager and ``autograph_lite.jit`` on fresh NumPy copies.
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograph_lite


def eager_and_converted(function, *args):
    """``function`` run eagerly and under ``autograph_lite.jit``, each on fresh copies of ``args``."""
    fresh = lambda: tuple(np.array(a) for a in args)
    return function(*fresh()), autograph_lite.jit(function)(*fresh())


def assert_same_array(converted, eager) -> None:
    assert np.asarray(converted).dtype == np.asarray(eager).dtype
    np.testing.assert_array_equal(np.asarray(converted), eager)


# --- an index array that repeats: one update per distinct index -----------------------------------


def bump(x, idx):
    x[idx] += 1.0
    return x


def scale_picked(x):
    picks = np.array([0, 0, 2])
    x[picks] *= 2.0
    return x


def visit_counts(grid, rows, cols):
    for _ in range(2):
        grid[rows, cols] += 1
    return grid


@pytest.mark.parametrize("function, args", [
    (bump, (np.zeros(3, np.float32), np.array([0, 0, 2], np.int32))),
    (scale_picked, (np.ones(3, np.float32),)),
    (visit_counts, (np.zeros((2, 2), np.int32), np.array([0, 0, 1], np.int32), np.array([1, 1, 0], np.int32))),
], ids=["add", "multiply", "2-d"])
def test_an_augmented_store_through_repeated_indices_updates_each_index_once(function, args):
    eager, converted = eager_and_converted(function, *args)
    assert_same_array(converted, eager)  # .at[idx].add added once per repeat: [2, 0, 1] for [1, 0, 1]


def add_at(x, i, v):
    x[i] += v
    return x


def test_an_augmented_store_at_one_position_keeps_its_scatter_add():
    """No repeats and the array's own dtype: the update stays one scatter-add (no gather first)."""
    jaxpr = str(jax.make_jaxpr(autograph_lite.convert(add_at))(jnp.zeros(3), 1, jnp.float32(2.0)))
    assert "scatter-add" in jaxpr
    assert "gather" not in jaxpr


# --- the result is cast back to the array's dtype -------------------------------------------------


def halve_all(x):
    for i in range(x.shape[0]):
        x[i] /= 2
    return x


def halve_nonzero(x):
    for i in range(x.shape[0]):
        if x[i] != 0:
            x[i] /= 2
    return x


def root_first(x):
    x[0] **= 0.5
    return x


def add_a_half(x):
    x[0] += 1.5
    return x


def mark(m):
    m[0] += True
    return m


@pytest.mark.parametrize("function, array", [
    (halve_all, np.array([5, -5, 3], np.int32)),
    (halve_nonzero, np.array([5, -5, 0], np.int32)),
    (root_first, np.array([10, 4], np.int32)),
    (add_a_half, np.array([-5, 4], np.int32)),
    (mark, np.array([False, True])),
], ids=["divide", "divide in a traced if", "power", "add a float", "bool"])
def test_an_augmented_store_casts_the_result_to_the_arrays_dtype(function, array):
    eager, converted = eager_and_converted(function, array)
    assert_same_array(converted, eager)


def store_a_float(x):
    x[0] = 2.7
    return x


def test_a_float_stored_into_an_int_array_is_cast_without_jaxs_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # JAX's scatter warns of an unsafe cast, a future error
        eager, converted = eager_and_converted(store_a_float, np.array([1, 2], np.int32))
    assert_same_array(converted, eager)


def halve_middle(x):
    x[1:3] /= 2
    return x


def add_300(x):
    x[0] += 300
    return x


def store_300(x):
    x[0] = 300
    return x


@pytest.mark.parametrize("function, array", [
    (halve_middle, np.array([1, 2, 3, 4], np.int32)),
    (add_300, np.array([5, 6], np.uint8)),
    (store_300, np.array([5, 6], np.uint8)),
], ids=["slice of ints divided", "int out of uint8 augmented", "int out of uint8 stored"])
def test_a_store_numpy_refuses_raises_numpys_error(function, array):
    with pytest.raises(Exception) as eager:
        function(array.copy())
    with pytest.raises(type(eager.value)) as converted:
        autograph_lite.jit(function)(array.copy())
    assert str(converted.value) == str(eager.value)


# --- an index past the end ------------------------------------------------------------------------


def poke(x):
    x[3] = 7.0
    return x


def bump_from_end(x):
    x[-4] += 1
    return x


def poke_column(g):
    g[0, 5] = 1.0
    return g


def poke_picked(x):
    x[np.array([0, 4])] = 1.0
    return x


@pytest.mark.parametrize("function, array", [
    (poke, np.zeros(3, np.float32)),
    (bump_from_end, np.zeros(3, np.float32)),
    (poke_column, np.zeros((2, 2), np.float32)),
    (poke_picked, np.zeros(3, np.float32)),
], ids=["past the end", "before the start", "second axis", "index array"])
def test_a_concrete_index_past_the_end_raises_numpys_index_error(function, array):
    with pytest.raises(IndexError) as eager:
        function(array.copy())
    with pytest.raises(IndexError) as converted:
        autograph_lite.jit(function)(array.copy())  # .at[] dropped the update and returned the array
    assert type(converted.value) is IndexError
    assert str(converted.value) == str(eager.value)
    assert any(__file__ in note for note in converted.value.__notes__)


def fill_ramp(x):
    for i in range(x.shape[0] + 1):  # one past the end
        x[i] = i
    return x


def fill_first(x, n):
    for i in range(n):
        x[i] = 1.0
    return x


@pytest.mark.parametrize("function, args", [
    (fill_ramp, (np.zeros(3, np.float32),)),
    (fill_first, (np.zeros(3, np.float32), np.int32(5))),
], ids=["staged range past the end", "traced range bound"])
def test_a_traced_index_past_the_end_raises_numpys_index_error_when_the_program_runs(function, args):
    with pytest.raises(IndexError) as eager:
        function(*(np.array(a) for a in args))
    with pytest.raises(IndexError) as converted:
        autograph_lite.jit(function)(*(np.array(a) for a in args))
    assert str(converted.value) == str(eager.value)
    assert any("raised when the compiled program ran" in note for note in converted.value.__notes__)


def test_a_traced_index_within_the_array_stores_as_eager():
    eager, converted = eager_and_converted(fill_first, np.zeros(3, np.float32), np.int32(2))
    assert_same_array(converted, eager)


def test_a_traced_index_array_past_the_end_names_its_first_index_past_it():
    args = (np.zeros(4, np.float32), np.array([1, 5, 3, 7], np.int32))
    with pytest.raises(IndexError) as eager:
        bump(*(a.copy() for a in args))
    with pytest.raises(IndexError) as converted:
        autograph_lite.jit(bump)(*(a.copy() for a in args))
    assert str(converted.value) == str(eager.value) == "index 5 is out of bounds for axis 0 with size 4"


def rows_and_columns(g, v):
    g[0, :] += v
    g[1:, 0] *= 2
    g[0:2] -= [1.0, 2.0]
    return g


def test_slices_and_a_list_operand_store_as_eager():
    eager, converted = eager_and_converted(rows_and_columns, np.arange(6, dtype=np.float32).reshape(3, 2),
                                           np.array([1.0, 2.0], np.float32))
    assert_same_array(converted, eager)


def test_a_counter_of_a_range_within_the_array_stages_no_check():
    """``for i in range(len(x))`` cannot go past the end: no run-time check, no extra equation."""
    within = str(jax.make_jaxpr(autograph_lite.convert(halve_all))(jnp.zeros(3, jnp.int32)))
    past = str(jax.make_jaxpr(autograph_lite.convert(fill_ramp))(jnp.zeros(3)))
    assert "callback" not in within
    assert "callback" in past

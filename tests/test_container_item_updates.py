"""Item stores through a name bound to an item of a list, tuple or dict argument (runtime/shared_memory.py).

Eagerly, ``w = params[0]`` is the very NumPy array the list holds, so ``w[0] = 5.0`` changes
``params[0]`` (and the caller's array). Converted, the store rebinds ``w`` to a new JAX array and
``params`` came back with the old one, silently. Such a store is now a located ``ConversionError``
under ``jit`` naming both names, whose fix (update a copy and store it back) agrees with eager.
"""

from __future__ import annotations

import copy

import jax
import numpy as np
import pytest
from support import refused_at_marked_line

import autograph_lite


def pair():
    return [np.zeros(2, np.float32), np.ones(2, np.float32)]



def item_of_list(params):
    w = params[0]
    w[0] = 5.0  # store
    return params


def item_of_dict(d):
    w = d["a"]
    w[1] = 2.0  # store
    return d


def item_of_nested_list(params):
    w = params[1][0]
    w[0] = 3.0  # store
    return params


def item_of_the_callers_tuple(params):
    w = params[1]
    w[1] = 7.0  # store
    return w.sum()


def item_drawn_by_a_loop(params):
    for w in params:
        w[0] = w[0] + 1.0  # store
    return params


REFUSED = [
    (item_of_list, lambda: (pair(),), ("'w'", "'params'")),
    (item_of_dict, lambda: ({"a": np.zeros(2, np.float32)},), ("'w'", "'d'")),
    (item_of_nested_list, lambda: ([np.ones(2, np.float32), [np.zeros(2, np.float32)]],), ("'w'", "'params'")),
    (item_of_the_callers_tuple, lambda: (tuple(pair()),), ("'w'", "the argument 'params' of item_of_the_callers_tuple")),
    (item_drawn_by_a_loop, lambda: (pair(),), ("'w'", "'params'")),
]


@pytest.mark.parametrize("function, arguments, names", REFUSED, ids=[case[0].__name__ for case in REFUSED])
def test_store_through_an_item_of_a_container_argument_is_refused_at_its_line(function, arguments, names):
    message = refused_at_marked_line(function, *arguments())  # a silent wrong value before
    assert "is an array that" in message and "holds as an item" in message
    for name in names:
        assert name in message


@pytest.mark.parametrize("function, arguments, names", REFUSED, ids=[case[0].__name__ for case in REFUSED])
def test_convert_outside_jit_keeps_numpy_in_place_semantics(function, arguments, names):
    eager_arguments = arguments()
    converted_arguments = copy.deepcopy(eager_arguments)
    expected = function(*eager_arguments)
    result = autograph_lite.convert(function)(*converted_arguments)
    assert_same_leaves(result, expected)
    assert_same_leaves(converted_arguments, eager_arguments)


def assert_same_leaves(result, expected):
    results, expectations = jax.tree.leaves(result), jax.tree.leaves(expected)
    assert len(results) == len(expectations)
    for got, want in zip(results, expectations):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


# --- the hint's fix, and items that are not the array stored into --------------------------------


def item_copied_and_stored_back(params):  # the hint: update a copy and store it back
    w = params[0].copy()
    w[0] = 5.0
    params[0] = w
    return params


def item_returned(params):  # the hint's other fix: return the updated array
    w = params[0].copy()
    w[0] = 5.0
    return w, params[1]


def item_rebound_before_store(params):
    w = params[0]
    w = w * 2.0
    w[1] = 4.0
    return w, params


ALLOWED = [item_copied_and_stored_back, item_returned, item_rebound_before_store]


@pytest.mark.parametrize("function", ALLOWED, ids=[function.__name__ for function in ALLOWED])
def test_stores_not_through_an_item_agree_with_eager(function):
    expected = function(pair())
    assert_same_leaves(autograph_lite.jit(function)(pair()), expected)


def test_hint_fix_gives_eager_values():
    assert [row.tolist() for row in autograph_lite.jit(item_copied_and_stored_back)(pair())] == [[5.0, 0.0], [1.0, 1.0]]

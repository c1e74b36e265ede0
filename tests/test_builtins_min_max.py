"""``min`` / ``max`` of traced values keep Python's choice: the first value unless a later one
compares smaller (larger). A comparison with NaN is false, so a NaN after the first value never wins
(``jnp.minimum`` would spread it), and of equal values (``0.0`` and ``-0.0``) the first is kept.
Checked bit for bit (NaN and the sign of zero included) against eager Python, for two values and for
the elements of one 1-D array."""

from __future__ import annotations

import itertools

import jax.numpy as jnp
import numpy as np
import pytest

import autograph_lite

SPECIAL = [1.0, float("nan"), 0.0, -0.0, -float("inf"), float("inf"), 2.0]


def two_min(a, b):
    return min(a, b)


def two_max(a, b):
    return max(a, b)


def elements_min(xs):
    return min(xs)


def elements_max(xs):
    return max(xs)


def assert_identical(got, want, what: str) -> None:
    got, want = np.asarray(got), np.asarray(np.float32(want))
    assert np.array_equal(got, want, equal_nan=True) and np.signbit(got) == np.signbit(want), (what, got, want)


@pytest.mark.parametrize("function", [two_min, two_max])
def test_two_values_like_python(function) -> None:
    jitted = autograph_lite.jit(function)
    for a, b in itertools.product(SPECIAL, SPECIAL):
        assert_identical(jitted(np.float32(a), np.float32(b)), function(np.float32(a), np.float32(b)), f"{a}, {b}")


@pytest.mark.parametrize("function", [elements_min, elements_max])
def test_the_elements_of_an_array_like_python(function) -> None:
    jitted = autograph_lite.jit(function)
    for values in itertools.product(SPECIAL, repeat=3):
        xs = np.array(values, np.float32)
        assert_identical(jitted(xs), function(xs), str(values))
    ints = np.array([3, 1, 1, 5], np.int32)
    assert int(jitted(ints)) == function(ints)
    assert jitted(jnp.asarray(ints)).dtype == jnp.int32


def with_defaults(xs, a, b):
    return max(xs, default=0.0), min(a, b, key=None), max([], default=-1.0), min(xs[:0], default=5.0)


def test_default_and_a_key_of_none_are_pythons():
    args = (jnp.array([1.0, 3.0, 2.0]), jnp.float32(2.0), jnp.float32(1.0))
    got, expected = autograph_lite.jit(with_defaults)(*args), with_defaults(*args)
    assert [float(v) for v in got] == [float(v) for v in expected] == [3.0, 1.0, -1.0, 5.0]


def of_a_dicts_values(x):
    d = {0: x, 1: x * 2, 2: x - 3}
    return max(d.values()), min(d.values())


def test_max_and_min_of_a_dicts_values():
    for x in (2.0, -1.0):
        got, expected = autograph_lite.jit(of_a_dicts_values)(jnp.float32(x)), of_a_dicts_values(jnp.float32(x))
        assert [float(v) for v in got] == [float(v) for v in expected]

"""``in`` / ``not in`` with a traced element or container.

Python's ``in`` on a tuple or list asks ``item is x or item == x`` for each item in order and returns a
bool; with a traced scalar the converted function ORs the comparisons at run time and returns a scalar
bool. Each case is checked against eager Python on concrete inputs (``convert``), traced inputs
(``jit``) and a static element (``static_argnums``, Python's own ``in``); what eager Python refuses
(several elements compared at once, hashing a JAX array) is a located error naming the user's line.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import assert_equivalent, where

import autograph_lite

I32, F32 = jnp.int32, jnp.float32
TABLE = {9: "nine", 10: "ten"}
NUMBERS = np.array([[1, 9], [2, 3]], np.int32)


def in_tuple(x):
    return x in (32, 9, 10)


def not_in_list(x):
    return x not in [32, 9, 10]


def in_range(x):
    return x in range(-2, 12, 3)


def in_descending_range(x):
    return x in range(10, -3, -4)


def in_empty(x):
    return x in (), x not in []  # noqa: RUF060 - Python's constant answer, kept with a traced x


def in_mixed(x):
    return x in ("a", None, 2.5, 9), x not in ("a", None)


def in_test_of_if(x):
    if x in (32, 9, 10):
        return x * 2
    return x - 1


def not_in_test_of_while(x):
    steps = 0
    while x not in [0, 1]:
        x = abs(x) // 2
        steps += 1
    return x, steps


def in_chain(x, y):
    return x < y in (3, 4)


def in_ternary(x):
    return 1.0 if x in (2, 3) else -1.0


def in_values(x):
    return x in TABLE.values(), x in list(TABLE)


def in_array_items(x, y):
    return x in (y, jnp.int32(4), 7)


def element_in_array(x, xs):
    return x in xs, x not in xs


def element_in_numpy_array(x):
    return x in NUMBERS


SCALAR_INPUTS = [9, 10, 32, 0, 1, 4, 7, -2, 11, 13]


@pytest.mark.parametrize("fn", [in_tuple, not_in_list, in_range, in_descending_range, in_empty, in_mixed,
                                in_test_of_if, not_in_test_of_while, in_ternary, in_values, element_in_numpy_array])
@pytest.mark.parametrize("value", SCALAR_INPUTS)
def test_traced_int_element_matches_eager(fn, value):
    assert_equivalent(fn, I32(value))
    assert_equivalent(fn, value, static_argnums=(0,))


@pytest.mark.parametrize("fn", [in_tuple, not_in_list, in_range, in_descending_range, in_test_of_if, in_ternary])
@pytest.mark.parametrize("value", [9.0, 9.5, 1.0, -2.0, 4.0, float("nan")])
def test_traced_float_element_matches_eager(fn, value):
    assert_equivalent(fn, F32(value))


@pytest.mark.parametrize("value", [True, False])
def test_traced_bool_element_compares_as_a_number(value):
    for fn in (in_tuple, in_range, in_ternary, not_in_list):
        assert_equivalent(fn, jnp.bool_(value))


def test_one_element_array_has_the_truth_of_its_element():
    for fn in (in_tuple, in_range, not_in_list):
        assert_equivalent(fn, jnp.array([9], I32))
        assert_equivalent(fn, jnp.array([5], I32))


@pytest.mark.parametrize("x, y", [(2, 3), (3, 3), (2, 4), (5, 4)])
def test_in_inside_a_chained_comparison(x, y):
    assert_equivalent(in_chain, I32(x), I32(y))


@pytest.mark.parametrize("x, y", [(4, 0), (3, 3), (7, 1), (5, 6)])
def test_items_that_are_traced_or_concrete_arrays(x, y):
    assert_equivalent(in_array_items, I32(x), I32(y))
    assert_equivalent(in_array_items, x, I32(y), static_argnums=(0,))


@pytest.mark.parametrize("x", [3, 9, 0])
def test_traced_one_dimensional_container_uses_jax_rule(x):
    assert_equivalent(element_in_array, I32(x), jnp.array([1, 9, 3], I32))
    assert_equivalent(element_in_array, x, jnp.array([1, 9, 3], I32), static_argnums=(0,))
    assert_equivalent(element_in_array, I32(x), jnp.zeros((0,), I32))


def test_result_is_a_scalar_bool_usable_as_a_value():
    result = autograph_lite.jit(in_tuple)(I32(9))
    assert result.shape == () and result.dtype == jnp.bool_ and bool(result)
    counted = autograph_lite.jit(lambda x: jnp.sum(jnp.array([x in (1, 2), x not in (1, 2)])))
    assert int(counted(I32(2))) == 1


def test_vmap_and_grad_through_a_membership_test():
    batched = jax.vmap(autograph_lite.convert(in_test_of_if))(jnp.array([9, 5, 32], I32))
    np.testing.assert_array_equal(batched, [18, 4, 64])
    gradient = jax.grad(autograph_lite.convert(in_ternary_scaled))(F32(2.0))
    assert float(gradient) == 3.0


def in_ternary_scaled(x):
    return x * 3.0 if x in (2, 3) else -x


def test_rewrite_routes_single_in_through_the_runtime():
    source = autograph_lite.to_source(in_tuple)
    assert "_ag.compare(x, 'in', lambda: (32, 9, 10))" in source


# --- refusals: what eager Python raises on, located at the user's line ---------------------------------


def vector_in_tuple(v):
    return v in (1, 2)


def vector_in_range(v):
    if v in range(3):
        return 1
    return 0


def element_in_table(x):
    return x in TABLE


def element_in_set(x):
    if x not in {1, 2}:
        return x
    return -x


def vector_in_array(v, xs):
    return v in xs


def element_in_matrix(x, xs):
    return x in xs


def _refusal(fn, *args):
    with pytest.raises(autograph_lite.TracedPredicateError) as caught:
        autograph_lite.jit(fn)(*args)
    return caught.value


def test_several_elements_compared_at_once_are_a_located_error():
    with pytest.raises(ValueError, match="ambiguous"):
        vector_in_tuple(jnp.array([1, 5]))  # eager
    error = _refusal(vector_in_tuple, jnp.array([1, 5]))
    assert "shape (2,)" in str(error) and "jnp.isin" in error.hint
    assert f"{error.location.filename}:{error.location.lineno}" == where(vector_in_tuple, "return v in")
    error = _refusal(vector_in_range, jnp.array([1, 5]))
    assert "`in range(...)`" in str(error) and "jnp.isin" in error.hint
    assert f"{error.location.filename}:{error.location.lineno}" == where(vector_in_range, "if v in")


@pytest.mark.parametrize("fn", [element_in_table, element_in_set])
def test_hashing_a_traced_element_is_a_located_error(fn):
    with pytest.raises(TypeError, match="unhashable"):
        fn(I32(1))  # eager: a JAX array has no hash
    assert fn(1) == autograph_lite.jit(fn, static_argnums=(0,))(1)
    error = _refusal(fn, I32(1))
    assert "hashes the element" in str(error) and "tuple(keys)" in error.hint
    assert error.location.filename == __file__


def test_jax_container_needs_a_vector_and_a_scalar():
    with pytest.raises(ValueError, match="one-dimensional"):
        element_in_matrix(I32(1), jnp.ones((2, 2), I32))  # eager: JAX's own rule
    error = _refusal(element_in_matrix, I32(1), jnp.ones((2, 2), I32))
    assert "shape (2, 2)" in str(error) and "jnp.isin" in error.hint
    assert f"{error.location.filename}:{error.location.lineno}" == where(element_in_matrix, "return x in")
    error = _refusal(vector_in_array, jnp.ones(2, I32), jnp.ones(3, I32))
    assert "element shape (2,)" in str(error)


def test_range_bounds_outside_the_element_dtype_are_a_located_error():
    error = _refusal(lambda x: x in range(2**40, 2**40 + 3), I32(1))
    assert "do not fit in int32" in str(error)


def in_range_with_a_traced_bound(t, n):
    return t in range(2, n)


def in_a_falling_range_with_a_traced_start(t, n):
    return t not in range(n, -3, -2)


@pytest.mark.parametrize("t", [-3, -1, 0, 1, 2, 3, 4, 5, 7, 8])
def test_a_range_with_a_traced_bound_is_tested_by_its_bounds(t):
    for fn in (in_range_with_a_traced_bound, in_a_falling_range_with_a_traced_start):
        assert bool(autograph_lite.jit(fn)(jnp.int32(t), jnp.int32(7))) == fn(t, 7)

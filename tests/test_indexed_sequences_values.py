"""A Python list, tuple or range indexed by a traced integer: the values it gives (issue #14, item 6).

``TORQUES[a]`` with a traced ``a`` picks its number from a constant array, weakly typed as the Python
scalar; ``MOVES[a](p)`` calls the function ``a`` picks as one ``lax.switch``; arrays and pytrees of
one shape are stacked. Each case is checked against eager Python on concrete inputs (``convert``),
traced inputs (``jit``) and a static index (``static_argnums``), for every index, negative ones
included, and under grad and vmap; plain array indexing costs no equation, and ``for i in
jnp.arange(k)`` with a static ``k`` is as ``range(k)``. What eager Python refuses, or what no single
staged value can stand for: tests/test_indexed_sequences_errors.py.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import assert_equivalent, assert_same, count_equations, primitives

import autograph_lite

I32, F32 = jnp.int32, jnp.float32
TORQUES = [-1.0, 0.0, 1.0]
STEPS = (3, -4, 5, 7)
FLAGS = [True, False, True]
MIXED_NUMBERS = [1, 2.5, True]
ROWS = [jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0]), np.array([5.0, 6.0], np.float32)]
POINTS = ({"p": F32(1.0), "v": (I32(2), np.float32(0.5))}, {"p": F32(-1.0), "v": (I32(-3), np.float32(1.5))})


ODDS = range(1, 12, 2)


def move_left(p):
    return p - 1.0


def move_right(p):
    if p > 0:  # a traced `if` of the function's own, converted with it
        return p * 2.0
    return p + 1.0


MOVES = [move_left, lambda p: p * 0.5, move_right, jnp.sin]


def every_index(length):
    return list(range(-length, length))


# --- numbers -------------------------------------------------------------------------------------


def torque(x, a):
    return x + TORQUES[a]


def step(x, a):
    return x * STEPS[a]


def flag(a):
    return FLAGS[a]


def mixed_number(a):
    return MIXED_NUMBERS[a] * 2


def local_numbers(x, a):
    gains = [0.5, x, 2.0 * x]  # built in the function, one element traced
    return gains[a] + 1.0


def odd(a):
    return ODDS[a]


@pytest.mark.parametrize("a", every_index(3))
def test_numbers_from_a_global_list_and_tuple(a):
    assert_equivalent(torque, F32(2.0), a)
    assert_equivalent(torque, F32(2.0), a, static_argnums=1)
    assert_equivalent(torque, F32(2.0), I32(a))
    assert_equivalent(flag, I32(a))
    assert_equivalent(mixed_number, I32(a))
    assert_equivalent(local_numbers, F32(3.0), I32(a))


@pytest.mark.parametrize("a", every_index(4))
def test_ints_from_a_tuple(a):
    assert_equivalent(step, I32(5), I32(a))
    assert_equivalent(step, F32(0.5), a, static_argnums=1)


@pytest.mark.parametrize("a", every_index(len(ODDS)))
def test_items_of_a_range(a):
    assert_equivalent(odd, I32(a))


def _dtype_and_weakness(value):
    aval = jax.typeof(value)
    return aval.dtype, aval.weak_type


@pytest.mark.parametrize(("fn", "x"), [
    (torque, jnp.bfloat16(2.0)), (torque, F32(2.0)), (step, I32(5)), (step, jnp.int8(5)), (step, jnp.uint8(5)),
    (step, jnp.bfloat16(0.5)),
])
def test_a_number_is_weakly_typed_as_the_python_scalar_it_stands_for(fn, x):
    """``x_bf16 + TORQUES[a]`` stays bf16 and ``int8 * STEPS[a]`` int8, as in eager Python."""
    expected = fn(x, I32(1))
    result = autograph_lite.jit(fn)(x, I32(1))
    assert _dtype_and_weakness(result) == _dtype_and_weakness(expected)


@pytest.mark.parametrize(("fn", "weak"), [(flag, False), (odd, True), (mixed_number, True)])
def test_the_item_itself_keeps_the_python_scalar_type(fn, weak):
    jaxpr = jax.make_jaxpr(autograph_lite.convert(fn))(I32(1))
    (aval,) = jaxpr.out_avals
    assert aval.weak_type == weak
    assert aval.dtype == jnp.result_type(fn(I32(1)))


def test_an_unsigned_or_narrow_index_is_counted_as_python_counts_it():
    for a in (jnp.uint8(2), jnp.int8(-1), jnp.uint32(0), jnp.int16(-3)):
        assert_equivalent(torque, F32(2.0), a)
        assert_equivalent(odd, a)


# --- arrays and pytrees --------------------------------------------------------------------------


def row(a):
    return ROWS[a] * 2.0


def point(a):
    return POINTS[a]


def local_rows(x, a):
    rows = (x, x + 1.0, jnp.ones_like(x))
    return rows[a].sum()


@pytest.mark.parametrize("a", every_index(3))
def test_arrays_of_one_shape_are_stacked(a):
    assert_equivalent(row, I32(a))
    assert_equivalent(local_rows, jnp.arange(3.0), I32(a))


@pytest.mark.parametrize("a", every_index(2))
def test_pytrees_of_one_structure_are_stacked_leaf_by_leaf(a):
    assert_equivalent(point, I32(a))


def test_strings_that_are_all_equal_need_no_index():
    def length_of_word(a):
        return len(["same", "same"][a])

    assert autograph_lite.jit(length_of_word)(I32(1)) == 4


# --- functions: one lax.switch ---------------------------------------------------------------------


def moves(p, a):
    return MOVES[a](p)


def keyword_moves(p, a):
    scalings = (lambda p, scale=1.0: p * scale, lambda p, scale=1.0: p + scale)
    return scalings[a](p, scale=3.0)


def trajectory(p, actions):
    for t in range(actions.shape[0]):
        p = MOVES[actions[t]](p)
    return p


def staged_trajectory(p, actions):
    for t in autograph_lite.stage(range(actions.shape[0])):
        p = MOVES[actions[t]](p)
    return p


@pytest.mark.parametrize("a", every_index(4))
@pytest.mark.parametrize("p", [1.5, -2.0])
def test_functions_picked_by_a_traced_index_are_one_switch(p, a):
    assert_equivalent(moves, F32(p), I32(a))
    assert_equivalent(moves, F32(p), a, static_argnums=1)
    assert_equivalent(keyword_moves, F32(p), I32(a % 2))


def test_switch_is_the_only_branching_primitive():
    assert {"switch", "cond"} & primitives(autograph_lite.convert(moves), F32(1.0), I32(2))
    assert "switch" not in primitives(autograph_lite.convert(moves), F32(1.0), 2)  # a concrete index


ACTIONS = jnp.array([0, 2, 3, 1, -1, 2], I32)


def test_inside_loops_staged_or_python():
    assert_equivalent(trajectory, F32(0.5), ACTIONS)
    assert_equivalent(staged_trajectory, F32(0.5), ACTIONS)
    assert "scan" in primitives(autograph_lite.convert(staged_trajectory), F32(0.5), ACTIONS)
    # "auto" keeps a loop whose body indexes a Python list with a traced value in Python, as before
    explained = str(autograph_lite.explain(trajectory, F32(0.5), ACTIONS))
    assert "Python loop (its body indexes a Python list with a traced value)" in explained
    assert "lax.switch over 4 functions" in explained


def test_grad_and_vmap_with_a_batched_index():
    gradient = jax.grad(autograph_lite.convert(moves))(F32(1.5), I32(2))
    assert float(gradient) == 2.0
    assert float(jax.grad(autograph_lite.convert(torque))(F32(1.5), I32(0))) == 1.0
    indices = jnp.array([0, 1, 2, 3, -1, -4], I32)
    batched = jax.vmap(autograph_lite.convert(moves), in_axes=(None, 0))(F32(1.5), indices)
    assert_same(batched, np.array([moves(F32(1.5), int(a)) for a in indices]))
    batched_numbers = jax.vmap(autograph_lite.convert(torque), in_axes=(None, 0))(F32(1.5), indices[:3])
    assert_same(batched_numbers, np.array([2.5 + TORQUES[a] - 1.0 for a in range(3)]))
    staged_gradient = jax.grad(autograph_lite.convert(staged_trajectory))(F32(0.5), ACTIONS)
    eager_gradient = jax.grad(staged_trajectory)(F32(0.5), ACTIONS)
    assert_same(staged_gradient, eager_gradient)


def test_python_scalars_returned_by_switched_functions_take_the_shared_dtype():
    def pick(x, a):
        return [lambda: 1, lambda: x * 2.0, lambda: 2.5][a]()

    for a in range(3):
        assert_equivalent(pick, F32(1.5), I32(a))


# --- what the rewrite leaves alone ---------------------------------------------------------------


def lookups(x, table, i):
    return x[i] + x[0] + x[-1] + x[1:].sum() + table["k"] + x.at[i].get()


def test_plain_array_indexing_costs_no_equation():
    args = (jnp.arange(4.0), {"k": F32(1.0)}, I32(2))
    assert count_equations(autograph_lite.convert(lookups), *args) == count_equations(lookups, *args)
    assert_equivalent(lookups, *args)
    source = autograph_lite.to_source(lookups)
    assert "_ag.getitem(x, i) + x[0] + x[-1] + _ag.call(x[1:].sum) + table['k'] + _ag.call(x.at[i].get)" in source


def test_a_dict_with_a_concrete_key_is_indexed_as_python():
    assert_equivalent(lambda x, k: {"a": x, "b": -x}[k], F32(1.0), "b", static_argnums=1)


# --- `for i in jnp.arange(k)`, a static k: as `range(k)` ---------------------------------------------


def arange_sum(x):
    total = 0.0
    for i in jnp.arange(4):
        total = total + x * i
    return total


def arange_break(x):
    found = -1
    for i in jnp.arange(5):
        if x * i > 6.0:
            found = i
            break
    return found


def arange_grows(x):
    ys = x[:1]
    for i in jnp.arange(3):
        ys = jnp.concatenate([ys, x[:1] * i])
    return ys


def arange_indexes_list(x):
    for i in jnp.arange(3):
        x = x + TORQUES[i]
    return x


@pytest.mark.parametrize("x", [0.5, 2.5, 7.0])
def test_for_over_a_static_arange_is_like_range(x):
    assert_equivalent(arange_sum, F32(x))
    assert_equivalent(arange_break, F32(x))
    assert_equivalent(arange_grows, jnp.array([x, 1.0]))
    assert_equivalent(arange_indexes_list, F32(x))
    assert_same(jax.grad(autograph_lite.convert(arange_sum))(F32(x)), jax.grad(arange_sum)(F32(x)))

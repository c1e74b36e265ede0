"""Conditional expressions, branches under jax transformations, and more shapes of branch bodies.

Checked against eager Python with ``support.assert_equivalent`` like tests/test_conditionals.py.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import STAGED_CHOICE, assert_equivalent, assert_same, primitives
from test_conditionals import F32, _never_traced, _staged, if_elif_else, if_else
from test_conditionals_returns import early_return_then_code

import autograph_lite

# --- conditional expressions ------------------------------------------------------------------------


def ternary(x):
    return x * 2 if x > 0 else -x


def nested_ternary(x):
    return x if x > 1 else (x * 10 if x > -1 else x - 10)


def ternary_in_expression(x, y):
    return (x if x > y else y) + jnp.sin(x if y > 0 else y)


def lazy_ternary(x, mode):
    return x * 2 if mode == "ok" else _never_traced(x)


def lazy_ternary_other_side(x, mode):
    return _never_traced(x) if mode != "ok" else x + 1


@pytest.mark.parametrize("x", [2.0, 0.5, -0.5, -3.0])
def test_ternaries(x):
    assert_equivalent(ternary, F32(x))
    assert_equivalent(nested_ternary, F32(x))
    assert_equivalent(ternary_in_expression, F32(x), F32(-x / 2))


def test_traced_ternary_stages_cond():
    assert _staged(ternary, F32(1.0)) & STAGED_CHOICE


def test_lambda_ternary_converts():
    assert_equivalent(lambda x: x * 2 if x > 0 else -x, F32(3.0))
    assert_equivalent(lambda x: x * 2 if x > 0 else -x, F32(-3.0))


@pytest.mark.parametrize("fn", [lazy_ternary, lazy_ternary_other_side])
def test_concrete_ternary_never_evaluates_the_untaken_side(fn):
    assert_equivalent(fn, F32(3.0), "ok", static_argnums=1)
    assert not primitives(lambda x: autograph_lite.convert(fn)(x, "ok"), F32(1.0)) & STAGED_CHOICE


def ternary_python_values(x, flag):
    return "yes" if flag else None


def test_concrete_ternary_returns_python_values():
    converted = autograph_lite.convert(ternary_python_values)
    assert converted(1.0, 1) == "yes" and converted(1.0, 0) is None


def ternary_weak_types(x):
    return 0 if x > 0 else x * 2.0


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_traced_ternary_unifies_weak_scalars(x):
    assert_equivalent(ternary_weak_types, F32(x))


# --- interplay with jax transformations --------------------------------------------------------------


def test_grad_through_a_converted_if():
    grad = jax.grad(autograph_lite.convert(if_else))
    assert float(grad(F32(2.0))) == 2.0
    assert float(grad(F32(-2.0))) == -1.0


def test_vmap_of_a_converted_if():
    xs = jnp.asarray([2.0, -1.0, 0.0, 3.5], F32)
    got = jax.vmap(autograph_lite.convert(if_elif_else))(xs)
    assert_same(got, np.asarray([if_elif_else(float(x)) for x in xs], np.float32))


def test_vmap_of_a_converted_return_in_branches():
    xs = jnp.asarray([2.0, -1.0, 0.0], F32)
    got = jax.vmap(autograph_lite.convert(early_return_then_code))(xs)
    assert_same(got, np.asarray([early_return_then_code(float(x)) for x in xs], np.float32))


def test_vmap_of_a_converted_ternary():
    xs = jnp.asarray([2.0, -1.0, 0.5], F32)
    got = jax.vmap(autograph_lite.convert(nested_ternary))(xs)
    assert_same(got, np.asarray([nested_ternary(float(x)) for x in xs], np.float32))


# --- more shapes of branch bodies -------------------------------------------------------------------


def python_ints_in_branches(x):
    if x > 0:
        y = 1
    else:
        y = 2
    return y


def python_bools_in_branches(x):
    if x > 0:
        flag = True
    else:
        flag = False
    return flag


def ternary_of_python_numbers(x):
    return 1 if x > 0 else 2.5


def dict_item_update_in_branch(x):
    d = {"a": x, "b": x + 1}
    if x > 0:
        d["a"] = x * 2
    return d


def list_item_update_in_branch(x):
    values = [x, x]
    if x > 0:
        values[0] = x * 2
    return values


def elif_returns_constants(x):
    if x > 2:
        return 2
    elif x > 1:
        return 1
    elif x > 0:
        return 0
    return -1


def augmented_assignments_in_branch(x, y):
    if x > y:
        x += y
        y -= 1
    return x, y


def tuple_unpacking_in_branches(x):
    if x > 0:
        a, b = x, x * 2
    else:
        a, b = -x, x
    return a + b


@pytest.mark.parametrize("fn", [
    python_ints_in_branches, python_bools_in_branches, ternary_of_python_numbers, dict_item_update_in_branch,
    list_item_update_in_branch, tuple_unpacking_in_branches,
])
@pytest.mark.parametrize("x", [1.0, -1.0])
def test_branch_bodies(fn, x):
    assert_equivalent(fn, F32(x))


@pytest.mark.parametrize("x", [3.0, 1.5, 0.5, -0.5])
def test_elif_chain_of_returns(x):
    assert_equivalent(elif_returns_constants, F32(x))


@pytest.mark.parametrize("x, y", [(2.0, 1.0), (0.0, 1.0)])
def test_augmented_assignments_in_a_branch(x, y):
    assert_equivalent(augmented_assignments_in_branch, F32(x), F32(y))

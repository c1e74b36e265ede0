"""``if`` / ``elif`` / ``else``, ``return`` inside branches and conditional expressions.

Every function here is checked against eager Python on inputs that take every path, both on
concrete inputs (``convert``: Python semantics) and traced ones (``jit``: ``lax.cond``), with
``support.assert_equivalent``. Concrete predicates (static arguments, shapes) must keep Python's
semantics exactly: the branch not taken is never traced, which the ``_never_traced`` helper proves by
raising if it ever runs.
"""

from __future__ import annotations

import collections

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import assert_equivalent, assert_same, primitives

import autograph_lite

F32 = jnp.float32


def _never_traced(*_):
    raise AssertionError("the branch not taken by a concrete condition was traced")


def _jit_with_python_leaves(fn, *args):
    """Run ``convert(fn)`` under ``jax.jit`` on traced ``args``; return its result with the array leaves
    computed and the Python leaves (strings, None) as the trace produced them."""
    converted = autograph_lite.convert(fn)
    captured = []

    def traced(*traced_args):
        leaves, treedef = jax.tree_util.tree_flatten(converted(*traced_args))
        captured.append((treedef, leaves))
        return [leaf for leaf in leaves if isinstance(leaf, jax.Array)]

    arrays = iter(jax.jit(traced)(*args))
    treedef, leaves = captured[0]
    return jax.tree_util.tree_unflatten(treedef, [next(arrays) if isinstance(l, jax.Array) else l for l in leaves])


def _staged(fn, *args):
    """The primitives of the converted ``fn`` traced on ``args``."""
    return primitives(autograph_lite.convert(fn), *args)


# --- if / elif / else on a traced predicate -------------------------------------------------------


def if_else(x):
    if x > 0:
        y = x * 2
    else:
        y = -x
    return y


def if_elif_else(x):
    if x > 1:
        y = x * 3
    elif x > -1:
        y = x + 10
    else:
        y = x - 10
    return y


def if_without_else(x):
    y = x + 1
    if x > 0:
        y = y * 2
    return y


def several_variables(x):
    a = x
    b = x + 1
    c = jnp.zeros_like(x)
    if x > 0:
        a = a * 2
        b = b - 1
    else:
        c = x * 3
        a = a + 1
    return a, b, c


def only_else_modifies(x):
    y = x
    if x > 0:
        pass
    else:
        y = y - 100
    return y


@pytest.mark.parametrize("fn", [if_else, if_without_else, several_variables, only_else_modifies])
@pytest.mark.parametrize("x", [2.5, -1.5, 0.0])
def test_two_way_if_matches_eager(fn, x):
    assert_equivalent(fn, F32(x))
    assert_equivalent(fn, x)


@pytest.mark.parametrize("x", [3.0, 1.0, 0.5, -1.0, -4.0])
def test_elif_chain_matches_eager_on_every_path(x):
    assert_equivalent(if_elif_else, F32(x))


@pytest.mark.parametrize("fn", [if_else, if_elif_else, if_without_else, several_variables, only_else_modifies])
def test_traced_predicate_stages_cond(fn):
    assert "cond" in _staged(fn, F32(1.0))


def test_elif_chain_traces_no_python_bool():
    # Under jit every predicate is traced: tracing must not call bool() on a tracer.
    jitted = autograph_lite.jit(if_elif_else)
    for x in (3.0, 0.0, -3.0):
        assert float(jitted(F32(x))) == pytest.approx(if_elif_else(x))


def several_conditions(x, y):
    if x > 0 and y > 0:
        z = x * y
    elif x > 0 or y > 0:
        z = x + y
    elif not x < -5:
        z = x - y
    else:
        z = jnp.zeros_like(x)
    return z


@pytest.mark.parametrize("x, y", [(1.0, 2.0), (1.0, -2.0), (-1.0, 2.0), (-1.0, -2.0), (-6.0, -2.0)])
def test_boolean_predicates_in_elif_chain(x, y):
    assert_equivalent(several_conditions, F32(x), F32(y))


# --- predicates of every dtype, 0-d and size-1 ------------------------------------------------------


def truthy(p, x):
    if p:
        y = x + 1
    else:
        y = x - 1
    return y


@pytest.mark.parametrize(
    "p",
    [
        jnp.int32(0), jnp.int32(3), jnp.int32(-2),
        jnp.float32(0.0), jnp.float32(2.5), jnp.float32(-0.5),
        jnp.bool_(True), jnp.bool_(False),
        jnp.array([0], jnp.int32), jnp.array([7], jnp.int32),
        jnp.array([[0.0]], jnp.float32), jnp.array([[1.5]], jnp.float32),
        jnp.array([True]),
    ],
    ids=lambda p: f"{p.dtype}{list(p.shape)}={np.asarray(p).ravel()[0]}",
)
def test_array_truthiness_as_python(p):
    assert_equivalent(truthy, p, F32(10.0))
    assert "cond" in _staged(truthy, p, F32(10.0))


@pytest.mark.parametrize("p", [0, 5, 0.0, -1.5, True, False, None, [], [0], "", "a"])
def test_python_truthiness_of_concrete_predicates(p):
    # Python values stay Python: no cond, and the Python truth rules (lists, None, strings).
    assert autograph_lite.convert(truthy)(p, 10.0) == truthy(p, 10.0)
    assert "cond" not in primitives(lambda x: autograph_lite.convert(truthy)(p, x), F32(10.0))


def numpy_predicate(x, table):
    if table[0] > 0:
        return x + table[1]
    return x - table[1]


@pytest.mark.parametrize("table", [np.array([1.0, 5.0], np.float32), np.array([-1.0, 5.0], np.float32)])
def test_numpy_array_is_a_concrete_predicate(table):
    converted = autograph_lite.convert(numpy_predicate)
    assert "cond" not in primitives(lambda x: converted(x, table), F32(1.0))
    np.testing.assert_allclose(jax.jit(lambda x: converted(x, table))(F32(1.0)), numpy_predicate(1.0, table))


# --- concrete predicates: the untaken branch is never traced -----------------------------------------


def static_mode(x, mode):
    if mode == "double":
        y = x * 2
    elif mode == "negate":
        y = -x
    else:
        y = _never_traced(x)
    return y


@pytest.mark.parametrize("mode", ["double", "negate"])
def test_static_argument_takes_python_branch_only(mode):
    assert_equivalent(static_mode, F32(3.0), mode, static_argnums=1)
    jitted = autograph_lite.jit(static_mode, static_argnames="mode")
    assert float(jitted(F32(3.0), mode=mode)) == static_mode(3.0, mode)


def test_static_predicate_stages_no_cond():
    converted = autograph_lite.convert(static_mode)
    assert "cond" not in primitives(lambda x: converted(x, "double"), F32(1.0))


def shape_predicate(x):
    if x.shape[0] > 2:
        return x[:3].sum()
    return _never_traced(x)


def test_shape_is_a_concrete_predicate_under_jit():
    assert_equivalent(shape_predicate, jnp.arange(5.0))
    assert "cond" not in _staged(shape_predicate, jnp.arange(5.0))


def static_falls_off_the_end(x, flag):
    if flag:
        return x * 2


@pytest.mark.parametrize("flag", [True, False])
def test_function_falling_off_the_end_returns_none_with_a_concrete_predicate(flag):
    result = assert_equivalent(static_falls_off_the_end, F32(2.0), flag, static_argnums=1)
    assert (result is None) == (not flag)
    assert (autograph_lite.jit(static_falls_off_the_end, static_argnums=1)(F32(2.0), flag) is None) == (not flag)


def concrete_if_keeps_python_values(x, kind):
    if kind == "pair":
        out = (x, "pair")
    else:
        out = [x, None, {"kind": kind}]
    return out


@pytest.mark.parametrize("kind", ["pair", "list"])
def test_concrete_branches_may_return_different_python_structures(kind):
    converted = autograph_lite.convert(concrete_if_keeps_python_values)
    seen = []

    def traced(x):
        result = converted(x, kind)
        seen.append(result)
        return result[0]

    assert float(jax.jit(traced)(F32(1.0))) == 1.0
    expected = concrete_if_keeps_python_values(F32(1.0), kind)
    assert type(seen[0]) is type(expected)
    assert list(seen[0][1:]) == list(expected[1:])


# --- values carried by a staged if ------------------------------------------------------------------


def weak_scalar_in_one_branch(x):
    if x > 0:
        y = 0
    else:
        y = x * 2.0
    return y


def weak_scalar_in_other_branch(x):
    if x > 0:
        y = x * 2.0
    else:
        y = 1
    return y


@pytest.mark.parametrize("fn", [weak_scalar_in_one_branch, weak_scalar_in_other_branch])
@pytest.mark.parametrize("x", [3.0, -3.0])
def test_weak_python_scalar_unifies_with_float_branch(fn, x):
    assert_equivalent(fn, F32(x))
    out = autograph_lite.jit(fn)(F32(x))
    assert out.dtype == jnp.float32


def int_array_and_python_int(n):
    if n > 2:
        k = n * 3
    else:
        k = 7
    return k


@pytest.mark.parametrize("n", [5, 1])
def test_weak_int_unifies_with_int32(n):
    assert_equivalent(int_array_and_python_int, jnp.int32(n))
    assert autograph_lite.jit(int_array_and_python_int)(jnp.int32(n)).dtype == jnp.int32


def tuple_output(x):
    if x > 0:
        pair = (x, x * 2)
    else:
        pair = (-x, x + 1)
    return pair


def dict_output(x):
    if x > 0:
        d = {"a": x, "b": jnp.stack([x, x])}
    else:
        d = {"a": -x, "b": jnp.stack([x, -x])}
    return d


Point = collections.namedtuple("Point", "x y")


def namedtuple_output(x):
    p = Point(x, x)
    if x > 0:
        p = Point(p.x * 2, p.y)
    else:
        p = Point(p.x, p.y - 3)
    return p


def nested_pytree_output(x):
    state = {"pos": (x, x + 1), "vel": [x * 2]}
    if x < 1:
        state = {"pos": (x - 1, x), "vel": [x * 3]}
    return state


@pytest.mark.parametrize("fn", [tuple_output, dict_output, namedtuple_output, nested_pytree_output])
@pytest.mark.parametrize("x", [2.0, -2.0])
def test_pytrees_as_branch_outputs(fn, x):
    result = assert_equivalent(fn, F32(x))
    assert "cond" in _staged(fn, F32(x))
    assert jax.tree_util.tree_structure(autograph_lite.jit(fn)(F32(x))) == jax.tree_util.tree_structure(result)


def python_constant_kept_through_cond(x):
    label = "unit"
    if x > 0:
        y = x * 2
    else:
        y = x
    return y, label


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_python_values_not_assigned_in_branches_pass_through(x):
    y, label = _jit_with_python_leaves(python_constant_kept_through_cond, F32(x))
    assert label == "unit"
    assert_same(y, python_constant_kept_through_cond(F32(x))[0])


def same_python_value_in_both_branches(x):
    if x > 0:
        y, tag = x, "same"
    else:
        y, tag = -x, "same"
    return y, tag


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_equal_python_values_in_both_branches_are_fine(x):
    y, tag = _jit_with_python_leaves(same_python_value_in_both_branches, F32(x))
    assert tag == "same"
    assert_same(y, same_python_value_in_both_branches(F32(x))[0])


def branch_local_temporary(x):
    if x > 0:
        tmp = x * 3
        y = tmp + 1
    else:
        y = x
    return y


def test_branch_temporaries_are_not_carried():
    source = autograph_lite.to_source(branch_local_temporary)
    assert "'tmp'" not in source and "('y',)" in source
    assert_equivalent(branch_local_temporary, F32(2.0))
    assert_equivalent(branch_local_temporary, F32(-2.0))


def variable_only_defined_in_one_branch_but_dead(x):
    if x > 0:
        tmp = x * 2
        y = tmp
    else:
        y = x
    return y


def test_variable_assigned_in_one_branch_is_fine_when_dead_afterwards():
    assert_equivalent(variable_only_defined_in_one_branch_but_dead, F32(1.0))
    assert_equivalent(variable_only_defined_in_one_branch_but_dead, F32(-1.0))


def assigned_in_one_branch_concrete(x, flag):
    if flag:
        z = x * 2
    return z


def test_variable_assigned_in_one_branch_is_fine_when_the_predicate_is_concrete():
    assert_equivalent(assigned_in_one_branch_concrete, F32(2.0), True, static_argnums=1)


def test_reading_a_variable_a_concrete_if_left_unbound_raises_unbound_local_error():
    # Eager Python raises UnboundLocalError at `return z`; the converted function must not hand back
    # a stand-in object instead.
    with pytest.raises(UnboundLocalError):
        assigned_in_one_branch_concrete(F32(2.0), False)
    with pytest.raises(UnboundLocalError, match="'z'"):
        autograph_lite.convert(assigned_in_one_branch_concrete)(F32(2.0), False)


def array_shapes_in_branches(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = jnp.flip(x)
    return y


@pytest.mark.parametrize("x", [[1.0, 2.0, 3.0], [-1.0, -2.0, 0.5]])
def test_vector_values_with_a_reduced_predicate(x):
    assert_equivalent(array_shapes_in_branches, jnp.asarray(x, F32))


# --- return inside branches -------------------------------------------------------------------------


def return_in_both_branches(x):
    if x > 0:
        return x * 2
    else:
        return x - 1


def early_return_then_code(x):
    if x > 0:
        return x * 2
    y = x - 1
    y = y * 3
    return y


def return_in_else_only(x):
    y = x + 1
    if x > 0:
        y = y * 4
    else:
        return -y
    return y + 10


def nested_returns(x, y):
    if x > 0:
        if y > 0:
            return x + y
        z = x - y
        return z * 2
    elif y > 0:
        return y
    return x * y


def return_in_elif(x):
    if x > 2:
        return x
    elif x > 0:
        x = x * 10
    else:
        return -x
    return x + 1


def return_after_nested_if_without_return(x, y):
    if x > 0:
        if y > 0:
            x = x + y
        else:
            x = x - y
        return x
    return -x


@pytest.mark.parametrize("fn", [return_in_both_branches, early_return_then_code, return_in_else_only, return_in_elif])
@pytest.mark.parametrize("x", [3.0, 1.0, 0.0, -2.0])
def test_returns_in_branches(fn, x):
    assert_equivalent(fn, F32(x))
    assert "cond" in _staged(fn, F32(x))


@pytest.mark.parametrize("fn", [nested_returns, return_after_nested_if_without_return])
@pytest.mark.parametrize("x, y", [(1.0, 2.0), (1.0, -2.0), (-1.0, 2.0), (-1.0, -2.0)])
def test_returns_in_nested_ifs(fn, x, y):
    assert_equivalent(fn, F32(x), F32(y))


def return_pytree_in_branches(x):
    if x > 0:
        return {"v": x, "w": (x, x)}
    return {"v": -x, "w": (x, -x)}


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_returning_pytrees_from_branches(x):
    assert_equivalent(return_pytree_in_branches, F32(x))


def return_mixes_concrete_and_traced(x, flag):
    if flag:
        return x
    if x > 0:
        return x * 2
    return x * 3


@pytest.mark.parametrize("flag", [True, False])
@pytest.mark.parametrize("x", [1.0, -1.0])
def test_concrete_then_traced_return(flag, x):
    assert_equivalent(return_mixes_concrete_and_traced, F32(x), flag, static_argnums=1)


# --- nested ifs, ifs on several variables -----------------------------------------------------------


def nested_ifs(x, y):
    z = x
    if x > 0:
        if y > 0:
            z = x + y
        else:
            z = x - y
            if z > 5:
                z = z / 2
    else:
        if y > x:
            z = y
    return z


@pytest.mark.parametrize("x, y", [(1.0, 2.0), (1.0, -2.0), (1.0, -9.0), (-1.0, 2.0), (-1.0, -2.0)])
def test_nested_ifs(x, y):
    assert_equivalent(nested_ifs, F32(x), F32(y))


def nested_concrete_in_traced(x, n):
    if x > 0:
        if n > 1:
            y = x * n
        else:
            y = _never_traced(x)
    else:
        y = x
    return y


def test_concrete_if_inside_traced_if_keeps_python():
    assert_equivalent(nested_concrete_in_traced, F32(2.0), 3, static_argnums=1)
    assert_equivalent(nested_concrete_in_traced, F32(-2.0), 3, static_argnums=1)


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
    assert "cond" in _staged(ternary, F32(1.0))


def test_lambda_ternary_converts():
    assert_equivalent(lambda x: x * 2 if x > 0 else -x, F32(3.0))
    assert_equivalent(lambda x: x * 2 if x > 0 else -x, F32(-3.0))


@pytest.mark.parametrize("fn", [lazy_ternary, lazy_ternary_other_side])
def test_concrete_ternary_never_evaluates_the_untaken_side(fn):
    assert_equivalent(fn, F32(3.0), "ok", static_argnums=1)
    assert "cond" not in primitives(lambda x: autograph_lite.convert(fn)(x, "ok"), F32(1.0))


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

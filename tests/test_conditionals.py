"""``if`` / ``elif`` / ``else``, ``return`` inside branches and conditional expressions.

Every function here is checked against eager Python on inputs that take every path, both on
concrete inputs (``convert``: Python semantics) and traced ones (``jit``: ``lax.cond``), with
``support.assert_equivalent``. Concrete predicates (static arguments, shapes) must keep Python's
semantics exactly: the branch not taken is never traced, which the ``_never_traced`` helper proves by
raising if it ever runs.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import STAGED_CHOICE, assert_equivalent, primitives

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
    assert _staged(fn, F32(1.0)) & STAGED_CHOICE


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
    assert _staged(truthy, p, F32(10.0)) & STAGED_CHOICE


@pytest.mark.parametrize("p", [0, 5, 0.0, -1.5, True, False, None, [], [0], "", "a"])
def test_python_truthiness_of_concrete_predicates(p):
    # Python values stay Python: no cond, and the Python truth rules (lists, None, strings).
    assert autograph_lite.convert(truthy)(p, 10.0) == truthy(p, 10.0)
    assert not primitives(lambda x: autograph_lite.convert(truthy)(p, x), F32(10.0)) & STAGED_CHOICE


def numpy_predicate(x, table):
    if table[0] > 0:
        return x + table[1]
    return x - table[1]


@pytest.mark.parametrize("table", [np.array([1.0, 5.0], np.float32), np.array([-1.0, 5.0], np.float32)])
def test_numpy_array_is_a_concrete_predicate(table):
    converted = autograph_lite.convert(numpy_predicate)
    assert not primitives(lambda x: converted(x, table), F32(1.0)) & STAGED_CHOICE
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
    assert not primitives(lambda x: converted(x, "double"), F32(1.0)) & STAGED_CHOICE


def shape_predicate(x):
    if x.shape[0] > 2:
        return x[:3].sum()
    return _never_traced(x)


def test_shape_is_a_concrete_predicate_under_jit():
    assert_equivalent(shape_predicate, jnp.arange(5.0))
    assert not _staged(shape_predicate, jnp.arange(5.0)) & STAGED_CHOICE


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

"""``if_stmt`` and ``if_exp`` called directly, with branch functions written as the rewriter writes them.

The rewrite tests check whole functions; these check the operators' contract on its own, the way
JAX's control-flow tests exercise ``lax.cond``: branches that take and return the carried names as a
tuple, compared with the plain-Python ``if`` in four modes. Concrete condition: Python semantics,
only the taken branch runs. Under ``jax.jit``: one ``lax.cond``. Under ``jax.vmap`` with a batched
predicate: a select. Under ``jax.grad`` / ``jax.jvp``: the derivative of the branch taken.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import assert_same, primitives

from autograph_lite.conversion import operators
from autograph_lite.errors import StagingTypeError, TracedPredicateError

_ag = operators("auto")

# No subnormals: XLA on CPU flushes them to zero, which is a property of the backend, not of the operators.
FLOATS = st.floats(min_value=-50.0, max_value=50.0, allow_nan=False, allow_subnormal=False, width=32)
BATCH = jnp.array([-2.0, -0.5, 0.0, 0.5, 3.0])


def scale_or_shift(x: float, a: float, b: float) -> tuple[float, float]:
    """The reference: the plain-Python statement the operator call below stands for."""
    if x > 0.0:
        a = a + x
        b = b * x
    else:
        a = a - 1.0
        b = -b
    return a, b


def scale_or_shift_op(x: Any, a: Any, b: Any, ran: list[str] | None = None) -> tuple[Any, ...]:
    """``scale_or_shift`` as converted code runs it; ``ran`` records which branches were traced or run."""
    log = [] if ran is None else ran

    def if_true(a: Any, b: Any) -> tuple[Any, Any]:
        log.append("true")
        return (a + x, b * x)

    def if_false(a: Any, b: Any) -> tuple[Any, Any]:
        log.append("false")
        return (a - 1.0, -b)

    return _ag.if_stmt(x > 0.0, if_true, if_false, (a, b), ("a", "b"))


_scale_or_shift_jit = jax.jit(scale_or_shift_op)


@pytest.mark.parametrize(("x", "taken"), [(2.0, "true"), (-3.0, "false"), (0.0, "false")])
def test_if_stmt_concrete_runs_only_the_taken_branch_as_python(x: float, taken: str) -> None:
    ran: list[str] = []
    result = scale_or_shift_op(x, 1.0, 4.0, ran)
    assert ran == [taken]
    assert result == scale_or_shift(x, 1.0, 4.0)
    assert all(type(value) is float for value in result), "a concrete `if` must not stage its values"


def test_if_stmt_concrete_branch_may_return_python_values_of_any_type() -> None:
    pick = lambda flag: _ag.if_stmt(flag, lambda v: ("label",), lambda v: (None,), (0,), ("v",))
    assert pick(True) == ("label",)
    assert pick(np.bool_(False)) == (None,)


@given(x=FLOATS, a=FLOATS, b=FLOATS)
def test_if_stmt_under_jit_matches_python(x: float, a: float, b: float) -> None:
    assert_same(_scale_or_shift_jit(x, a, b), scale_or_shift(x, a, b), what="jit(if_stmt)")


def test_if_stmt_with_traced_condition_is_one_cond_tracing_each_branch_once() -> None:
    ran: list[str] = []
    jaxpr = jax.make_jaxpr(lambda x, a, b: scale_or_shift_op(x, a, b, ran))(1.0, 2.0, 3.0)
    assert sorted(ran) == ["false", "true"]
    assert [eqn.primitive.name for eqn in jaxpr.jaxpr.eqns].count("cond") == 1


def test_if_stmt_under_vmap_with_batched_predicate_is_a_select() -> None:
    ones = jnp.ones_like(BATCH)
    batched = jax.vmap(scale_or_shift_op)
    expected = np.array([scale_or_shift(float(x), 1.0, 2.0) for x in BATCH]).T
    assert_same(batched(BATCH, ones, 2.0 * ones), tuple(expected), what="vmap(if_stmt)")
    names = primitives(batched, BATCH, ones, ones)
    assert "select_n" in names and "cond" not in names


def test_if_stmt_under_vmap_with_unbatched_predicate_stays_a_cond() -> None:
    batched = jax.vmap(scale_or_shift_op, in_axes=(None, 0, 0))
    a, b = jnp.arange(3.0), jnp.arange(3.0) + 10.0
    for x in (2.0, -2.0):
        expected = tuple(np.array([scale_or_shift(x, float(ai), float(bi)) for ai, bi in zip(a, b)]).T)
        assert_same(batched(x, a, b), expected, what=f"vmap(if_stmt), x={x}")
    assert "cond" in primitives(batched, 2.0, a, b)


_scale_or_shift_grad = jax.jit(jax.grad(lambda x, a, b: sum(scale_or_shift_op(x, a, b)), argnums=(0, 1, 2)))


@given(x=FLOATS.filter(lambda v: v != 0.0), a=FLOATS, b=FLOATS)
def test_if_stmt_reverse_mode_is_the_gradient_of_the_taken_branch(x: float, a: float, b: float) -> None:
    # d(a + b)/d(x, a, b): true branch (a + x) + b * x, false branch (a - 1) - b.
    expected = (1.0 + b, 1.0, x) if x > 0.0 else (0.0, 1.0, -1.0)
    assert_same(_scale_or_shift_grad(x, a, b), expected, what="grad(if_stmt)")


def test_if_stmt_forward_mode_matches_reverse_mode() -> None:
    for x in (2.5, -1.5):
        _, tangents = jax.jvp(lambda x: scale_or_shift_op(x, 1.0, 3.0), (x,), (1.0,))
        assert_same(tangents, (1.0, 3.0) if x > 0 else (0.0, 0.0), what=f"jvp(if_stmt), x={x}")


# --- pytree carries and Python leaves ----------------------------------------------------------


def grow_or_decay_op(x: Any, params: dict[str, Any], stats: dict[str, Any]) -> tuple[Any, ...]:
    """Two carried names, each a pytree; ``stats["label"]`` is a Python leaf both branches keep."""

    def if_true(params: dict[str, Any], stats: dict[str, Any]) -> tuple[Any, Any]:
        return ({"w": params["w"] * x, "b": params["b"] + 1.0}, {"steps": stats["steps"] + 1, "label": "sgd"})

    def if_false(params: dict[str, Any], stats: dict[str, Any]) -> tuple[Any, Any]:
        return ({"w": params["w"] * 0.5, "b": params["b"]}, {"steps": stats["steps"], "label": "sgd"})

    return _ag.if_stmt(x.sum() > 0, if_true, if_false, (params, stats), ("params", "stats"))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_if_stmt_pytree_carry_under_jit_keeps_structure_and_python_leaves(sign: float) -> None:
    x = sign * jnp.array([1.0, 2.0, 3.0])
    params, steps = {"w": jnp.ones(3), "b": jnp.float32(0.0)}, jnp.int32(4)
    expected_params, expected_stats = grow_or_decay_op(x, params, {"steps": steps, "label": "sgd"})  # Python `if`
    labels: list[Any] = []

    def traced(x: Any, params: dict[str, Any], steps: Any) -> tuple[Any, Any]:
        params_out, stats_out = grow_or_decay_op(x, params, {"steps": steps, "label": "sgd"})
        labels.append(stats_out["label"])
        return params_out, stats_out["steps"]

    params_out, steps_out = jax.jit(traced)(x, params, steps)
    assert labels == ["sgd"], "a Python leaf must come back as the same Python value"
    assert_same((params_out, steps_out), (expected_params, expected_stats["steps"]), what="pytree carry")
    assert int(steps_out) == (5 if sign > 0 else 4)


def test_if_stmt_python_leaf_that_differs_between_traced_branches_is_a_staging_error() -> None:
    def labelled(x: Any) -> tuple[Any, ...]:
        return _ag.if_stmt(x > 0, lambda label: ("up",), lambda label: ("down",), ("none",), ("label",))

    assert labelled(1.0) == ("up",)
    with pytest.raises(StagingTypeError, match="'label' is the string 'up' in the true branch"):
        jax.jit(labelled)(1.0)


def test_if_stmt_weak_python_scalar_is_promoted_as_eager_arithmetic_would() -> None:
    def zero_or_double(x: Any) -> tuple[Any, ...]:
        return _ag.if_stmt(x > 0, lambda: (x * 2.0,), lambda: (0,), (), ("y",))

    for x in (jnp.float32(3.0), jnp.float32(-3.0)):
        (eager,), (jitted,) = zero_or_double(x), jax.jit(zero_or_double)(x)
        assert float(jitted) == float(eager) and jitted.dtype == jnp.float32


def test_if_stmt_name_set_in_one_branch_only() -> None:
    unset = _ag.Undefined("y")
    only_true = lambda x: _ag.if_stmt(x > 0, lambda y: (x + 1.0,), lambda y: (y,), (unset,), ("y",))
    assert only_true(1.0) == (2.0,)
    (still_unset,) = only_true(-1.0)  # Python: y stays unbound, and reading it raises Python's own error
    with pytest.raises(UnboundLocalError, match="'y'") as raised:
        _ag.ld(still_unset)
    assert type(raised.value) is UnboundLocalError
    with pytest.raises(StagingTypeError, match="'y' is assigned only in the true branch"):
        jax.jit(only_true)(1.0)


@given(n=st.integers(min_value=-3, max_value=3))
def test_if_stmt_traced_integer_condition_uses_python_truth(n: int) -> None:
    assert int(_truth_of_jit(n)[0]) == (1 if n else 0)


_truth_of_jit = jax.jit(lambda n: _ag.if_stmt(n, lambda: (1,), lambda: (0,), (), ("flag",)))


def test_if_stmt_traced_condition_of_several_elements_is_refused() -> None:
    several = lambda v: _ag.if_stmt(v > 0, lambda: (1.0,), lambda: (0.0,), (), ("y",))
    assert float(jax.jit(several)(jnp.array([2.0]))[0]) == 1.0  # one element: its truth value
    with pytest.raises(TracedPredicateError, match=r"shape \(3,\)"):
        jax.jit(several)(jnp.ones(3))


# --- if_exp ----------------------------------------------------------------------------------------


def test_if_exp_concrete_never_runs_the_untaken_arm() -> None:
    assert _ag.if_exp(True, lambda: "yes", lambda: 1 / 0) == "yes"
    assert _ag.if_exp([], lambda: 1 / 0, lambda: None) is None
    divide = lambda x, y: _ag.if_exp(y != 0, lambda: x / y, lambda: 0.0)
    assert divide(1.0, 0) == 0.0 and divide(1.0, 4.0) == 0.25


def test_if_exp_traced_traces_each_arm_inside_its_branch_only() -> None:
    jaxpr = jax.make_jaxpr(lambda x: _ag.if_exp(x > 0, lambda: jnp.sin(x), lambda: jnp.cos(x)))(1.0)
    top_level = [eqn.primitive.name for eqn in jaxpr.jaxpr.eqns]
    assert "cond" in top_level and "sin" not in top_level and "cos" not in top_level


def _safe_divide(x: Any, y: Any) -> Any:
    return _ag.if_exp(y != 0, lambda: x / y, lambda: 0.0 * x)


@given(x=FLOATS, y=st.integers(min_value=-4, max_value=4).map(float))
def test_if_exp_under_jit_matches_python(x: float, y: float) -> None:
    expected = x / y if y != 0 else 0.0 * x
    assert_same(_safe_divide_jit(np.float32(x), np.float32(y)), np.float32(expected), what="jit(if_exp)")


_safe_divide_jit = jax.jit(_safe_divide)


def test_if_exp_under_vmap_selects_per_element() -> None:
    ys = jnp.array([0.0, 2.0, -4.0, 0.0])
    result = jax.vmap(_safe_divide, in_axes=(None, 0))(1.0, ys)
    assert_same(result, np.array([0.0, 0.5, -0.25, 0.0], np.float32), what="vmap(if_exp)")
    assert "select_n" in primitives(jax.vmap(_safe_divide, in_axes=(None, 0)), 1.0, ys)


@pytest.mark.parametrize(("x", "slope"), [(3.0, 6.0), (-2.0, -1.0)])
def test_if_exp_reverse_and_forward_mode(x: float, slope: float) -> None:
    square_or_negate = lambda x: _ag.if_exp(x > 0, lambda: x * x, lambda: -x)
    assert float(jax.grad(square_or_negate)(x)) == slope
    assert float(jax.jvp(square_or_negate, (x,), (1.0,))[1]) == slope


def test_if_exp_arms_of_different_python_types_need_a_concrete_condition() -> None:
    describe = lambda x: _ag.if_exp(x > 0, lambda: "positive", lambda: None)
    assert describe(1.0) == "positive" and describe(-1.0) is None
    with pytest.raises(StagingTypeError, match="conditional expression"):
        jax.jit(describe)(1.0)

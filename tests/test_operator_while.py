"""``while_stmt`` called directly, with test and body functions written as the rewriter writes them.

The contract (runtime/loops.py): the test is evaluated on the current state before each iteration;
while it is concrete the loop runs as Python, and from the first traced test on, the rest of the loop
is one ``lax.while_loop`` (a loop whose test is traced after its first iteration is staged from the
start: tests/test_while_staged_from_start.py). Checked against the plain-Python loop with concrete inputs, under
``jax.jit``, under ``jax.vmap`` (a batched test: every element stops on its own) and under
``jax.jvp``; reverse mode through a ``while_loop`` is JAX's documented ``ValueError``.
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

REVERSE_MODE_ERROR = "Reverse-mode differentiation does not work for lax.while_loop"


def halvings(x: float) -> tuple[int, float]:
    """The reference: ``while x > 1: x = x / 2; steps += 1``."""
    steps = 0
    while x > 1.0:
        x = x / 2.0
        steps += 1
    return steps, x


def halvings_op(x: Any, ran: list[Any] | None = None) -> tuple[Any, ...]:
    """``halvings`` as converted code runs it; ``ran`` records the ``x`` each body call saw."""
    log = [] if ran is None else ran

    def test(steps: Any, x: Any) -> Any:
        return x > 1.0

    def body(steps: Any, x: Any) -> tuple[Any, Any]:
        log.append(x)
        return (steps + 1, x / 2.0)

    return _ag.while_stmt(test, body, (0, x), ("steps", "x"))


_halvings_jit = jax.jit(halvings_op)


def test_while_concrete_runs_as_python_with_python_values() -> None:
    ran: list[Any] = []
    assert halvings_op(10.0, ran) == (4, 0.625) == halvings(10.0)
    assert ran == [10.0, 5.0, 2.5, 1.25], "one body call per Python iteration, in order"
    assert halvings_op(0.5) == (0, 0.5)


@given(x=st.floats(min_value=-4.0, max_value=1e6, allow_nan=False, width=32))
def test_while_traced_under_jit_matches_python(x: float) -> None:
    assert_same(_halvings_jit(x), halvings(x), what="jit(while_stmt)")


def test_while_traced_test_is_one_while_loop_whose_body_is_traced_once() -> None:
    ran: list[Any] = []
    names = primitives(lambda x: halvings_op(x, ran), 3.0)
    assert "while" in names
    assert len(ran) == 1, "the staged body is traced once, whatever the trip count"


def test_while_test_on_a_python_counter_stays_a_python_loop_under_jit() -> None:
    def repeat_double(x: Any) -> Any:
        test = lambda i, x: i < 3
        _, x = _ag.while_stmt(test, lambda i, x: (i + 1, x * 2.0), (0, x), ("i", "x"))
        return x

    assert float(jax.jit(repeat_double)(1.5)) == 12.0
    assert "while" not in primitives(repeat_double, 1.5)
    assert float(jax.grad(repeat_double)(1.5)) == 8.0, "an unrolled loop keeps reverse mode"


def test_while_on_python_state_whose_test_closes_over_a_traced_value_is_staged() -> None:
    count_to = lambda n: _ag.while_stmt(lambda i: i < n, lambda i: (i + 1,), (0,), ("i",))[0]
    assert count_to(4) == 4
    assert int(jax.jit(count_to)(4)) == 4
    assert "while" in primitives(count_to, 4)
    np.testing.assert_array_equal(jax.vmap(count_to)(jnp.array([0, 3, -1, 6])), [0, 3, 0, 6])


def power_until_op(x: Any) -> Any:
    """``v = 1.0; while v < 10: v = v * x``: the first test is concrete, the next ones are traced."""
    (v,) = _ag.while_stmt(lambda v: v < 10.0, lambda v: (v * x,), (1.0,), ("v",))
    return v


def power_until(x: float) -> float:
    v = 1.0
    while v < 10.0:
        v = v * x
    return v


def test_while_whose_test_turns_traced_in_its_first_iteration_is_staged_from_the_start() -> None:
    jaxpr = jax.make_jaxpr(power_until_op)(3.0)
    top_level = [eqn.primitive.name for eqn in jaxpr.jaxpr.eqns]
    assert top_level == ["while"], "no iteration is traced outside the loop"
    for x in (1.5, 3.0, 11.0):
        assert_same(jax.jit(power_until_op)(x), power_until(x), what=f"x={x}")


def test_while_under_vmap_each_element_stops_on_its_own_test() -> None:
    xs = jnp.array([3.0, 20.0, 0.5, 1.0, 1000.0])
    steps, values = jax.vmap(halvings_op)(xs)
    expected = [halvings(float(x)) for x in xs]
    np.testing.assert_array_equal(steps, [s for s, _ in expected])
    np.testing.assert_allclose(values, [v for _, v in expected])
    assert "while" in primitives(jax.vmap(halvings_op), xs)


def grow(x: Any) -> Any:
    """``while x < 10: x = x * 2`` through the operator."""
    (x,) = _ag.while_stmt(lambda x: x < 10.0, lambda x: (x * 2.0,), (x,), ("x",))
    return x


def test_while_reverse_mode_is_jaxs_documented_error() -> None:
    with pytest.raises(ValueError, match=REVERSE_MODE_ERROR):
        jax.grad(grow)(3.0)


_grow_jvp = jax.jit(lambda x: jax.jvp(grow, (x,), (1.0,)))


@given(x=st.floats(min_value=0.0625, max_value=50.0, width=32))
def test_while_forward_mode_is_the_product_of_the_iterations_taken(x: float) -> None:
    doublings = 0
    while x * 2.0**doublings < 10.0:
        doublings += 1
    value, tangent = _grow_jvp(x)
    assert float(tangent) == 2.0**doublings
    assert_same(value, np.float32(x) * 2.0**doublings, what="jvp(while_stmt) primal")


def test_while_pytree_carry_under_jit() -> None:
    def moments(xs: Any) -> tuple[Any, ...]:
        def test(state: dict[str, Any], i: Any) -> Any:
            return i < xs.shape[0] - state["skip"]

        def body(state: dict[str, Any], i: Any) -> tuple[Any, Any]:
            total, square = state["sums"]
            return ({"sums": (total + xs[i], square + xs[i] ** 2), "skip": state["skip"]}, i + 1)

        start = {"sums": (jnp.float32(0.0), jnp.float32(0.0)), "skip": xs[0].astype(jnp.int32)}
        return _ag.while_stmt(test, body, (start, 0), ("state", "i"))

    xs = jnp.array([2.0, 1.0, 3.0, 4.0, 5.0])
    state, i = jax.jit(moments)(xs)
    assert int(i) == 3 and int(state["skip"]) == 2
    assert_same(state["sums"], (np.float32(6.0), np.float32(14.0)), what="pytree carry")
    assert_same(jax.jit(moments)(xs), moments(xs), what="jit vs concrete")


def first_over(x: float) -> tuple[bool, float, float]:
    """The reference for a ``return`` inside a ``while``, written with the flag the rewriter adds."""
    returned, value = False, 0.0
    while not returned and x < 100.0:
        if x > 10.0:
            returned, value = True, x * 2.0
        if not returned:
            x = x * 3.0
    return returned, value, x


def first_over_op(x: Any) -> tuple[Any, ...]:
    def test(returned: Any, value: Any, x: Any) -> Any:
        return _ag.and_(_ag.not_(returned), lambda: x < 100.0)

    def body(returned: Any, value: Any, x: Any) -> tuple[Any, Any, Any]:
        returned, value = _ag.if_stmt(x > 10.0, lambda r, v: (True, x * 2.0), lambda r, v: (r, v),
                                      (returned, value), ("returned", "value"))
        (x,) = _ag.if_stmt(_ag.not_(returned), lambda x: (x * 3.0,), lambda x: (x,), (x,), ("x",))
        return (returned, value, x)

    return _ag.while_stmt(test, body, (False, 0.0, x), ("returned", "value", "x"))


@pytest.mark.parametrize("x", [0.5, 4.0, 50.0, 200.0])
def test_while_with_a_return_flag_stops_as_python_does(x: float) -> None:
    assert first_over_op(x) == first_over(x)
    assert_same(jax.jit(first_over_op)(x), first_over(x), what=f"jit, x={x}")
    assert_same(jax.vmap(first_over_op)(jnp.array([x, 2.0])), tuple(np.array([first_over(x), first_over(2.0)]).T),
                what=f"vmap, x={x}")


def test_while_traced_test_of_several_elements_is_refused() -> None:
    several = lambda x: _ag.while_stmt(lambda x: x < 10.0, lambda x: (x * 2.0,), (x,), ("x",))
    with pytest.raises(TracedPredicateError, match=r"`while` loop is a traced array of shape \(2,\)"):
        jax.jit(several)(jnp.ones(2))


def test_while_body_that_changes_a_carried_dtype_is_a_staging_error_naming_it() -> None:
    halves = lambda n: _ag.while_stmt(lambda n: n > 1, lambda n: (n / 2,), (n,), ("n",))
    assert halves(5) == (0.625,), "Python: the int becomes a float"
    with pytest.raises(StagingTypeError, match=r"'n' is i32\[\] before the `while` loop but f32\[\]"):
        jax.jit(halves)(jnp.int32(5))

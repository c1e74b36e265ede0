"""``and_`` / ``or_`` / ``not_`` / ``compare`` called directly, with lazy operands as the rewriter writes them.

The contract (runtime/logic.py): on concrete operands they are Python's own (short-circuit, returning
an operand rather than a bool, each middle operand of a chain evaluated at most once); once an operand
is traced, the rest is evaluated anyway and the result selected at run time, as the operand Python
would have returned. Checked against Python's operators on concrete values, under ``jax.jit``, under
``jax.vmap`` and under ``jax.grad``.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import assert_same

from autograph_lite.conversion import operators
from autograph_lite.errors import TracedPredicateError

_ag = operators("auto")

SMALL = st.one_of(st.integers(-3, 3), st.sampled_from([0.0, -0.5, 2.5]))
INTS = st.integers(-3, 3)


def never() -> Any:
    """A lazy operand that Python would not evaluate."""
    raise AssertionError("an operand that Python skips was evaluated")


@pytest.mark.parametrize("left", [0, 3, "", "text", [], [1], None, 0.0])
@pytest.mark.parametrize("right", [5, "", [2]])
def test_and_or_concrete_return_the_operand_python_returns(left: Any, right: Any) -> None:
    assert _ag.and_(left, lambda: right) is (left and right)
    assert _ag.or_(left, lambda: right) is (left or right)


def test_and_or_concrete_short_circuit_skips_later_operands() -> None:
    assert _ag.and_(1, lambda: 0, never) == 0
    assert _ag.or_(0, lambda: "", lambda: 7, never) == 7
    assert _ag.and_(False, never) is False
    assert not bool(jax.jit(lambda x: _ag.and_(False, lambda: never() + x))(1.0)), "a concrete left side decides"


_or_jit = jax.jit(lambda a, b: _ag.or_(a, lambda: b))
_and_jit = jax.jit(lambda a, b: _ag.and_(a, lambda: b))


@given(a=SMALL, b=SMALL)
def test_and_or_traced_values_match_python(a: float, b: float) -> None:
    assert float(_or_jit(a, b)) == (a or b)
    assert float(_and_jit(a, b)) == (a and b)


_all_jit = jax.jit(lambda a, b, c: _ag.and_(a > 0, lambda: b > 0, lambda: c != 0))
_any_jit = jax.jit(lambda a, b, c: _ag.or_(a > 0, lambda: b > 0, lambda: c != 0))


@given(a=INTS, b=INTS, c=INTS)
def test_and_or_traced_booleans_are_logical_ops(a: int, b: int, c: int) -> None:
    both, either = _all_jit(a, b, c), _any_jit(a, b, c)
    assert both.dtype == jnp.bool_ and bool(both) == (a > 0 and b > 0 and c != 0)
    assert either.dtype == jnp.bool_ and bool(either) == (a > 0 or b > 0 or c != 0)


def test_and_or_with_a_traced_left_operand_evaluate_the_rest_once() -> None:
    evaluated: list[str] = []

    def right() -> Any:
        evaluated.append("right")
        return 2.0

    jax.make_jaxpr(lambda x: _ag.or_(x, right))(1.0)
    assert evaluated == ["right"]


def test_and_or_under_vmap_match_python_per_element() -> None:
    a, b = jnp.array([0.0, 1.5, 0.0, -2.0]), jnp.array([3.0, 4.0, 0.0, 5.0])
    pairs = list(zip(a.tolist(), b.tolist()))
    assert_same(jax.vmap(lambda a, b: _ag.or_(a, lambda: b))(a, b), np.array([x or y for x, y in pairs], np.float32),
                what="vmap(or_)")
    assert_same(jax.vmap(lambda a, b: _ag.and_(a, lambda: b))(a, b), np.array([x and y for x, y in pairs], np.float32),
                what="vmap(and_)")


@pytest.mark.parametrize(("a", "b"), [(2.0, 3.0), (0.0, 3.0)])
def test_and_or_reverse_mode_follows_the_operand_returned(a: float, b: float) -> None:
    or_slopes = jax.grad(lambda a, b: _ag.or_(a, lambda: b), argnums=(0, 1))(a, b)
    and_slopes = jax.grad(lambda a, b: _ag.and_(a, lambda: b), argnums=(0, 1))(a, b)
    assert tuple(map(float, or_slopes)) == ((1.0, 0.0) if a else (0.0, 1.0))
    assert tuple(map(float, and_slopes)) == ((0.0, 1.0) if a else (1.0, 0.0))


def test_and_or_traced_operand_of_several_elements_is_refused() -> None:
    with pytest.raises(TracedPredicateError, match=r"shape \(3,\) is used as a truth value"):
        jax.jit(lambda v: _ag.and_(v, lambda: 1.0))(jnp.ones(3))
    with pytest.raises(TracedPredicateError, match=r"right one is an array of shape \(3,\)"):
        jax.jit(lambda x, v: _ag.or_(x > 0, lambda: v))(1.0, jnp.ones(3))


def test_or_of_one_element_arrays_keeps_the_operand_shape() -> None:
    a, b = jnp.array([2.0]), jnp.array([3.0])
    assert (a or b).shape == (1,)
    assert jax.jit(lambda a, b: _ag.or_(a, lambda: b))(a, b).shape == (1,)


ONE_ELEMENT = [[0.0], [2.5], [-1.0]]


@pytest.mark.parametrize("a", ONE_ELEMENT)
@pytest.mark.parametrize("b", ONE_ELEMENT)
def test_and_or_of_one_element_arrays_return_the_operand_python_returns(a: list[float], b: list[float]) -> None:
    left, right = np.array(a, np.float32), np.array(b, np.float32)
    assert_same(_or_jit(left, right), left or right, what="jit(or_)")
    assert_same(_and_jit(left, right), left and right, what="jit(and_)")
    assert_same(_or_jit(left > 0, right > 0), (left > 0) or (right > 0), what="jit(or_) of booleans")
    assert_same(_and_jit(left.astype(np.int32), right.astype(np.int32)), left.astype(np.int32) and right.astype(np.int32),
                what="jit(and_) of ints")


def test_and_or_of_one_element_arrays_under_vmap_and_grad() -> None:
    a, b = jnp.array([[0.0], [1.5], [-2.0]]), jnp.array([[3.0], [4.0], [0.0]])
    want = np.array([x or y for x, y in zip(np.asarray(a), np.asarray(b))])
    assert_same(jax.vmap(lambda a, b: _ag.or_(a, lambda: b))(a, b), want, what="vmap(or_)")
    slopes = jax.grad(lambda a, b: _ag.and_(a, lambda: b)[0], argnums=(0, 1))(jnp.array([2.0]), jnp.array([3.0]))
    assert tuple(map(float, (slopes[0][0], slopes[1][0]))) == (0.0, 1.0)


@pytest.mark.parametrize("make", [lambda a, b: _ag.or_(a, lambda: b), lambda a, b: _ag.and_(a, lambda: b),
                                  lambda a, b: _ag.or_(a > 0, lambda: b > 0)], ids=["or", "and", "or of booleans"])
@pytest.mark.parametrize(("a", "b"), [(jnp.array([2.0]), 3.0), (2.0, jnp.array([3.0])), (jnp.array([[2.0]]), jnp.array([3.0]))],
                         ids=["(1,) and ()", "() and (1,)", "(1, 1) and (1,)"])
def test_and_or_of_one_element_operands_of_different_shapes_is_refused(make: Callable[[Any, Any], Any], a: Any, b: Any) -> None:
    # Python returns one operand or the other: the shape of the result would depend on a run-time value
    shapes = f"have shapes {jnp.shape(a)} and {jnp.shape(b)}, and the first is traced: Python returns one of them"
    with pytest.raises(TracedPredicateError, match=re.escape(shapes)):
        jax.jit(make)(a, b)


def test_chained_comparison_of_one_element_and_scalar_steps_is_refused() -> None:
    # `v < x < 2.0` is `v < x and x < 2.0`: a (1,) boolean or a () one, depending on the first
    with pytest.raises(TracedPredicateError, match=r"two comparisons of a chain .* have shapes \(1,\) and \(\)"):
        jax.jit(lambda v, x: _ag.compare(v, "<", lambda: x, "<", lambda: 2.0))(jnp.array([0.0]), 1.0)
    one_element_chain = jax.jit(lambda v, x: _ag.compare(v, "<", lambda: x, "<", lambda: v + 2.0))
    assert_same(one_element_chain(jnp.array([0.0]), 1.0), np.array([True]), what="chain of (1,) steps")


# --- not_ ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, 2, 0.0, -1.5, "", "x", [], None, np.bool_(True)])
def test_not_concrete_is_pythons_not(value: Any) -> None:
    assert _ag.not_(value) is (not value)


_not_jit = jax.jit(_ag.not_)


@given(value=SMALL)
def test_not_traced_is_a_boolean_with_python_truth(value: float) -> None:
    result = _not_jit(value)
    assert result.dtype == jnp.bool_ and bool(result) == (not value)


def test_not_under_vmap() -> None:
    values = jnp.array([0.0, 1.0, -2.0, 0.0])
    np.testing.assert_array_equal(jax.vmap(_ag.not_)(values), [True, False, False, True])


# --- compare: chained comparisons ------------------------------------------------------------------


COMPARISONS: dict[str, Callable[[Any, Any], Any]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
}


def python_chain(values: list[int], symbols: list[str]) -> bool:
    """``values[0] op0 values[1] op1 values[2] ...`` with Python's chaining."""
    return all(COMPARISONS[s](values[k], values[k + 1]) for k, s in enumerate(symbols))


def chain_op(values: list[Any], symbols: list[str], evaluated: list[int] | None = None) -> Any:
    """The operator call the rewriter writes for the chain; ``evaluated`` records which operands ran."""
    log = [] if evaluated is None else evaluated

    def lazy(k: int) -> Callable[[], Any]:
        def operand() -> Any:
            log.append(k)
            return values[k]

        return operand

    chain: list[Any] = []
    for k, symbol in enumerate(symbols, start=1):
        chain += [symbol, lazy(k)]
    return _ag.compare(values[0], *chain)


def test_compare_concrete_evaluates_each_middle_operand_once_and_short_circuits() -> None:
    evaluated: list[int] = []
    assert chain_op([1, 2, 3, 0], ["<", "<", ">"], evaluated) is True
    assert evaluated == [1, 2, 3]
    evaluated.clear()
    assert chain_op([1, 0, 3, 4], ["<", "<", "<"], evaluated) is False
    assert evaluated == [1], "operands after a false comparison are never evaluated"


def test_compare_concrete_identity_and_membership() -> None:
    assert _ag.compare(None, "is", lambda: None) is True
    assert _ag.compare(2, "in", lambda: [1, 2], "not in", lambda: [[1, 2]]) is False
    assert _ag.compare("a", "not in", lambda: "bcd", "is not", lambda: None) is True


@given(
    values=st.lists(INTS, min_size=3, max_size=3),
    symbols=st.lists(st.sampled_from(sorted(COMPARISONS)), min_size=2, max_size=2),
)
def test_compare_traced_chain_matches_python(values: list[int], symbols: list[str]) -> None:
    result = jax.jit(lambda a, b, c: chain_op([a, b, c], symbols))(*values)
    assert result.dtype == jnp.bool_ and bool(result) == python_chain(values, symbols)


def test_compare_traced_chain_evaluates_every_operand_once() -> None:
    evaluated: list[int] = []
    jax.make_jaxpr(lambda a, b, c: chain_op([a, b, c], ["<", "<"], evaluated))(3, 0, 1)
    assert evaluated == [1, 2]


def test_compare_chain_under_vmap() -> None:
    lows, highs = jnp.array([0, 5, 2, 3]), jnp.array([4, 6, 2, 1])
    in_range = jax.vmap(lambda lo, hi: _ag.compare(lo, "<=", lambda: 3, "<", lambda: hi))(lows, highs)
    np.testing.assert_array_equal(in_range, [lo <= 3 < hi for lo, hi in zip(lows.tolist(), highs.tolist())])


def test_compare_chain_gradient_of_a_value_selected_by_it() -> None:
    clip_inside = lambda x: _ag.if_exp(_ag.compare(0.0, "<", lambda: x, "<", lambda: 1.0), lambda: x * x, lambda: 0.0 * x)
    assert float(jax.grad(clip_inside)(0.5)) == 1.0
    assert float(jax.grad(clip_inside)(1.5)) == 0.0

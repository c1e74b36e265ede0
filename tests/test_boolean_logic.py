"""``and`` / ``or`` / ``not`` and chained comparisons.

On concrete operands the converted function must keep Python's semantics exactly: short-circuit
(the right operand is not evaluated when the left decides) and value-returning (``0 or 5`` is ``5``,
``[] and x`` is ``[]``). Once an operand is traced, the result is computed at run time, equal to what
eager Python returns for the same values. A chained comparison evaluates each middle operand once.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import assert_equivalent, assert_same, primitives

import autograph_lite

F32 = jnp.float32
CALLS: list[str] = []


def _explode(*_):
    raise AssertionError("an operand that Python short-circuits was evaluated")


def _record(tag, value):
    CALLS.append(tag)
    return value


@pytest.fixture(autouse=True)
def _clear_calls():
    CALLS.clear()
    yield
    CALLS.clear()


def and_(a, b):
    return a and b


def or_(a, b):
    return a or b


def not_(a):
    return not a


def and3(a, b, c):
    return a and b and c


def or3(a, b, c):
    return a or b or c


# --- concrete operands: Python's value-returning semantics --------------------------------------------

PYTHON_VALUES = [0, 1, 5, 0.0, 2.5, "", "s", [], [0], None, True, False, (), (1,)]


@pytest.mark.parametrize("a", PYTHON_VALUES, ids=repr)
@pytest.mark.parametrize("b", [0, "b", [1, 2], None], ids=repr)
def test_concrete_and_or_return_the_python_operand(a, b):
    for fn in (and_, or_):
        got = autograph_lite.convert(fn)(a, b)
        want = fn(a, b)
        assert got is want or (got == want and type(got) is type(want))


@pytest.mark.parametrize("a", PYTHON_VALUES, ids=repr)
def test_concrete_not(a):
    assert autograph_lite.convert(not_)(a) is (not a)


@pytest.mark.parametrize("values", [(0, 1, 2), (1, 0, 2), (1, 2, 0), (1, 2, 3), ("", [], None), ("a", [1], 0)])
def test_concrete_three_operand_chains(values):
    for fn in (and3, or3):
        assert autograph_lite.convert(fn)(*values) == fn(*values)


def short_circuit_and(flag, x):
    return flag and _record("right", x)


def short_circuit_or(flag, x):
    return flag or _record("right", x)


def test_and_short_circuits_on_a_concrete_false_left_operand():
    assert autograph_lite.convert(short_circuit_and)(0, 1.0) == 0
    assert CALLS == []
    assert autograph_lite.convert(short_circuit_and)(1, 2.0) == 2.0
    assert CALLS == ["right"]


def test_or_short_circuits_on_a_concrete_true_left_operand():
    assert autograph_lite.convert(short_circuit_or)("yes", 1.0) == "yes"
    assert CALLS == []
    assert autograph_lite.convert(short_circuit_or)(0, 2.0) == 2.0
    assert CALLS == ["right"]


def guarded_by_static(x, n):
    return n > 0 and x / n


def guard_against_none(x, scale):
    if scale is not None and scale > 1:
        x = x * scale
    return x


def explode_unless_needed(x, flag):
    return (flag or _explode()) and x * 2


def test_static_left_operand_short_circuits_under_jit():
    assert_equivalent(guarded_by_static, F32(3.0), 2, static_argnums=1)
    # n == 0: eager returns False without dividing; the converted function too, under jit.
    converted = autograph_lite.convert(guarded_by_static)
    assert converted(F32(3.0), 0) is False
    assert jax.jit(lambda x: jnp.asarray(converted(x, 0)))(F32(3.0)) == False  # noqa: E712


@pytest.mark.parametrize("scale", [None, 0.5, 3.0])
def test_is_not_none_guard_short_circuits(scale):
    assert_equivalent(guard_against_none, F32(2.0), scale, static_argnums=1)


def test_concrete_true_left_skips_explosive_operand_under_jit():
    assert_equivalent(explode_unless_needed, F32(2.0), True, static_argnums=1)


# --- traced operands -----------------------------------------------------------------------------------


@pytest.mark.parametrize("a, b", [(1.0, 2.0), (0.0, 2.0), (1.0, 0.0), (0.0, 0.0), (-3.0, 0.5)])
def test_traced_and_or_return_the_operand_python_would(a, b):
    for fn in (and_, or_):
        assert_equivalent(fn, F32(a), F32(b))


@pytest.mark.parametrize("a, b", [(1, 2), (0, 2), (3, 0), (0, 0)])
def test_traced_int_operands(a, b):
    for fn in (and_, or_):
        assert_equivalent(fn, jnp.int32(a), jnp.int32(b))


@pytest.mark.parametrize("a", [True, False])
@pytest.mark.parametrize("b", [True, False])
def test_traced_bool_operands_use_logical_ops(a, b):
    for fn in (and_, or_):
        assert_equivalent(fn, jnp.bool_(a), jnp.bool_(b))
    assert "and" in primitives(autograph_lite.convert(and_), jnp.bool_(a), jnp.bool_(b))
    assert "or" in primitives(autograph_lite.convert(or_), jnp.bool_(a), jnp.bool_(b))


@pytest.mark.parametrize("a", [0.0, 1.5, -2.0])
def test_traced_not(a):
    assert_equivalent(not_, F32(a))
    assert_equivalent(not_, jnp.int32(int(a)))
    assert_equivalent(not_, jnp.bool_(a > 0))
    assert autograph_lite.jit(not_)(F32(a)).dtype == jnp.bool_


def comparisons_combined(x, y):
    return (x > 0 and y > 0) or not (x < y)


@pytest.mark.parametrize("x, y", [(1.0, 2.0), (-1.0, 2.0), (2.0, 1.0), (-1.0, -2.0), (-2.0, -1.0)])
def test_traced_comparisons_combined(x, y):
    assert_equivalent(comparisons_combined, F32(x), F32(y))


def mixed_concrete_first(x, flag):
    return flag and x > 0


def mixed_traced_first(x, flag):
    return x > 0 and flag


def mixed_or(x, flag):
    return x > 0 or flag


@pytest.mark.parametrize("fn", [mixed_concrete_first, mixed_traced_first, mixed_or])
@pytest.mark.parametrize("x", [1.0, -1.0])
@pytest.mark.parametrize("flag", [True, False])
def test_mixes_of_concrete_and_traced(fn, x, flag):
    assert_equivalent(fn, F32(x), flag, static_argnums=1)


def test_concrete_false_first_returns_the_python_value_without_tracing_the_rest():
    converted = autograph_lite.convert(mixed_concrete_first)
    seen = []
    jax.make_jaxpr(lambda x: seen.append(converted(x, False)) or x)(F32(1.0))
    assert seen == [False]


def if_on_boolean_ops(x, y, flag):
    if (flag and x > 0) or y > 3:
        z = x + y
    else:
        z = x - y
    return z


@pytest.mark.parametrize("x, y", [(1.0, 0.0), (-1.0, 4.0), (-1.0, 0.0)])
@pytest.mark.parametrize("flag", [True, False])
def test_boolean_ops_as_if_predicates(x, y, flag):
    assert_equivalent(if_on_boolean_ops, F32(x), F32(y), flag, static_argnums=2)


def vector_elements_and(x):
    return x.any() and x.all()


@pytest.mark.parametrize("x", [[1.0, 2.0], [0.0, 1.0], [0.0, 0.0]])
def test_reduced_vectors_as_operands(x):
    assert_equivalent(vector_elements_and, jnp.asarray(x, F32))


# --- chained comparisons -------------------------------------------------------------------------------


def chained(lo, x, hi):
    return lo < x < hi


def chained_three(a, b, c, d):
    return a <= b < c != d


@pytest.mark.parametrize("lo, x, hi", [(0.0, 1.0, 2.0), (0.0, 3.0, 2.0), (0.0, -1.0, 2.0), (1.0, 1.0, 2.0)])
def test_chained_comparison_traced(lo, x, hi):
    assert_equivalent(chained, F32(lo), F32(x), F32(hi))
    assert_equivalent(chained, lo, F32(x), hi)


@pytest.mark.parametrize("values", [(1, 2, 3, 4), (1, 1, 3, 3), (2, 1, 3, 4), (1, 2, 2, 4)])
def test_chained_comparison_of_four(values):
    assert_equivalent(chained_three, *(jnp.int32(v) for v in values))
    assert autograph_lite.convert(chained_three)(*values) == chained_three(*values)


def middle_evaluated_once(x):
    return 0 < _record("middle", x) < 10


def test_chained_comparison_evaluates_the_middle_operand_once():
    assert middle_evaluated_once(5) is True
    assert CALLS == ["middle"]
    CALLS.clear()
    assert autograph_lite.convert(middle_evaluated_once)(5) is True
    assert CALLS == ["middle"]
    CALLS.clear()
    assert bool(autograph_lite.jit(middle_evaluated_once)(F32(5.0))) is True
    assert CALLS == ["middle"]  # traced once


def chain_short_circuits(x):
    return 5 < x < _record("right", 10)


def test_chained_comparison_short_circuits_on_concrete_false():
    assert autograph_lite.convert(chain_short_circuits)(1) is False
    assert CALLS == []
    assert autograph_lite.convert(chain_short_circuits)(7) is True
    assert CALLS == ["right"]


def chain_in_if(x):
    if -1 < x <= 1:
        return x * 100
    return x


@pytest.mark.parametrize("x", [-2.0, -1.0, 0.0, 1.0, 2.0])
def test_chained_comparison_as_predicate(x):
    assert_equivalent(chain_in_if, F32(x))


def membership(x, options):
    return x if 3 in options and "k" not in options else -x


@pytest.mark.parametrize("options", [(1, 3), (3, "k"), ()])
def test_in_and_not_in_on_python_containers(options):
    assert_equivalent(membership, F32(2.0), options, static_argnums=1)


def is_comparisons(x, y):
    return x if y is None else x + y


def test_is_none_is_concrete():
    assert_equivalent(is_comparisons, F32(1.0), None, static_argnums=1)
    assert_equivalent(is_comparisons, F32(1.0), F32(2.0))


# --- errors -------------------------------------------------------------------------------------------


def vector_truth_in_and(x, y):
    return x and y


def test_non_scalar_traced_operand_is_a_clear_error():
    with pytest.raises(autograph_lite.TracedPredicateError, match=r"\.any\(\)"):
        autograph_lite.jit(vector_truth_in_and)(jnp.ones(3), F32(1.0))


def test_non_scalar_traced_not_is_a_clear_error():
    with pytest.raises(autograph_lite.TracedPredicateError, match=r"(?s)shape \(3,\).*\.any\(\)"):
        autograph_lite.jit(not_)(jnp.ones(3))


def one_element_or_scalar(v: jax.Array, x: jax.Array) -> jax.Array:
    return v or x


def test_operands_of_different_shapes_are_a_located_error() -> None:
    # Python returns `v` (shape (1,)) or `x` (shape ()), depending on the value of `v`
    with pytest.raises(autograph_lite.TracedPredicateError, match=r"have shapes \(1,\) and \(\)") as caught:
        autograph_lite.jit(one_element_or_scalar)(jnp.ones(1), F32(2.0))
    assert caught.value.location.filename == __file__
    assert caught.value.location.lineno == one_element_or_scalar.__code__.co_firstlineno + 1
    assert "jnp.reshape(x, (1,))" in caught.value.hint


@pytest.mark.parametrize("a, b", [([1.5], [2.0]), ([0.0], [2.0]), ([0.0], [0.0])])
def test_one_element_operands_keep_their_shape(a: list[float], b: list[float]) -> None:
    x, y = jnp.asarray(a, F32), jnp.asarray(b, F32)
    for fn in (and_, or_):
        assert_equivalent(fn, x, y)
        assert_equivalent(fn, x > 1, y > 1)
    for fn in (and3, or3):
        assert_equivalent(fn, x, y, x + y)


def test_boolean_ops_vmap():
    xs, ys = jnp.asarray([1.0, -1.0, 0.0], F32), jnp.asarray([0.0, 2.0, -2.0], F32)
    got = jax.vmap(autograph_lite.convert(comparisons_combined))(xs, ys)
    want = np.asarray([comparisons_combined(float(x), float(y)) for x, y in zip(xs, ys)])
    assert_same(got, want)


# --- operands of different dtypes ----------------------------------------------------------------


def and_of_float_and_int(x, n):
    return x and n


def or_of_int_and_float(n, x):
    return n or x


def test_operands_of_two_strong_dtypes_are_refused_not_promoted():
    # Python returns the int operand; a promoted choice would be a float32, which has no 16777217.
    with pytest.raises(autograph_lite.StagingTypeError) as excinfo:
        autograph_lite.jit(and_of_float_and_int)(jnp.float32(1.0), jnp.int32(16777217))
    message = str(excinfo.value)
    path = and_of_float_and_int.__code__.co_filename
    assert message.startswith(f"{path}:{and_of_float_and_int.__code__.co_firstlineno + 1}: ")
    assert "f32[] and i32[]" in message and "jnp.asarray" in message
    with pytest.raises(autograph_lite.StagingTypeError, match="i32\\[\\] and f32\\[\\]"):
        autograph_lite.jit(or_of_int_and_float)(jnp.int32(0), jnp.float32(2.5))


def test_a_weakly_typed_operand_takes_the_other_operands_dtype():
    assert_equivalent(lambda x: x and 2, jnp.float32(1.5))
    assert_equivalent(lambda x: x or 0.5, jnp.float32(0.0))
    assert autograph_lite.jit(lambda x: x or 0)(jnp.float32(0.0)).dtype == jnp.float32


def test_a_bool_beside_a_number_is_held_exactly_by_their_common_dtype():
    # False and 2.5 -> False, chosen at run time as 0.0: equal to it, and no value is lost.
    assert_equivalent(lambda flag, y: flag and y, jnp.bool_(False), jnp.float32(2.5))
    assert_equivalent(lambda flag, y: flag and y, jnp.bool_(True), jnp.int32(7))
    assert_equivalent(lambda n, x: n or x, jnp.int16(0), jnp.float32(2.5))

"""``sum``, ``min`` / ``max`` and ``int`` of traced values in eager Python's dtypes (runtime/builtins.py):
``sum`` adds the rows one by one in the dtype of ``start + row`` (a bfloat16 sum of 300 ones is 256,
an int8 sum wraps in int8); ``max`` / ``min`` of a narrow value and a Python number it cannot hold is
the located refusal of a staged choice, not the number wrapped or overflowed, and so is an int32
beside a float (``max(n, 0.5)``: eager's int32 as it is, where float32 would lose it); an operand of more
than one element raises eager's ``ValueError``; ``int()`` of a uint32 past int32's range raises where
it would wrap; ``int()`` / ``float()`` of a complex raise eager's ``TypeError`` where eager reaches them. Each is compared with eager Python, value and dtype."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from support import assert_same, conversion_error

import autograph_lite
from autograph_lite.errors import StagingTypeError


def total(xs):
    return sum(xs)


def total_from(xs, start):
    return sum(xs, start)


def cap_above(x, limit):
    return max(x, limit)


def cap_below(x, limit):
    return min(limit, x)


def bucket(h):
    return int(h) % 1000


def same_as_eager(function, *args):
    expected = function(*args)
    for run in (autograph_lite.jit(function), jax.jit(autograph_lite.convert(function))):
        got = run(*args)
        assert_same(got, expected)
        assert (jnp.result_type(got), getattr(got, "weak_type", None)) == (jnp.result_type(expected),
                                                                           getattr(expected, "weak_type", None))


@pytest.mark.parametrize("xs", [
    jnp.ones(300, jnp.bfloat16),  # eager stops at 256
    jnp.full(40, 0.1, jnp.float16),
    jnp.array([100, 100, 7], jnp.int8),  # wraps to -49
    jnp.array([200, 100], jnp.uint8),
    jnp.array([True, True, False]),
    jnp.ones((3, 2), jnp.float16),
    jnp.arange(5.0),
])
def test_sum_adds_the_rows_in_turn_in_their_dtype(xs):
    same_as_eager(total, xs)


def test_sum_from_a_start_value_and_of_no_rows():
    same_as_eager(total_from, jnp.full(300, 1.0, jnp.bfloat16), jnp.bfloat16(5.0))
    assert float(autograph_lite.jit(total)(jnp.zeros((0,)))) == total(jnp.zeros((0,))) == 0


@pytest.mark.parametrize("function,x,limit", [
    (cap_above, jnp.float16(1.0), 70000.0), (cap_above, jnp.uint8(7), 300), (cap_below, jnp.int8(7), -200),
])
def test_a_number_the_narrow_dtype_cannot_hold_is_a_located_refusal(function, x, limit):
    message = conversion_error(lambda v: function(v, limit), x)
    assert "test_builtins_dtypes.py" in message and "does not hold it" in message, message


@pytest.mark.parametrize("function,x,limit", [(cap_above, jnp.uint8(7), 3), (cap_below, jnp.float16(2.5), 1000.0)])
def test_a_number_the_narrow_dtype_holds_is_chosen_as_eager(function, x, limit):
    same_as_eager(lambda v: function(v, limit), x)


def test_an_operand_of_more_than_one_element_raises_eagers_error():
    with pytest.raises(ValueError, match="more than one element is ambiguous"):
        cap_above(jnp.array([1.0, -1.0]), 0.0)
    with pytest.raises(ValueError, match="more than one element is ambiguous"):
        autograph_lite.jit(cap_above)(jnp.array([1.0, -1.0]), 0.0)


def test_operands_of_other_shapes_are_a_located_refusal():
    with pytest.raises(StagingTypeError, match="different shapes"):
        autograph_lite.jit(cap_above)(jnp.array([1.0]), jnp.float32(2.0))


BIG = jnp.int32(2**24 + 1)  # no float32 holds it


def above_half(n):
    return max(n, 0.5)


def best_of(n, x):
    return max(n, x)


def best_listed(n):
    return max([n, 2.5, n + 1])


def least_of(n, x):
    return min(x, n)


@pytest.mark.parametrize("function,args", [
    (above_half, (BIG,)), (best_of, (BIG, jnp.float32(0.0))), (best_listed, (BIG,)), (least_of, (-BIG, jnp.float32(0.0))),
])
def test_an_int32_beside_a_float_is_a_located_refusal_not_a_float32(function, args):
    # eager returns the int32 as it is (16777217); a choice staged in float32 would be 16777216.0
    assert function(*args).dtype == jnp.int32
    message = conversion_error(function, *args)
    line = function.__code__.co_firstlineno + 1
    assert message.startswith(f"{function.__code__.co_filename}:{line}: "), message
    assert "i32[]" in message and "cannot hold every value of each" in message and "jnp.asarray(n, jnp.float32)" in message


def above_half_in_float32(n):
    return max(jnp.asarray(n, jnp.float32), 0.5)


def above_half_promoted(n):
    return jnp.maximum(n, 0.5)


@pytest.mark.parametrize("function", [above_half_in_float32, above_half_promoted])
def test_the_fixes_the_refusal_names_work(function):
    same_as_eager(function, BIG)


@pytest.mark.parametrize("a,b", [
    (BIG, 0.5), (BIG, jnp.float32(0.0)), (jnp.float32(2.0), 0.0), (BIG, 0), (jnp.float16(2.0), 1.5),
    (jnp.bool_(True), jnp.float32(0.5)), (jnp.int16(3), jnp.float32(0.5)), (jnp.uint8(7), 2.5),
])
def test_max_and_or_refuse_the_same_mixtures(a, b):
    """``max(a, b)`` and ``a or b`` both return an operand as it is: one rule decides which mixtures
    are staged exactly (a weakly typed number beside an array that holds it, a bool beside a number)."""
    def either(x, y):
        return x or y

    def larger(x, y):
        return max(x, y)

    outcomes = []
    for function in (either, larger):
        try:
            autograph_lite.jit(function)(a, b)
            outcomes.append("staged")
        except StagingTypeError:
            outcomes.append("refused")
    assert outcomes[0] == outcomes[1], outcomes
    if outcomes[1] == "staged":
        assert_same(autograph_lite.jit(larger)(a, b), larger(a, b))


def test_int_of_a_uint32_past_int32_raises_where_it_would_wrap():
    assert int(autograph_lite.jit(bucket)(jnp.uint32(123))) == bucket(jnp.uint32(123)) == 123
    with pytest.raises(OverflowError, match="int32's range"):
        autograph_lite.jit(bucket)(jnp.uint32(3_000_000_123))


def doubled_float(z):
    return float(z) * 2


def as_int(z):
    return int(z)


def doubled_where_positive(z, c):
    return float(z) * 2 if c > 0 else 0.0


def incremented_where_positive(z, c):
    y = 1.0
    if c > 0:
        y = int(z) + 1
    return y


def raised(function, *args):
    try:
        function(*args)
    except TypeError as error:
        return type(error), str(error)
    raise AssertionError(f"{function.__name__} raised nothing")


@pytest.mark.parametrize("function", [doubled_float, as_int])
def test_int_and_float_of_a_traced_complex_raise_eagers_type_error(function):
    # eager: a complex has no real value (Python's TypeError); a cast would drop the imaginary part
    z = jnp.complex64(3.7 + 5j)
    assert raised(autograph_lite.jit(function), z) == raised(function, z)


@pytest.mark.parametrize("function", [doubled_where_positive, incremented_where_positive])
def test_a_cast_of_a_complex_raises_only_where_eager_reaches_it(function):
    z = jnp.complex64(3.7 + 5j)
    assert_same(autograph_lite.jit(function)(z, jnp.float32(-1.0)), function(z, jnp.float32(-1.0)))
    assert raised(autograph_lite.jit(function), z, jnp.float32(1.0)) == raised(function, z, jnp.float32(1.0))


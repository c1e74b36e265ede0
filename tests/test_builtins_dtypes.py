"""``sum``, ``min`` / ``max`` and ``int`` of traced values in eager Python's dtypes (runtime/builtins.py):
``sum`` adds the rows one by one in the dtype of ``start + row`` (a bfloat16 sum of 300 ones is 256,
an int8 sum wraps in int8); ``max`` / ``min`` of a narrow value and a Python number it cannot hold is
the located refusal of a staged choice, not the number wrapped or overflowed; an operand of more
than one element raises eager's ``ValueError``; ``int()`` of a uint32 past int32's range raises where
it would wrap. Each is compared with eager Python, value and dtype."""

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


def test_int_of_a_uint32_past_int32_raises_where_it_would_wrap():
    assert int(autograph_lite.jit(bucket)(jnp.uint32(123))) == bucket(jnp.uint32(123)) == 123
    with pytest.raises(OverflowError, match="int32's range"):
        autograph_lite.jit(bucket)(jnp.uint32(3_000_000_123))

"""``int(x)`` / ``float(x)`` of a traced value are Python numbers eagerly: weakly typed under ``jit``.

Eager ``float(x)`` is a Python float, and a Python number beside an array computes in the array's
dtype: ``b * float(x)`` with a bfloat16 ``b`` is bfloat16 arithmetic, ``v * int(k)`` with a uint8 ``v``
wraps in uint8. The converted casts made strongly typed float32 / int32 arrays, which promoted the
other operand: a float32 result of another value (0.45 for eager's bfloat16 0.451172), an int32 510
for eager's wrapped 254. Found by teaching the generator's narrow_dtypes feature such factors
(program_narrow_dtypes.py: seed 2, 500 programs: 5 mismatches before, 0 after).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import assert_same

import autograph_lite

BF16 = jnp.asarray([1.5, -2.25], jnp.bfloat16)
U8 = jnp.asarray([255, 3], jnp.uint8)
F16 = jnp.asarray([0.1, 1000.0], jnp.float16)


def scaled_by_a_float(x, b):
    return b * float(x)


def scaled_by_an_int(k, v):
    return v * int(k)


def shifted_by_an_int(k, h):
    return h + int(k)


@pytest.mark.parametrize("function, number, array", [
    (scaled_by_a_float, jnp.float32(0.3), BF16),
    (scaled_by_an_int, jnp.int32(2), U8),
    (scaled_by_an_int, jnp.float32(2.7), U8),  # int() truncates toward zero, then uint8 arithmetic wraps
    (shifted_by_an_int, jnp.float32(-3.5), F16),
], ids=["bfloat16*float", "uint8*int", "uint8*int(float)", "float16+int"])
def test_a_cast_computes_in_the_other_operand_s_dtype_as_eager(function, number, array):
    expected = function(number, array)
    result = autograph_lite.jit(function)(number, array)
    assert result.dtype == expected.dtype
    assert_same(result, expected)


def test_a_cast_alone_is_a_weakly_typed_number():
    as_float = autograph_lite.jit(lambda x: float(x))(jnp.int32(3))
    as_int = autograph_lite.jit(lambda x: int(x))(jnp.float32(-2.5))
    assert (as_float.dtype, jax.typeof(as_float).weak_type, float(as_float)) == (jnp.float32, True, 3.0)
    assert (as_int.dtype, jax.typeof(as_int).weak_type, int(as_int)) == (jnp.int32, True, -2)


@pytest.mark.parametrize("cast", [int, float], ids=lambda c: c.__name__)
def test_a_cast_of_an_array_raises_as_jax_s_own(cast):
    def casts(xs):
        return cast(xs)

    with pytest.raises(TypeError, match="Only scalar arrays") as eager:
        casts(jnp.ones(1))
    with pytest.raises(TypeError, match="Only scalar arrays") as converted:
        autograph_lite.jit(casts)(jnp.ones(1))
    assert str(converted.value) == str(eager.value)
    assert np.ndim(casts(np.float32(2.0))) == 0


def int_plus_one(x):
    return int(x) + 1


@pytest.mark.parametrize("value, error, message", [
    (float("nan"), ValueError, "cannot convert float NaN to integer"),
    (float("inf"), OverflowError, "cannot convert float infinity to integer"),
    (float("-inf"), OverflowError, "cannot convert float infinity to integer"),
])
def test_int_of_a_traced_float_raises_eagers_error_where_the_program_runs(value, error, message):
    with pytest.raises(error, match=message):
        int_plus_one(jnp.float32(value))
    with pytest.raises(error, match=message):  # was a silent number (1, -2147483648)
        autograph_lite.jit(int_plus_one)(jnp.float32(value))
    assert int(autograph_lite.jit(int_plus_one)(jnp.float32(2.7))) == int_plus_one(jnp.float32(2.7)) == 3


def test_int_of_a_traced_float_past_int32_is_an_error_not_a_wrapped_number():
    assert int_plus_one(jnp.float32(3e9)) == 3000000001
    with pytest.raises(OverflowError, match="int\\(\\) of a float past int32's range"):
        autograph_lite.jit(int_plus_one)(jnp.float32(3e9))
    assert int(autograph_lite.jit(int_plus_one)(jnp.float32(-2.0**31))) == -(2**31) + 1  # the smallest int32 fits


def int_in_an_untaken_branch(x):
    if x > 0:
        return int(x)
    return -1


def test_int_of_nan_raises_only_on_the_path_that_casts():
    assert int(autograph_lite.jit(int_in_an_untaken_branch)(jnp.float32(float("nan")))) == -1

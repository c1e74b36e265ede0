"""A Python int beside a narrower integer in a staged choice or loop carry (runtime/narrow_numbers.py).

A Python int beside a uint8 (int8, int16, uint16, uint32) follows the rule of a Python number beside
a float16 (test_narrow_floats.py). It used to keep its own int32, which made the uint8 path an int32
too: ``n = 256 if c else v_u8`` then ``n * 2`` gave 510 for eager's wrapped uint8 254 (the
generator's feature ``narrow_dtypes``, seed 2). Now ``3`` beside a uint8 is a uint8, as in eager
``v_u8 + 3``, and ``256`` / ``-1`` / ``70000`` beside it (``-129`` beside an int8), or an int known
only at run time (a loop index, the result of ``c and 3``), are a located ``StagingTypeError``.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest
from support import where

import autograph_lite
from autograph_lite.runtime.narrow_numbers import cast_loses_value

U8 = jnp.uint8


def int_if(k, v):
    if k > 0:
        y = 256
    else:
        y = v
    return y * 2


def int_ternary(k, v):
    n2 = 256 if k > 0 else v
    return n2 * 2


def int_and_or(k, v):
    return ((k > 0) and 70000) or v


def int_value_or(k, v):
    return v or -1


def int_elif_chain(k, v):
    if k == 0:
        y = v
    elif k == 1:
        y = 3
    else:
        y = 300
    return y


def int_loop_entry(k, v):
    y = 300
    for _ in range(k):
        y = v
    return y


def int8_below_its_range(k, v):
    y = -129 if k > 0 else v
    return y


@pytest.mark.parametrize(("fn", "line", "dtype"), [
    (int_if, "if k > 0:", U8), (int_ternary, "n2 = 256 if", U8), (int_and_or, "return ((k > 0) and", U8),
    (int_value_or, "return v or -1", U8), (int_elif_chain, "if k == 0:", U8), (int_loop_entry, "for _ in range(k):", U8),
    (int_and_or, "return ((k > 0) and", jnp.uint16), (int_if, "if k > 0:", jnp.int8), (int_ternary, "n2 = 256 if", jnp.int8),
    (int8_below_its_range, "y = -129 if", jnp.int8),
])
def test_a_python_int_that_the_narrow_int_cannot_hold_is_a_located_error(fn, line: str, dtype) -> None:
    """It kept its int32 and made the narrow path int32 (``n2 * 2``: 510 for eager's uint8 254)."""
    for k in (0, 1, 2):
        for value in (0, 3):
            eager = fn(k, dtype(value))
            assert int(autograph_lite.convert(fn)(k, dtype(value))) == int(eager), "concrete: Python's semantics"
        with pytest.raises(autograph_lite.StagingTypeError) as raised:
            autograph_lite.jit(fn)(jnp.int32(k), dtype(3))
        message = str(raised.value)
        assert message.startswith(where(fn, line)), message
        name = jnp.dtype(dtype).name
        assert f"one dtype, so it would enter as a {name}" in message or f"one dtype, {name}" in message, message
        assert "jnp.int32(...)" in message and (f"jnp.{name}(...)" in message or f".astype(jnp.{name})" in message), message


def test_the_int_error_names_the_variable_and_what_the_number_would_become() -> None:
    with pytest.raises(autograph_lite.StagingTypeError) as raised:
        autograph_lite.jit(int_if)(jnp.int32(1), U8(255))
    assert "'y' is the Python number 256 in the true branch of the `if`, and a uint8 in the other" in str(raised.value)
    assert "it would be 0" in str(raised.value)
    with pytest.raises(autograph_lite.StagingTypeError, match=r"Python number -129 .* \(it would be 127\)"):
        autograph_lite.jit(int8_below_its_range)(jnp.int32(1), jnp.int8(3))
    with pytest.raises(autograph_lite.StagingTypeError,
                       match=r"'y' enters the `for` loop as the Python number 300 .* \(it would be 44\)"):
        autograph_lite.jit(int_loop_entry)(jnp.int32(0), U8(3))


def int_fixed_as_the_error_says(k, v):
    if k == 0:
        y = jnp.asarray(v, jnp.int32)
    elif k == 1:
        y = jnp.int32(3)
    else:
        y = jnp.int32(300)
    return y


def int_loop_fixed_as_the_error_says(k, v):
    y = jnp.int32(300)
    for _ in range(k):
        y = jnp.asarray(v, jnp.int32)
    return y


@pytest.mark.parametrize(("fixed", "original"), [
    (int_fixed_as_the_error_says, int_elif_chain), (int_loop_fixed_as_the_error_says, int_loop_entry),
])
def test_the_int_fix_the_error_gives_keeps_eagers_values(fixed, original) -> None:
    for k in (0, 1, 2):
        for value in (0, 3, 255):
            got = autograph_lite.jit(fixed)(jnp.int32(k), U8(value))
            assert int(got) == int(original(k, U8(value))), (k, value)


def held_int_ternary(b, s, v):
    n2 = 3 if b > s else v
    return n2 * 2


def test_a_python_int_the_narrow_int_holds_keeps_its_arithmetic() -> None:
    """The generator's case: the uint8 path was an int32, so ``n2 * 2`` gave 510 for eager's wrapped 254."""
    for b in (0, 1):
        args = (jnp.int32(b), jnp.int32(0), U8(255))
        got, want = autograph_lite.jit(held_int_ternary)(*args), held_int_ternary(*args)
        assert int(got) == int(want) and got.dtype == U8, (b, got, want)
    assert int(held_int_ternary(jnp.int32(0), jnp.int32(0), U8(255))) == 254


def ints_held_exactly(smallest: int, largest: int):
    """Python ints that the narrow integer holds: its limits and 3."""
    def fn(k, v):
        if k == 0:
            y = smallest
        elif k == 1:
            y = largest
        elif k == 2:
            y = 3
        else:
            y = v
        z = 3 if k > 1 else v
        w = v or largest
        s = smallest
        for _ in range(k):
            s = s + v
        return v + y, y, z, w, s
    return fn


@pytest.mark.parametrize(("dtype", "smallest", "largest"), [
    (U8, 0, 255), (jnp.int8, -128, 127), (jnp.int16, -32768, 32767), (jnp.uint16, 0, 65535),
])
def test_ints_the_narrow_int_holds_still_take_its_dtype(dtype, smallest: int, largest: int) -> None:
    numbers = ints_held_exactly(smallest, largest)
    for k in range(4):
        for v in (dtype(0), dtype(3), dtype(largest)):
            got, want = autograph_lite.jit(numbers)(jnp.int32(k), v), numbers(k, v)
            for got_leaf, want_leaf in zip(got, want):
                assert int(got_leaf) == int(want_leaf), (k, v, got, want)
            assert got[0].dtype == want[0].dtype == dtype, "the sum is narrow-int arithmetic, as eagerly"
            assert all(leaf.dtype == dtype for leaf in got), got


def test_a_traced_weak_int_beside_a_narrow_int_is_refused() -> None:
    """``(k > 0) and 3`` and a loop index are weakly typed ints known only at run time."""
    def chosen_int_or_narrow(k, v):
        return ((k > 0) and 3) or v

    def index_or_narrow(k, v):
        s = v
        for i in range(k):
            s = i if i > 1 else v
        return s

    def written_as_uint8(k, v):
        return ((k > 0) and jnp.uint8(3)) or v

    for fn in (chosen_int_or_narrow, index_or_narrow):
        with pytest.raises(autograph_lite.StagingTypeError, match="computed while the program runs"):
            autograph_lite.jit(fn)(jnp.int32(3), U8(2))
    for k in (0, 1):  # the fix the error names: the number as a uint8
        assert int(autograph_lite.jit(written_as_uint8)(jnp.int32(k), U8(2))) == int(chosen_int_or_narrow(k, U8(2)))


def test_a_uint32_choice_names_the_fix_that_works() -> None:
    """No int32 holds a uint32 (64-bit types are off): the error gives only the uint32 fix."""
    def minus_one_or_uint32(k, v):
        return -1 if k > 0 else v

    with pytest.raises(autograph_lite.StagingTypeError) as raised:
        autograph_lite.jit(minus_one_or_uint32)(jnp.int32(1), jnp.uint32(3))
    message = str(raised.value)
    assert "it would be 4294967295" in message and "jnp.uint32(...)" in message and "jnp.int32" not in message


@pytest.mark.parametrize(("value", "dtype", "loses"), [
    (300, jnp.uint8, True), (256, jnp.uint8, True), (-1, jnp.uint8, True), (70000, jnp.uint8, True),
    (255, jnp.uint8, False), (0, jnp.uint8, False), (-129, jnp.int8, True), (-128, jnp.int8, False),
    (40000, jnp.int16, True), (-32768, jnp.int16, False), (65535, jnp.uint16, False), (-1, jnp.uint32, True),
    (70000, jnp.uint32, False), (70000, jnp.int32, False), (jnp.asarray(300), jnp.uint8, True),
    (np.int32(300), jnp.uint8, False),  # strongly typed: no Python number
])
def test_cast_loses_value_of_an_int(value, dtype, loses: bool) -> None:
    assert cast_loses_value(value, dtype) is loses


def float_if(k, v):
    if k > 0:
        n = 2.5
    else:
        n = v
    return n * 2


def float_ternary(k, v):
    n = 2.5 if k > 0 else v
    return n * 2


def float_or(k, v):
    return (((k > 0) and 2.5) or v) * 2


@pytest.mark.parametrize("fn, line", [(float_if, "if k > 0:"), (float_ternary, "n = 2.5 if k > 0 else v"),
                                      (float_or, "return (((k > 0) and 2.5) or v) * 2")])
@pytest.mark.parametrize("dtype", [jnp.uint8, jnp.int8, jnp.int16])
def test_a_python_float_beside_a_narrow_int_is_a_located_error(fn, line: str, dtype) -> None:
    """A float32 choice holds every uint8, but would compute the uint8 path's ``n * 2`` in float32: 510
    where eager's uint8 wraps to 254 (as an int32 beside a Python float already was refused)."""
    v = jnp.asarray(100, dtype)
    assert np.asarray(fn(0, v)).dtype == np.dtype(dtype)  # eager: the narrow int's own arithmetic
    with pytest.raises(autograph_lite.StagingTypeError) as raised:
        autograph_lite.jit(fn)(jnp.int32(0), v)
    assert str(raised.value).startswith(where(fn, line)), str(raised.value)


def test_python_numbers_joined_before_a_complex_stay_python_numbers() -> None:
    """``y = 2`` beside ``y = 0.5`` is still a Python number eagerly: the staged join keeps it weakly
    typed, so a later ``1j`` may still make it complex (a strongly typed float32 would be refused)."""
    def chain(k, x):
        if k == 0:
            y = 1j
        elif k == 1:
            y = 0.5
        else:
            y = 2
        return x * y

    for k in (0, 1, 2):
        np.testing.assert_allclose(autograph_lite.jit(chain)(jnp.int32(k), jnp.float32(3.0)), chain(k, jnp.float32(3.0)))


def checksum(xs):
    s = 200  # eager: the first iteration computes 200 + xs[0] in int8, which wraps
    for v in xs:
        s = s + v
    return s


def scaled_sum(v):
    y = 300
    for _ in range(3):
        y = y * 2 + v
    return y


@pytest.mark.parametrize(("fn", "arguments"), [
    (checksum, (jnp.asarray([1, 2], jnp.int8),)), (scaled_sum, (U8(7),)),
])
def test_a_static_loop_that_runs_entering_as_a_number_its_dtype_cannot_hold_runs_as_python(fn, arguments) -> None:
    """It ran at least once, so eager's first iteration computes with the number as the narrow dtype
    would: the loop stays Python (it was refused, saying eager keeps the number after zero iterations)."""
    expected = fn(*arguments)
    got = autograph_lite.jit(fn)(*arguments)
    assert got.dtype == expected.dtype and int(got) == int(expected)
    assert "Python loop" in str(autograph_lite.explain(fn, *arguments))

"""Dtypes are part of exactness: a converted function returns eager's dtype, or the documented form of it.

float32 holds every integer up to 2**24, so a value check alone passes an int32 that came back as
float32 on small numbers. The generated-program check compares dtypes (program_dtypes.py); the
tests here pin its rules, and the converter's answers to a traced choice between an int32 and a
Python float (a ternary, an ``if``, ``and`` / ``or``) and to a loop carry entering as a Python float
and leaving as an int32: eager Python returns the int32 as it is, which a float32 cannot hold past
2**24, so each is a located ``StagingTypeError`` (docs/semantics.md, "Weak types and type unification").
The documented unifications keep eager's value in the dtype they give it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from program_dtypes import Kind, dtype_difference, kinds, leaf_kind, staged_kind_allowed
from support import assert_same, where

import autograph_lite

BIG = 16777217  # 2**24 + 1: the first integer float32 cannot hold
INT32, FLOAT32, BOOL = np.dtype(np.int32), np.dtype(np.float32), np.dtype(bool)


def test_leaf_kind_describes_python_scalars_as_jit_returns_them() -> None:
    assert leaf_kind(3) == Kind(INT32, True, int)
    assert leaf_kind(2.5) == Kind(FLOAT32, True, float)
    assert leaf_kind(True) == Kind(BOOL, False, bool)
    assert leaf_kind(jnp.asarray(2.5)) == Kind(FLOAT32, True, None)
    assert leaf_kind(np.float64(2.5)) == Kind(FLOAT32, False, None), "a NumPy scalar is no Python float"
    assert leaf_kind("text") is None


@pytest.mark.parametrize(("got", "eager", "allowed"), [
    (Kind(INT32, True, None), Kind(INT32, True, int), True),  # a Python int as jit returns it
    (Kind(FLOAT32, False, None), Kind(INT32, True, int), True),  # a Python 0 beside a float32: 0.0
    (Kind(INT32, False, None), Kind(BOOL, False, None), True),  # a bool carry turned number
    (Kind(FLOAT32, False, None), Kind(INT32, False, None), False),  # the and / or bug of 16777217
    (Kind(INT32, False, None), Kind(FLOAT32, True, float), False),  # a float cannot become an int
    (Kind(FLOAT32, True, None), Kind(FLOAT32, False, None), False),  # nor a strong type a weak one
    (Kind(FLOAT32, True, None), Kind(np.dtype(np.int16), False, None), False),
])
def test_staged_kinds_allow_only_the_documented_differences(got: Kind, eager: Kind, allowed: bool) -> None:
    assert staged_kind_allowed(got, eager) is allowed


def test_dtype_check_sees_what_the_value_check_misses() -> None:
    eager, converted = jnp.int32(BIG), jnp.float32(BIG)
    assert_same(converted, eager)  # within float tolerance: the blind spot
    assert dtype_difference(converted, kinds(eager), staged=True) is not None
    assert dtype_difference(jnp.asarray(3), kinds(3), staged=True) is None
    assert dtype_difference(jnp.asarray(3), kinds(3), staged=False) is not None, "convert keeps Python's int"


def ternary(n, c):
    return n if c > 0 else 2.5


def if_statement(n, c):
    if c > 0:
        y = n
    else:
        y = 2.5
    return y


def value_or(n, c):
    return n or 2.5


def carry_from_float(n, c):
    s = 0.5
    for _ in range(c):
        s = n
    return s


@pytest.mark.parametrize(("fn", "line"), [
    (ternary, "return n if c"), (if_statement, "if c > 0:"), (value_or, "return n or 2.5"),
    (carry_from_float, "for _ in range(c):"),
])
def test_int32_beside_a_python_float_is_a_located_error(fn, line: str) -> None:
    """Staged, the choice would be float32 (16777217 became 16777216.0): refused where it is made."""
    args = (jnp.int32(BIG), jnp.int32(1))
    assert autograph_lite.convert(fn)(*args) == BIG, "concrete: Python's semantics"
    with pytest.raises(autograph_lite.StagingTypeError) as raised:
        autograph_lite.jit(fn)(*args)
    message = str(raised.value)
    assert message.startswith(where(fn, line)), message
    assert "i32[]" in message and "f32[]" in message, message


def python_int_beside_float32(x, c):
    return x * 1.0 if c > 0 else BIG - 1  # 2**24: float32 holds it (BIG is refused: test_python_ints_beside_floats.py)


def python_int_beside_int32(n, c):
    y = 3 if c > 0 else n
    return y + 1


def bool_beside_python_int(n, c):
    if c > 0:
        flag = n > 0
    else:
        flag = 1
    return flag


@pytest.mark.parametrize(("fn", "args", "expected"), [
    (python_int_beside_float32, (jnp.float32(2.0), jnp.int32(0)), jnp.float32(BIG - 1)),  # eager's, in float32
    (python_int_beside_int32, (jnp.int32(BIG), jnp.int32(0)), jnp.int32(BIG + 1)),
    (python_int_beside_int32, (jnp.int32(BIG), jnp.int32(1)), jnp.int32(4)),
    (bool_beside_python_int, (jnp.int32(BIG), jnp.int32(1)), jnp.int32(1)),  # True as its number
])
def test_documented_unifications_keep_eager_values(fn, args: tuple, expected: jax.Array) -> None:
    eager = fn(*args)
    got = autograph_lite.jit(fn)(*args)
    assert got.dtype == expected.dtype and bool(got == expected), (got, eager)
    assert dtype_difference(got, kinds(eager), staged=True) is None


DTYPE_FEATURES = frozenset({"big_ints", "mixed_dtypes"})
DTYPE_PROGRAMS = 30


def test_generated_programs_with_big_ints_and_mixed_dtypes_match_eager(tmp_path) -> None:
    """A bounded run of the generator's dtype features (the long run: ``make fuzz FUZZ_FEATURES=+big_ints,+mixed_dtypes``)."""
    import program_generator as generator
    from hypothesis import given, settings

    used: set[str] = set()

    @settings(max_examples=DTYPE_PROGRAMS)
    @given(case=generator.cases(generator.DEFAULT_FEATURES | DTYPE_FEATURES))
    def matches_eager(case: generator.Case) -> None:
        outcome = generator.check_case(case, tmp_path)
        used.update(case.program.used)
        assert not outcome.is_bug, f"{outcome.signature}\n\n{generator.regression_text(case, outcome)}\n{outcome.message}"

    matches_eager()
    assert DTYPE_FEATURES <= used, f"none of the {DTYPE_PROGRAMS} programs used {sorted(DTYPE_FEATURES - used)}"


def python_float_or_half(k, x):
    if k == 0:
        y = -10.0
    else:
        y = x
    return x * y


def python_numbers_or_half_chain(k, x):
    if k == 0:
        y = -10.0
    elif k == 1:
        y = 0.5
    elif k == 2:
        y = 3
    else:
        y = x
    return x * y


@pytest.mark.parametrize("function", [python_float_or_half, python_numbers_or_half_chain])
@pytest.mark.parametrize("dtype", [jnp.float16, jnp.bfloat16])
def test_a_python_number_beside_a_half_precision_array_takes_its_dtype(function, dtype):
    # the join of a weakly typed output with another took jnp.result_type of the abstract types, which
    # ignores the weak type: float32, so x * y was computed in float32 (-10.996 for eager's -11.0)
    for k in range(4):
        x = jnp.asarray(1.1, dtype)
        got, want = autograph_lite.jit(function)(jnp.int32(k), x), function(k, x)
        assert got.dtype == want.dtype == dtype
        assert float(got) == float(want)


def python_int_or_uint8(k, v):
    if k > 0:
        y = 70000
    else:
        y = v
    return y + 0


def python_int_or_uint8_ternary(k, v):
    return 70000 if k > 0 else v


def python_int_or_uint8_chain(k, v):
    if k == 0:
        y = v
    elif k == 1:
        y = v + 1
    else:
        y = 300
    return y


def python_int_or_uint8_and_or(k, v):
    return ((k > 0) and 70000) or v


@pytest.mark.parametrize(("function", "line"), [
    (python_int_or_uint8, "if k > 0:"), (python_int_or_uint8_ternary, "return 70000 if"),
    (python_int_or_uint8_chain, "elif k == 1:"), (python_int_or_uint8_and_or, "return ((k > 0) and"),
])
def test_a_python_int_beside_a_narrow_int_that_cannot_hold_it_is_refused(function, line: str):
    # eager: the number on one path, a uint8 on the other. A uint8 wraps 70000 to 112 (a review found it);
    # the int32 that holds both made the uint8 path int32 arithmetic (v * 2: 510 for eager's 254)
    with pytest.raises(autograph_lite.StagingTypeError) as raised:
        autograph_lite.jit(function)(jnp.int32(2), jnp.uint8(3))
    message = str(raised.value)
    assert message.startswith(where(function, line)), message
    assert "staged, the choice has one dtype, uint8" in message and "jnp.int32(...)" in message, message


def python_int_3_or_uint8(k, v):
    if k > 0:
        y = 3
    else:
        y = v
    return y * 2, (3 if k > 0 else v) + v, ((k > 0) and v) or 3


def test_a_python_int_beside_a_narrow_int_that_holds_it_is_that_dtype():
    # eager's v_u8 * 2 is uint8 arithmetic; the int32 join gave 510 for eager's wrapped 254
    for k in (0, 1):
        for value in (3, 255, 0):
            got = autograph_lite.jit(python_int_3_or_uint8)(jnp.int32(k), jnp.uint8(value))
            want = python_int_3_or_uint8(k, jnp.uint8(value))
            assert [int(leaf) for leaf in got] == [int(leaf) for leaf in want], (k, value, got, want)
            assert all(leaf.dtype == jnp.uint8 for leaf in got), got
            assert dtype_difference(got, kinds(want), staged=True) is None


def python_int_entry_then_uint8(n, v, start):
    y = start
    for i in range(n):
        y = v
    return y


def test_a_python_int_entering_a_loop_that_makes_it_a_uint8_is_refused_where_it_would_wrap():
    # a lax loop casts a weakly typed entry to the body's dtype: 300 became 44 after zero iterations
    def entry_300(n, v):
        return python_int_entry_then_uint8(n, v, 300)

    with pytest.raises(autograph_lite.StagingTypeError, match="'y' enters the `for` loop as the Python number 300"):
        autograph_lite.jit(entry_300)(jnp.int32(0), jnp.uint8(3))


def test_a_python_int_entering_a_loop_that_makes_it_a_uint8_is_kept_where_it_fits():
    def entry_0(n, v):
        return python_int_entry_then_uint8(n, v, 0)

    for n in (0, 2):
        got, want = autograph_lite.jit(entry_0)(jnp.int32(n), jnp.uint8(3)), entry_0(n, jnp.uint8(3))
        assert int(got) == int(want)

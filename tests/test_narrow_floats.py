"""A Python number beside a float16 / bfloat16 value in a staged choice or loop carry (runtime/narrow_numbers.py).

Eager arithmetic gives a Python number beside a float16 the float16 dtype, and a staged ``if``,
ternary, ``and`` / ``or`` or loop carry needs one dtype, so the number was converted to float16 even
where float16 cannot hold it: ``70000.0`` came back as ``inf`` (found by the generator's feature
``narrow_dtypes``, tests/program_narrow_dtypes.py). Now a number that the narrow dtype holds is still
taken into it (``-10.0`` beside a float16 stays float16 arithmetic: test_dtype_exactness.py), and any
other is a located ``StagingTypeError`` whose fix works. A Python int beside a narrower integer
follows the same rule (test_narrow_ints.py).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest
from program_dtypes import Kind, staged_kind_allowed
from support import where

import autograph_lite
from autograph_lite.runtime.narrow_numbers import cast_loses_value

F16 = jnp.float16
BIG_INT = 16777217  # 2**24 + 1: beside a float32, the documented unification (test_dtype_exactness.py)


def if_statement(k, v):
    if k > 0:
        y = 70000.0
    else:
        y = v
    return y * 1.0


def ternary(k, v):
    return 70000.0 if k > 0 else v


def and_or(k, v):
    return ((k > 0) and 70000.0) or v


def value_or(k, v):
    return v or 70000.0


def elif_chain(k, v):
    if k == 0:
        y = v
    elif k == 1:
        y = 0.5
    else:
        y = 70000.0
    return y


def python_int(k, v):
    if k > 0:
        y = 70000
    else:
        y = v
    return y


def inexact_float(k, v):
    y = 0.1 if k > 0 else v
    return y


def loop_entry(k, v):
    y = 70000.0
    for _ in range(k):
        y = v
    return y


@pytest.mark.parametrize(("fn", "line", "dtype"), [
    (if_statement, "if k > 0:", F16), (ternary, "return 70000.0 if", F16), (and_or, "return ((k > 0) and", F16),
    (value_or, "return v or 70000.0", F16), (elif_chain, "if k == 0:", F16), (python_int, "if k > 0:", F16),
    (inexact_float, "y = 0.1 if", F16), (loop_entry, "for _ in range(k):", F16),
    (ternary, "return 70000.0 if", jnp.bfloat16), (python_int, "if k > 0:", jnp.bfloat16),
])
def test_a_python_number_that_the_narrow_float_cannot_hold_is_a_located_error(fn, line: str, dtype) -> None:
    """Staged, the number became the narrow float (70000.0 was inf, 0.1 was 0.0999755859375): refused."""
    for k in (0, 1, 2):
        eager = fn(k, dtype(2.0))
        assert float(autograph_lite.convert(fn)(k, dtype(2.0))) == float(eager), "concrete: Python's semantics"
        with pytest.raises(autograph_lite.StagingTypeError) as raised:
            autograph_lite.jit(fn)(jnp.int32(k), dtype(2.0))
        message = str(raised.value)
        assert message.startswith(where(fn, line)), message
        assert jnp.dtype(dtype).name in message and "jnp.float32(...)" in message, message


def test_the_error_names_the_variable_and_what_the_number_would_become() -> None:
    with pytest.raises(autograph_lite.StagingTypeError) as raised:
        autograph_lite.jit(if_statement)(jnp.int32(1), F16(2.0))
    assert "'y' is the Python number 70000.0 in the true branch" in str(raised.value)
    assert "it would be inf" in str(raised.value)
    with pytest.raises(autograph_lite.StagingTypeError, match=r"0\.0999755859375"):
        autograph_lite.jit(inexact_float)(jnp.int32(1), F16(2.0))
    with pytest.raises(autograph_lite.StagingTypeError, match="'y' enters the `for` loop as the Python number 70000.0"):
        autograph_lite.jit(loop_entry)(jnp.int32(0), F16(2.0))


def fixed_as_the_error_says(k, v):
    if k > 0:
        y = jnp.float32(70000.0)
    else:
        y = jnp.asarray(v, jnp.float32)
    return y * 1.0


def or_fixed_as_the_error_says(k, v):
    return jnp.asarray(v, jnp.float32) or jnp.float32(70000.0)


def loop_fixed_as_the_error_says(k, v):
    y = jnp.float32(70000.0)
    for _ in range(k):
        y = jnp.asarray(v, jnp.float32)
    return y


@pytest.mark.parametrize(("fixed", "original", "ks", "values"), [
    (fixed_as_the_error_says, if_statement, (0, 1), (2.0,)),
    (or_fixed_as_the_error_says, value_or, (0,), (2.0, 0.0)),
    (loop_fixed_as_the_error_says, loop_entry, (0, 2), (2.0,)),
])
def test_the_fix_the_error_gives_keeps_eagers_values(fixed, original, ks, values) -> None:
    for k in ks:
        for value in values:
            got = autograph_lite.jit(fixed)(jnp.int32(k), F16(value))
            assert float(got) == float(original(k, F16(value)))


def numbers_held_exactly(largest: float):
    """Python numbers that the narrow float holds, ``largest`` the largest finite float16 or a power of two."""
    def fn(k, v):
        if k == 0:
            y = -10.0
        elif k == 1:
            y = largest
        elif k == 2:
            y = 3
        else:
            y = v
        z = 0.5 if k > 1 else v
        w = v or 0.25
        s = -10.0
        for _ in range(k):
            s = s * v
        return v * y, y, z, w, s
    return fn


@pytest.mark.parametrize(("dtype", "largest"), [(F16, 65504.0), (jnp.bfloat16, 2.0 ** 100)])
def test_numbers_the_narrow_float_holds_still_take_its_dtype(dtype, largest: float) -> None:
    numbers = numbers_held_exactly(largest)
    for k in range(4):
        for v in (dtype(1.1), dtype(0.0)):
            got, want = autograph_lite.jit(numbers)(jnp.int32(k), v), numbers(k, v)
            for got_leaf, want_leaf in zip(got, want):
                assert float(got_leaf) == float(want_leaf), (k, v, got, want)
            assert got[0].dtype == want[0].dtype == dtype, "the product is narrow-float arithmetic, as eagerly"


def test_a_traced_weak_value_beside_a_narrow_float_is_refused() -> None:
    """``(k > 0) and 0.5`` is a weakly typed value known only at run time: it cannot be shown to fit."""
    def chosen_number_or_half(k, v):
        return ((k > 0) and 0.5) or v

    def written_as_half(k, v):
        return ((k > 0) and jnp.float16(0.5)) or v

    with pytest.raises(autograph_lite.StagingTypeError, match="computed while the program runs"):
        autograph_lite.jit(chosen_number_or_half)(jnp.int32(1), F16(2.0))
    for k in (0, 1):  # the fix the error names: the number as a float16
        assert float(autograph_lite.jit(written_as_half)(jnp.int32(k), F16(2.0))) == float(chosen_number_or_half(k, F16(2.0)))


@pytest.mark.parametrize(("value", "dtype", "loses"), [
    (70000.0, F16, True), (-70000.0, F16, True), (0.1, F16, True), (70000, F16, True), (1e-8, F16, True),
    (-10.0, F16, False), (65504.0, F16, False), (3, F16, False), (float("nan"), F16, False),
    (1e39, F16, False),  # inf as the float32 jit makes of it already (and no overflow warning: pyproject's filter)
    (257.0, jnp.bfloat16, True), (256.0, jnp.bfloat16, False), (0.5, jnp.bfloat16, False),
    (70000.0, jnp.float32, False),  # not narrower: the carry checks judge those
    (BIG_INT, jnp.float32, True), (BIG_INT - 1, jnp.float32, False),  # an int float32 does not hold: judged
    (np.float32(70000.0), F16, False),  # strongly typed: no Python number
])
def test_cast_loses_value(value, dtype, loses: bool) -> None:
    assert cast_loses_value(value, dtype) is loses


def test_the_dtype_check_reads_bfloat16_as_a_float() -> None:
    """NumPy's kind of bfloat16 is "V": a Python int that comes back as a bfloat16 was a dtype mismatch."""
    bf16 = np.dtype(jnp.bfloat16)
    assert staged_kind_allowed(Kind(bf16, False, None), Kind(np.dtype(np.int32), True, int))
    assert staged_kind_allowed(Kind(bf16, False, None), Kind(np.dtype(np.float32), True, float))
    assert not staged_kind_allowed(Kind(np.dtype(np.int32), False, None), Kind(bf16, False, None))


NARROW_PROGRAMS = 25


def test_generated_programs_with_narrow_dtypes_match_eager(tmp_path) -> None:
    """A bounded run of feature narrow_dtypes (the long run: ``make fuzz FUZZ_FEATURES=+narrow_dtypes``)."""
    import program_generator as generator
    from hypothesis import given, settings

    used: set[str] = set()

    @settings(max_examples=NARROW_PROGRAMS)
    @given(case=generator.cases(generator.DEFAULT_FEATURES | {"narrow_dtypes"}))
    def matches_eager(case: generator.Case) -> None:
        outcome = generator.check_case(case, tmp_path)
        used.update(case.program.used)
        assert not outcome.is_bug, f"{outcome.signature}\n\n{generator.regression_text(case, outcome)}\n{outcome.message}"

    matches_eager()
    assert "narrow_dtypes" in used, f"none of the {NARROW_PROGRAMS} programs used narrow_dtypes"

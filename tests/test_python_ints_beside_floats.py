"""A Python int that the staged dtype of a choice cannot hold: a located error, never a rounded value.

A staged choice has one dtype. Between a Python int and a float (a Python float, a float32) that is
float32, which holds no int past 2**24: ``16777217 if c else 0.5``, an ``if`` assigning either, a
loop carry entering as the int, and ``[16777217, 0.5][i]`` with a traced ``i`` all returned
16777216.0 where eager Python returns the int 16777217 (runtime/narrow_numbers.py judges the number,
runtime/sequences.py a traced list index). A list or ``range`` holding an int past int32 (the dtype
``jit`` makes of a Python int) raised JAX's ``OverflowError``, naming no line of the user's (the
range's, an argument ``y`` the user never wrote). Each is now a located ``StagingTypeError`` whose fix
is checked here to work; ints that float32 holds are chosen as before.
"""

from __future__ import annotations

import jax.numpy as jnp
import pytest
from support import run_program, where

import autograph_lite
from autograph_lite.errors import StagingTypeError

BIG = 16777217  # 2**24 + 1: the first int float32 does not hold
SCALES = [BIG, 0.5]
SMALL_SCALES = [3, 0.5]
SEEDS = [2**31, 1]


def pick(i):
    return SCALES[i]


def pick_tuple(i):
    return (100000001, 2.5, 3)[i]


def pick_small(i):
    return SMALL_SCALES[i]


def pick_as_float32(i):
    return jnp.asarray(SCALES, jnp.float32)[i]


def pick_beside_float16(i, x):
    return [70000.0, x][i]


def pick_beside_float16_widened(i, x):
    return [70000.0, jnp.asarray(x, jnp.float32)][i]


def ternary(c):
    return BIG if c > 0 else 0.5


def ternary_as_float32(c):
    return jnp.float32(BIG) if c > 0 else 0.5


def ternary_small(c):
    return 3 if c > 0 else 0.5


def beside_float32(c, x):
    return BIG if c > 0 else x


def branches(c):
    if c > 0:
        y = BIG
    else:
        y = 0.5
    return y


def chain(c):
    if c > 1:
        y = 0.25
    elif c > 0:
        y = BIG
    else:
        y = 0.5
    return y


def carried(n):
    y = BIG
    for _ in range(n):
        y = y * 0.5
    return y


def carried_as_float32(n):
    y = jnp.float32(BIG)
    for _ in range(n):
        y = y * 0.5
    return y


def seed(i):
    return SEEDS[i]


def offset(i):
    return range(0, 2**40, 2**38)[i]


def seed_mod(i):
    return SEEDS[i] % 7


def refusal(fn, line_text, *args) -> str:
    with pytest.raises(StagingTypeError) as excinfo:
        autograph_lite.jit(fn)(*args)
    message = str(excinfo.value)
    assert message.startswith(where(fn, line_text) + ":"), message  # the user's line
    return message


def test_a_list_of_ints_and_floats_indexed_by_a_traced_value_refuses_an_int_float32_does_not_hold():
    assert pick(jnp.int32(0)) == BIG and pick_tuple(jnp.int32(0)) == 100000001  # eager: the int itself
    message = refusal(pick, "SCALES[i]", jnp.int32(0))
    assert "the Python number 16777217 (element 0)" in message and "16777216.0" in message
    assert "jnp.asarray(items, jnp.float32)[i]" in message
    assert "100000001 (element 0)" in refusal(pick_tuple, "(100000001", jnp.int32(1))
    fixed = autograph_lite.jit(pick_as_float32)(jnp.int32(0))  # the fix: float32 chosen, as eagerly
    assert fixed == pick_as_float32(jnp.int32(0)) and fixed.dtype == jnp.float32
    for i in (0, 1):  # ints float32 holds are chosen as before: eager's value, as a float
        assert autograph_lite.jit(pick_small)(jnp.int32(i)) == pick_small(jnp.int32(i))


def test_a_python_float_a_float16_element_makes_infinite_is_refused_in_a_traced_list_index():
    x = jnp.float16(1.0)
    assert pick_beside_float16(jnp.int32(0), x) == 70000.0  # eager
    message = refusal(pick_beside_float16, "[70000.0, x][i]", jnp.int32(0), x)
    assert "the Python number 70000.0 (element 0)" in message and "inf" in message
    for i in (0, 1):  # the fix: a dtype that holds each element
        got = autograph_lite.jit(pick_beside_float16_widened)(jnp.int32(i), x)
        assert got == pick_beside_float16_widened(jnp.int32(i), x) and got.dtype == jnp.float32


@pytest.mark.parametrize(("fn", "line_text", "args"), [
    (ternary, "BIG if c > 0", (jnp.int32(1),)),
    (beside_float32, "BIG if c > 0", (jnp.int32(1), jnp.float32(2.0))),
    (branches, "if c > 0", (jnp.int32(1),)),
    (chain, "elif c > 0", (jnp.int32(1),)),
])
def test_a_staged_choice_between_a_python_int_past_2_24_and_a_float_is_refused(fn, line_text, args):
    assert fn(*args) == BIG  # eager keeps the int
    message = refusal(fn, line_text, *args)
    assert "the Python number 16777217" in message and "(it would be 16777216.0)" in message
    assert "write the int as jnp.float32(...)" in message


def test_the_fix_of_a_staged_choice_works_and_ints_float32_holds_are_chosen_as_before():
    for c in (1, -1):
        fixed = autograph_lite.jit(ternary_as_float32)(jnp.int32(c))
        assert fixed == ternary_as_float32(jnp.int32(c)) and fixed.dtype == jnp.float32
        small = autograph_lite.jit(ternary_small)(jnp.int32(c))
        assert small == ternary_small(jnp.int32(c))


def test_a_loop_carry_entering_as_a_python_int_past_2_24_that_the_body_makes_a_float_is_refused():
    assert carried(jnp.int32(0)) == BIG  # eager, after zero iterations
    message = refusal(carried, "for _ in range(n)", jnp.int32(0))
    assert "enters the `for` loop as the Python number 16777217" in message and "jnp.float32(...)" in message
    for n in (0, 2):  # the fix
        assert autograph_lite.jit(carried_as_float32)(jnp.int32(n)) == carried_as_float32(jnp.int32(n))


def test_an_int_past_int32_in_a_list_or_range_indexed_by_a_traced_value_is_a_located_error():
    assert seed(jnp.int32(0)) == 2**31 and offset(jnp.int32(3)) == 3 * 2**38  # eager: Python ints
    message = refusal(seed, "SEEDS[i]", jnp.int32(0))
    assert "the Python int 2147483648, which no int32 holds" in message and "jax_enable_x64" in message
    assert "the Python int 824633720832" in refusal(offset, "range(0, 2**40", jnp.int32(3))
    refusal(seed_mod, "SEEDS[i] % 7", jnp.int32(0))
    assert autograph_lite.jit(seed_mod, static_argnames="i")(i=0) == seed_mod(0) == 2**31 % 7  # the fix: a concrete index


X64_PROGRAM = '''
import jax, jax.numpy as jnp, autograph_lite
jax.config.update("jax_enable_x64", True)
from autograph_lite.errors import StagingTypeError

def seed(i):
    return [2**31, 1][i]

def offset(i):
    return range(0, 2**40, 2**38)[i]

def pick(i):
    return [16777217, 0.5][i]

def pick_past_float64(i):
    return [2**53 + 1, 0.5][i]

assert autograph_lite.jit(seed)(jnp.int32(0)) == 2**31          # the hint's fix: an int64 holds it
assert autograph_lite.jit(offset)(jnp.int32(3)) == 3 * 2**38
assert autograph_lite.jit(pick)(jnp.int32(0)) == 16777217        # a float64 holds it
try:
    autograph_lite.jit(pick_past_float64)(jnp.int32(0))
except StagingTypeError as error:
    assert "9007199254740993 (element 0)" in str(error), error
else:
    raise AssertionError("2**53 + 1 as a float64 is 2**53: refused")
print("ok")
'''


def test_under_x64_the_hinted_fix_works_and_float64_is_judged_alike(tmp_path):
    run_program(tmp_path, X64_PROGRAM, "x64_ints")

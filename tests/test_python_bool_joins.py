"""A Python bool joins a staged choice as the Python number it is (runtime/weak_types.python_bools_weak).

``True`` is 1 eagerly: ``True * v_u8`` is uint8 arithmetic, as ``1 * v_u8`` is. JAX stages a Python
bool as a strongly typed bool, so a traced ``if`` / ternary / loop carry joining ``True`` with ``1``
made a strongly typed int32 (``on * v_u8 + v_u8`` was the int32 400 for eager's wrapped uint8 144;
beside a float16, float32 arithmetic), and joining ``False`` with an int32 was a StagingTypeError
where eager runs. A Python bool is now weakly typed where a staged statement joins it.
"""

from __future__ import annotations

import jax.numpy as jnp
import pytest
from program_dtypes import dtype_difference, kinds
from support import assert_same

import autograph_lite

PIXEL = jnp.uint8(200)


def gate_if(x, pixel):
    if x > 0:
        on = True
    else:
        on = 1
    return on * pixel + pixel


def gate_ternary(x, pixel):
    on = True if x > 0 else 2
    return on * pixel + pixel


def gate_else_false(x, pixel):
    on = 2 if x > 0 else False
    return on * pixel + pixel


def gate_half(x, h):
    if x > 0:
        on = True
    else:
        on = 0.5
    return on * h


def carry_set_in_body(n, pixel):
    on = True
    for _ in range(n):
        on = 1
    return on * pixel + pixel


def carry_set_under_if(n, x, pixel):
    on = False
    i = 0
    while i < n:
        if x > i:
            on = 2
        i = i + 1
    return on * pixel + pixel


def carry_half(n, h):
    on = True
    for _ in range(n):
        on = 0.5
    return on * h


F32 = jnp.float32
CASES = [
    (gate_if, (F32(1.0), PIXEL)), (gate_if, (F32(-1.0), PIXEL)),
    (gate_ternary, (F32(1.0), PIXEL)), (gate_ternary, (F32(-1.0), PIXEL)),
    (gate_else_false, (F32(1.0), PIXEL)), (gate_else_false, (F32(-1.0), PIXEL)),
    (gate_half, (F32(1.0), jnp.float16(3.0))), (gate_half, (F32(-1.0), jnp.float16(3.0))),
    (carry_set_in_body, (jnp.int32(2), PIXEL)), (carry_set_in_body, (jnp.int32(0), PIXEL)),
    (carry_set_under_if, (jnp.int32(2), F32(1.0), PIXEL)), (carry_set_under_if, (jnp.int32(0), F32(1.0), PIXEL)),
    (carry_half, (jnp.int32(2), jnp.float16(3.0))), (carry_half, (jnp.int32(0), jnp.float16(3.0))),
]


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{fn.__name__}-{i}" for i, (fn, _) in enumerate(CASES)])
def test_a_python_bool_beside_a_python_number_computes_in_the_narrow_dtype(fn, args) -> None:
    """Eager arithmetic with the uint8 / float16 stays in its dtype on every path."""
    expected = fn(*args)
    got = autograph_lite.jit(fn)(*args)
    assert got.dtype == expected.dtype == args[-1].dtype
    assert_same(got, expected)


def flag_or_count(x, n):
    if x > 0:
        r = False
    else:
        r = n
    return r


def count_unless_marked(n, m):
    s = m
    for i in range(n):
        if i > 0:
            s = False
    return s


def marked_unless_counted(n, m):
    s = True
    for i in range(n):
        if i > 0:
            s = m
    return s


def first_negative_or_total(chars):
    s = 0
    for c in chars:
        if c < 0:
            return False
        s = s + c
    return s


ACCEPTED = [
    (flag_or_count, (F32(1.0), jnp.int32(5))), (flag_or_count, (F32(-1.0), jnp.int32(5))),
    (count_unless_marked, (jnp.int32(2), jnp.int32(7))), (count_unless_marked, (jnp.int32(1), jnp.int32(7))),
    (marked_unless_counted, (jnp.int32(2), jnp.int32(7))), (marked_unless_counted, (jnp.int32(0), jnp.int32(7))),
    (first_negative_or_total, (jnp.array([1, 2, 0], jnp.int32),)),
    (first_negative_or_total, (jnp.array([1, -2, 0], jnp.int32),)),
]


@pytest.mark.parametrize("fn, args", ACCEPTED, ids=[f"{fn.__name__}-{i}" for i, (fn, _) in enumerate(ACCEPTED)])
def test_a_python_bool_beside_an_int32_is_that_int32(fn, args) -> None:
    """As a Python int beside an int32 is (docs/semantics.md): eager's value, as an int32; a
    StagingTypeError ("bool[] ... but i32[]") before, also for ``return False`` in a loop beside
    ``return s`` after it."""
    expected = fn(*args)
    got = autograph_lite.jit(fn)(*args)
    assert got.dtype == jnp.int32
    assert dtype_difference(got, kinds(expected), staged=True) is None
    assert int(got) == int(expected)


def test_two_python_bools_stay_a_bool() -> None:
    def stays_bool(n, x):
        on = True
        for i in range(n):
            if x > i:
                on = False
        return on, (True if x > 0 else False)

    args = (jnp.int32(2), F32(0.5))
    expected = stays_bool(*args)
    got = autograph_lite.jit(stays_bool)(*args)
    assert [leaf.dtype for leaf in got] == [jnp.bool_, jnp.bool_]
    assert dtype_difference(got, kinds(expected), staged=True) is None
    assert_same(got, expected)


def test_a_python_bool_the_first_iteration_prints_is_still_refused() -> None:
    """Carried as the number from the start, the first iteration would print 1 where eager prints True."""
    def printed(n):
        on = True
        for _ in range(n):
            print(on)
            on = 1
        return on

    with pytest.raises(autograph_lite.StagingTypeError,
                       match=r"'on' is a Python bool \(bool\[\]\) before the `for` loop.*\n.*jnp.asarray\(on, 'int32'\)"):
        autograph_lite.jit(printed)(jnp.int32(2))

    def as_the_hint_says(n):
        on = True
        on = jnp.asarray(on, 'int32')
        for _ in range(n):
            on = 1
        return on

    assert int(autograph_lite.jit(as_the_hint_says)(jnp.int32(2))) == 1


def reached_or_five(n):
    i = 0
    while i < n:
        if i > 2:
            return True
        i = i + 1
    return 5


def switched(k, pixel):
    if k == 0:
        on = True
    elif k == 1:
        on = 1
    elif k == 2:
        on = 2
    else:
        on = False
    return on * pixel + pixel


RETURNS_AND_SWITCHES = [
    (reached_or_five, (jnp.int32(5),)), (reached_or_five, (jnp.int32(1),)),
    *[(switched, (jnp.int32(k), PIXEL)) for k in range(4)],
]


@pytest.mark.parametrize("fn, args", RETURNS_AND_SWITCHES,
                         ids=[f"{fn.__name__}-{i}" for i, (fn, _) in enumerate(RETURNS_AND_SWITCHES)])
def test_a_python_bool_returned_from_a_loop_or_chosen_by_a_switch(fn, args) -> None:
    """``return True`` in a loop beside ``return 5`` was a strongly typed int32 (int32 arithmetic beside
    an int8); a switch over True / 1 / 2 / False a StagingTypeError."""
    expected = fn(*args)
    got = autograph_lite.jit(fn)(*args)
    assert dtype_difference(got, kinds(expected), staged=True) is None
    assert_same(got, expected)
    assert (got + jnp.int8(1)).dtype == (expected + jnp.int8(1)).dtype  # int8 arithmetic, as eagerly


def compared_or_one(x, c, pixel):
    on = (x > 0) if c > 0 else 1
    return on * pixel + pixel


def compared_then_counted(n, x, pixel):
    on = x > 0
    for _ in range(n):
        on = 1
    return on * pixel + pixel


def compared_in_a_switch(k, x, pixel):
    if k == 0:
        on = x > 0
    elif k == 1:
        on = 2
    else:
        on = 1
    return on * pixel + pixel


TRACED_BOOLS = [
    (compared_or_one, (F32(1.0), F32(1.0), PIXEL)), (compared_or_one, (F32(1.0), F32(-1.0), PIXEL)),
    (compared_then_counted, (jnp.int32(0), F32(1.0), PIXEL)), (compared_then_counted, (jnp.int32(2), F32(1.0), PIXEL)),
    *[(compared_in_a_switch, (jnp.int32(k), F32(1.0), PIXEL)) for k in range(3)],
]


@pytest.mark.parametrize("fn, args", TRACED_BOOLS, ids=[f"{fn.__name__}-{i}" for i, (fn, _) in enumerate(TRACED_BOOLS)])
def test_a_traced_bool_beside_a_python_number_is_that_weakly_typed_number(fn, args) -> None:
    """A bool is the lowest dtype: ``(x > 0) * v_u8`` is uint8 arithmetic eagerly, as ``1 * v_u8`` is, so
    the join is the weakly typed number, where a strongly typed int32 gave 400 for eager's wrapped 144."""
    expected = fn(*args)
    got = autograph_lite.jit(fn)(*args)
    assert got.dtype == expected.dtype == jnp.uint8
    assert_same(got, expected)


def test_a_traced_bool_beside_an_int32_is_still_refused_in_an_if() -> None:
    """On the bool's path eager's ``(x > 0) * v_u8`` is uint8, an int32 join would not be."""
    def compared_or_count(x, n):
        if x > 1:
            r = x > 2
        else:
            r = n
        return r

    with pytest.raises(autograph_lite.StagingTypeError, match="'r' is bool\\[\\] in the true branch"):
        autograph_lite.jit(compared_or_count)(F32(1.0), jnp.int32(5))

"""``if`` / ``elif`` chains and ``match`` statements on one integer: the same results as eager Python (issue #19).

An integer scalar subject that is traced stages one ``lax.switch``. Every function is checked against
eager Python: on concrete inputs (``convert``: Python's ``==`` in order, whatever the subject's type),
and on traced ones (``jit``), for subjects of every integer dtype, in and out of the cases' range.
Prints, run-time raises, side effects, vmap and grad are checked through the switch too, and its errors
(an array subject, every branch raising, branches whose types differ) are the nested ``lax.cond``s'.
What becomes a switch and what it costs: tests/test_switch_lowering.py; an ``else`` that raises and
weakly typed scalars: tests/test_switch_weak_and_raising.py.

PYTEST_DONT_REWRITE: a user function here holds an assert, whose eager message must stay Python's.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from print_support import assert_prints_like_eager
from support import assert_equivalent, assert_same, primitives

import autograph_lite
from autograph_lite import ConversionError
from tests.test_runtime_checks import assert_like_eager

I32, F32 = jnp.int32, jnp.float32


def four_way(k, x):
    if k == 0:
        y = x + 1.0
    elif k == 1:
        y = x * 2.0
    elif k == 2:
        y = x - 3.0
    else:
        y = -x
    return y


def sparse_negative(k, x):
    if k == -5:
        y = x + 1.0
    elif k == 7:
        y = x * 2.0
    elif k == 100:
        y = x - 3.0
    elif k == -1:
        y = x * x
    else:
        y = -x
    return y


def literal_cases(k, x):
    match k:
        case 1:
            return x
        case 2 | 3:
            return x * 2
        case 5:
            return x * 3
        case _:
            return 0.0 * x


def no_else(k, x):
    y = x
    if k == 3:
        y = x + 1
    elif k == 4:
        y = x + 2
    elif k == 5:
        y = x + 3
    return y


def returns_in_some_branches(k, x):
    if k == 0:
        return x * 10
    elif k == 1:
        x = x + 1
    elif k == 2:
        return x - 10
    return x * 2


def returns_in_a_loop(k, x):
    for i in range(3):
        if k == 0:
            return x * i
        elif k == 1:
            x = x + 1
        elif k == 2:
            return x - 10
        else:
            x = x * 2
    return x


def weak_scalar_in_one_branch(k, x):
    if k == 0:
        y = 0
    elif k == 1:
        y = x * 2.0
    elif k == 2:
        y = x - 1.0
    else:
        y = x
    return y


def chained(k, x):
    """Branches that stage conds, loops and another switch of their own."""
    if k == 0:
        y = x
        for _ in range(k + 3):
            y = y * 0.5
    elif k == 1:
        y = jnp.where(x > 0, x, -x)
        if y > 1:
            y = y - 1
    elif k == 2:
        y = four_way(k - 1, x) + four_way(k + 1, x)
    else:
        y = x * 0
    return y


KS = [-2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 100, -5, 2**31 - 1, -(2**31)]


@pytest.mark.parametrize("function", [four_way, sparse_negative, literal_cases, no_else, returns_in_some_branches,
                                      returns_in_a_loop, weak_scalar_in_one_branch, chained])
@pytest.mark.parametrize("k", KS)
def test_agrees_with_eager_for_concrete_and_traced_int_subjects(function, k):
    assert_equivalent(function, k, F32(1.5))
    assert_equivalent(function, I32(k), F32(-0.5))


@pytest.mark.parametrize("subject", [1.0, 2.0, 7.5, np.float32(1.0), np.int64(2), np.int8(0), True, False, jnp.float32(0.0)])
def test_a_concrete_subject_of_any_type_matches_as_pythons_equality(subject):
    for function in (four_way, literal_cases, no_else):
        assert_same(autograph_lite.convert(function)(subject, F32(1.5)), function(subject, F32(1.5)), what=function.__name__)


def test_a_traced_array_subject_is_refused_as_the_nested_conds_refuse_it():
    def two_tests(k, x):  # stays nested conds: the reference message
        if k == 0:
            y = x
        elif k == 1:
            y = -x
        else:
            y = x * 2
        return y

    messages = []
    for function in (two_tests, four_way):
        with pytest.raises(Exception) as raised:
            autograph_lite.jit(function)(jnp.arange(3), F32(1.5))
        messages.append((type(raised.value), str(raised.value).split(":")[-1]))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("dtype, values", [
    (jnp.int8, [-128, -1, 0, 1, 2, 127]), (jnp.uint8, [0, 1, 2, 3, 255]), (jnp.int16, [-1, 0, 2, 3]),
    (jnp.uint32, [0, 1, 2, 3, 2**32 - 1, 2**31]),
])
def test_small_and_unsigned_integer_subjects(dtype, values):
    for value in values:
        for function in (four_way, sparse_negative if jnp.issubdtype(dtype, jnp.signedinteger) else no_else):
            assert_equivalent(function, jnp.asarray(value, dtype), F32(1.5))


def test_constants_outside_the_subjects_dtype_stage_the_nested_conds_as_before():
    def wide(k, x):
        if k == 1:
            y = x
        elif k == 2:
            y = -x
        elif k == 300:
            y = x * 3
        else:
            y = x * 0
        return y

    for value in (1, 2, 0):
        expected = wide(jnp.uint8(value), F32(1.5))
        assert_same(autograph_lite.jit(wide)(jnp.uint8(value), F32(1.5)), expected)


def test_vmap_over_the_subject_and_the_operand():
    ks = jnp.array([-1, 0, 1, 2, 3, 5], I32)
    xs = jnp.linspace(-2.0, 2.0, 6, dtype=F32)
    for function in (four_way, sparse_negative, literal_cases):
        batched = jax.vmap(autograph_lite.convert(function))(ks, xs)
        expected = jnp.stack([function(int(k), x) for k, x in zip(ks, xs)])
        assert_same(batched, expected, what=function.__name__)


@pytest.mark.parametrize("k", [0, 1, 2, 3, 9])
def test_grad_through_the_switch(k):
    def smooth(k, x):
        if k == 0:
            y = jnp.sin(x)
        elif k == 1:
            y = x**3
        elif k == 2:
            y = jnp.exp(x) * x
        else:
            y = 2.0 * x
        return y

    staged = jax.jit(jax.grad(autograph_lite.convert(smooth), argnums=1))
    assert_same(staged(I32(k), F32(0.7)), jax.grad(smooth, argnums=1)(k, F32(0.7)))
    assert "cond" in primitives(jax.grad(autograph_lite.convert(smooth), argnums=1), I32(k), F32(0.7))


def prints_its_branch(k, x):
    if k == 0:
        print("zero", x)
    elif k == 1:
        print("one")
    elif k == 2:
        print(f"two {x}")
    else:
        print("other", k)
    return x


@pytest.mark.parametrize("k, expected", [(0, "zero 1.5\n"), (1, "one\n"), (2, "two 1.5\n"), (7, "other 7\n")])
def test_only_the_taken_branch_prints(k, expected):
    assert_prints_like_eager(prints_its_branch, I32(k), F32(1.5), expected=expected)


def raises_in_branches(k, x):
    if k == 0:
        raise ValueError(f"no zero, x={x}")
    elif k == 1:
        y = x * 2
    elif k == 2:
        assert x > 0, "x must be positive"
        y = x
    else:
        y = x + k
    return y


@pytest.mark.parametrize("k, x", [(0, 1.0), (1, 1.0), (2, 1.0), (2, -1.0), (3, -1.0)])
def test_run_time_checks_in_branches_fire_only_on_the_taken_branch(k, x):
    assert_like_eager(raises_in_branches, I32(k), F32(x))
    assert "lax.switch" in str(autograph_lite.explain(raises_in_branches, I32(k), F32(x)))


def test_every_branch_raising_is_the_nested_conds_error():
    def always_raises(k):
        if k == 0:
            raise ValueError("a")
        elif k == 1:
            raise ValueError("b")
        elif k == 2:
            raise ValueError("c")
        else:
            raise ValueError("d")

    with pytest.raises(ConversionError, match="every path through this `if` raises"):
        autograph_lite.jit(always_raises)(I32(1))


def test_a_side_effect_in_a_branch_is_refused_with_a_traced_subject_only():
    seen = []

    def appends_outside(k, x):
        if k == 0:
            seen.append(x)
        elif k == 1:
            y = 1
        elif k == 2:
            y = 2
        y = 3
        return x * y

    # Refused at the call, by the runtime's check of what it mutates (the chain itself refused before).
    with pytest.raises(ConversionError, match=r"this call of list\.append\(\), which mutates a list, runs inside"):
        autograph_lite.jit(appends_outside)(I32(0), F32(1.0))
    assert_same(autograph_lite.convert(appends_outside)(0, F32(1.0)), F32(3.0))
    assert len(seen) == 1


def test_a_switch_in_a_staged_loop_body():
    def state_machine(n, x):
        state = 0
        for _ in range(n):
            if state == 0:
                x = x + 1.0
                state = 1
            elif state == 1:
                x = x * 2.0
                state = 2
            elif state == 2:
                x = x - 3.0
                state = 0 if x < 10 else 3
            else:
                x = x
        return x, state

    for n in (0, 1, 5, 20):
        assert_equivalent(state_machine, I32(n), F32(1.0))
    assert "switch" in str(autograph_lite.explain(state_machine, I32(5), F32(1.0)))


def test_a_type_mismatch_is_the_nested_conds_error_naming_every_line():
    def mismatched(k, x):
        if k == 0:
            return x
        elif k == 1:
            return jnp.zeros(3)
        elif k == 2:
            return x
        return x

    first = mismatched.__code__.co_firstlineno
    with pytest.raises(autograph_lite.StagingTypeError) as raised:
        autograph_lite.jit(mismatched)(I32(1), F32(1.0))
    assert f"returns f32[3] at line {first + 4} but f32[] at line {first + 6}, {first + 7}" in str(raised.value)


def unsigned_codes(m, x):
    if m == 4294967293:
        y = x
    elif m == 4294967294:
        y = x + 1
    elif m == 4294967295:
        y = x + 2
    else:
        y = x * 0
    return y


def test_constants_past_a_python_ints_range_raise_eagers_overflow_error():
    """A uint32 holds 4294967294, but JAX takes the Python int as its default int32 and raises (eagerly
    and under plain ``jax.jit``): the switch, which compared in uint32, returned a value instead."""
    args = (jnp.uint32(4294967294), F32(3.0))
    with pytest.raises(OverflowError) as eager:
        unsigned_codes(*args)
    with pytest.raises(OverflowError) as converted:
        autograph_lite.jit(unsigned_codes)(*args)
    assert str(converted.value) == str(eager.value)

"""``match`` statements: an ``if`` chain, staged when the subject (or a guard) is traced.

Every function is checked against eager Python on concrete inputs (``convert``), traced inputs
(``jit``) and, where it matters, a static subject (``static_argnums``), on inputs that reach every
case. Patterns that only Python's ``match`` can test (class, sequence, mapping, a refutable capture
with a guard) are in test_match_patterns.py.
"""

from __future__ import annotations

import enum

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import STAGED_CHOICE, assert_equivalent, assert_same, primitives, where

import autograph_lite

I32, F32 = jnp.int32, jnp.float32


class Mode(enum.IntEnum):
    ADD = 0
    SCALE = 1


class Limits:
    LOW = 2
    HIGH = 7


def literals_or_wildcard(a, x):
    match a:
        case 0:
            y = x + 1
        case 1 | 2:
            y = x * 2
        case _:
            y = -x
    return y


def capture_and_as(a, x):
    match a:
        case 0:
            y = x
        case (3 | 4) as k:
            y = x * k
        case n:
            y = x - n
    return y


def guards(a, x):
    match a:
        case 0 if x > 0:  # a traced guard on a traced or concrete subject
            y = x * 3
        case 0:
            y = x * 5
        case n if n > 5:  # Python binds n before testing the guard
            y = x + n
        case _:
            y = x - 1
    return y


def dotted_values(a, x):
    match a:
        case Mode.ADD:
            y = x + 10
        case Mode.SCALE:
            y = x * 10
        case Limits.LOW | Limits.HIGH:
            y = x - 10
        case _:
            y = x
    return y


def float_subject(v):
    match v:
        case 0.5:
            return v * 4
        case -1.5:
            return v * 2
        case _:
            return v


def string_subject(name, x):
    match name:
        case "double":
            return x * 2
        case "negate" | "minus":
            return -x
        case other:
            return x + len(other)


def singletons(flag, x):
    match flag:
        case None:
            return x
        case True:
            return x + 1
        case False:
            return x - 1
        case _:
            return x * 100


def several_outputs(a, x):
    match a:
        case 0:
            y, z = x, x + 1
        case 1:
            y, z = x * 2, x
        case _:
            y, z = -x, 2 * x
    return y + z, z


def nested(a, b, x):
    match a:
        case 0:
            match b:
                case 0:
                    y = x
                case _:
                    y = x + b
        case _:
            y = x * a
    return y


def exits_in_cases(kinds, x):
    total = x
    for kind in kinds:
        match kind:
            case 0:
                continue
            case 1:
                total = total + 1
            case 2:
                break
            case 3:
                return total * 100
            case _:
                total = total * 2
    return total


def match_in_staged_loop(x):
    total = x
    for i in range(6):
        match i % 3:
            case 0:
                total = total + i
            case 1:
                total = total * 2
            case _:
                total = total - 1
    return total


def formula_by_kind(kind, x):
    match kind:
        case 0:
            return x * x
        case 1:
            return jnp.sin(x)
        case _:
            return 3 * x


@pytest.mark.parametrize("a", [-1, 0, 1, 2, 3, 7])
def test_literals_or_and_wildcard(a):
    assert_equivalent(literals_or_wildcard, I32(a), F32(3.0))
    assert_equivalent(literals_or_wildcard, a, 3.0, static_argnums=0)


def test_traced_subject_stages_one_program():
    assert primitives(autograph_lite.convert(literals_or_wildcard), I32(1), F32(3.0)) & STAGED_CHOICE
    calls = []
    staged = autograph_lite.jit(lambda a, x: (calls.append(1), literals_or_wildcard(a, x))[1])
    for a in range(4):
        assert_same(staged(I32(a), F32(2.0)), literals_or_wildcard(a, 2.0))
    assert len(calls) == 1  # traced once, whatever the subject


@pytest.mark.parametrize("a", [0, 3, 4, 5, -2])
def test_captures_and_as(a):
    assert_equivalent(capture_and_as, I32(a), F32(2.0))
    assert_equivalent(capture_and_as, a, 2.0, static_argnums=0)


@pytest.mark.parametrize(("a", "x"), [(0, 1.0), (0, -1.0), (6, 2.0), (5, 2.0), (1, 2.0)])
def test_guards_concrete_and_traced(a, x):
    assert_equivalent(guards, I32(a), F32(x))
    assert_equivalent(guards, a, F32(x), static_argnums=0)
    assert_equivalent(guards, a, x, static_argnums=(0, 1))


@pytest.mark.parametrize("a", [0, 1, 2, 7, 5])
def test_dotted_name_values(a):
    assert_equivalent(dotted_values, I32(a), F32(1.5))
    assert_equivalent(dotted_values, Mode(a) if a < 2 else a, 1.5, static_argnums=0)


@pytest.mark.parametrize("v", [0.5, -1.5, 2.0])
def test_float_subject(v):
    assert_equivalent(float_subject, F32(v))


@pytest.mark.parametrize("name", ["double", "minus", "negate", "other"])
def test_string_subject_is_concrete(name):
    assert_equivalent(string_subject, name, F32(2.0), static_argnums=0)


@pytest.mark.parametrize("flag", [None, True, False, 3])
def test_singletons_use_is(flag):
    assert_equivalent(singletons, flag, F32(2.0), static_argnums=0)
    # A traced value is never `True` (nor an eager array): Python's `is`, as eager on arrays.
    if flag is not None:
        assert_equivalent(singletons, jnp.asarray(flag), F32(2.0))


@pytest.mark.parametrize("a", [0, 1, 2])
def test_cases_with_different_outputs(a):
    assert_equivalent(several_outputs, I32(a), F32(2.0))


@pytest.mark.parametrize(("a", "b"), [(0, 0), (0, 3), (2, 0), (2, 5)])
def test_nested_match(a, b):
    assert_equivalent(nested, I32(a), I32(b), F32(2.0))
    assert_equivalent(nested, a, b, 2.0, static_argnums=(0, 1))


@pytest.mark.parametrize("kinds", [[0, 1, 1, 4], [1, 2, 1], [4, 3, 1], [0, 0]])
def test_return_break_continue_in_cases(kinds):
    assert_equivalent(exits_in_cases, np.array(kinds, np.int32), F32(1.0))
    assert_equivalent(exits_in_cases, tuple(kinds), 1.0, static_argnums=0)


def test_match_inside_a_staged_loop():
    assert_equivalent(match_in_staged_loop, F32(1.0))
    converted = autograph_lite.convert(match_in_staged_loop, static_loops="stage")
    assert_same(jax.jit(converted)(F32(1.0)), match_in_staged_loop(F32(1.0)))
    assert "scan" in primitives(converted, F32(1.0))


@pytest.mark.parametrize("kind", [0, 1, 2])
def test_grad_through_a_match_on_a_traced_int(kind):
    expected = jax.grad(lambda x: formula_by_kind(kind, x))(F32(0.7))
    got = jax.jit(jax.grad(autograph_lite.convert(formula_by_kind), argnums=1))(I32(kind), F32(0.7))
    assert_same(got, expected)


def test_vmap_over_the_subject():
    kinds = jnp.array([0, 1, 2, 5], jnp.int32)
    got = jax.vmap(autograph_lite.convert(formula_by_kind), in_axes=(0, None))(kinds, F32(0.7))
    assert_same(got, jnp.stack([formula_by_kind(int(k), F32(0.7)) for k in kinds]))


def only_some_cases_assign(a, x):
    match a:
        case 0:
            y = x
        case 1:
            y = x * 2
    return y


def test_name_assigned_in_only_some_cases_is_the_located_error():
    assert_equivalent(only_some_cases_assign, 1, F32(2.0), static_argnums=0)
    with pytest.raises(autograph_lite.StagingTypeError) as caught:
        autograph_lite.jit(only_some_cases_assign)(I32(1), F32(2.0))
    message = str(caught.value)
    assert "'y'" in message
    assert where(only_some_cases_assign, "case 1:") in message


def capture_read_by_a_closure(a, x):
    match a:
        case 0:
            n = 10
        case n:
            pass
    scale = lambda: n * 2  # a closure over the capture
    return x * scale()


@pytest.mark.parametrize("a", [0, 3])
def test_capture_read_by_a_closure(a):
    assert_equivalent(capture_read_by_a_closure, a, F32(1.5), static_argnums=0)
    assert_equivalent(capture_read_by_a_closure, I32(a), F32(1.5))


def test_rewrite_is_an_if_chain():
    source = autograph_lite.to_source(literals_or_wildcard)
    assert "match " not in source
    assert "_ag_subject_L" in source
    assert "_ag.or_(_ag_subject_L" in source


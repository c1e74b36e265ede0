"""Carried variables whose type changes in a staged loop, and variables first assigned in one.

A dtype or shape change is a ``StagingTypeError`` naming the variable, both types and the loop's
``file.py:LINE``; a weakly typed Python scalar is promoted as eager arithmetic would.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from support import assert_equivalent, primitives
from test_loops import F32, I32, where

import autograph_lite
from autograph_lite import StagingTypeError


def int_to_float_in_while(x):
    acc = jnp.int32(0)
    while x > 0:
        acc = acc + x
        x = x - 1.0
    return acc


def int_to_float_in_traced_range(n, x):
    acc = jnp.int32(0)
    for _ in range(n):
        acc = acc + x
    return acc


def growing_in_while(x, n):
    while n > 0:
        x = jnp.concatenate([x, x])
        n = n - 1
    return x


def none_becomes_array_in_while(x):
    best = None
    while x > 0:
        best = x
        x = x - 1.0
    return best


def none_becomes_array_in_staged_for(xs):
    best = None
    for x in autograph_lite.stage(xs):
        best = x
    return best


def test_int_array_becoming_float_in_a_while_is_named():
    with pytest.raises(StagingTypeError) as excinfo:
        autograph_lite.jit(int_to_float_in_while)(F32(2.0))
    message = str(excinfo.value)
    assert message.startswith(where(int_to_float_in_while, "while x > 0:") + ": ")
    assert "'acc' is i32[] before the `while` loop but f32[] after one iteration (the dtype differs)" in message
    assert "Start it as a float: acc = 0.0" in message
    assert excinfo.value.__cause__ is not None


def test_int_array_becoming_float_in_a_traced_range_is_named():
    with pytest.raises(StagingTypeError) as excinfo:
        autograph_lite.jit(int_to_float_in_traced_range)(I32(3), F32(0.5))
    message = str(excinfo.value)
    assert where(int_to_float_in_traced_range, "for _ in range(n):") in message
    assert "'acc' is i32[] before the `for` loop but" in message and "f32[]" in message


def test_growing_shape_in_a_while_is_named():
    with pytest.raises(StagingTypeError) as excinfo:
        autograph_lite.jit(growing_in_while)(jnp.ones(2, F32), I32(2))
    message = str(excinfo.value)
    assert where(growing_in_while, "while n > 0:") in message
    assert "'x' is f32[2] before the `while` loop but f32[4] after one iteration (the shape differs)" in message
    assert "Allocate 'x' at a static maximum size" in message and "make the trip count static" in message
    assert "preallocate" not in message  # its final shape depends on the traced trip count


@pytest.mark.parametrize("fn, args, text, fix", [
    # a traced trip count cannot run as Python: no unroll(...) there
    (none_becomes_array_in_while, (F32(2.0),), "while x > 0:", "`best = jnp.zeros(shape, dtype)`"),
    (none_becomes_array_in_staged_for, (jnp.ones(3, F32),), "for x in autograph_lite.stage(xs):", "unroll(...)"),
])
def test_none_becoming_an_array_in_a_staged_loop_is_named(fn, args, text, fix):
    with pytest.raises(StagingTypeError) as excinfo:
        autograph_lite.jit(fn)(*args)
    message = str(excinfo.value)
    assert where(fn, text) in message
    assert "'best' is None before the staged loop but f32[] after one iteration (the Python structure differs)" in message
    assert fix in message and (fix == "unroll(...)" or "unroll" not in message)


def growing_in_static_loop(x):
    for _ in range(3):
        x = jnp.concatenate([x, x])
    return x


def int_to_float_in_static_loop(x):
    acc = jnp.int32(0)
    for _ in range(3):
        acc = acc + x
    return acc


def none_becomes_array_in_static_loop(xs):
    best = None
    for x in xs:
        best = x
    return best


@pytest.mark.parametrize("fn, arg", [
    (growing_in_static_loop, jnp.ones(2, F32)),
    (int_to_float_in_static_loop, F32(1.5)),
    (none_becomes_array_in_static_loop, jnp.ones(3, F32)),
], ids=["growing", "int_to_float", "none_to_array"])
def test_static_loop_whose_carry_changes_type_matches_eager(fn, arg):
    # A static trip count gives "auto" the choice: plain jax.jit would unroll this loop and succeed, so
    # the converted function must too (staging is an optimisation, never a new error).
    assert_equivalent(fn, arg)


def first_assigned_in_while(x):
    while x > 0:
        last = x
        x = x - 1.0
    return last


def first_assigned_in_scan(xs):
    total = 0.0
    for x in autograph_lite.stage(xs):
        total = total + x
        latest = total * 2
    return latest


def first_assigned_in_auto_loop(xs):
    total = 0.0
    for x in xs:
        total = total + x
        latest = total * 2
    return latest


def test_variable_first_assigned_in_a_staged_while_matches_eager():
    # The name enters the staged while as zeros and a flag; the read after the loop is the last
    # iteration's value, or eager's UnboundLocalError when no iteration ran.
    jitted = autograph_lite.jit(first_assigned_in_while)
    assert float(jitted(F32(2.0))) == float(first_assigned_in_while(F32(2.0))) == 1.0
    assert "while" in primitives(autograph_lite.convert(first_assigned_in_while), F32(2.0))
    with pytest.raises(UnboundLocalError) as eager:
        first_assigned_in_while(F32(-1.0))
    with pytest.raises(UnboundLocalError) as converted:
        jax.block_until_ready(jitted(F32(-1.0)))
    assert str(converted.value) == str(eager.value)


def test_variable_first_assigned_in_a_loop_marked_stage_matches_eager():
    # The body assigns `latest` before reading it and the trip count is static and nonzero, so the
    # staged scan may start it as zeros: the first iteration overwrites them, as Python would.
    assert_equivalent(first_assigned_in_scan, jnp.asarray([1.0, 2.0], F32))
    assert "scan" in primitives(autograph_lite.convert(first_assigned_in_scan), jnp.asarray([1.0, 2.0], F32))


def test_variable_first_assigned_in_an_auto_static_loop_matches_eager():
    # "auto" may keep the loop in Python, where the variable is bound after a non-empty loop.
    assert_equivalent(first_assigned_in_auto_loop, jnp.asarray([1.0, 2.0], F32))


def test_variable_first_assigned_in_a_concrete_loop_is_fine():
    assert float(autograph_lite.convert(first_assigned_in_while)(F32(2.0))) == 1.0


# --- early exits ----------------------------------------------------------------------------------------

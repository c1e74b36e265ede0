"""Loops with a static trip count (staged when it pays, Python when the body needs it), nesting, and
the values a staged loop carries.

Checked against eager Python with ``support.assert_equivalent``; the staged primitive is checked in
the jaxpr.
"""

from __future__ import annotations

import collections

import jax
import jax.numpy as jnp
import pytest
from support import assert_equivalent, assert_same, count_equations
from test_loops import F32, I32, LOOPS, XS, staged, where

import autograph_lite


def static_range_traced_carry(x):
    for i in range(8):
        x = jnp.sin(x) + i
    return x


def test_concrete_range_with_traced_carry_is_staged_and_smaller_than_unrolled():
    assert_equivalent(static_range_traced_carry, F32(0.5))
    assert LOOPS & staged(static_range_traced_carry, F32(0.5))
    staged_count = count_equations(autograph_lite.convert(static_range_traced_carry), F32(0.5))
    unrolled_count = count_equations(static_range_traced_carry, F32(0.5))
    assert staged_count < unrolled_count


def pick_from_python_list(x):
    scales = [1.0, -2.0, 0.5, 4.0]
    shapes = [(1,), (2,), (3,), (4,)]
    total = x
    for i in range(4):
        total = total * scales[i] + jnp.ones(shapes[i]).sum()
    return total


def test_body_indexing_a_python_list_stays_python():
    assert_equivalent(pick_from_python_list, F32(1.5))
    assert not LOOPS & staged(pick_from_python_list, F32(1.5))


def with_unroll(x):
    for i in autograph_lite.unroll(range(4)):
        x = x * 2 + i
    return x


def with_stage(x):
    for i in autograph_lite.stage(range(4)):
        x = x * 2 + i
    return x


def python_carry_with_stage(x):
    count = 0
    for _ in autograph_lite.stage(range(3)):
        count = count + 1
    return x + count


def test_unroll_keeps_python():
    assert_equivalent(with_unroll, F32(1.0))
    assert not LOOPS & staged(with_unroll, F32(1.0))


def test_stage_stages():
    assert_equivalent(with_stage, F32(1.0))
    assert "scan" in staged(with_stage, F32(1.0))


def test_stage_turns_a_python_carry_into_an_array():
    assert_equivalent(python_carry_with_stage, F32(1.0))
    assert "scan" in staged(python_carry_with_stage, F32(1.0))


def test_static_loops_unroll_option():
    assert_equivalent(static_range_traced_carry, F32(0.5))
    assert not LOOPS & staged(static_range_traced_carry, F32(0.5), static_loops="unroll")
    result = autograph_lite.jit(static_range_traced_carry, static_loops="unroll")(F32(0.5))
    assert_same(result, static_range_traced_carry(F32(0.5)))


def test_static_loops_stage_option():
    assert "scan" in staged(over_list_of_python_ints, F32(1.0), static_loops="stage")
    assert_same(autograph_lite.jit(over_list_of_python_ints, static_loops="stage")(F32(1.0)),
                over_list_of_python_ints(F32(1.0)))


def over_list_of_python_ints(x):
    for i in range(3):
        x = x + i
    return x


def unroll_over_traced_range(n, x):
    for i in autograph_lite.unroll(range(n)):
        x = x + i
    return x


def test_unroll_of_a_traced_range_is_a_clear_error():
    with pytest.raises(autograph_lite.ConversionError) as excinfo:
        autograph_lite.jit(unroll_over_traced_range)(I32(3), F32(0.0))
    assert where(unroll_over_traced_range, "for i in autograph_lite.unroll") in str(excinfo.value)
    assert "unroll(...)" in str(excinfo.value)


def python_only_carry(x):
    count = 0
    for i in range(5):
        count = count + i
    return x * count


def test_loop_carrying_only_python_values_stays_python():
    assert_equivalent(python_only_carry, F32(2.0))
    assert not LOOPS & staged(python_only_carry, F32(2.0))


def shape_from_index(x):
    for i in range(1, 4):
        x = x + jnp.zeros((i,)).sum()
    return x


def test_body_needing_a_concrete_index_for_a_shape_stays_python():
    assert_equivalent(shape_from_index, F32(1.0))


# --- nesting --------------------------------------------------------------------------------------------


def nested_loops(xs, n):
    total = 0.0
    for row in xs:
        k = 0
        while k < n:
            total = total + row.sum() * k
            k += 1
    return total


def nested_ranges(n, m):
    acc = 0
    for i in range(n):
        for j in range(i, m):
            acc = acc + i * j
    return acc


INNER_BODY_RUNS: list[int] = []


@autograph_lite.do_not_convert  # counts traces: its append must run in staged code, unchecked
def counted(value):
    INNER_BODY_RUNS.append(1)
    return value


def nested_static_loops(table):
    total = jnp.float32(0.0)
    for i in range(3):
        for j in range(4):
            total = total + counted(table[i, j]) * (i + j)
    return total


def test_a_nested_static_loop_is_tried_aside_once_per_trace():
    # The outer loop's trial reaches the inner loop, whose trial's trace becomes its scan; the outer
    # loop's staging replays the outer trial's trace: the inner body is traced once (traced_bodies).
    table = jnp.arange(12.0, dtype=F32).reshape(3, 4)
    converted = autograph_lite.convert(nested_static_loops)
    INNER_BODY_RUNS.clear()
    jaxpr = jax.make_jaxpr(converted)(table)
    assert len(INNER_BODY_RUNS) == 1
    (outer,) = [e for e in jaxpr.eqns if e.primitive.name == "scan"]
    assert [e.primitive.name for e in outer.params["jaxpr"].eqns].count("scan") == 1  # staged inside
    INNER_BODY_RUNS.clear()
    assert_equivalent(nested_static_loops, table)


def loop_in_branch(x, n):
    if x > 0:
        for i in range(n):
            x = x * 0.5 + i
    else:
        while x < -1:
            x = x / 2
    return x


def branch_in_loop(xs):
    positives = 0.0
    negatives = 0.0
    for x in xs:
        if x > 0:
            positives = positives + x
        elif x < 0:
            negatives = negatives - x
    return positives, negatives


@pytest.mark.parametrize("n", [0, 2])
def test_nested_loops(n):
    assert_equivalent(nested_loops, XS, I32(n))


@pytest.mark.parametrize("n, m", [(0, 3), (3, 2), (4, 5)])
def test_nested_traced_ranges(n, m):
    assert_equivalent(nested_ranges, I32(n), I32(m))


@pytest.mark.parametrize("x", [3.0, -10.0, -0.5])
@pytest.mark.parametrize("n", [0, 3])
def test_loops_in_branches(x, n):
    assert_equivalent(loop_in_branch, F32(x), I32(n))


def test_branches_in_loops():
    assert_equivalent(branch_in_loop, jnp.asarray([1.0, -2.0, 0.0, 3.5, -0.5], F32))
    assert {"scan", "select_n"} <= staged(branch_in_loop, jnp.ones(3, F32))  # sums: selects, not conds


# --- carried values ---------------------------------------------------------------------------------------

Pair = collections.namedtuple("Pair", "total count")


def carry_tuple(xs):
    state = (0.0, 0)
    for x in xs:
        state = (state[0] + x, state[1] + 1)
    return state


def carry_dict(xs):
    state = {"sum": jnp.zeros((), F32), "max": xs[0]}
    for x in xs:
        state = {"sum": state["sum"] + x, "max": jnp.maximum(state["max"], x)}
    return state


def carry_namedtuple(n, x):
    p = Pair(x, 0)
    for i in range(n):
        p = Pair(p.total * 2, p.count + i)
    return p


def carry_dict_in_while(x):
    state = {"x": x, "steps": 0}
    while state["x"] > 1:
        state = {"x": state["x"] / 3, "steps": state["steps"] + 1}
    return state


def test_carried_tuple():
    assert_equivalent(carry_tuple, jnp.asarray([1.0, 2.0, 3.0], F32))


def test_carried_dict():
    assert_equivalent(carry_dict, jnp.asarray([1.0, 5.0, 3.0], F32))


@pytest.mark.parametrize("n", [0, 3])
def test_carried_namedtuple(n):
    result = assert_equivalent(carry_namedtuple, I32(n), F32(1.0))
    assert isinstance(autograph_lite.jit(carry_namedtuple)(I32(n), F32(1.0)), Pair)
    assert isinstance(result, Pair)


@pytest.mark.parametrize("x", [0.5, 50.0])
def test_carried_dict_in_while(x):
    assert_equivalent(carry_dict_in_while, F32(x))


def temporaries_in_body(x):
    total = 0.0
    while x > 1:
        half = x / 2
        scratch = half * 3
        total = total + scratch
        x = half
    return total


def _while_carry_count(fn, *args):
    (equation,) = [e for e in jax.make_jaxpr(autograph_lite.convert(fn))(*args).jaxpr.eqns if e.primitive.name == "while"]
    return len(equation.outvars)


def test_loop_local_temporaries_are_not_carried():
    assert_equivalent(temporaries_in_body, F32(20.0))
    source = autograph_lite.to_source(temporaries_in_body)
    assert "('total', 'x')" in source
    assert "'half'" not in source and "'scratch'" not in source
    assert _while_carry_count(temporaries_in_body, F32(20.0)) == 2


def accumulate_from_int_zero(xs):
    acc = 0
    for x in xs:
        acc = acc + x
    return acc


def accumulate_in_traced_range(n, x):
    acc = 0
    for _ in range(n):
        acc = acc + x
    return acc


def test_int_zero_accumulator_summing_float32_is_float32():
    xs = jnp.asarray([0.5, 1.25, 2.0], F32)
    assert_equivalent(accumulate_from_int_zero, xs)
    assert autograph_lite.jit(accumulate_from_int_zero)(xs).dtype == jnp.float32
    assert autograph_lite.jit(accumulate_in_traced_range)(I32(3), F32(0.5)).dtype == jnp.float32
    assert_equivalent(accumulate_in_traced_range, I32(3), F32(0.5))
    assert_equivalent(accumulate_in_traced_range, I32(0), F32(0.5))


def any_above(xs, limit):
    found = False
    for x in xs:
        if x > limit:
            found = True
    return found


def count_while_flag(x):
    done = False
    steps = 0
    while not done:
        x = x * 2
        steps += 1
        done = x > 10
    return steps, done


@pytest.mark.parametrize("limit", [0.5, 10.0])
def test_bool_flags_stay_bool(limit):
    xs = jnp.asarray([0.0, 1.0, 2.0], F32)
    assert_equivalent(any_above, xs, F32(limit))
    assert autograph_lite.jit(any_above)(xs, F32(limit)).dtype == jnp.bool_


@pytest.mark.parametrize("x", [0.5, 20.0])
def test_bool_flag_in_while(x):
    assert_equivalent(count_while_flag, F32(x))
    steps, done = autograph_lite.jit(count_while_flag)(F32(x))
    assert done.dtype == jnp.bool_ and steps.dtype == jnp.int32


# --- type changes and variables first assigned in a staged loop -------------------------------------------

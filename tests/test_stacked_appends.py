"""A list built by appends in a staged loop and only stacked stays stacked: ``jnp.stack(ys)`` is the
scan's output itself (as many equations as a hand-written ``lax.scan``), with the values, dtypes,
weak types, gradients and batching that eager Python gives. A list used any other way gets its rows."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from support import assert_equivalent, assert_same, count_equations

import autograph_lite

F32 = jnp.float32


def trajectory(x):
    ys = []
    for k in range(16):
        x = jnp.sin(x) + 0.1 * k
        ys.append(x)
    return jnp.stack(ys)


def trajectory_by_hand(x):
    def step(x, k):
        x = jnp.sin(x) + 0.1 * k
        return x, x

    return lax.scan(step, x, jnp.arange(16))[1]


def rollout(x, ws):
    states = []
    for w in ws:
        x = jnp.tanh(w @ x)
        states.append(x)
    return jnp.array(states)


def rollout_by_hand(x, ws):
    def step(x, w):
        x = jnp.tanh(w @ x)
        return x, x

    return lax.scan(step, x, ws)[1]


WS = jnp.asarray(np.random.default_rng(0).normal(size=(5, 3, 3)), F32)
X3 = jnp.asarray([0.5, -1.0, 2.0], F32)


def out_types(fn, *args):
    return [(a.shape, a.dtype, a.weak_type) for a in jax.make_jaxpr(fn)(*args).out_avals]


def assert_like_eager(fn, *args):
    """Values against eager Python; shapes, dtypes and weak types against the plain function traced
    as ``jax.jit`` traces it (the loop unrolled, the list of rows stacked)."""
    assert_equivalent(fn, *args)
    assert out_types(autograph_lite.convert(fn), *args) == out_types(fn, *args)


# --- as many equations as written by hand -----------------------------------------------------------


@pytest.mark.parametrize("converted, by_hand, args", [
    (trajectory, trajectory_by_hand, (F32(0.3),)),
    (rollout, rollout_by_hand, (X3, WS)),
], ids=["trajectory", "rollout"])
def test_a_stacked_list_costs_what_a_hand_written_scan_costs(converted, by_hand, args):
    assert_like_eager(converted, *args)
    assert count_equations(autograph_lite.convert(converted), *args) == count_equations(by_hand, *args)


BODY_TRACES: list[int] = []


@autograph_lite.do_not_convert  # counts traces: must run in staged code unchecked
def counted(value):
    BODY_TRACES.append(1)
    return value


def counted_trajectory(x):
    ys = []
    for k in range(16):
        x = jnp.sin(counted(x)) + 0.1 * k
        ys.append(x)
    return jnp.stack(ys)


def test_the_appending_body_is_traced_once():
    BODY_TRACES.clear()
    jax.make_jaxpr(autograph_lite.convert(counted_trajectory))(F32(0.3))
    assert len(BODY_TRACES) == 1
    BODY_TRACES.clear()


def test_the_rewrite_marks_only_lists_it_proved_are_only_stacked():
    source = autograph_lite.to_source(trajectory)
    assert "_ag.append(ys, x, stays_stacked=True)" in source
    assert "_ag.stacked_list_call(jnp.stack, ys)" in source
    returned = autograph_lite.to_source(returns_the_list)
    assert "stays_stacked" not in returned and "stacked_list_call" not in returned


# --- every reader, every dtype --------------------------------------------------------------------


def read_with(reader, make):
    """A program that appends ``make(x, k)`` in a staged loop and reads the list with ``reader``, written
    out as a call of ``jnp.<reader>`` (the rewrite recognizes the call by its name)."""
    programs = {jnp.stack: _stack, jnp.array: _array, jnp.asarray: _asarray, jnp.concatenate: _concatenate}
    return _with_make(programs[reader], make)


def _with_make(program, make):
    def bound(x):
        return program(x, make)

    bound.__name__ = program.__name__
    return bound


def _stack(x, make):
    ys = []
    for k in range(4):
        x = x * 0.5 + k
        ys.append(make(x, k))
    return jnp.stack(ys)


def _array(x, make):
    ys = []
    for k in range(4):
        x = x * 0.5 + k
        ys.append(make(x, k))
    return jnp.array(ys)


def _asarray(x, make):
    ys = []
    for k in range(4):
        x = x * 0.5 + k
        ys.append(make(x, k))
    return jnp.asarray(ys)


def _concatenate(x, make):
    ys = []
    for k in range(4):
        x = x * 0.5 + k
        ys.append(make(x, k))
    return jnp.concatenate(ys)


READERS = [jnp.stack, jnp.array, jnp.asarray]
MAKERS = {
    "strong f32": lambda x, k: x,
    "int32": lambda x, k: (x * 10).astype(jnp.int32),
    "bool": lambda x, k: x > 1.0,
    "vector": lambda x, k: jnp.stack([x, -x]),
}


@pytest.mark.parametrize("reader", READERS, ids=lambda r: r.__name__)
@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
def test_stack_array_and_asarray_give_eagers_values_dtypes_and_weak_types(reader, make):
    program = read_with(reader, make)
    assert_like_eager(program, F32(0.7))
    assert "squeeze" not in str(jax.make_jaxpr(autograph_lite.convert(program))(F32(0.7)))  # no rows


STACKED = {  # from a weakly typed float w and a strong one x, both traced
    "weak f32": lambda w, x: jnp.broadcast_to(w, (4, 2)),
    "strong f32": lambda w, x: jnp.broadcast_to(x, (4, 2)),
    "weak i32": lambda w, x: jnp.broadcast_to(w.astype(int), (4, 2)) * 0 + 3,
    "bool": lambda w, x: jnp.broadcast_to(x > w, (4, 2)),
}


@pytest.mark.parametrize("reader", [*READERS, jnp.concatenate], ids=lambda r: r.__name__)
@pytest.mark.parametrize("make", STACKED.values(), ids=STACKED.keys())
def test_the_stacked_result_is_the_result_on_the_rows(reader, make):
    """The runtime's shortcut against the call on the rows, weak types included (one and two segments)."""
    from autograph_lite.runtime.stacked_lists import Segment, call, rows

    def both(w, x):
        stacked = make(w, x)
        results = []
        for pieces in ([Segment(stacked, 4)], [Segment(stacked, 4), Segment(stacked[:2], 2)]):
            shortcut, on_rows = call(reader, list(pieces)), reader(rows(pieces))
            assert (shortcut.shape, shortcut.dtype, shortcut.weak_type) == (
                on_rows.shape, on_rows.dtype, on_rows.weak_type)
            results.append((shortcut, on_rows))
        return results

    for shortcut, on_rows in jax.jit(both)(1.5, F32(0.5)):
        np.testing.assert_array_equal(shortcut, on_rows)


def test_concatenate_joins_rows_with_an_axis():
    program = read_with(jnp.concatenate, lambda x, k: jnp.stack([x, x + k]))
    assert_like_eager(program, F32(0.7))
    assert "slice" not in str(jax.make_jaxpr(autograph_lite.convert(program))(F32(0.7)))


def test_concatenate_of_rows_without_an_axis_raises_as_eagerly():
    program = read_with(jnp.concatenate, lambda x, k: x)
    with pytest.raises(ValueError) as eager:
        program(F32(0.7))
    with pytest.raises(ValueError) as converted:
        autograph_lite.jit(program)(F32(0.7))
    assert str(converted.value) == str(eager.value)


def count_and_stack(x):
    ys = []
    for k in range(5):
        x = x + k
        ys.append(x)
    return len(ys), jnp.stack(ys)


def test_len_counts_the_rows():
    assert_like_eager(count_and_stack, F32(1.0))
    assert autograph_lite.jit(count_and_stack)(F32(1.0))[0] == 5


# --- lists of several pieces ----------------------------------------------------------------------


def two_loops(x):
    ys = []
    for k in range(3):
        x = jnp.cos(x) + k
        ys.append(x)
    for k in range(4):
        x = x * 0.5
        ys.append(x)
    return jnp.stack(ys)


def first_item_then_loop(x):
    ys = [x]
    for k in range(3):
        x = jnp.cos(x) + k
        ys.append(x)
    ys.append(x * 2)
    return jnp.stack(ys), len(ys)


def two_appends_per_iteration(x):
    ys = []
    for k in range(3):
        x = jnp.cos(x) + k
        ys.append(x)
        ys.append(-x)
    return jnp.stack(ys)


def nested_appends(x):
    ys = []
    for i in range(3):
        for j in range(4):
            x = jnp.sin(x) + i * j
            ys.append(x)
    return jnp.stack(ys)


def tuples_appended(x):
    ys = []
    for k in range(3):
        x = x + 1.0
        ys.append((x, x * 2))
    return jnp.array(ys)


@pytest.mark.parametrize("program", [two_loops, first_item_then_loop, two_appends_per_iteration, nested_appends,
                                     tuples_appended], ids=lambda p: p.__name__)
def test_pieces_keep_eagers_order(program):
    assert_like_eager(program, F32(0.25))


def test_nested_appends_stay_stacked():
    jaxpr = str(jax.make_jaxpr(autograph_lite.convert(nested_appends))(F32(0.25)))
    assert "slice" not in jaxpr and "squeeze" not in jaxpr


# --- lists used as lists: rows, as before ----------------------------------------------------------


def returns_the_list(x):
    ys = []
    for k in range(3):
        x = x * 2.0 + k
        ys.append(x)
    return ys


def iterates_the_list(x):
    ys = []
    for k in range(3):
        x = x * 2.0 + k
        ys.append(x)
    total = 0.0
    for y in ys:
        total = total + y
    return total, isinstance(ys, list), ys[-1], ys + [x]


def prints_the_list(x):
    ys = []
    for k in range(2):
        x = x + k
        ys.append(x)
    print(ys)
    return jnp.stack(ys)


@pytest.mark.parametrize("program", [returns_the_list, iterates_the_list], ids=lambda p: p.__name__)
def test_a_list_used_as_a_list_is_the_list_eager_builds(program):
    expected = assert_equivalent(program, F32(0.5))
    jitted = autograph_lite.jit(program)(F32(0.5))
    assert jax.tree_util.tree_structure(jitted) == jax.tree_util.tree_structure(expected)


def test_a_printed_list_prints_its_rows(capsys):
    autograph_lite.convert(prints_the_list)(F32(0.5))
    eager = capsys.readouterr().out
    jax.block_until_ready(autograph_lite.jit(prints_the_list)(F32(0.5)))
    assert capsys.readouterr().out.replace("Array(", "").count(",") == eager.replace("Array(", "").count(",")
    assert "stacked_list_call" not in autograph_lite.to_source(prints_the_list)


def helper_with_its_own_list(x):
    parts = []
    for k in range(3):
        parts.append(x + k)
    return jnp.stack(parts).sum()


def calls_a_helper_in_a_staged_loop(xs):
    total = 0.0
    for x in xs:
        total = total + helper_with_its_own_list(x)
    return total


def test_a_helpers_own_list_inside_a_staged_loop():
    assert_equivalent(calls_a_helper_in_a_staged_loop, jnp.arange(4.0, dtype=F32))


# --- transformations ------------------------------------------------------------------------------


def test_grad_through_a_stacked_list():
    converted = autograph_lite.convert(trajectory)
    assert_same(jax.grad(lambda x: converted(x).sum())(F32(0.3)), jax.grad(lambda x: trajectory(x).sum())(F32(0.3)))


def test_vmap_of_a_stacked_list():
    xs = jnp.asarray([0.1, 0.2, 0.3], F32)
    converted = jax.vmap(autograph_lite.convert(rollout), in_axes=(0, None))
    assert_same(converted(jnp.stack([X3, X3 * 2, -X3]), WS), jax.vmap(rollout, in_axes=(0, None))(
        jnp.stack([X3, X3 * 2, -X3]), WS))
    assert_same(jax.vmap(autograph_lite.convert(trajectory))(xs), jax.vmap(trajectory)(xs))


# --- a list read by the loop that appends to it ---------------------------------------------------


def reads_its_length_while_appending(x):
    ys = []
    for k in range(3):
        ys.append(x * k)
        x = x + len(ys)
    return x, jnp.stack(ys)


def sums_while_appending(x):
    ys = []
    for k in range(3):
        ys.append(x * k)
        x = x + sum(ys)
    return x


@pytest.mark.parametrize("program", [reads_its_length_while_appending, sums_while_appending],
                         ids=lambda p: p.__name__)
def test_a_list_the_loop_reads_sees_each_append_as_it_happens(program):
    """A staged body's appends would reach the list only after the loop: such a loop stays Python."""
    assert_equivalent(program, F32(1.0))
    assert "_ag.append" not in autograph_lite.to_source(program)
    assert "Python loop" in str(autograph_lite.explain(program, F32(1.0)))

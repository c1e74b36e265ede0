"""Nested loops with static trip counts under ``static_loops="auto"``: every body is traced once, as in a
hand-written ``lax`` nest. The trial that decides to stage a loop traces one iteration; when that trace
is the program staging would trace, the scan replays it (``runtime.traced_bodies``) instead of running
the body again, and an enclosing loop's replay carries the inner scans along."""

from __future__ import annotations

import collections
import sys

import jax
import jax.numpy as jnp
import pytest
from support import assert_equivalent, assert_same, count_equations

import autograph_lite
from bench.programs import PROGRAMS

F32 = jnp.float32
TRACES: collections.Counter = collections.Counter()


@autograph_lite.do_not_convert  # counts traces: must run in staged code unchecked
def traced(name, value):
    TRACES[name] += 1
    return value


def two_deep(table):
    total = jnp.float32(0.0)
    for i in range(3):
        row = traced("outer", table[i])
        for j in range(4):
            total = total + traced("inner", row[j]) * (i + j)
    return total


def three_deep(cube):
    total = jnp.zeros(())
    for i in range(2):
        for j in range(3):
            plane = traced("middle", cube[i, j])
            for k in range(4):
                total = total * 0.5 + traced("inner", plane[k]) * (i + j + k)
    return total


def reads_outer_values(xs, ys):
    best = jnp.float32(0.0)
    for x in xs:
        scaled = x * 2.0
        for y in ys:
            best = jnp.maximum(best, traced("inner", scaled * y))
    return best


TABLE = jnp.arange(12.0, dtype=F32).reshape(3, 4) / 7
CUBE = jnp.arange(24.0, dtype=F32).reshape(2, 3, 4) / 11
XS = jnp.asarray([0.5, -1.0, 2.0], F32)


def traces_of(fn, *args):
    TRACES.clear()
    jax.make_jaxpr(autograph_lite.convert(fn))(*args)
    counts = dict(TRACES)
    TRACES.clear()
    return counts


def test_a_two_deep_nest_traces_each_body_once():
    assert traces_of(two_deep, TABLE) == {"outer": 1, "inner": 1}
    assert_equivalent(two_deep, TABLE)


def test_a_three_deep_nest_traces_each_body_once():
    assert traces_of(three_deep, CUBE) == {"middle": 1, "inner": 1}
    assert_equivalent(three_deep, CUBE)


def test_an_inner_body_closing_over_the_outer_bodys_values():
    assert traces_of(reads_outer_values, XS, XS[::-1]) == {"inner": 1}
    assert_equivalent(reads_outer_values, XS, XS[::-1])


@pytest.mark.parametrize("program, args", [(two_deep, (TABLE,)), (three_deep, (CUBE,))], ids=["two", "three"])
def test_the_replayed_nest_is_the_staged_nest(program, args):
    """The same jaxpr as staging without a trial (``static_loops="stage"``), scans nested as written."""
    replayed = jax.make_jaxpr(autograph_lite.convert(program))(*args)
    staged = jax.make_jaxpr(autograph_lite.convert(program, static_loops="stage"))(*args)
    assert str(replayed) == str(staged)
    assert count_equations(autograph_lite.convert(program), *args) == count_equations(
        autograph_lite.convert(program, static_loops="stage"), *args)


@pytest.mark.parametrize("program, args", [(two_deep, (TABLE,)), (three_deep, (CUBE,))], ids=["two", "three"])
def test_grad_and_vmap_through_a_replayed_nest(program, args):
    converted = autograph_lite.convert(program)
    assert_same(jax.grad(converted)(*args), jax.grad(program)(*args))
    batch = jnp.stack([args[0], args[0] * -2.0])
    assert_same(jax.vmap(converted)(batch), jax.vmap(program)(batch))


def test_edit_distance_has_at_most_the_hand_written_equations():
    (program,) = [p for p in PROGRAMS if p.name == "edit_distance"]
    assert count_equations(autograph_lite.convert(program.python), *program.bench_args) <= count_equations(
        program.lax, *program.bench_args)
    TRACES.clear()


# --- when the trial's trace is not the program: traced again, same results ---------------------------


def prints_inside(table):
    total = jnp.float32(0.0)
    for i in range(2):
        for j in range(3):
            print("at", j)
            total = total + traced("inner", table[i, j])
    return total


def python_float_carry(table):
    total = 0.0
    for i in range(3):
        for j in range(4):
            total = total + traced("inner", table[i, j])
    return total


def appends_in_nest(table):  # replayed: its appends become the scans' outputs
    rows = []
    for i in range(3):
        for j in range(4):
            rows.append(traced("inner", table[i, j]) * 2)
    return jnp.stack(rows)


def test_a_print_in_the_body_is_staged_with_its_path(capsys):
    assert_equivalent(prints_inside, TABLE)
    assert traces_of(prints_inside, TABLE)["inner"] > 1  # staging traces it under its run condition
    capsys.readouterr()


def test_bodies_that_staging_must_trace_again_still_agree():
    assert_equivalent(python_float_carry, TABLE)
    TRACES.clear()


def test_appends_in_a_nest_are_traced_once_and_stay_stacked():
    assert traces_of(appends_in_nest, TABLE) == {"inner": 1}
    assert_equivalent(appends_in_nest, TABLE)
    jaxpr = str(jax.make_jaxpr(autograph_lite.convert(appends_in_nest))(TABLE))
    assert "= slice[" not in jaxpr and jaxpr == str(  # no rows: one stacked segment
        jax.make_jaxpr(autograph_lite.convert(appends_in_nest, static_loops="stage"))(TABLE))
    TRACES.clear()


def test_explain_still_describes_the_inner_loops():
    explained = str(autograph_lite.explain(two_deep, TABLE))
    assert explained.count("lax.scan") == 2
    TRACES.clear()


# --- an exit around a nest; a Python bool carried through it (the bench program shortest_route) ---------


def any_below(table, limit):
    """A Python bool set in a nest (shortest_route's negative-cycle check): the carry starts as ``False``."""
    found = False
    for i in range(3):
        for j in range(4):
            if traced("inner", table[i, j]) < limit:
                found = True
    return found


def relax_until_stable(table):
    """Bellman-Ford's rounds: a loop with an exit around a nest that carries a Python bool flag."""
    best = table[0]
    for _ in range(4):
        changed = False
        for i in range(3):
            for j in range(4):
                candidate = traced("inner", best[j] * 0.5 + table[i, j])
                if candidate < best[j]:
                    best = best.at[j].set(candidate)
                    changed = True
        if not changed:
            break
    return best


def scaled_rounds(x):
    """A loop whose body ignores its index: the scan carries no counter."""
    for _ in range(4):
        x = x * 0.5 + 1.0
    return x


def test_a_nest_carrying_a_python_bool_traces_each_body_once():
    assert traces_of(any_below, TABLE, F32(0.5)) == {"inner": 1}
    for limit in (F32(0.5), F32(-1.0)):
        assert_equivalent(any_below, TABLE, limit)
    TRACES.clear()


def test_an_exit_around_a_nest_traces_each_body_once():
    assert traces_of(relax_until_stable, TABLE) == {"inner": 1}


def test_an_exit_around_a_nest_agrees_with_eager_and_with_staging():
    """The replayed iteration is the masked one: values, gradients and batches as staging gives them."""
    for table in (TABLE, -TABLE, jnp.zeros((3, 4), F32)):  # exits after two rounds, later, at once
        assert_equivalent(relax_until_stable, table)
    staged = autograph_lite.convert(relax_until_stable, static_loops="stage")
    loss = lambda fn: lambda table: fn(table).sum()
    assert_same(jax.grad(loss(autograph_lite.convert(relax_until_stable)))(-TABLE), jax.grad(loss(staged))(-TABLE))
    batch = jnp.stack([TABLE, -TABLE])
    assert_same(jax.vmap(autograph_lite.convert(relax_until_stable))(batch), jax.vmap(staged)(batch))
    TRACES.clear()


def test_a_loop_ignoring_its_index_carries_no_counter():
    (scan,) = [e for e in jax.make_jaxpr(autograph_lite.convert(scaled_rounds))(F32(3.0)).eqns
               if e.primitive.name == "scan"]
    assert scan.params["num_carry"] == 1  # x only
    assert_equivalent(scaled_rounds, F32(3.0))


def test_a_loop_with_an_exit_ignoring_its_index_carries_no_counter():
    jaxpr = jax.make_jaxpr(autograph_lite.convert(relax_until_stable))(TABLE)
    (outer,) = [e for e in jaxpr.eqns if e.primitive.name == "scan"]
    assert outer.params["num_carry"] == 2  # the break flag and best
    TRACES.clear()


def _bench_program(name):
    (program,) = [p for p in PROGRAMS if p.name == name]
    return program


def _generated_calls(fn, *args) -> collections.Counter:
    """How many times each generated body and branch function runs while ``fn`` is traced."""
    calls: collections.Counter = collections.Counter()

    def count(frame, event, _):
        if event == "call" and frame.f_code.co_name.startswith(("_ag_for_body", "_ag_if_")):
            calls[frame.f_code.co_name] += 1

    converted = autograph_lite.convert(fn)
    converted(*args)  # converts the functions it calls, outside the count
    profiler = sys.getprofile()
    sys.setprofile(count)
    try:
        jax.make_jaxpr(converted)(*args)
    finally:
        sys.setprofile(profiler)
    return calls


def test_shortest_route_traces_every_body_and_branch_once():
    program = _bench_program("shortest_route")
    calls = _generated_calls(program.python, *program.bench_args)
    assert len(calls) == 11 and set(calls.values()) == {1}, calls


def test_shortest_routes_rounds_carry_no_counter():
    """109 equations (the hand-written version: 106): the rounds' loop carries no counter, as staging
    without a trial does (110). The Python version checks for a negative cycle with two nested loops
    (29 equations), the ``lax`` version with one vectorized comparison (7): that is the whole gap."""
    program = _bench_program("shortest_route")
    ours = count_equations(autograph_lite.convert(program.python), *program.bench_args)
    assert ours == count_equations(autograph_lite.convert(program.python, static_loops="stage"),
                                   *program.bench_args) - 1

"""The benchmark's two versions of each program compute the same values, so that timing one against
the other compares like with like: eager Python == ``autograph_lite.jit`` (Python version) ==
``jax.jit`` (hand-written ``lax`` version), on every test input. No timing here."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from support import assert_same

import autograph_lite
from bench.fresh import FreshModules
from bench.programs import PROGRAMS, expert, natural


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda program: program.name)
def test_python_converted_and_lax_versions_agree(program):
    converted, by_hand = autograph_lite.jit(program.python), jax.jit(program.lax)
    for args in program.test_args:
        expected = program.python(*args)
        assert_same(converted(*args), expected, what=f"autograph_lite.jit({program.name}){args}")
        assert_same(by_hand(*args), expected, what=f"jax.jit(lax {program.name}){args}")


def test_at_least_eight_programs_with_distinct_names():
    assert len({program.name for program in PROGRAMS}) == len(PROGRAMS) >= 8


def test_fresh_copies_have_new_code_objects():
    """Code objects compare by content: equal ones would be conversion-cache hits for malt."""
    with FreshModules() as fresh:
        first, second = fresh.load(), fresh.load()
        for program in PROGRAMS:
            for name in program.functions:
                assert getattr(first, name).__code__ != getattr(second, name).__code__


@pytest.mark.parametrize("action, t", [(0, 3), (1, 199), (2, 50)])
def test_cartpole_step_every_action_and_truncation(action, t):
    """The episodes of the test inputs all end by termination; truncation (step 200) and each action
    are checked on the step function itself."""
    state, action, t = jnp.array([0.1, -0.2, 0.02, 0.1], jnp.float32), jnp.int32(action), jnp.int32(t)
    expected = natural.cartpole_step(state, action, t)
    assert_same(autograph_lite.jit(natural.cartpole_step)(state, action, t), expected, what="converted")
    assert_same(jax.jit(expert.cartpole_step)(state, action, t), expected, what="lax")
    assert bool(expected[2]) == (int(t) == 199)


@pytest.mark.parametrize("body", ["cheap", "heavy", "index"])
@pytest.mark.parametrize("exit_at", [0, 7, None])
def test_early_exit_bench_versions_agree(body, exit_at):
    """bench/early_exit.py times each converted loop against its hand-written ``while_loop``: both
    must stop at the same iteration (``None``: no exit) and give the eager value."""
    from bench import early_exit

    args = early_exit._inputs(body, 12, 11 if exit_at is None else exit_at)
    if exit_at is None:  # the planted value lowered below the limit: the loop runs to the end
        args = (*args[:-1], jnp.float32(10.0))
    python, by_hand = early_exit.VERSIONS[body]
    expected = python(*args)
    assert_same(autograph_lite.jit(python)(*args), expected, rtol=1e-5, what=f"converted {body}")
    assert_same(jax.jit(by_hand)(*args), expected, rtol=1e-5, what=f"lax {body}")

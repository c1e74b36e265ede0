"""The benchmark's two versions of each program compute the same values, so that timing one against
the other compares like with like: eager Python == ``autograph_lite.jit`` (Python version) ==
``jax.jit`` (hand-written ``lax`` version), on every test input. No timing here."""

from __future__ import annotations

import jax
import pytest
from support import assert_same

import autograph_lite
from bench.fresh import FreshModules
from bench.programs import PROGRAMS


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

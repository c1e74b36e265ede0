"""Which ``if`` / ``elif`` chains and ``match`` statements on one integer become one ``lax.switch`` (issue #19).

A traced integer scalar subject stages one ``lax.switch``; any other subject (a float, a bool), a chain
whose tests are not all ``subject == constant`` on one subject, and a name bound only if a loop ran
stage the nested ``lax.cond``s the chain always was, with eager's values. ``explain`` names the choice,
and the switch's equations are pinned against the same chain written by hand with ``lax`` (a switch,
and nested conds). The values the switch gives: tests/test_switch_semantics.py.
"""

from __future__ import annotations

import jax.numpy as jnp
import pytest
from jax import lax
from support import assert_equivalent, assert_same, count_equations
from test_switch_semantics import (
    F32,
    I32,
    four_way,
    literal_cases,
    no_else,
    returns_in_a_loop,
    returns_in_some_branches,
    sparse_negative,
)

import autograph_lite
from bench.measure import primitive_counts


@pytest.mark.parametrize("function", [four_way, sparse_negative, literal_cases, no_else, returns_in_some_branches])
def test_a_traced_int_subject_is_one_lax_switch(function):
    assert "switch_stmt" in autograph_lite.to_source(function)
    counts = primitive_counts(autograph_lite.convert(function), I32(1), F32(1.5))
    assert counts["cond"] == 1, counts
    assert "switch" in str(autograph_lite.explain(function, I32(1), F32(1.5)))


@pytest.mark.parametrize("subject", [F32(1.0), F32(2.0), F32(2.5), F32(-3.0)])
def test_a_traced_float_subject_stages_the_nested_conds(subject):
    for function in (four_way, literal_cases):
        assert_equivalent(function, subject, F32(1.5))
        counts = primitive_counts(autograph_lite.convert(function), subject, F32(1.5))
        assert counts["cond"] + counts["select_n"] == 3, counts  # small pure branches: selects
        assert "lax.switch" not in str(autograph_lite.explain(function, subject, F32(1.5)))


@pytest.mark.parametrize("subject", [True, False])
def test_a_traced_bool_subject_stages_the_nested_conds(subject):
    assert_equivalent(four_way, jnp.bool_(subject), F32(1.5))
    counts = primitive_counts(autograph_lite.convert(four_way), jnp.bool_(subject), F32(1.5))
    assert counts["cond"] + counts["select_n"] == 3, counts


def test_a_return_value_unset_in_some_branches_starts_as_zeros_there():
    text = str(autograph_lite.explain(returns_in_a_loop, I32(1), F32(1.5)))
    assert "-> lax.switch" in text and "-> lax.cond" not in text.split("chain")[1], text
    line = returns_in_a_loop.__code__.co_firstlineno + 4  # `elif k == 1:`, which does not return
    assert f"<return value> starts as zeros in the branch at line {line}" in text, text


def test_explain_reports_the_switch_and_its_fallback():
    text = str(autograph_lite.explain(literal_cases, I32(2), F32(1.5)))
    assert "`match` -> lax.switch (the subject is a traced integer; 4 branches)" in text, text
    fallback = str(autograph_lite.explain(bound_if_its_loop_ran, I32(0), I32(2), F32(1.5)))
    assert "lax.switch" not in fallback and "`if` / `elif` chain -> nested lax.cond" in fallback, fallback


def bound_if_its_loop_ran(k, n, x):
    """z is bound after the first branch only if its loop ran: only the nested conds track that."""
    y = x
    if k == 0:
        for i in range(n):
            z = x + i
        y = y + 1
    elif k == 1:
        z = x * 2
    elif k == 2:
        z = x
    else:
        z = -x
    return y, z


@pytest.mark.parametrize("k, n", [(0, 2), (1, 0), (2, 3), (3, 1)])
def test_a_name_bound_only_if_a_loop_ran_stages_the_nested_conds(k, n):
    assert_equivalent(bound_if_its_loop_ran, I32(k), I32(n), F32(1.5))


@pytest.mark.parametrize("source_test", [
    "k == 0", "k == 1", "k + 0 == 2",  # the third test is not the subject itself
])
def test_chains_that_stay_nested(source_test):
    def two_tests(k, x):
        if k == 0:
            return x
        elif k == 1:
            return -x
        return x * 2

    def other_subjects(k, j, x):
        if k == 0:
            y = x
        elif j == 1:
            y = -x
        elif k == 2:
            y = x * 2
        else:
            y = x
        return y

    def membership(k, x):
        if k in (0, 1):
            y = x
        elif k == 2:
            y = -x
        elif k == 3:
            y = x * 2
        else:
            y = x
        return y

    def repeated(k, x):
        if k == 0:
            y = x
        elif k == 0:
            y = -x
        elif k == 0:
            y = x * 2
        else:
            y = x
        return y

    for function in (two_tests, other_subjects, membership, repeated):
        assert "switch_stmt" not in autograph_lite.to_source(function), function.__name__
    for k in (0, 1, 2, 3):
        assert_equivalent(other_subjects, k, 1, F32(1.5))
        assert_equivalent(membership, k, F32(1.5))
        assert_equivalent(repeated, k, F32(1.5))


# --- equations against the same chain written by hand with lax --------------------------------------


def _chain_source(branches: int) -> str:
    lines = ["def chain(k, x):"]
    for k in range(branches - 1):
        lines += [f"    {'if' if k == 0 else 'elif'} k == {k}:", f"        y = x * {k + 2}.0"]
    lines += ["    else:", "        y = -x", "    return y"]
    return "\n".join(lines) + "\n"


def _hand_written_switch(branches: int):
    def chain(k, x):
        index = jnp.where((k >= 0) & (k < branches - 1), k, branches - 1)
        cases = [lambda x, c=c: x * (c + 2.0) for c in range(branches - 1)] + [lambda x: -x]
        return lax.switch(index, cases, x)
    return chain


def _hand_written_nested_conds(branches: int):
    def chain(k, x):
        def from_test(c):
            if c == branches - 1:
                return -x
            return lax.cond(k == c, lambda: x * (c + 2.0), lambda: from_test(c + 1))
        return from_test(0)
    return chain


@pytest.mark.parametrize("branches", [4, 16])
def test_equations_at_most_the_hand_written_switch(branches, tmp_path):
    from support import load_source

    ours = load_source(_chain_source(branches), tmp_path).chain
    args = (I32(3), F32(1.5))
    for k in (-1, 0, 1, branches - 2, branches - 1, branches + 5):
        assert_equivalent(ours, k, F32(1.5))
        assert_same(_hand_written_switch(branches)(I32(k), F32(1.5)), ours(k, F32(1.5)))
    converted = count_equations(autograph_lite.convert(ours), *args)
    assert converted <= count_equations(_hand_written_switch(branches), *args)
    assert converted < count_equations(_hand_written_nested_conds(branches), *args)
    assert primitive_counts(autograph_lite.convert(ours), *args)["cond"] == 1

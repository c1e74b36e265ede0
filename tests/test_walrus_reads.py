"""A name bound by ``:=`` and read later in the same statement reads the new value, not one from before
the statement (analysis/evaluation_order.py): such a read must not make a loop carry the name, nor a
traced ``if`` return it from both branches. Before, ``return (r := v * 2) + r`` in a loop under a traced
``if`` was refused as "'r' is assigned only in the true branch ... and it is used after it".
"""

from __future__ import annotations

import gast
import jax.numpy as jnp
import numpy as np
import pytest

import autograph_lite
from autograph_lite.analysis import NameScanner
from autograph_lite.analysis.evaluation_order import reads_from_before


def first_big_doubled(xs):
    for v in xs:
        if v > 1.0:
            return (r := v * 2) + r
    return xs[0]


def last_big_doubled(xs):
    t = 0.0
    for v in xs:
        if v > 1.0:
            t = (r := v * 2) + r
    return t


def indexed_by_walrus(xs):
    out = jnp.zeros(3)
    for v in xs:
        if v > 1.0:
            out = out.at[(k := 1)].set(v * k)
    return out


def keyword_after_starred(xs):
    t = 0.0
    for v in xs:
        if v > 1.0:
            t = t + jnp.clip(*[(c := v * 2)], max=c - 1.0)  # the positional argument runs first
    return t


def read_before_walrus(xs):
    r = 1.0
    for v in xs:
        if v > 1.0:
            t = r + (r := v * 2)  # reads the r from before: it stays carried
            r = r + t
    return r


@pytest.mark.parametrize("function", [first_big_doubled, last_big_doubled, indexed_by_walrus, keyword_after_starred,
                                      read_before_walrus])
@pytest.mark.parametrize("values", [[1.0, 2.0, 3.0], [0.5, 0.25, 1.0], [3.0, 0.0, 2.5]])
def test_walrus_read_in_its_own_statement_agrees_with_eager(function, values):
    xs = jnp.asarray(values, dtype=jnp.float32)
    converted = autograph_lite.jit(function)(xs)
    np.testing.assert_array_equal(np.asarray(converted), np.asarray(function(xs)))


def _reads(statement_text: str) -> set[str]:
    statement = gast.parse(statement_text).body[0]
    return reads_from_before(NameScanner(may_have_walrus=True), statement)


@pytest.mark.parametrize(("statement", "expected"), [
    ("return (r := a) + r", {"a"}),
    ("y = [(r := a), r]", {"a"}),
    ("x[r] = (r := a)", {"a", "x"}),
    ("f(k=r, *[(r := a)])", {"f", "a"}),
    ("y = r + (r := a)", {"r", "a"}),
    ("y = f(r, (r := a))", {"f", "r", "a"}),
    ("y = (r := a) if c else r", {"a", "c", "r"}),
    ("y = c and (r := a) and r", {"a", "c"}),
    ("y = (c and (r := a)) + r", {"a", "c", "r"}),
    ("y = a < (r := b) < r", {"a", "b"}),
    ("y = {(r := a): r}", {"a", "r"}),
    ("y += (r := a) + r", {"a", "r", "y"}),
])
def test_only_reads_surely_after_a_walrus_are_dropped(statement, expected):
    assert _reads(statement) == expected

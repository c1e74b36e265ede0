"""Attribute stores hidden in helpers: ``self.count += 1`` on an object from outside staged code.

A method or helper called from a staged loop body or branch that changes an attribute of an object
the caller can see would run once while tracing: the returned count, and the object the caller
holds, would be eager's after one iteration. Such a store is refused before it happens: a static
loop then runs as Python (eager's values), a staged one raises a located error. An object the staged
code builds itself may be changed. Each case is checked against eager Python.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from support import assert_equivalent, conversion_error, where

import autograph_lite


class Tally:
    def __init__(self):
        self.count = 0

    def bump(self):
        self.count += 1
        return self.count


class Accumulator:
    def __init__(self):
        self.total = 0.0

    def add(self, v):
        self.total = self.total + v
        return self


TALLY = Tally()
REGISTRY = {"tally": Tally()}


def tock():
    TALLY.count += 2
    return TALLY.count


def ticks_in_static_loop(x):
    TALLY.count = 0
    for i in range(3):
        x = x * 2.0 + tock()
    return x, TALLY.count


def bumps_in_static_loop(x):
    TALLY.count = 0
    for i in range(4):
        x = x + TALLY.bump()
    return x, TALLY.count


def bumps_in_traced_while(x):
    TALLY.count = 0
    while x < 10.0:
        x = x + TALLY.bump()
    return x, TALLY.count


def bumps_in_traced_branch(x):
    TALLY.count = 0
    if x > 0:
        x = x + TALLY.bump()
    return x, TALLY.count


def bumps_registered_in_traced_while(x):
    tally = REGISTRY["tally"]
    tally.count = 0
    while x < 10.0:
        x = x + bump_alias(REGISTRY)
    return x


def bump_alias(registry):
    tally = registry["tally"]
    tally.count += 1  # the object is reachable from a module global, through a dict
    return tally.count


def accumulates_fresh_objects(xs):
    total = 0.0
    for x in xs:
        acc = Accumulator()  # built inside the staged body: the trace's own
        total = total + acc.add(x).add(x * 2.0).total
    return total


def accumulates_in_traced_branch(x):
    acc = Accumulator()
    if x > 0:
        inner = Accumulator().add(x)
        x = x + inner.total
    return x + acc.total


@pytest.mark.parametrize("function", [ticks_in_static_loop, bumps_in_static_loop])
def test_a_static_loop_whose_helper_changes_an_outer_object_runs_as_python(function):
    for x in (jnp.float32(1.0), 1.0):
        expected = function(x)
        assert autograph_lite.convert(function)(x) == expected  # the trial refuses, the loop runs as Python
        assert TALLY.count == expected[1]
        jitted = autograph_lite.jit(function)(x)
        assert float(jitted[0]) == float(expected[0]) and int(jitted[1]) == expected[1]
        assert TALLY.count == expected[1]


@pytest.mark.parametrize("function, line", [
    (bumps_in_traced_while, "self.count += 1"),
    (bumps_in_traced_branch, "self.count += 1"),
    (bumps_registered_in_traced_while, "tally.count += 1"),
])
def test_a_staged_statement_whose_helper_changes_an_outer_object_is_refused_at_the_store(function, line):
    source = Tally.bump if line.startswith("self") else bump_alias
    message = conversion_error(function, jnp.float32(1.0))
    assert message.startswith(f"{where(source, line)}: this assignment to {line.split()[0]}, which changes an object "
                              "of class Tally that the staged code did not make")
    assert "assign " + line.split()[0] + " after the staged code" in message


def test_nothing_is_stored_before_the_refusal():
    TALLY.count = 7
    with pytest.raises(autograph_lite.ConversionError):
        autograph_lite.jit(lambda x: bumps_in_traced_while(x)[0] + TALLY.bump())(jnp.float32(1.0))
    assert TALLY.count == 0  # the function's own reset ran (outside staged code); the bump did not


@pytest.mark.parametrize("function, args", [
    (accumulates_fresh_objects, (jnp.arange(4.0),)),
    (accumulates_in_traced_branch, (jnp.float32(2.0),)),
    (accumulates_in_traced_branch, (jnp.float32(-2.0),)),
])
def test_objects_built_inside_staged_code_may_be_changed(function, args):
    assert_equivalent(function, *args)
    assert "scan" in str(jax.make_jaxpr(autograph_lite.convert(accumulates_fresh_objects))(jnp.arange(4.0)))


class Model:
    def build(self):
        self.cache = Accumulator()
        return 3.0

    def prepare(self, x):
        self.cache.total = self.build()  # Python evaluates the right side first: it makes self.cache
        return x + self.cache.total


def test_outside_staged_code_the_check_keeps_pythons_order_of_evaluation():
    assert autograph_lite.convert(Model().prepare)(1.0) == Model().prepare(1.0) == 4.0


def test_an_object_made_by_library_code_inside_staged_code_is_refused():
    """Only a call of the user's class from converted code proves an object new: a library's copy
    carries no such proof (it may return a shared object), so a store into it stays refused."""
    import copy

    def copies(x):
        if x > 0:
            acc = copy.copy(Accumulator())
            x = x + acc.add(x).total
        return x

    message = conversion_error(copies, jnp.float32(1.0))
    assert "this assignment to self.total, which changes an object of class Accumulator that the staged" in message


def test_outside_staged_code_attribute_stores_are_python():
    tally = Tally()

    def count_up(x, n):
        for _ in range(n):
            tally.bump()
        return x + tally.count

    assert autograph_lite.jit(count_up, static_argnums=1)(jnp.float32(1.0), 3) == 4.0
    assert tally.count == 3


def test_explain_names_the_store_as_the_reason_for_python():
    report = str(autograph_lite.explain(bumps_in_static_loop, jnp.float32(1.0)))
    assert "Python loop (its body changes the attribute self.count of an object of class Tally that it did not make)" in report

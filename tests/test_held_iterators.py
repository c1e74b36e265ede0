"""Iterators that a ``for`` loop draws from and someone else holds (runtime/loops.py ``_python_for``,
runtime/iteration.py ``OpenIterator``, runtime/call_effects.py ``check_advance``).

Python draws an iterator's items one at a time and leaves it where the loop stopped. The converted
loop drew one item past a concrete ``break`` (a ``map``'s function ran once more, a held iterator lost
an item), drew every item past a traced one (``sum(it)`` after the loop gave 0 for eager's 10), a
``sum(it)`` in a traced branch drained the iterator while tracing, and an ``enumerate`` / ``zip`` of an
array held in a variable restarted in a second loop and refused ``next()``, silently or with a
``TypeError``. A generator expression held in a variable, or one over an iterator someone holds, was
drained in a traced branch while tracing too (runtime/private_iterators.py)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from print_support import assert_prints_like_eager
from support import assert_same, conversion_error, where

import autograph_lite

F32 = jnp.float32
XS = jnp.arange(4.0)


def rest_after_concrete_break(t):
    it = iter([1.0, 5.0, 4.0, 6.0])
    total = 0.0
    for v in it:
        total = total + v
        if v > 2:
            break
    return total + t, next(it)


def printed_draws(t):
    total = t
    for v in map(shown, [0.0, 1.0, 2.0]):
        total = total + v
        if v >= 1:
            break
    return total


def shown(k):
    print("shown", k)
    return k


def rest_after_traced_break(t):
    it = iter([1.0, 5.0, 4.0, 6.0])
    total = 0.0
    for v in it:
        total = total + v
        if v > t:
            break
    return total, sum(it)


def drained_in_a_branch(t):
    it = iter([1.0, 5.0, 4.0, 6.0])
    for v in it:
        if v > t:
            return v, sum(it)
    return 0.0, 0.0


def held_enumerate_run_out(xs):
    pairs = enumerate(xs)
    total = 0.0
    for _, v in pairs:
        total = total + v
    return total, len(list(pairs))


def held_enumerate_after_traced_break(xs, t):
    pairs = enumerate(xs)
    total = 0.0
    for _, v in pairs:
        total = total + v
        if total > t:
            break
    return next(pairs, (0, 0.0))[1]


def the_fix_for_it(xs, t):
    k = len(xs) - 1
    total = 0.0
    for i in range(len(xs)):
        total = total + xs[i]
        if total > t:
            k = i
            break
    return jnp.sum(jnp.where(jnp.arange(len(xs)) > k, xs, 0.0))


def held_enumerate_the_eager_way(xs, t):
    pairs = enumerate(xs)
    total = 0.0
    for _, v in pairs:
        total = total + v
        if total > t:
            break
    return sum(v for _, v in pairs)


def first_pair_of_a_zip(xs):
    pairs = zip(xs, xs * 2)
    first = next(pairs)
    return first[0] + first[1]


def private_iterators_with_a_traced_break(t):
    total = 0.0
    for k, v in enumerate([1.0, 2.0, 3.0]):
        total = total + k * v
        if v > t:
            break
    for v in reversed([1.0, 2.0, 3.0]):
        total = total + v
        if v < t:
            break
    return total


def held_generator_drained_in_a_branch(t):
    squares = (x * x for x in [1.0, 2.0, 3.0])
    total = 0.0
    if t > 0:
        total = sum(squares)
    return total + len(list(squares))


def generator_over_a_held_iterator_in_a_branch(t):
    it = iter([1.0, 2.0, 3.0])
    total = 0.0
    if t > 0:
        total = sum(x * x for x in it)
    return total + len(list(it))


def list_of_a_held_enumerate_in_a_branch(t):
    pairs = enumerate([1.0, 2.0, 3.0])
    count = 0.0
    if t > 0:
        count = float(len(list(pairs)))
    return count + float(len(list(pairs)))


def iter_of_a_held_iterator_in_a_branch(t):
    it = iter([1.0, 2.0, 3.0])
    first = 0.0
    if t > 0:
        first = next(iter(it))
    return first + len(list(it))


def generators_written_where_they_are_drawn(t, xs):
    total = 0.0
    if t > 0:
        total = next(iter(xs)) + sum(v * v for v in xs) + sum(a * b for a, b in zip(xs, xs))
        total = total + max(v for v in reversed([1.0, 2.0])) + len(sorted(k for k in range(3)))
    for _ in range(3):
        for v in (y * 2.0 for y in xs):
            total = total + v * t
    return total


def digits_from_the_last(xs):
    out = 0.0
    for v in reversed(xs):
        if jnp.sum(v) < 0:
            break
        out = out * 10 + jnp.sum(v)
    return out


def digits_from_the_last_by_slice(xs):
    out = 0.0
    for v in xs[::-1]:
        if jnp.sum(v) < 0:
            break
        out = out * 10 + jnp.sum(v)
    return out


@pytest.mark.parametrize("xs", [jnp.array([1.0, -5.0, 2.0, 3.0]), jnp.array([[1.0, 2.0], [-5.0, 1.0]])])
def test_reversed_of_an_array_with_a_traced_break_is_staged_as_its_reverse(xs):
    """It was refused as a loop that "draws from a generator" (reversed() of an array was the builtin's
    iterator, not the runtime's open one); now one `rev` and one scan, as ``xs[::-1]``."""
    assert_same(autograph_lite.jit(digits_from_the_last)(xs), digits_from_the_last(xs))
    staged = jax.make_jaxpr(autograph_lite.convert(digits_from_the_last))(xs).jaxpr
    by_slice = jax.make_jaxpr(autograph_lite.convert(digits_from_the_last_by_slice))(xs).jaxpr
    assert [e.primitive.name for e in staged.eqns] == [e.primitive.name for e in by_slice.eqns] == ["rev", "scan"]


@pytest.mark.parametrize("t", [F32(-1.0), F32(1.0)])
def test_generators_written_where_they_are_drawn_are_drawn_in_staged_code(t):
    assert_same(autograph_lite.jit(generators_written_where_they_are_drawn)(t, XS),
                generators_written_where_they_are_drawn(t, XS))


@pytest.mark.parametrize("function, line", [
    (held_generator_drained_in_a_branch, "total = sum(squares)"),
    (generator_over_a_held_iterator_in_a_branch, "total = sum(x * x for x in it)"),
    (iter_of_a_held_iterator_in_a_branch, "first = next(iter(it))"),
    (list_of_a_held_enumerate_in_a_branch, "count = float(len(list(pairs)))"),
])
def test_a_held_iterator_drawn_in_a_traced_branch_is_refused(function, line):
    """Eager Python draws only where the branch runs (t = -1: 3.0 for each); tracing drew it anyway,
    and the read after the branch found it drained (0.0, 0.0, 2.0 and 0.0 before: list() was left a
    plain call, past the check that refuses its draw)."""
    message = conversion_error(function, F32(-1.0))
    assert message.startswith(where(function, line))
    assert "which advances an iterator, runs inside a branch of an `if` with a traced condition" in message
    assert autograph_lite.convert(function)(F32(-1.0)) == function(F32(-1.0)) == 3.0


@pytest.mark.parametrize("function, args", [
    (rest_after_concrete_break, (F32(1.0),)),
    (held_enumerate_run_out, (XS,)),
    (first_pair_of_a_zip, (XS,)),
    (private_iterators_with_a_traced_break, (F32(1.5),)),
    (private_iterators_with_a_traced_break, (F32(5.0),)),
])
def test_a_loop_leaves_the_iterator_where_eager_python_does(function, args):
    assert_same(autograph_lite.jit(function)(*args), function(*args))
    assert_same(autograph_lite.convert(function)(*args), function(*args))


def test_a_concrete_break_draws_no_item_past_it():
    assert_prints_like_eager(printed_draws, F32(0.5), expected="shown 0.0\nshown 1.0\n")


def test_drawing_past_a_traced_break_from_a_held_iterator_is_refused():
    message = conversion_error(rest_after_traced_break, F32(2.0))
    assert message.startswith(where(rest_after_traced_break, "for v in it:"))
    assert "draws from a list_iterator and stops at a `break` or `return` whose condition is traced" in message


def test_draining_a_held_iterator_in_a_traced_branch_is_refused():
    message = conversion_error(drained_in_a_branch, F32(4.5))
    assert message.startswith(where(drained_in_a_branch, "return v, sum(it)"))
    assert "this call of sum() on a list_iterator, which advances an iterator" in message


def test_a_draw_after_a_staged_loop_stopped_at_a_traced_exit_is_refused_with_a_fix_that_works():
    with pytest.raises(autograph_lite.StagingTypeError) as raised:
        autograph_lite.jit(held_enumerate_after_traced_break)(XS, F32(2.5))
    message = str(raised.value)
    assert message.startswith(where(held_enumerate_after_traced_break, "return next(pairs"))
    assert f"drawn from by the `for` loop at {where(held_enumerate_after_traced_break, 'for _, v in pairs')}" in message
    for t in (F32(2.5), F32(100.0)):
        assert_same(autograph_lite.jit(the_fix_for_it)(XS, t), held_enumerate_the_eager_way(XS, t))

"""A staged loop's carry keeps eager's strong type where only a weak type tells its values apart
(tests/regressions/dtype_loop_weak_body_value_in_strong_carry.py; runtime/weak_types.py).

A carry that enters strongly typed (``s = n``, an int32) and that the body gives a Python number
(``s = 300``) used to leave the loop weakly typed after any number of iterations, zero included,
where eager Python still has the int32 ``n``; beside a uint8 a weakly typed int32 computes in uint8
(``s + u`` wraps), eager's int32 does not. The body's value is now cast to the entry's strong type
(a weakly typed value may come back strongly typed: docs/semantics.md). The zeros that stand for a
name unassigned before the loop are no eager value: they take the body's type, weak type included.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from program_dtypes import dtype_difference, kinds
from support import assert_same

import autograph_lite

U8 = jnp.uint8(200)


def in_while(a, u):
    s = a
    w = 0
    while w < a:
        w = w + 1
        s = 300
    return s + u


def in_traced_range(a, u):
    s = a
    for _ in range(a):
        s = 300
    return s + u


def in_traced_range_with_break(a, u):
    s = a
    for i in range(a):
        if i > 5:
            break
        s = 300
    return s + u


def in_static_loop_with_break(a, u, xs):
    s = a
    for x in xs:
        if x > 0:
            break
        s = 300
    return s + u


def carry_only(a):
    s = a
    w = 0
    while w < a:
        w = w + 1
        s = 2 // 2
    return s


ZERO_ITERATIONS = [
    (in_while, (jnp.int32(0), U8)),
    (in_traced_range, (jnp.int32(0), U8)),
    (in_traced_range_with_break, (jnp.int32(0), U8)),
    (in_static_loop_with_break, (jnp.int32(0), U8, jnp.array([1.0, 2.0]))),
]


@pytest.mark.parametrize("fn, args", ZERO_ITERATIONS, ids=[fn.__name__ for fn, _ in ZERO_ITERATIONS])
def test_after_no_iteration_the_strong_entry_promotes_as_eagerly(fn, args) -> None:
    """Eager: int32 0 + uint8 200 is the int32 200; a weakly typed carry gave the uint8 200."""
    expected = fn(*args)
    got = autograph_lite.jit(fn)(*args)
    assert got.dtype == expected.dtype == jnp.int32
    assert_same(got, expected)


def test_a_big_strong_entry_does_not_wrap_beside_a_uint8() -> None:
    def entry_kept(a, n, u):
        s = a
        w = 0
        while w < n:
            w = w + 1
            s = 1
        return s + u

    args = (jnp.int32(300), jnp.int32(0), U8)
    assert int(entry_kept(*args)) == 500
    assert int(autograph_lite.jit(entry_kept)(*args)) == 500  # a weak carry wrapped to 244


@pytest.mark.parametrize("a", [0, 2])
def test_the_carry_is_of_a_kind_eager_allows(a: int) -> None:
    eager = carry_only(np.int32(a))
    got = autograph_lite.jit(carry_only)(np.int32(a))
    assert not got.weak_type
    assert dtype_difference(got, kinds(eager), staged=True) is None
    assert_same(got, eager)


def test_a_weak_entry_still_takes_the_bodys_type() -> None:
    def accumulate(x, n):
        total = 0
        for i in range(n):
            total = total + x[i]
        return total

    got = autograph_lite.jit(accumulate)(jnp.arange(3.0), jnp.int32(3))
    assert jax.typeof(got).dtype == jnp.float32 and not got.weak_type
    assert_same(got, 3.0)


def test_a_name_unassigned_before_the_loop_keeps_the_bodys_weak_type() -> None:
    """Eager's value is the Python int the body assigns: the placeholder zeros are weakly typed too."""
    def first_assigned(n):
        for i in range(n):
            last = 7
        return last

    got = autograph_lite.jit(first_assigned)(jnp.int32(2))
    assert got.weak_type and got.dtype == jnp.int32
    assert dtype_difference(got, kinds(7), staged=True) is None
    assert int(got) == 7


def test_a_placeholder_in_a_static_loop_keeps_the_bodys_weak_type() -> None:
    """The loop's placeholder zeros (``value`` is assigned first in the body) are weakly typed like the
    body's value; strongly typed zeros would make the cast above turn eager's Python int strong."""
    def last_before_exit(xs):
        for x in xs:
            value = 5
            if x > 1:
                break
        return value

    xs = jnp.array([0.0, 2.0, 3.0])
    got = autograph_lite.jit(last_before_exit)(xs)
    assert got.weak_type, "eager's value is a Python int"
    assert_same(got, last_before_exit(xs))


def first_index_at_least(xs, t):
    for i in range(xs.shape[0]):
        if xs[i] >= t:
            return i
    return -1


def test_a_python_int_returned_from_inside_a_loop_stays_weakly_typed() -> None:
    """The return value is unassigned in the branch that does not return: its zeros in that branch of
    the traced ``if`` take the other branch's weak type, so that ``int8 + index`` computes in int8 (it
    wraps to -128, as eagerly), where strongly typed zeros made the index an int32 (128)."""
    xs = jnp.array([1.0, 3.0, 5.0])
    got = autograph_lite.jit(first_index_at_least)(xs, 2.0)
    assert got.weak_type and int(got) == first_index_at_least(xs, 2.0) == 1
    add = lambda base, xs: base + first_index_at_least(xs, 2.0)
    expected = add(jnp.int8(127), xs)
    assert_same(autograph_lite.jit(add)(jnp.int8(127), xs), expected)
    assert autograph_lite.jit(add)(jnp.int8(127), xs).dtype == expected.dtype == jnp.int8


def halvings_cost(x, w):
    total = 0
    while x > 1.0:
        x = x / 2
        total = total + 0.5
    return total * w


def cost_per_row(xs, w):
    total = 0
    for x in xs:
        total = total + 0.5
        xs = xs + 1  # a traced carry: the loop is staged
    return total * w


@pytest.mark.parametrize("fn, args", [
    (halvings_cost, (jnp.float32(2.0 ** 20), jnp.float16(7000.0))),  # float16 product overflows, as eagerly
    (halvings_cost, (jnp.float32(0.5), jnp.float16(7000.0))),  # no iteration: eager's Python int 0
    (cost_per_row, (jnp.ones(3), jnp.bfloat16(1.5))),
    (cost_per_row, (jnp.ones((0,)), jnp.bfloat16(1.5))),
])
def test_a_python_int_that_the_body_makes_a_python_float_stays_weakly_typed(fn, args) -> None:
    """``total = 0`` then ``total + 0.5``: a Python float from the first iteration on, eagerly, so the
    product with a float16 / bfloat16 computes in that dtype. JAX's promotion of the loop's entry made
    it a strongly typed float32 (70000.0 in float32 for eager's float16 inf)."""
    eager = fn(*args)
    got = autograph_lite.jit(fn)(*args)
    assert got.dtype == eager.dtype == args[1].dtype
    assert_same(got, eager)


def test_the_widened_count_keeps_its_gradient() -> None:
    expected = jax.grad(halvings_cost, argnums=1)(8.0, 3.0)
    assert_same(jax.grad(autograph_lite.jit(halvings_cost), argnums=1)(8.0, 3.0), expected)

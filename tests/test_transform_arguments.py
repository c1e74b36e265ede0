"""User functions handed from converted code to JAX transformations and higher-order library functions
(``jax.grad(inner)``, ``lax.scan(step, ...)``, ``functools.reduce``, ``map``, ...) are converted before
the call, so a traced ``if`` inside them stages; JAX's wrappers of a user function (``jit(jax.vmap(f))``)
and ``jit(jit(f))`` convert the function inside. Each result is compared with eager Python."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import pytest
from jax import lax
from support import assert_same, primitives

import autograph_lite
from autograph_lite import ConversionError

F32 = jnp.float32
XS = jnp.array([1.0, -2.0, 3.0, -0.5], F32)


def square_or_negate(x):
    if x > 0:
        return x * x
    return -x


def add_if_positive(total, x):
    if x > 0:
        total = total + x
    return total


def scan_step(carry, x):
    carry = add_if_positive(carry, x)
    if carry > 2.0:
        carry = carry - 1.0
    return carry, carry


def count_body(i, total):
    if total > 3.0:
        total = total - 1.0
    else:
        total = total + 2.0
    return total


def via_grad(x):
    return jax.grad(square_or_negate)(x)


def via_value_and_grad(x):
    return jax.value_and_grad(square_or_negate)(x)


def via_vmap(xs):
    return jax.vmap(square_or_negate)(xs)


def via_scan(xs):
    return lax.scan(scan_step, 0.0, xs)


def via_fori_loop(x):
    return lax.fori_loop(0, 5, count_body, x)


def via_tree_map(xs):
    return jax.tree_util.tree_map(square_or_negate, {"a": xs[0], "b": (xs[1], xs[2])})


def via_reduce(xs):
    return functools.reduce(add_if_positive, [xs[0], xs[1], xs[2], xs[3]], 0.0)


def via_map(xs):
    return list(map(square_or_negate, [xs[0], xs[1]]))


def via_cond(x):
    return lax.cond(x > 1.0, square_or_negate, lambda v: v, x)


def via_switch(x, index):
    return lax.switch(index, [square_or_negate, lambda v: v + 1.0], x)


def eager_grad(x):
    return 2.0 * x if x > 0 else -1.0


@pytest.mark.parametrize("x", [2.0, -3.0])
def test_grad_and_value_and_grad_of_a_user_function(x):
    assert float(autograph_lite.jit(via_grad)(F32(x))) == eager_grad(x)
    value, slope = autograph_lite.jit(via_value_and_grad)(F32(x))
    assert (float(value), float(slope)) == (square_or_negate(x), eager_grad(x))
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(via_grad)(F32(x))  # what plain JAX does: the if in square_or_negate sees a tracer


def test_vmap_of_a_user_function():
    assert_same(autograph_lite.jit(via_vmap)(XS), jnp.array([square_or_negate(float(x)) for x in XS], F32))


def test_scan_step_is_converted():
    carry, outputs = 0.0, []
    for x in XS.tolist():
        carry, y = scan_step(carry, x)
        outputs.append(y)
    got_carry, got_outputs = autograph_lite.jit(via_scan)(XS)
    assert_same((got_carry, got_outputs), (jnp.asarray(carry, F32), jnp.array(outputs, F32)))


@pytest.mark.parametrize("x", [0.0, 5.0])
def test_fori_loop_body_is_converted(x):
    expected = x
    for i in range(5):
        expected = count_body(i, expected)
    assert float(autograph_lite.jit(via_fori_loop)(F32(x))) == expected


def test_tree_map_reduce_and_map():
    xs = XS.tolist()
    assert_same(autograph_lite.jit(via_tree_map)(XS), jax.tree_util.tree_map(square_or_negate, {"a": xs[0], "b": (xs[1], xs[2])}))
    assert float(autograph_lite.jit(via_reduce)(XS)) == functools.reduce(add_if_positive, xs, 0.0)
    assert [float(v) for v in autograph_lite.jit(via_map)(XS)] == [square_or_negate(v) for v in xs[:2]]


@pytest.mark.parametrize("x", [3.0, 0.5, -2.0])
def test_cond_and_switch_branches_are_converted(x):
    assert float(autograph_lite.jit(via_cond)(F32(x))) == (square_or_negate(x) if x > 1.0 else x)
    for index in (0, 1):
        expected = square_or_negate(x) if index == 0 else x + 1.0
        assert float(autograph_lite.jit(via_switch)(F32(x), index)) == expected


def test_a_traced_if_in_the_argument_is_staged():
    assert "select_n" in primitives(autograph_lite.convert(via_vmap), XS)  # a cond, batched by vmap
    # add_if_positive's branch is a sum: a select (runtime/selects.py), staged inside the scan
    assert {"scan", "select_n"} <= primitives(autograph_lite.convert(via_scan), XS)


def test_the_data_argument_of_tree_map_is_not_converted():
    """Only the function positions are converted: tree_map must see a callable leaf as it is."""

    def keeps_callable_leaves(x):
        return jax.tree_util.tree_map(lambda leaf: leaf, {"f": square_or_negate, "x": x})

    result = autograph_lite.convert(keeps_callable_leaves)(F32(1.0))
    assert result["f"] is square_or_negate


def test_library_calls_without_function_arguments_stay_as_written():
    def plain(x):
        return jnp.sin(x) + lax.fori_loop(0, 3, lambda i, t: t + i, x)

    source = autograph_lite.to_source(plain)
    assert "jnp.sin(x)" in source and "_ag.call(jnp.sin" not in source
    assert "_ag.call(lax.fori_loop" in source


@pytest.mark.parametrize("x", [2.0, -3.0])
def test_jit_of_jax_transformations_of_a_user_function(x):
    xs = jnp.array([x, -x], F32)
    assert_same(autograph_lite.jit(jax.vmap(square_or_negate))(xs), jnp.array([square_or_negate(x), square_or_negate(-x)], F32))
    assert float(autograph_lite.jit(jax.grad(square_or_negate))(F32(x))) == eager_grad(x)
    assert float(autograph_lite.jit(jax.vmap(jax.grad(square_or_negate)))(xs)[0]) == eager_grad(x)
    in_axes = autograph_lite.jit(jax.vmap(lambda a, b: square_or_negate(a) + b, in_axes=(0, None)))
    assert_same(in_axes(xs, F32(1.0)), jnp.array([square_or_negate(x) + 1.0, square_or_negate(-x) + 1.0], F32))


def test_jit_of_jit():
    inner = autograph_lite.jit(square_or_negate)
    assert float(autograph_lite.jit(inner)(F32(-3.0))) == 3.0
    assert autograph_lite.convert(inner) is inner
    assert float(autograph_lite.jit(jax.jit(autograph_lite.convert(square_or_negate)))(F32(2.0))) == 4.0


def test_jit_of_jax_jit_of_an_unconverted_function_is_refused_briefly():
    """Not rebuilt around the converted function: eagerly a jitted function prints once per trace, and
    rebuilt its prints would be staged, printing on every call (callables.rebuilt_wrapper)."""
    with pytest.raises(ConversionError) as raised:
        autograph_lite.jit(jax.jit(square_or_negate))
    message = str(raised.value)
    assert message.startswith("cannot convert a PjitFunction object wrapping 'square_or_negate'")
    assert "jax.jit(autograph_lite.convert(square_or_negate), ...)" in message


def test_explain_and_to_source_of_a_jax_transformation_of_a_user_function():
    explanation = str(autograph_lite.explain(jax.vmap(square_or_negate), XS))
    assert "`if` -> lax.cond" in explanation
    assert autograph_lite.to_source(jax.vmap(square_or_negate)).startswith("def square_or_negate(x):")
    with pytest.raises(ConversionError, match="^cannot show the conversion of a function object: it is library code"):
        autograph_lite.to_source(jnp.sin)


class Shift:
    """A callable object with a traced ``if``, handed to ``jax.vmap`` as a function is."""

    def __init__(self, limit):
        self.limit = limit

    def __call__(self, x):
        if x > self.limit:
            return x - self.limit
        return x


def test_callable_objects_given_to_transformations_are_converted():
    shift, xs = Shift(1.0), jnp.array([0.5, 3.0], F32)
    expected = jnp.array([shift(0.5), shift(3.0)], F32)
    assert_same(autograph_lite.jit(jax.vmap(shift))(xs), expected)
    assert_same(autograph_lite.jit(lambda v: jax.vmap(shift)(v))(xs), expected)

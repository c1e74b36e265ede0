"""``convert(obj)`` / ``jit(obj)`` for objects with a ``__call__``: plain classes, Equinox modules (the
converted callable stays a pytree), Flax NNX modules (under nnx.jit / grad / vmap) and Flax linen
modules (``apply`` from converted code converts the user's method, submodules included). Each result is
compared with the eager call of the same ``__call__``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import equinox as eqx
import flax.linen as nn
import jax
import jax.numpy as jnp
import pytest
from flax import nnx
from support import STAGED_CHOICE, assert_same, primitives

import autograph_lite
from autograph_lite import ConversionError

F32 = jnp.float32
ROOT = Path(__file__).resolve().parent.parent
X2 = jnp.array([0.5, -1.5], F32)


class Clipper:
    """A plain object: a Python attribute and a data-dependent loop and branch in ``__call__``."""

    def __init__(self, limit):
        self.limit = limit

    def __call__(self, x):
        steps = 0
        while x > self.limit:
            x = x / 2.0
            steps += 1
        if x < 0:
            x = -x
        return x, steps


class Halver(eqx.Module):
    weight: jax.Array
    limit: float = eqx.field(static=True)

    def __call__(self, x):
        y = jnp.sum(self.weight * x)
        if y > self.limit:
            y = y / 2.0
        return y


class Flipper(nnx.Module):
    def __init__(self, *, rngs):
        self.linear = nnx.Linear(2, 2, rngs=rngs)

    def __call__(self, x):
        y = self.linear(x)
        if jnp.sum(y) > 0:
            y = -y
        return y


class LinenBlock(nn.Module):
    @nn.compact
    def __call__(self, x):
        y = nn.Dense(2)(x)
        if jnp.sum(y) > 0:
            y = -y
        return y


class LinenModel(nn.Module):
    def setup(self):
        self.block = LinenBlock()

    def __call__(self, x):
        y = self.block(x)
        if jnp.max(y) > 0.1:
            y = y * 0.5
        return y


@pytest.mark.parametrize("x", [-3.0, 0.5, 7.0])
def test_plain_callable_object_under_jit_grad_and_vmap(x):
    clipper = Clipper(1.0)
    converted = autograph_lite.convert(clipper)
    assert_same(converted(x), clipper(x))
    assert_same(autograph_lite.jit(clipper)(F32(x)), clipper(F32(x)))
    xs = jnp.array([x, -x], F32)
    values, steps = jax.vmap(converted)(xs)
    assert_same((values, steps), tuple(jnp.array(v) for v in zip(*(clipper(float(v)) for v in xs))))
    _, steps = clipper(x)
    slope = jax.jacfwd(lambda v: converted(v)[0])(F32(x))  # forward mode: the while is a while_loop
    assert float(slope) == (-1.0 if x < 0 else 1.0) / 2.0**steps


def test_converted_object_calls_the_instance_and_shows_a_short_repr():
    clipper = Clipper(1.0)
    converted = autograph_lite.convert(clipper)
    assert converted.instance is clipper
    assert repr(converted) == "<converted Clipper.__call__>"
    assert autograph_lite.to_source(converted).startswith("def __call__(self, x):")


@pytest.mark.parametrize("x", [0.5, 4.0])
def test_equinox_module_stays_a_pytree(x):
    model = Halver(jnp.array([1.0, 2.0], F32), limit=2.0)
    converted = autograph_lite.convert(model)
    assert jax.tree_util.tree_leaves(converted) == jax.tree_util.tree_leaves(model)
    expected = model(F32(x))  # eager: x is concrete, the if runs in Python
    assert_same(eqx.filter_jit(converted)(F32(x)), expected)
    # filter_jit traces the module's array: it is an input of the program, not a constant in it
    (program,) = jax.make_jaxpr(eqx.filter_jit(converted))(F32(x)).eqns
    assert [str(v.aval) for v in program.params["jaxpr"].jaxpr.invars] == ["float32[]", "float32[2]"]
    grads = eqx.filter_grad(lambda m, v: m(v))(converted, F32(x))
    eager_grads = eqx.filter_grad(lambda m, v: Halver.__call__(m, v))(model, F32(x))
    assert_same(grads.instance.weight, eager_grads.weight)
    assert_same(autograph_lite.jit(model)(F32(x)), expected)


def test_jit_of_a_module_takes_its_arrays_as_arguments_read_at_every_call():
    model = Halver(jnp.array([1.0, 2.0], F32), limit=2.0)
    jitted = autograph_lite.jit(model)
    assert "tensor<2xf32>" in jitted.lower(F32(1.0)).as_text()  # the weight is a parameter of the program
    flipper = Flipper(rngs=nnx.Rngs(0))
    jitted_flipper = autograph_lite.jit(flipper)
    assert_same(jitted_flipper(X2), Flipper.__call__(flipper, X2))
    flipper.linear.kernel[...] = -flipper.linear.kernel[...]  # an update in place, as an optimizer makes
    assert_same(jitted_flipper(X2), Flipper.__call__(flipper, X2))


class Counter(nnx.Module):
    def __init__(self):
        self.calls = nnx.Variable(jnp.zeros((), jnp.int32))

    def __call__(self, x):
        self.calls[...] = self.calls[...] + 1
        return x


def test_jit_of_a_module_that_changes_its_arrays_is_refused():
    with pytest.raises(ConversionError, match=r"^Counter.__call__ changes the object's arrays"):
        autograph_lite.jit(Counter())(X2)
    counter = Counter()
    nnx.jit(lambda m, v: autograph_lite.convert(m)(v))(counter, X2)  # nnx.jit carries the change out
    assert int(counter.calls[...]) == 1


def test_nnx_module_under_nnx_transforms():
    model = Flipper(rngs=nnx.Rngs(0))
    expected = Flipper.__call__(model, X2)
    assert_same(nnx.jit(lambda m, v: autograph_lite.convert(m)(v))(model, X2), expected)
    assert_same(autograph_lite.jit(model)(X2), expected)
    batch = jnp.stack([X2, -X2])
    batched = nnx.vmap(lambda m, v: autograph_lite.convert(m)(v), in_axes=(None, 0))(model, batch)
    assert_same(batched, jnp.stack([Flipper.__call__(model, X2), Flipper.__call__(model, -X2)]))
    grads = nnx.grad(lambda m, v: autograph_lite.convert(m)(v).sum())(model, X2)
    eager = nnx.grad(lambda m, v: Flipper.__call__(m, v).sum())(model, X2)
    assert_same(grads["linear"]["kernel"][...], eager["linear"]["kernel"][...])


def test_nnx_module_raises_on_a_traced_if_without_conversion():
    with pytest.raises(jax.errors.TracerBoolConversionError):
        nnx.jit(lambda m, v: m(v))(Flipper(rngs=nnx.Rngs(0)), X2)


def test_linen_apply_converts_the_users_methods():
    block = LinenBlock()
    params = block.init(jax.random.PRNGKey(0), X2)
    assert_same(autograph_lite.jit(lambda p, v: block.apply(p, v))(params, X2), block.apply(params, X2))
    model = LinenModel()
    params = model.init(jax.random.PRNGKey(1), X2)
    for x in (X2, -X2, 10.0 * X2):
        assert_same(autograph_lite.jit(lambda p, v: model.apply(p, v))(params, x), model.apply(params, x))
    assert primitives(autograph_lite.convert(lambda p, v: model.apply(p, v)), params, X2) & STAGED_CHOICE
    # a linen module class goes through _ag.call, which refuses making one inside staged code
    assert autograph_lite.to_source(block).startswith("def __call__(self, x):\n    y = _ag.call(_ag.call(nn.Dense, 2), x)")


def test_linen_apply_with_a_named_method():
    block = LinenBlock()
    params = block.init(jax.random.PRNGKey(0), X2)
    got = autograph_lite.jit(lambda p, v: block.apply(p, v, method="__call__"))(params, X2)
    assert_same(got, block.apply(params, X2))


def test_objects_without_a_python_call_are_refused_with_their_type_name():
    with pytest.raises(ConversionError) as raised:
        autograph_lite.convert(len)
    assert str(raised.value).splitlines()[0] == (
        "cannot convert a builtin_function_or_method object: autograph_lite converts Python functions "
        "(def or lambda), bound methods, functools.partial objects and objects whose class defines __call__ "
        "in Python"
    )
    with pytest.raises(ConversionError, match="^cannot convert a int object"):
        autograph_lite.convert(3)


@pytest.mark.parametrize("name", ["equinox_module", "flax_nnx_adaptive"])
def test_examples_show_the_module_instance_forms(name):
    spec = importlib.util.spec_from_file_location(f"_test_callable_objects_{name}", ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    assert module.instance_forms().endswith(": ok")  # each form is checked against eager inside


class Repeat(eqx.Module):
    shift: jax.Array

    def __call__(self, x, n):
        for _ in range(n):
            if jnp.sum(x) > 1.0:
                x = x * 0.5
            x = x + self.shift
        return x


def test_jit_of_a_module_keeps_the_meaning_of_static_arguments():
    model = Repeat(jnp.array([0.1, 0.2], F32))
    x = jnp.array([1.0, 2.0], F32)
    expected = model(x, 3)
    assert_same(autograph_lite.jit(model, static_argnames="n")(x, n=3), expected)
    assert_same(autograph_lite.jit(model, static_argnames="n")(x, 3), expected)
    assert_same(autograph_lite.jit(model, static_argnums=1)(x, 3), expected)
    with pytest.raises(ConversionError, match="^autograph_lite.jit of a Repeat object does not take in_shardings"):
        autograph_lite.jit(model, in_shardings=None)


def checked_half(v):
    if v > 100.0:
        raise ValueError(f"too large: {v}")
    return v / 2.0


class HalvesThroughAHelper:
    """A module whose ``__call__`` reaches a run-time check only through the helper it calls."""

    def __call__(self, x):
        return checked_half(x)


def test_jit_of_an_object_raises_eagers_exception_reached_through_a_helper():
    jitted = autograph_lite.jit(HalvesThroughAHelper())
    assert float(jitted(F32(4.0))) == 2.0
    with pytest.raises(ValueError, match="^too large: 200.0"):
        jitted(F32(200.0))


def test_jit_of_an_object_takes_jax_jits_none_for_static_argnums():
    assert_same(autograph_lite.jit(Clipper(2.0), static_argnums=None)(F32(5.0)), Clipper(2.0)(F32(5.0)))


def _rounded(x):
    if x > 0:
        return jnp.round(x)
    return -jnp.round(-x)


def _straight_through(primals, tangents):
    (x,), (t,) = primals, tangents
    return _rounded(x), t


def test_a_custom_jvp_of_an_unconverted_function_is_refused_with_a_fix_that_works():
    wrapped = jax.custom_jvp(_rounded)
    wrapped.defjvp(_straight_through)
    with pytest.raises(ConversionError, match=r"jax.custom_jvp\(autograph_lite.convert\(f\)\)"):
        autograph_lite.jit(wrapped)
    fixed = jax.custom_jvp(autograph_lite.convert(_rounded))  # the fix it gives
    fixed.defjvp(autograph_lite.convert(_straight_through))
    assert float(autograph_lite.jit(fixed)(jnp.float32(-1.6))) == float(_rounded(jnp.float32(-1.6))) == -2.0
    assert float(jax.grad(lambda v: autograph_lite.jit(fixed)(v) * 2.0)(jnp.float32(1.3))) == 2.0

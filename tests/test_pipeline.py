"""The conversion pipeline and the public API: what a converted function is, and how it is made.

A converted function is a new function object around the rewritten code that keeps everything of the
original a caller can see (name, qualname, docstring, defaults, annotations, ``__wrapped__``) and
shares the original's globals dict and closure cells. Converting is cached per function, thread-safe,
and lambdas, nested functions, methods and ``functools.partial`` are all accepted.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import STAGED_CHOICE, assert_equivalent, primitives

import autograph_lite
import autograph_lite.source
from autograph_lite import ConversionError

F32 = jnp.float32
SCALE = 3.0


# --- what a converted function keeps ---------------------------------------------------------------


def documented(x: jax.Array, y: float = 2.0, *rest, scale: float = 1.5, **options) -> jax.Array:
    """Scale ``x`` up when it is positive."""
    if x > 0:
        x = x * y * scale
    return x


def test_converted_function_keeps_metadata():
    converted = autograph_lite.convert(documented)
    assert converted is not documented
    assert converted.__name__ == "documented"
    assert converted.__qualname__ == "documented"
    assert converted.__module__ == documented.__module__
    assert converted.__doc__ == "Scale ``x`` up when it is positive."
    assert converted.__defaults__ == (2.0,)
    assert converted.__kwdefaults__ == {"scale": 1.5}
    assert converted.__annotations__ == documented.__annotations__
    assert converted.__wrapped__ is documented
    assert converted.__code__.co_name == "documented"
    assert converted.__code__.co_filename == documented.__code__.co_filename


def test_converted_function_uses_its_defaults():
    assert_equivalent(documented, F32(2.0))
    assert_equivalent(documented, F32(-2.0))
    assert float(autograph_lite.jit(documented)(F32(2.0), scale=2.0)) == 8.0


class Outer:
    class Inner:
        @staticmethod
        def nested_qualname(x):
            if x > 0:
                return x
            return -x


def test_qualname_of_a_nested_definition():
    converted = autograph_lite.convert(Outer.Inner.nested_qualname)
    assert converted.__qualname__ == "Outer.Inner.nested_qualname"
    assert converted.__code__.co_qualname == "Outer.Inner.nested_qualname"


def reads_global(x):
    if x > 0:
        return x * SCALE
    return x


def test_converted_function_shares_the_globals_dict(monkeypatch):
    converted = autograph_lite.convert(reads_global)
    assert converted.__globals__ is reads_global.__globals__
    assert float(converted(F32(2.0))) == 6.0
    monkeypatch.setattr(__import__(__name__), "SCALE", 10.0)
    assert float(converted(F32(2.0))) == 20.0  # a global changed after conversion is seen
    assert float(jax.jit(converted)(F32(2.0))) == 20.0


def make_closure():
    factor = 2.0

    def scaled(x):
        if x > 0:
            return x * factor
        return x

    def set_factor(value):
        nonlocal factor
        factor = value

    return scaled, set_factor


def test_converted_function_shares_the_closure_cells():
    scaled, set_factor = make_closure()
    converted = autograph_lite.convert(scaled)
    assert float(converted(F32(1.0))) == 2.0
    set_factor(7.0)  # rebinding the captured variable after conversion is seen
    assert float(converted(F32(1.0))) == 7.0
    assert float(jax.jit(converted)(F32(1.0))) == 7.0
    original_cells = {id(cell) for cell in scaled.__closure__}
    assert original_cells <= {id(cell) for cell in converted.__closure__}


def test_each_closure_keeps_its_own_cells():
    first, _ = make_closure()
    second, set_second = make_closure()
    set_second(-1.0)
    assert float(autograph_lite.convert(first)(F32(1.0))) == 2.0
    assert float(autograph_lite.convert(second)(F32(1.0))) == -1.0


# --- lambdas, nested functions, methods, partials ----------------------------------------------------

PAIR = (lambda x: x * 2 if x > 0 else -x, lambda x: x + 100 if x > 0 else x - 100)


@pytest.mark.parametrize("x", [2.0, -2.0])
def test_lambda_with_a_ternary(x):
    assert_equivalent(lambda v: v * 2 if v > 0 else -v, F32(x))
    assert primitives(autograph_lite.convert(lambda v: v * 2 if v > 0 else -v), F32(x)) & STAGED_CHOICE


@pytest.mark.parametrize("x", [2.0, -2.0])
def test_two_lambdas_on_one_line_are_told_apart(x):
    assert_equivalent(PAIR[0], F32(x))
    assert_equivalent(PAIR[1], F32(x))
    assert "100" in autograph_lite.to_source(PAIR[1]) and "100" not in autograph_lite.to_source(PAIR[0])


def with_nested_function(x, y):
    def pick(a, b):
        if a > b:
            return a
        return b

    helper = lambda v: v if v > 0 else 0.0
    return pick(x, y) + helper(x - y)


def with_plain_nested_def(x):
    def add_one(a):
        return a + 1

    return add_one(x)


def test_a_nested_def_with_a_return_converts():
    assert_equivalent(with_plain_nested_def, F32(1.0))


@pytest.mark.parametrize("x, y", [(1.0, 2.0), (3.0, -1.0)])
def test_nested_functions_and_lambdas_are_converted(x, y):
    assert_equivalent(with_nested_function, F32(x), F32(y))


def test_nested_functions_work_when_returned_and_vmapped():
    def make():
        return lambda v: v * 2 if v > 0 else -v

    converted_outer = autograph_lite.convert(make)
    inner = converted_outer()
    xs = jnp.asarray([1.0, -2.0, 3.0], F32)
    np.testing.assert_allclose(jax.vmap(inner)(xs), [2.0, 2.0, 6.0])


def _helper_with_branch(x):
    if x > 1:
        return x - 1
    return x + 1


def calls_user_helper(x):
    return _helper_with_branch(x) * 2


@pytest.mark.parametrize("x", [3.0, 0.0])
def test_user_functions_called_from_converted_code_are_converted(x):
    assert_equivalent(calls_user_helper, F32(x))


class Model:
    def __init__(self, offset):
        self.offset = offset

    def apply(self, x):
        if x > self.offset:
            return x - self.offset
        return x + self.offset

    @functools.partial(autograph_lite.jit, static_argnums=0)
    def jitted_apply(self, x):
        if x > self.offset:
            return x * 2
        return x

    @autograph_lite.jit(static_argnums=0)
    def decorated_apply(self, x):
        if x > self.offset:
            return x - 1
        return x + 1

    def __hash__(self):
        return hash(self.offset)

    def __eq__(self, other):
        return isinstance(other, Model) and other.offset == self.offset


@pytest.mark.parametrize("x", [5.0, -5.0])
def test_bound_method_via_convert(x):
    model = Model(1.0)
    converted = autograph_lite.convert(model.apply)
    assert converted.__self__ is model
    assert float(converted(F32(x))) == model.apply(x)
    assert float(autograph_lite.jit(model.apply)(F32(x))) == model.apply(x)


@pytest.mark.parametrize("x", [5.0, -5.0])
def test_jit_decorating_a_method_with_static_self(x):
    model = Model(1.0)
    expected = x * 2 if x > 1.0 else x
    assert float(model.jitted_apply(F32(x))) == expected
    assert float(model.decorated_apply(F32(x))) == (x - 1 if x > 1.0 else x + 1)


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Params:
    weight: jax.Array
    bias: jax.Array

    @autograph_lite.jit
    def forward(self, x):
        y = self.weight * x
        if y > 0:
            y = y + self.bias
        return y


@pytest.mark.parametrize("x", [2.0, -2.0])
def test_jit_decorating_a_method_of_a_registered_pytree(x):
    params = Params(F32(3.0), F32(1.0))
    expected = 3.0 * x + 1.0 if 3.0 * x > 0 else 3.0 * x
    assert float(params.forward(F32(x))) == expected


def three_args(x, y, z):
    if x > y:
        return x + z
    return y - z


@pytest.mark.parametrize("x", [3.0, -3.0])
def test_functools_partial(x):
    partial = functools.partial(three_args, y=F32(0.0))
    converted = autograph_lite.convert(partial)
    assert isinstance(converted, functools.partial)
    assert converted.keywords == partial.keywords
    assert float(converted(F32(x), z=F32(1.0))) == float(three_args(x, 0.0, 1.0))
    assert float(autograph_lite.jit(partial)(F32(x), z=F32(1.0))) == float(three_args(x, 0.0, 1.0))


def test_convert_rejects_objects_that_are_not_functions():
    with pytest.raises(ConversionError, match="cannot convert"):
        autograph_lite.convert(len)
    with pytest.raises(ConversionError, match="__call__"):
        autograph_lite.convert(Model(1.0))


def test_invalid_static_loops_option():
    with pytest.raises(ValueError, match="static_loops"):
        autograph_lite.convert(three_args, static_loops="sometimes")


# --- jit as a decorator -------------------------------------------------------------------------------


@autograph_lite.jit
def bare_decorated(x):
    if x > 0:
        return x * 2
    return x


@autograph_lite.jit(static_argnames="n")
def decorated_with_static_argnames(x, n):
    for _ in range(n):
        if x > 10:
            x = x / 2
        else:
            x = x * 3
    return x


def test_bare_jit_decorator():
    assert float(bare_decorated(F32(2.0))) == 4.0
    assert float(bare_decorated(F32(-2.0))) == -2.0


def test_jit_decorator_with_static_argnames():
    def eager(x, n):
        for _ in range(n):
            x = x / 2 if x > 10 else x * 3
        return x

    for n in (0, 1, 4):
        assert float(decorated_with_static_argnames(F32(2.0), n=n)) == pytest.approx(eager(2.0, n))


def add(x, y):
    if x.sum() > 0:
        return x + y
    return x - y


def test_donate_argnums_is_passed_to_jax_jit():
    jitted = autograph_lite.jit(add, donate_argnums=0)
    text = jitted.lower(jnp.ones(3), jnp.ones(3)).as_text()
    assert "tf.aliasing_output" in text or "jax.buffer_donor" in text
    np.testing.assert_allclose(jitted(jnp.ones(3), jnp.ones(3)), 2 * np.ones(3))


def test_jit_kwargs_are_passed_through():
    jitted = autograph_lite.jit(three_args, static_argnums=(2,))
    assert float(jitted(F32(1.0), F32(0.0), 5.0)) == 6.0


# --- caching -------------------------------------------------------------------------------------------


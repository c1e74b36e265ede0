"""A traced value given to one of ``math``'s functions (or ``complex()``), which need a Python number:
the located ``TracedValueError`` (runtime/jax_errors.py), also of the type JAX or Python raised, whose
fix names the jax.numpy call for the function the user's line calls; and that call computes eager
``math``'s value."""

import math

import jax.numpy as jnp
import pytest
from support import assert_same
from test_located_jax_errors import located_error

import autograph_lite

F32 = jnp.float32


def whole_part(x):
    return math.trunc(x)


def whole_part_past_a_bound(x):
    return math.trunc(x) if x > 100 else 0


def rounded_down(x):
    return math.floor(x) + 1


def root(x):
    return math.sqrt(x) * 2


def flagged(x):
    return math.isnan(x) or math.isinf(x)


def as_complex(x):
    return complex(x)


@pytest.mark.parametrize("function,called,fix", [
    (whole_part, "math.trunc", "jnp.trunc(x)"), (whole_part_past_a_bound, "math.trunc", "jnp.trunc(x)"),
    (rounded_down, "math.floor", "jnp.floor(x)"), (root, "math.sqrt", "jnp.sqrt(x)"),
    (flagged, "math.isnan", "jnp.isnan(x)"), (as_complex, "complex", "jnp.asarray(x, jnp.complex64)"),
])
def test_a_traced_value_given_to_maths_function_is_located_and_names_its_jnp_call(function, called, fix):
    # math.trunc raised JAX's unlocated "type DynamicJaxprTracer doesn't define __trunc__ method";
    # the others a located error whose fix named no jax.numpy function
    error = located_error(function, F32(2.5), expected=TypeError)
    line = function.__code__.co_firstlineno + 1
    assert str(error).startswith(f"{function.__code__.co_filename}:{line}: a traced value given to {called}()"), error
    assert fix in error.hint


def whole_part_in_jnp(x):
    return jnp.trunc(x).astype(jnp.int32) if x > 100 else 0


def rounded_down_in_jnp(x):
    return jnp.floor(x).astype(jnp.int32) + 1


@pytest.mark.parametrize("function,fixed", [(whole_part_past_a_bound, whole_part_in_jnp), (rounded_down, rounded_down_in_jnp)])
def test_the_jnp_call_the_hint_names_computes_what_eager_math_does(function, fixed):
    for x in (F32(1.0), F32(250.7), F32(-3.5)):
        expected = function(float(x))  # eager math of the Python number
        assert_same(autograph_lite.jit(fixed)(x), expected)
        assert int(autograph_lite.jit(fixed)(x)) == expected

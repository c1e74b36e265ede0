"""JAX's refusals of a traced value pass a user's ``except`` clause, to the located error.

Eager Python holds a concrete value where ``jit`` traces one: ``math.sqrt(x)``, ``x.item()``,
``sorted`` of traced items, ``np.asarray(x)`` run eagerly, and raise JAX's
``ConcretizationTypeError`` / ``TracerBoolConversionError`` / ``TracerArrayConversionError`` only
while tracing. A ``try`` around them with ``except TypeError`` / ``except Exception`` / a bare
``except`` caught that error and returned the handler's fallback, silently (``math.sqrt``: 0.0 for
eager's 1.414). ``not_for_handlers`` now lets such an error through (found by probe D, F5; the
generator draws it with ``with_try`` and ``jax_refusals``). A handler for an error eager Python
raises as well still runs.
"""

import math

import jax
import jax.numpy as jnp
import numpy as np
from support import assert_same, where
from test_located_jax_errors import located_error

import autograph_lite

F32 = jnp.float32


def safe_sqrt(x):
    try:
        y = math.sqrt(x)
    except TypeError:
        y = 0.0
    return y


def fixed_safe_sqrt(x):
    try:
        y = jnp.sqrt(x)
    except TypeError:
        y = 0.0
    return y


def test_math_of_a_traced_value_passes_except_type_error_and_the_named_jnp_call_fixes_it():
    error = located_error(safe_sqrt, F32(2.0), expected=jax.errors.ConcretizationTypeError)
    assert str(error).startswith(where(safe_sqrt, "y = math.sqrt(x)") + ": a traced value given to math.sqrt()")
    assert "jnp.sqrt(x)" in error.hint
    assert_same(autograph_lite.jit(fixed_safe_sqrt)(F32(2.0)), safe_sqrt(F32(2.0)))


def smallest(xs):
    try:
        m = sorted([xs[0], xs[1]])[0]
    except Exception:
        m = 0.0 * xs[0]
    return m


def test_sorting_traced_items_passes_except_exception():
    error = located_error(smallest, jnp.asarray([2.0, 1.0]), expected=jax.errors.TracerBoolConversionError)
    assert str(error).startswith(where(smallest, "m = sorted(") + ": a traced value used as a Python bool")
    assert_same(autograph_lite.jit(lambda xs: jnp.where(xs[1] < xs[0], xs[1], xs[0]))(jnp.asarray([2.0, 1.0])),
                smallest(jnp.asarray([2.0, 1.0])))


def scaled(x):
    try:
        v = x.item()
        r = x * 2 if v > 1 else x
    except (TypeError, ValueError):
        r = -x
    return r


def fixed_scaled(x):
    try:
        r = x * 2 if x > 1 else x
    except (TypeError, ValueError):
        r = -x
    return r


def test_item_of_a_traced_value_passes_a_tuple_of_handlers_and_reading_the_array_fixes_it():
    error = located_error(scaled, F32(2.0), expected=jax.errors.ConcretizationTypeError)
    assert str(error).startswith(where(scaled, "v = x.item()") + ": ")
    for value in (F32(2.0), F32(0.5)):
        assert_same(autograph_lite.jit(fixed_scaled)(value), scaled(value))


def doubled_if_positive(x):
    y = x
    try:
        if x > 0:
            y = np.asarray(x) * 2
    except:  # noqa: E722 - the bare clause is the point
        y = -x
    return y


def test_numpy_in_a_traced_branch_passes_a_bare_except_and_names_the_branch():
    error = located_error(doubled_if_positive, F32(2.0), expected=jax.errors.TracerArrayConversionError)
    message = str(error)
    assert message.startswith(where(doubled_if_positive, "y = np.asarray(x) * 2") + ": a traced array passed to NumPy")
    assert f"a branch of the `if` at {where(doubled_if_positive, 'if x > 0:')}" in message


def first_root(xs):
    total = 0.0
    for i in range(2):
        try:
            total = total + math.sqrt(xs[i])
        finally:
            break  # noqa: B012 - the exit that would drop a pending exception is the point
    return total


def test_a_finally_that_breaks_does_not_drop_the_error():
    error = located_error(first_root, jnp.asarray([4.0, 1.0]), expected=jax.errors.ConcretizationTypeError)
    assert str(error).startswith(where(first_root, "total = total + math.sqrt(xs[i])") + ": ")


def labelled(x):
    try:
        y = x + "!"
    except TypeError:
        y = x * 3
    return y


def test_a_handler_for_an_error_eager_python_raises_too_still_runs():
    assert_same(autograph_lite.jit(labelled)(F32(2.0)), labelled(F32(2.0)))
    assert_same(labelled(F32(2.0)), F32(6.0))

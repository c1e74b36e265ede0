"""An error of Python's in an operand of ``and`` / ``or`` that Python does not evaluate
(runtime/logic.py ``_evaluated_anyway``).

After a traced operand, the operands after it are traced whatever the run-time values, and eager
Python evaluates each only where the result so far does not decide. An error one raises while
tracing (``T[5]`` past a list's end, ``-`` of a bool array) was raised on every call under ``jit``,
where eager returns; it is now a run-time check that raises eager's exception where eager evaluates
the operand (found by the generator: all features, seed 10, 400 programs: 7 such TypeErrors).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from support import assert_equivalent, conversion_error, where

import autograph_lite

T = [1.0, 2.0]


def index_past_the_end(x):
    return x > 0 or T[5] > 0


def negated_bool_array(b):
    return jnp.min(b) > 0 or -jnp.any(b != 0)


def chained(x, y):
    return (x > 0 and y > 0) and T[7] > 0


def test_an_error_in_an_operand_python_skips_is_not_raised():
    """Before: IndexError while tracing, on every call."""
    assert bool(assert_equivalent(index_past_the_end, jnp.float32(1.0)))
    assert bool(assert_equivalent(negated_bool_array, jnp.array([1.0, 2.0])))
    assert not bool(assert_equivalent(chained, jnp.float32(-1.0), jnp.float32(1.0)))


@pytest.mark.parametrize("function, arguments, error", [
    (index_past_the_end, (jnp.float32(-1.0),), IndexError),
    (negated_bool_array, (jnp.array([-1.0, 2.0]),), TypeError),
    (chained, (jnp.float32(1.0), jnp.float32(1.0)), IndexError),
])
def test_where_python_evaluates_it_the_run_raises_eagers_error(function, arguments, error):
    """Passed before too (the error was raised while tracing, on every call): pins that the check raises
    eager's exception, type and message, on the first call and on the cached program's."""
    with pytest.raises(error) as eager:
        function(*arguments)
    jitted = autograph_lite.jit(function)
    for _ in range(2):  # the first call traces; the second runs the cached program
        with pytest.raises(error) as staged:
            jitted(*arguments)
        assert str(staged.value) == str(eager.value)


def reads_an_item(x, v):
    return x > 0 or v.sum().item() > 0


def test_an_error_only_tracing_raises_still_raises_while_tracing():
    """A tracer's own error (``.item()`` of a traced value) is no error eager Python would raise there:
    deferred, it would raise at run time where eager returns a value."""
    assert bool(reads_an_item(jnp.float32(-1.0), jnp.ones(3)))
    with pytest.raises(jax.errors.ConcretizationTypeError):
        autograph_lite.jit(reads_an_item)(jnp.float32(1.0), jnp.ones(3))



def counts_halves(x):
    s = 0
    i = 0
    while i < x:
        s = s + 0.5  # an int carry that becomes a float: the while loop traces its body again
        i += 1
    return s


def calls_a_loop_that_retraces(x):
    return x > 1 or counts_halves(x) > 0


def test_a_staged_statements_signal_to_trace_again_is_no_error_of_eagers():
    """A staged loop in a lazy operand, whose int carry becomes a float (the loop traces its body again),
    agrees with eager: what the converter raises while tracing is never deferred as eager's error."""
    for x in (3.0, 0.0, 1.0):
        assert_equivalent(calls_a_loop_that_retraces, jnp.float32(x))


LOG: list[int] = []


def bump():
    LOG.append(1)
    return 1.0


def logs_in_a_lazy_operand(xs):
    LOG.clear()
    t = 0.0
    for x in xs:
        t = t + (x > 1 or bump())
    return t, len(LOG)


def test_an_effect_in_a_lazy_operand_is_still_refused_at_its_line():
    """The refusal is the converter's error, never deferred as one of eager's."""
    error = conversion_error(logs_in_a_lazy_operand, jnp.arange(3.0))
    assert error.startswith(f"{where(bump, 'LOG.append(1)')}: this call of list.append()")


def down(n):
    return n <= 0 or down(n - 1)


def test_recursion_on_a_traced_operand_is_still_the_located_error():
    """Deferred, the ``RecursionError`` of the innermost operand gave True for eager's True at n = 3, but
    would raise where eager returns at depths between the tracer's limit and Python's: it stays the
    located error of recursion on a traced condition (the first version deferred it)."""
    assert down(3) is True
    with pytest.raises(autograph_lite.ConversionError, match="'down' calls itself without end while tracing"):
        autograph_lite.jit(down)(jnp.int32(3))


def reshapes_by_a_traced_size(x, n):
    return x.sum() > 0 or jnp.reshape(x, (n,)).sum() > 0


def test_a_jax_error_that_names_a_tracer_is_still_raised_while_tracing():
    """JAX's TypeError for a traced shape is a plain TypeError, but eager (a concrete ``n``) never raises
    it: deferred, it would raise where eager returns."""
    assert bool(reshapes_by_a_traced_size(jnp.ones(2), 2))
    with pytest.raises(TypeError, match="an array shape computed from a traced value"):
        autograph_lite.jit(reshapes_by_a_traced_size)(jnp.ones(2), jnp.int32(2))

"""``autograph_lite.jit`` of a function that holds no check of its own but may reach one: in a function
it calls (converted when the call is traced), an index out of range of a Python list, a zero ``range``
step. The caller gets eager's exception, as for a check of the function's own; once a call has shown
that no trace staged a check, calls go straight to ``jax.jit``'s function (autograph_lite/checked_jit.py).

PYTEST_DONT_REWRITE: the user functions here hold asserts, whose eager message must stay Python's."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import pytest

import autograph_lite
from autograph_lite.checked_jit import JitReachingChecks
from tests.support import assert_same
from tests.test_runtime_checks import assert_like_eager, assert_raises_like_eager, raised_by, run_time_error

F32, I32 = jnp.float32, jnp.int32
TORQUES = [-1.0, 0.0, 1.0]


def positive_root(v):
    assert v >= 0, f"negative {v}"
    return jnp.sqrt(v)


def calls_an_asserting_helper(x):
    if x > 1:
        x = positive_root(x - 5.0)
    return x


def picks_a_torque(a, x):
    return x + TORQUES[a]


def strided_sum(x, step):
    total = x
    for i in range(0, 6, step):
        total = total + i
    return total


def plain_helper(v):
    return v * 2


def calls_a_plain_helper(x):
    return plain_helper(x) + 1


def checked_when(x, strict):
    if strict:
        return positive_root(x)
    return x


def fast_path(jitted):
    """Whether calls go straight to jax.jit's function (no frame of ours)."""
    return isinstance(type(jitted).__dict__.get("__call__"), staticmethod)


@pytest.mark.parametrize("x", [0.0, 3.0, 7.0])
def test_a_check_in_a_called_function(x):
    assert_like_eager(calls_an_asserting_helper, F32(x))


@pytest.mark.parametrize("a", [0, 2, -3, 3, -4])
def test_an_index_out_of_range_of_a_python_list(a):
    assert_like_eager(picks_a_torque, I32(a), F32(1.5))


@pytest.mark.parametrize("step", [2, -1, 0])
def test_a_zero_range_step(step):
    assert_like_eager(strided_sum, F32(1.0), I32(step))


def test_the_exception_under_vmap_and_grad_is_jaxs_and_reports_eagers():
    eager = raised_by(calls_an_asserting_helper, F32(3.0))
    file, line = positive_root.__code__.co_filename, positive_root.__code__.co_firstlineno + 1
    for run, args in ((jax.jit(jax.vmap(autograph_lite.convert(calls_an_asserting_helper))), (jnp.array([0.0, 3.0]),)),
                      (jax.jit(jax.grad(autograph_lite.convert(calls_an_asserting_helper))), (F32(3.0),))):
        text = run_time_error(run, *args)
        assert text.endswith(f"\n{type(eager).__name__}: {eager}") and f'{file}", line {line}' in text.splitlines()[-2]
    assert_same(jax.grad(autograph_lite.convert(calls_an_asserting_helper))(F32(6.0)),
                jax.grad(calls_an_asserting_helper)(F32(6.0)))


def test_the_wrapper_keeps_catching_once_a_check_was_staged():
    jitted = autograph_lite.jit(calls_an_asserting_helper)
    assert isinstance(jitted, JitReachingChecks) and not fast_path(jitted)
    assert_same(jitted(F32(6.0)), calls_an_asserting_helper(F32(6.0)))
    assert not fast_path(jitted)
    with pytest.raises(AssertionError, match="negative -2.0"):
        jitted(F32(3.0))


def test_without_a_staged_check_calls_go_straight_to_jax_jit():
    jitted = autograph_lite.jit(calls_a_plain_helper)
    assert isinstance(jitted, JitReachingChecks)
    assert_same(jitted(F32(2.0)), F32(5.0))
    assert fast_path(jitted) and type(jitted).__dict__["__call__"].__func__ is jitted._jitted
    assert_same(jitted(F32(3.0)), F32(7.0))
    assert jitted.__wrapped__ is autograph_lite.convert(calls_a_plain_helper)
    assert "plain_helper" in autograph_lite.to_source(jitted)


def test_a_later_trace_that_stages_a_check_makes_the_wrapper_catch_again():
    jitted = autograph_lite.jit(checked_when, static_argnames="strict")
    assert_same(jitted(F32(-4.0), strict=False), F32(-4.0))
    assert fast_path(jitted)
    # The call that traces the new signature runs in jax.jit's code: JAX's error (documented) ...
    assert run_time_error(functools.partial(jitted, strict=True), F32(-4.0)).endswith("\nAssertionError: negative -4.0")
    assert not fast_path(jitted)
    # ... and every later call raises eager's exception.
    assert_raises_like_eager(raised_by(functools.partial(jitted, strict=True), F32(-1.0)), raised_by(checked_when, F32(-1.0), True))
    assert_same(jitted(F32(4.0), strict=True), F32(2.0))
    assert_same(jitted(F32(-4.0), strict=False), F32(-4.0))


def test_each_jit_of_a_function_has_its_own_fast_path():
    first, second = autograph_lite.jit(calls_a_plain_helper), autograph_lite.jit(calls_a_plain_helper, donate_argnums=())
    first(F32(1.0))
    assert fast_path(first) and not fast_path(second)
    assert_same(second(F32(1.0)), F32(3.0))
    assert fast_path(second)
    assert type(first).__dict__["__call__"].__func__ is first._jitted


@autograph_lite.jit
def jitted_root(v):
    assert v >= 0, f"negative {v}"
    return jnp.sqrt(v)


def calls_a_jitted_function(x):
    return jitted_root(x) + 1.0


def test_a_jitted_function_with_checks_called_after_its_own_trace_is_cached():
    # jitted_root's trace comes from JAX's cache, no check is staged anew: the caller still catches.
    assert_same(jitted_root(F32(4.0)), F32(2.0))
    jitted = autograph_lite.jit(calls_a_jitted_function)
    assert_same(jitted(F32(4.0)), F32(3.0))
    assert not fast_path(jitted)
    with pytest.raises(AssertionError, match="negative -1.0"):
        jitted(F32(-1.0))


def jits_a_nested_function(x):
    def nested(v):
        return calls_an_asserting_helper(v)

    return autograph_lite.jit(nested)(x)


def jits_a_nested_function_with_its_own_check(x):
    def nested(v):
        if v > 1:
            raise ValueError("too large")
        return v

    return autograph_lite.jit(nested)(x)


def test_jit_of_a_function_defined_inside_converted_code():
    # Its code is part of its parent's rewrite (no function of its own behind it): it was a crash.
    assert_like_eager(jits_a_nested_function, F32(0.5))
    with pytest.raises(AssertionError, match="^negative"):
        autograph_lite.convert(jits_a_nested_function)(F32(2.0))
    with pytest.raises(ValueError, match="^too large"):
        autograph_lite.convert(jits_a_nested_function_with_its_own_check)(F32(2.0))
    assert float(autograph_lite.convert(jits_a_nested_function_with_its_own_check)(F32(0.5))) == 0.5

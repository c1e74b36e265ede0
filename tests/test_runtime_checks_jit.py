"""``autograph_lite.jit`` of a function that may stage run-time checks: the caller gets eager's exception
itself (issue #15), through a thin wrapper that keeps everything ``jax.jit``'s function offers; a
function without checks keeps ``jax.jit``'s own function (tests/test_pipeline_caching.py).

PYTEST_DONT_REWRITE: the user functions here hold asserts, whose eager message must stay Python's."""

from __future__ import annotations

import inspect
import warnings

import jax
import jax.numpy as jnp
import pytest

import autograph_lite
from tests.support import assert_same
from tests.test_runtime_checks import assert_raises_like_eager, raised_by, run_time_error

F32 = jnp.float32


class RangeCheckError(ValueError):
    """An exception whose ``__init__`` takes other arguments than its ``args``."""

    def __init__(self, low, high):
        super().__init__(f"outside [{low}, {high}]")
        self.bounds = (low, high)


def scaled(x, factor):
    """Scale ``x``; refuse a negative one."""
    if x < 0:
        raise ValueError(f"negative input {x}")
    return x * factor


def bare_assert(x):
    assert x > 0
    return x


def custom_exception(x):
    if x > 10:
        raise RangeCheckError(0, 10)
    return x


def raise_from(x):
    if x > 0:
        raise ValueError("positive") from KeyError("cause")
    return x


def no_checks(x):
    if x > 0:
        return x
    return -x


def helper_with_check(v):
    if v > 10:
        raise OverflowError("too big")
    return v


def calls_a_checked_helper(x):
    if x > 0:
        x = helper_with_check(x)
    return x


def failing_callback(x):
    def boom(value):
        raise RuntimeError("not a check")

    jax.debug.callback(boom, x)
    assert x > -100, "far too negative"
    return x


def test_the_callers_exception_is_eagers():
    for fn, argument in ((scaled, -2.0), (bare_assert, -1.0), (custom_exception, 11.0)):
        args = (F32(argument), F32(3.0))[: len(inspect.signature(fn).parameters)]
        assert_raises_like_eager(raised_by(autograph_lite.jit(fn), *args), raised_by(fn, *args))
    error = raised_by(autograph_lite.jit(custom_exception), F32(11.0))
    assert error.bounds == (0, 10)


def test_the_cause_of_raise_from_is_kept():
    error = raised_by(autograph_lite.jit(raise_from), F32(1.0))
    eager = raised_by(raise_from, F32(1.0))
    assert (type(error), error.args) == (type(eager), eager.args)
    assert (type(error.__cause__), error.__cause__.args) == (KeyError, ("cause",))


def test_the_wrapper_is_only_for_functions_that_may_reach_checks():
    plain = type(jax.jit(no_checks))
    assert type(autograph_lite.jit(no_checks)) is plain
    assert type(autograph_lite.jit(scaled)) is autograph_lite.api.JitWithChecks
    assert isinstance(autograph_lite.jit(calls_a_checked_helper), autograph_lite.checked_jit.JitReachingChecks)
    # a check staged in a called helper: eager's exception (tests/test_runtime_checks_reaching.py)
    eager = raised_by(calls_a_checked_helper, F32(11.0))
    assert_raises_like_eager(raised_by(autograph_lite.jit(calls_a_checked_helper), F32(11.0)), eager)
    # under JAX's own jit, JAX's error: eager's type and message at its end
    assert run_time_error(jax.jit(autograph_lite.convert(calls_a_checked_helper)), F32(11.0)).endswith(
        "\nOverflowError: too big")


def test_a_runtime_error_that_is_no_check_is_jaxs():
    with pytest.raises(jax.errors.JaxRuntimeError, match="RuntimeError: not a check"):
        jax.block_until_ready(autograph_lite.jit(failing_callback)(F32(1.0)))



def test_successive_failures_raise_their_own_exceptions():
    jitted = autograph_lite.jit(scaled)
    for value in (-1.0, -2.0, -3.0):
        assert str(raised_by(jitted, F32(value), F32(2.0))) == str(raised_by(scaled, F32(value), F32(2.0)))
    assert_same(jitted(F32(2.0), F32(3.0)), scaled(F32(2.0), F32(3.0)))


def test_the_wrapper_offers_what_jax_jit_offers():
    jitted, plain = autograph_lite.jit(scaled), jax.jit(autograph_lite.convert(scaled))
    assert (jitted.__name__, jitted.__doc__, jitted.__qualname__) == ("scaled", scaled.__doc__, "scaled")
    assert jitted.__wrapped__ is autograph_lite.convert(scaled)
    assert inspect.signature(jitted) == inspect.signature(scaled)
    assert "raise_" in autograph_lite.to_source(jitted)
    assert "lax.cond" in str(autograph_lite.explain(jitted, F32(2.0), F32(3.0)))
    args = (F32(2.0), F32(3.0))
    assert jitted.lower(*args).as_text() == plain.lower(*args).as_text()
    assert jitted.trace(*args).jaxpr.eqns[0].primitive == plain.trace(*args).jaxpr.eqns[0].primitive
    assert jitted.eval_shape(*args) == jax.ShapeDtypeStruct((), jnp.float32)
    jitted.clear_cache()
    assert repr(jitted) == repr(jitted._jitted)


def test_static_and_donated_arguments_pass_through():
    by_number = autograph_lite.jit(scaled, static_argnums=1)
    assert_same(by_number(F32(2.0), 3.0), F32(6.0))
    with pytest.raises(ValueError, match="negative input -2.0"):
        by_number(F32(-2.0), 3.0)
    by_name = autograph_lite.jit(static_argnames="factor")(scaled)
    assert_same(by_name(F32(2.0), factor=4.0), F32(8.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # CPU cannot use donated buffers, and says so
        donated = autograph_lite.jit(scaled, donate_argnums=0)
        assert_same(donated(jnp.float32(2.0), F32(3.0)), F32(6.0))
        with pytest.raises(ValueError, match="negative input -1.0"):
            donated(jnp.float32(-1.0), F32(3.0))


class Model:
    def __init__(self, limit):
        self.limit = limit

    @autograph_lite.jit(static_argnums=0)
    def checked(self, x):
        if x > self.limit:
            raise ValueError("over the limit")
        return x * 2

    def __hash__(self):
        return hash(self.limit)

    def __eq__(self, other):
        return isinstance(other, Model) and other.limit == self.limit


def test_a_jitted_method_with_checks():
    # As jax.jit's function, the wrapper binds to the instance, here a static argument.
    model = Model(3.0)
    assert_same(model.checked(F32(1.0)), F32(2.0))
    with pytest.raises(ValueError, match="over the limit"):
        model.checked(F32(4.0))


def lowered_until(x):
    for _ in range(3):
        x = x - 1.0
        if x < -5:
            raise ValueError("too low")
    return x


@pytest.mark.parametrize("transform, ok, failing", [
    (jax.vmap, jnp.array([0.0, 1.0]), jnp.array([0.0, -3.0])),
    (jax.grad, F32(3.0), F32(-3.0)),
])
def test_jit_of_a_jax_transform_of_a_checking_function_raises_eagers_exception(transform, ok, failing):
    """``autograph_lite.jit(jax.vmap(f))``: the converted ``f`` inside JAX's wrapper stages the check, and
    the caller gets eager's ``ValueError`` (was JAX's ``JaxRuntimeError``), on every call."""
    jitted = autograph_lite.jit(transform(lowered_until))
    assert_same(jitted(ok), jax.jit(transform(autograph_lite.convert(lowered_until)))(ok))
    for _ in range(2):
        with pytest.raises(ValueError) as raised:
            jitted(failing)
        assert type(raised.value) is ValueError and str(raised.value) == "too low"


MESSAGES_MADE = [0]


def counted_message():
    MESSAGES_MADE[0] += 1
    return MESSAGES_MADE[0]


def assert_with_an_effect_in_its_message(x):
    assert x < 5, f"too big ({counted_message()})"
    return x


def test_an_effect_in_the_message_of_a_traced_assert_is_refused():
    """Python evaluates the message only when the test fails; it ran once while tracing, so the
    counter moved on the first call where eager's had not (found by the generator, feature all)."""
    MESSAGES_MADE[0] = 0
    with pytest.raises(autograph_lite.ConversionError, match="runs inside a message of an `assert` whose test is traced"):
        autograph_lite.jit(assert_with_an_effect_in_its_message)(jnp.float32(1.0))
    assert MESSAGES_MADE[0] == 0

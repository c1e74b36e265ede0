"""Helpers wrapped in a JAX transformation outside converted code (``@jax.vmap``, ``@jax.checkpoint``
on a module-level function) and called from converted code are rebuilt around the converted helper,
as ``autograph_lite.jit(wrapper)`` rebuilds them, so their traced ``if`` stages; a wrapper that is not
rebuilt (``jax.custom_jvp``; ``jax.jit``, whose prints come out once per trace eagerly) runs as written,
and a traced ``if`` in it is refused at the call, naming the wrapper, with a fix that is tested to work. Results are compared with eager Python (or,
where eager itself fails on the traced ``if``, with the per-example result written with jnp.where)."""

from __future__ import annotations

import functools
import inspect

import jax
import jax.numpy as jnp
import pytest
from support import assert_same

import autograph_lite
from autograph_lite import ConversionError

F32 = jnp.float32
XS = jnp.array([1.0, 5.0, 2.0, 7.0], F32)


def double_above_two(v):
    if v > 2:
        return v * 2
    return v


def sine_when_large(v):
    if v.sum() > 1.0:
        v = jnp.sin(v)
    return v * 2


def scaled(v, n):
    total = v
    for _ in range(n):  # n static: a Python loop
        if total > 3.0:
            total = total - 1.0
        total = total * 2.0
    return total


vmapped = jax.vmap(double_above_two)
checkpointed = jax.checkpoint(sine_when_large)
rematted = jax.remat(sine_when_large)
jitted = jax.jit(scaled, static_argnums=1)




def expected_doubled(xs):
    return jnp.where(xs > 2, xs * 2, xs)


def call_vmapped(xs):
    return vmapped(xs)


def call_checkpointed(x):
    return checkpointed(x) + rematted(x)


def call_jitted(x):
    return jitted(x, 3)


def call_partial_of_vmapped(xs):
    shifted = functools.partial(jax.vmap(double_above_two, in_axes=0), xs + 1.0)
    return shifted()


@pytest.mark.parametrize("run", [autograph_lite.jit, autograph_lite.convert], ids=["jit", "convert"])
def test_a_vmap_decorated_helper_is_converted_inside_its_wrapper(run):
    assert_same(run(call_vmapped)(XS), expected_doubled(XS))
    assert_same(run(call_partial_of_vmapped)(XS), expected_doubled(XS + 1.0))


def test_a_checkpointed_helper_is_converted_and_differentiates_as_eager():
    x = jnp.array([0.5, 0.9], F32)
    assert_same(autograph_lite.jit(call_checkpointed)(x), sine_when_large(x) * 2)
    gradient = jax.grad(lambda v: autograph_lite.convert(call_checkpointed)(v).sum())(x)
    assert_same(gradient, jax.grad(lambda v: sine_when_large(v).sum() * 2)(x))


def noisy(x):
    print("tracing noisy")
    return x * 2.0


jitted_noisy = jax.jit(noisy)


def call_jitted_noisy(x):
    return jitted_noisy(x) + 1.0


def test_a_jit_decorated_helper_runs_as_written_printing_once_per_trace_as_eagerly(capsys):
    """Rebuilt around the converted helper, its print was staged: it printed on every call."""
    jitted_call = autograph_lite.jit(call_jitted_noisy)
    for x in (F32(1.0), F32(2.0)):
        assert_same(jitted_call(x), noisy(x) + 1.0)
        jax.effects_barrier()
    assert capsys.readouterr().out.count("tracing noisy") == 3  # the two eager calls, and one trace


def test_a_jit_decorated_helper_with_a_traced_if_is_refused_at_the_call_with_a_fix_that_works():
    with pytest.raises(ConversionError, match=r"jax\.jit wrapper") as raised:
        autograph_lite.jit(call_jitted)(F32(2.0))
    assert "jax.jit(autograph_lite.convert(scaled), ...)" in str(raised.value)
    fixed = jax.jit(autograph_lite.convert(scaled), static_argnums=1)  # the fix it gives
    for x in (F32(0.5), F32(2.0)):
        assert_same(autograph_lite.jit(lambda v: fixed(v, 3))(x), scaled(x, 3))


def test_a_wrapper_is_rebuilt_once():
    assert autograph_lite.convert(vmapped) is autograph_lite.convert(vmapped)


def test_jit_of_vmap_of_converted_is_accepted_as_it_is():
    wrapped = jax.vmap(autograph_lite.convert(double_above_two))
    assert autograph_lite.convert(wrapped) is wrapped
    assert_same(autograph_lite.jit(wrapped)(XS), expected_doubled(XS))


@jax.custom_jvp
def rounded(x):
    if x > 0:
        return jnp.round(x)
    return -jnp.round(-x)


@rounded.defjvp
def straight_through(primals, tangents):
    (x,), (t,) = primals, tangents
    return rounded(x), t


def call_rounded(x):
    return rounded(x) * 2.0


CALL_LINE = inspect.getsourcelines(call_rounded)[1] + 1


def test_a_custom_jvp_helper_is_refused_at_the_call_with_a_fix_that_works():
    assert_same(autograph_lite.convert(call_rounded)(F32(-1.6)), rounded(F32(-1.6)) * 2.0)  # concrete: runs
    with pytest.raises(ConversionError) as raised:
        autograph_lite.jit(call_rounded)(F32(-1.6))
    assert raised.value.location.lineno == CALL_LINE and raised.value.location.filename == __file__
    assert "jax.custom_jvp wrapper" in str(raised.value)
    assert "rounded = jax.custom_jvp(autograph_lite.convert(f))" in str(raised.value)
    fixed = jax.custom_jvp(autograph_lite.convert(rounded.__wrapped__))  # the fix it gives
    fixed.defjvp(autograph_lite.convert(straight_through))
    assert_same(autograph_lite.jit(lambda x: fixed(x) * 2.0)(F32(-1.6)), rounded(F32(-1.6)) * 2.0)


def test_a_jit_helper_with_shardings_is_refused_at_the_call_with_a_fix_that_works():
    sharding = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    sharded = jax.jit(double_above_two, out_shardings=sharding)
    with pytest.raises(ConversionError, match=r"jax\.jit wrapper") as raised:
        autograph_lite.jit(lambda x: sharded(x) + 1.0)(F32(3.0))
    assert "jax.jit(autograph_lite.convert(double_above_two), ...)" in str(raised.value)
    assert raised.value.location.filename == __file__
    fixed = jax.jit(autograph_lite.convert(double_above_two), out_shardings=sharding)  # the fix it gives
    assert_same(autograph_lite.jit(lambda x: fixed(x) + 1.0)(F32(3.0)), F32(7.0))

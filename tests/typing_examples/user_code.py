"""A user's module, as a type checker sees it: tests/test_typing.py runs mypy --strict on it and expects no error.

Every use of the public API a user writes: both decorator forms of ``jit`` and ``convert``, ``jax.jit``'s
keyword arguments, the jitted function's ``lower`` / ``trace`` / ``eval_shape`` / ``clear_cache``, a jitted
and a converted method, ``explain`` and ``to_source``. ``reveal_type`` is not used (it would be an error
to run); ``assert_type`` checks the types the API promises, and is a no-op at run time.
"""

from __future__ import annotations

from typing import assert_type

import jax
import jax.numpy as jnp

import autograph_lite


@autograph_lite.jit
def conditional_double(x: jax.Array, threshold: float) -> jax.Array:
    if x > threshold:
        return x * 2
    return x


@autograph_lite.jit(static_argnames="n", donate_argnums=(), keep_unused=False)
def power(x: jax.Array, n: int) -> jax.Array:
    result = jnp.ones_like(x)
    for _ in range(n):
        result = result * x
    return result


@autograph_lite.convert
def halvings(x: jax.Array) -> jax.Array:
    count = jnp.zeros((), jnp.int32)
    while x > 1:
        x = x / 2
        count += 1
    return count


@autograph_lite.convert(static_loops="unroll")
def total(xs: list[jax.Array]) -> jax.Array:
    result = jnp.zeros(())
    for x in xs:
        result = result + x
    return result


class Scaler:
    def __init__(self, factor: float) -> None:
        self.factor = factor

    @autograph_lite.jit(static_argnums=0)  # `self` is static: hashed by identity
    def clipped(self, x: jax.Array) -> jax.Array:
        if x > self.factor:
            return x * self.factor
        return x

    def scaled(self, x: jax.Array) -> jax.Array:
        if x > 0:
            return x * self.factor
        return -x


def main() -> None:
    x = jnp.float32(3.0)
    doubled: jax.Array = conditional_double(x, 1.0)
    assert_type(conditional_double(x, threshold=1.0), jax.Array)
    assert_type(power(x, 3), jax.Array)
    assert_type(halvings(x), jax.Array)
    assert_type(total([x, x]), jax.Array)

    lowered: jax.stages.Lowered = power.lower(x, 3)
    traced: jax.stages.Traced = conditional_double.trace(x, 1.0)
    shape = conditional_double.eval_shape(x, 1.0)
    conditional_double.clear_cache()

    scaler = Scaler(2.0)
    assert_type(scaler.clipped(x), jax.Array)
    scaled = autograph_lite.convert(scaler.scaled)
    assert_type(scaled(x), jax.Array)
    unbound = autograph_lite.convert(Scaler.scaled)
    assert_type(unbound(scaler, x), jax.Array)

    explanation: autograph_lite.Explanation = autograph_lite.explain(conditional_double, x, 1.0)
    source: str = autograph_lite.to_source(halvings)
    print(doubled, lowered.as_text()[:0], traced.jaxpr is not None, shape, explanation, source, sep="\n")


if __name__ == "__main__":
    main()

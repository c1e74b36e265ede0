"""Small JAX functions written with plain Python control flow on array values.

Each runs eagerly as ordinary Python. Under ``jax.jit`` alone every one of them fails, because an
``if`` or ``while`` on a traced value needs a concrete truth value; under ``autograph_lite.jit`` each
compiles once and gives the eager result for every input.

    autograph-lite show examples/quickstart.py::conditional_double
"""

import jax.numpy as jnp


def conditional_double(x, threshold):
    """The classic: a branch on a traced comparison, compiled once; branches this small: one select."""
    if x > threshold:
        return x * 2
    else:
        return x


def piecewise(x):
    """``if`` / ``elif`` / ``else``: nested ``lax.cond`` calls, each branch returning ``y``."""
    if x < -1.0:
        y = -1.0
    elif x < 1.0:
        y = x**3
    else:
        y = 2.0 * x - 1.0
    return y


def soft_sign(x, scale):
    """A conditional expression, with its arms evaluated lazily as in Python."""
    magnitude = x if x >= 0 else -x
    return x / (scale + magnitude)


def in_band(x, low, high):
    """A chained comparison and ``and`` / ``or`` / ``not`` on traced booleans."""
    inside = low <= x < high
    edge = x == low or x == high
    if inside and not edge:
        return x - low
    return jnp.zeros_like(x)


def count_halvings(x):
    """A ``while`` loop whose test depends on the data: ``lax.while_loop``."""
    steps = 0
    while x > 1.0:
        x = x / 2.0
        steps = steps + 1
    return steps


def geometric_sum(ratio, n):
    """A ``for`` loop over ``range(n)`` with a traced ``n``: ``lax.fori_loop`` (lowered to a while)."""
    total = 0.0
    term = 1.0
    for _ in range(n):
        total = total + term
        term = term * ratio
    return total


def clipped_sum(rows, limit):
    """A ``for`` loop over the rows of an array, with an ``if`` inside: ``lax.scan`` around ``lax.cond``."""
    total = jnp.zeros(rows.shape[1:])
    for row in rows:
        if jnp.sum(row) > limit:
            total = total + row / jnp.sum(row) * limit
        else:
            total = total + row
    return total


def relu_or_leaky(x, leaky):
    """``return`` inside both branches, one of them an ``if`` nested in the other."""
    if x > 0:
        return x
    else:
        if leaky:
            return 0.01 * x
        return 0.0 * x

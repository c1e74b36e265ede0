"""The benchmark programs as a user writes them: plain Python control flow on JAX values.

This module is also what the conversion-time benchmark loads afresh for every repeat (under a new
module name and file), so every function here must be importable from its text alone and must not
be decorated: both engines are handed the plain functions.
"""

import jax.numpy as jnp


def piecewise(x):
    """(1) if / elif / else on a traced scalar: a Huber-like loss with a flat tail."""
    if x < -1.0:
        y = -x - 0.5
    elif x < 1.0:
        y = 0.5 * x * x
    elif x < 4.0:
        y = x - 0.5
    else:
        y = 3.5 + 0.1 * (x - 4.0)
    return y


def accumulate(n, x):
    """(2) A sum over ``range(n)`` with ``n`` traced."""
    total = 0.0
    for i in range(n):
        total = total + x * i
    return total


def newton_sqrt(a):
    """(3) Newton's iteration for sqrt(a), run until the residual is small: a traced ``while``."""
    x = a
    while jnp.abs(x * x - a) > 1e-5 * a:
        x = 0.5 * (x + a / x)
    return x


def rnn(w, u, h, xs):
    """(4) An RNN over the rows of ``xs``: ``for row in xs``."""
    for x in xs:
        h = jnp.tanh(w @ h + u @ x)
    return h


def edit_distance(a, b):
    """(5) Levenshtein distance of two int arrays: a row loop around a column loop, one DP row."""
    n = b.shape[0]
    previous = jnp.arange(n + 1)
    for i in range(1, a.shape[0] + 1):
        current = previous.at[0].set(i)
        for j in range(1, n + 1):
            cost = jnp.where(a[i - 1] == b[j - 1], 0, 1)
            best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            current = current.at[j].set(best)
        previous = current
    return previous[n]


def first_above(xs, limit):
    """(6) The first index whose value exceeds ``limit`` (-1 if none): a search with ``break``."""
    index = -1
    for i in range(xs.shape[0]):
        if xs[i] > limit:
            index = i
            break
    return index


def trajectory(x):
    """(7) A list built by ``append`` in a static loop, then stacked."""
    ys = []
    for k in range(16):
        x = jnp.sin(x) + 0.1 * k
        ys.append(x)
    return jnp.stack(ys)


def clip_norm(h, max_norm):
    """A helper with control flow of its own."""
    norm = jnp.sqrt(jnp.sum(h * h))
    if norm > max_norm:
        h = h * (max_norm / norm)
    return h


def dense(w, b, x):
    """A layer that calls a helper."""
    return jnp.tanh(clip_norm(w @ x + b, 1.0))


def model_step(w1, b1, w2, b2, x):
    """(8) A model step calling user functions that have control flow."""
    return dense(w2, b2, dense(w1, b1, x))


def collatz_steps(n):
    """(9) A ``while`` whose body branches: steps of the Collatz map down to 1."""
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps = steps + 1
    return steps

"""The same programs written by hand with ``jax.lax``, the way an expert would without a converter.

They are the baseline: written naturally (``fori_loop`` for counted loops, ``scan`` over rows,
``while_loop`` for an early exit), not tuned to match what the converter emits.
"""

import jax.numpy as jnp
from jax import lax


def piecewise(x):
    return lax.cond(
        x < -1.0,
        lambda: -x - 0.5,
        lambda: lax.cond(
            x < 1.0,
            lambda: 0.5 * x * x,
            lambda: lax.cond(x < 4.0, lambda: x - 0.5, lambda: 3.5 + 0.1 * (x - 4.0)),
        ),
    )


def accumulate(n, x):
    return lax.fori_loop(0, n, lambda i, total: total + x * i, 0.0)


def newton_sqrt(a):
    return lax.while_loop(lambda x: jnp.abs(x * x - a) > 1e-5 * a, lambda x: 0.5 * (x + a / x), a)


def rnn(w, u, h, xs):
    def step(h, x):
        return jnp.tanh(w @ h + u @ x), None

    h, _ = lax.scan(step, h, xs)
    return h


def edit_distance(a, b):
    n = b.shape[0]

    def row(i, previous):
        def column(j, current):
            cost = jnp.where(a[i - 1] == b[j - 1], 0, 1)
            best = jnp.minimum(jnp.minimum(previous[j] + 1, current[j - 1] + 1), previous[j - 1] + cost)
            return current.at[j].set(best)

        return lax.fori_loop(1, n + 1, column, previous.at[0].set(i))

    return lax.fori_loop(1, a.shape[0] + 1, row, jnp.arange(n + 1))[n]


def first_above(xs, limit):
    n = xs.shape[0]
    i = lax.while_loop(lambda i: (i < n) & (xs[jnp.minimum(i, n - 1)] <= limit), lambda i: i + 1, 0)
    return jnp.where(i < n, i, -1)


def trajectory(x):
    def step(x, k):
        x = jnp.sin(x) + 0.1 * k
        return x, x

    _, ys = lax.scan(step, x, jnp.arange(16))
    return ys


def clip_norm(h, max_norm):
    norm = jnp.sqrt(jnp.sum(h * h))
    return lax.cond(norm > max_norm, lambda: h * (max_norm / norm), lambda: h)


def dense(w, b, x):
    return jnp.tanh(clip_norm(w @ x + b, 1.0))


def model_step(w1, b1, w2, b2, x):
    return dense(w2, b2, dense(w1, b1, x))


def collatz_steps(n):
    def body(state):
        n, steps = state
        n = lax.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1)
        return n, steps + 1

    return lax.while_loop(lambda state: state[0] != 1, body, (n, 0))[1]

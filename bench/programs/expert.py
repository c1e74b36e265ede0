"""The same programs written by hand with ``jax.lax``, the way an expert would without a converter.

They are the baseline: written naturally (``fori_loop`` for counted loops, ``scan`` over rows,
``while_loop`` for an early exit), not tuned to match what the converter emits.
"""

import jax
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


# The larger programs.


def cartpole_dynamics(x, x_dot, theta, theta_dot, force):
    gravity, cart_mass, pole_mass, half_length, dt = 9.8, 1.0, 0.1, 0.5, 0.02
    total_mass = cart_mass + pole_mass
    cos, sin = jnp.cos(theta), jnp.sin(theta)
    temp = (force + pole_mass * half_length * theta_dot * theta_dot * sin) / total_mass
    theta_acc = (gravity * sin - cos * temp) / (half_length * (4.0 / 3.0 - pole_mass * cos * cos / total_mass))
    x_acc = temp - pole_mass * half_length * theta_acc * cos / total_mass
    return x + dt * x_dot, x_dot + dt * x_acc, theta + dt * theta_dot, theta_dot + dt * theta_acc


def cartpole_step(state, action, t):
    force = lax.switch(action, [lambda: -10.0, lambda: 0.0, lambda: 10.0])
    x, x_dot, theta, theta_dot = lax.fori_loop(
        0, 4, lambda _, s: cartpole_dynamics(*s, force / 4.0), (state[0], state[1], state[2], state[3])
    )
    x_dot = jnp.clip(x_dot, -5.0, 5.0)
    theta_dot = jnp.clip(theta_dot, -8.0, 8.0)
    terminated = (jnp.abs(x) > 2.4) | (jnp.abs(theta) > 0.21)
    reward = lax.cond(
        terminated,
        lambda: -1.0,
        lambda: lax.cond(
            (jnp.abs(theta) < 0.05) & (jnp.abs(x) < 0.5),
            lambda: 1.0 + 0.5 * (0.05 - jnp.abs(theta)) / 0.05,
            lambda: 1.0 - 0.1 * jnp.abs(x) / 2.4,
        ),
    )
    reward = lax.cond(action != 1, lambda: reward - 0.01, lambda: reward)
    return jnp.stack([x, x_dot, theta, theta_dot]), reward, terminated | (t + 1 >= 200)


def linear_policy(weights, state):
    score = weights @ state
    return jnp.where(score < -0.5, 0, jnp.where(score < 0.5, 1, 2))


def cartpole_episode(weights, state):
    def step(carry):
        state, total, t, _ = carry
        state, reward, done = cartpole_step(state, linear_policy(weights, state), t)
        return state, total + reward, t + 1, done

    state, total, t, _ = lax.while_loop(lambda carry: ~carry[3], step, (state, 0.0, 0, False))
    return state, total, t


def bellman_ford(weights, source):
    n = weights.shape[0]

    def relax(u, v, carry):
        distance, parent, changed = carry
        candidate = distance[u] + weights[u, v]
        better = candidate < distance[v]
        return (
            distance.at[v].set(jnp.where(better, candidate, distance[v])),
            parent.at[v].set(jnp.where(better, u, parent[v])),
            changed | better,
        )

    def round_(carry):
        done_rounds, distance, parent, _ = carry
        relax_row = lambda u, c: lax.fori_loop(0, n, lambda v, c: relax(u, v, c), c)
        distance, parent, changed = lax.fori_loop(0, n, relax_row, (distance, parent, False))
        return done_rounds + 1, distance, parent, changed

    start = (0, jnp.full(n, jnp.inf).at[source].set(0.0), jnp.full(n, -1), True)
    _, distance, parent, _ = lax.while_loop(lambda c: (c[0] < n - 1) & c[3], round_, start)
    negative_cycle = jnp.any(distance[:, None] + weights < distance[None, :])
    return distance, parent, negative_cycle


def path_to(parent, target):
    n = parent.shape[0]

    def step(carry):
        path, node, length = carry
        return path.at[length].set(node), parent[node], length + 1

    path, _, length = lax.while_loop(
        lambda c: (c[1] != -1) & (c[2] < n), step, (jnp.full(n, -1), target, 0)
    )
    return path, length


def shortest_route(weights, source, target):
    distance, parent, negative_cycle = bellman_ford(weights, source)
    path, length = path_to(parent, target)
    return distance[target], path, length, negative_cycle


def mlp_loss(params, xs, ys):
    w1, b1, w2, b2 = params
    hidden = jnp.tanh(xs @ w1 + b1)
    prediction = hidden @ w2 + b2
    return jnp.mean((prediction - ys) ** 2)


def clip_by_global_norm(grads, max_norm):
    norm = jnp.sqrt(sum(jnp.sum(g * g) for g in grads))
    # A select, not jnp.minimum(1.0, max_norm / norm): a NaN norm (an inf in the data) leaves the
    # gradients as they are, as the Python version's `if norm > max_norm` does; minimum would
    # propagate the NaN into every gradient.
    scale = jnp.where(norm > max_norm, max_norm / norm, 1.0)
    return [g * scale for g in grads]


def train_mlp(params, xs, ys, max_steps):
    def step(carry):
        params, _, best, learning_rate, step = carry
        loss, grads = jax.value_and_grad(mlp_loss)(params, xs, ys)
        grads = clip_by_global_norm(grads, 1.0)
        learning_rate = jnp.where((step >= 5) & (loss > best), learning_rate * 0.5, learning_rate)
        rate = jnp.where(step < 5, learning_rate * (step + 1) / 5, learning_rate)
        params = [p - rate * g for p, g in zip(params, grads)]
        return params, loss, jnp.minimum(best, loss), learning_rate, step + 1

    loss = mlp_loss(params, xs, ys)
    start = (params, loss, loss, jnp.float32(0.05), 0)
    params, loss, _, _, step = lax.while_loop(lambda c: (c[4] < max_steps) & (c[1] > 1e-3), step, start)
    return params, loss, step


def interpret(code, operands, x):
    operations = [
        lambda acc, value: acc + value,
        lambda acc, value: acc * value,
        lambda acc, value: acc - value,
        jnp.maximum,
        jnp.minimum,
        lambda acc, value: jnp.sin(acc) * value,
        lambda acc, value: acc / (1.0 + jnp.abs(value)),
        lambda acc, value: -acc,
    ]

    def step(acc, instruction):
        op, value = instruction
        return lax.switch(jnp.where((op >= 0) & (op < 7), op, 7), operations, acc, value), None

    acc, _ = lax.scan(step, x, (code, operands))
    return acc

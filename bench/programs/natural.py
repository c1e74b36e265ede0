"""The benchmark programs as a user writes them: plain Python control flow on JAX values.

This module is also what the conversion-time benchmark loads afresh for every repeat (under a new
module name and file), so every function here must be importable from its text alone and must not
be decorated: both engines are handed the plain functions.
"""

import jax
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


# Larger programs (50-150 lines each, helpers included), written the way users write them.


def cartpole_dynamics(x, x_dot, theta, theta_dot, force):
    """One Euler step of the cart-pole equations of motion (the classic control task's constants)."""
    gravity, cart_mass, pole_mass, half_length, dt = 9.8, 1.0, 0.1, 0.5, 0.02
    total_mass = cart_mass + pole_mass
    cos, sin = jnp.cos(theta), jnp.sin(theta)
    temp = (force + pole_mass * half_length * theta_dot * theta_dot * sin) / total_mass
    theta_acc = (gravity * sin - cos * temp) / (half_length * (4.0 / 3.0 - pole_mass * cos * cos / total_mass))
    x_acc = temp - pole_mass * half_length * theta_acc * cos / total_mass
    return x + dt * x_dot, x_dot + dt * x_acc, theta + dt * theta_dot, theta_dot + dt * theta_acc


def cartpole_step(state, action, t):
    """A gym-style environment step: three discrete actions, four Euler substeps, clipped
    velocities, termination and truncation, a shaped reward."""
    x, x_dot, theta, theta_dot = state[0], state[1], state[2], state[3]
    if action == 0:
        force = -10.0
    elif action == 1:
        force = 0.0
    else:
        force = 10.0
    for _ in range(4):
        x, x_dot, theta, theta_dot = cartpole_dynamics(x, x_dot, theta, theta_dot, force / 4.0)
    x_dot = jnp.clip(x_dot, -5.0, 5.0)
    theta_dot = jnp.clip(theta_dot, -8.0, 8.0)
    terminated = jnp.abs(x) > 2.4 or jnp.abs(theta) > 0.21
    truncated = t + 1 >= 200
    if terminated:
        reward = -1.0
    elif jnp.abs(theta) < 0.05 and jnp.abs(x) < 0.5:
        reward = 1.0 + 0.5 * (0.05 - jnp.abs(theta)) / 0.05
    else:
        reward = 1.0 - 0.1 * jnp.abs(x) / 2.4
    if action != 1:
        reward = reward - 0.01  # a small cost for pushing
    done = terminated or truncated
    return jnp.stack([x, x_dot, theta, theta_dot]), reward, done


def linear_policy(weights, state):
    """Push left, hold or push right, from a linear score of the state."""
    score = weights @ state
    if score < -0.5:
        action = 0
    elif score < 0.5:
        action = 1
    else:
        action = 2
    return action


def cartpole_episode(weights, state):
    """(10) One episode of cart-pole under a linear policy, until terminated or truncated."""
    total = 0.0
    t = 0
    done = False
    while not done:
        action = linear_policy(weights, state)
        state, reward, done = cartpole_step(state, action, t)
        total = total + reward
        t = t + 1
    return state, total, t


def bellman_ford(weights, source):
    """Single-source shortest paths over a dense weight matrix, stopping as soon as a round relaxes
    nothing; also reports a negative cycle reachable from ``source``."""
    n = weights.shape[0]
    distance = jnp.full(n, jnp.inf).at[source].set(0.0)
    parent = jnp.full(n, -1)
    for _ in range(n - 1):
        changed = False
        for u in range(n):
            for v in range(n):
                candidate = distance[u] + weights[u, v]
                if candidate < distance[v]:
                    distance = distance.at[v].set(candidate)
                    parent = parent.at[v].set(u)
                    changed = True
        if not changed:
            break
    negative_cycle = False
    for u in range(n):
        for v in range(n):
            if distance[u] + weights[u, v] < distance[v]:
                negative_cycle = True
    return distance, parent, negative_cycle


def path_to(parent, target):
    """The nodes from ``target`` back to the source, following parents (-1 pads; at most n nodes,
    so that a cycle of parents cannot loop forever)."""
    n = parent.shape[0]
    path = jnp.full(n, -1)
    node = target
    length = 0
    while node != -1 and length < n:
        path = path.at[length].set(node)
        node = parent[node]
        length = length + 1
    return path, length


def shortest_route(weights, source, target):
    """(11) Distance and route from ``source`` to ``target`` by Bellman-Ford (CLRS 24.1)."""
    distance, parent, negative_cycle = bellman_ford(weights, source)
    path, length = path_to(parent, target)
    return distance[target], path, length, negative_cycle


def mlp_loss(params, xs, ys):
    """Mean squared error of a one-hidden-layer tanh network."""
    w1, b1, w2, b2 = params
    hidden = jnp.tanh(xs @ w1 + b1)
    prediction = hidden @ w2 + b2
    return jnp.mean((prediction - ys) ** 2)


def clip_by_global_norm(grads, max_norm):
    """Scale all gradients down together when their joint norm exceeds ``max_norm``."""
    norm = jnp.sqrt(sum(jnp.sum(g * g) for g in grads))
    if norm > max_norm:
        grads = [g * (max_norm / norm) for g in grads]
    return grads


def train_mlp(params, xs, ys, max_steps):
    """(12) SGD until the loss is small or ``max_steps``: linear warm-up over 5 steps, then the
    learning rate halves whenever the loss is worse than the best so far; gradients clipped."""
    step = 0
    learning_rate = 0.05
    loss = mlp_loss(params, xs, ys)
    best = loss
    while step < max_steps and loss > 1e-3:
        loss, grads = jax.value_and_grad(mlp_loss)(params, xs, ys)
        grads = clip_by_global_norm(grads, 1.0)
        if step < 5:
            rate = learning_rate * (step + 1) / 5
        elif loss > best:
            learning_rate = learning_rate * 0.5
            rate = learning_rate
        else:
            rate = learning_rate
        best = min(best, loss)
        params = [p - rate * g for p, g in zip(params, grads)]
        step = step + 1
    return params, loss, step


def interpret(code, operands, x):
    """(13) A tiny interpreter: each step's traced opcode picks one of eight operations on the
    accumulator (an ``elif`` chain on one integer: one ``lax.switch``)."""
    acc = x
    for op, value in zip(code, operands):
        if op == 0:
            acc = acc + value
        elif op == 1:
            acc = acc * value
        elif op == 2:
            acc = acc - value
        elif op == 3:
            acc = jnp.maximum(acc, value)
        elif op == 4:
            acc = jnp.minimum(acc, value)
        elif op == 5:
            acc = jnp.sin(acc) * value
        elif op == 6:
            acc = acc / (1.0 + jnp.abs(value))
        else:
            acc = -acc
    return acc

"""A Flax NNX model that decides at run time how many times to apply its residual block.

Adaptive computation time, in the simplest form: after each application of a shared residual block
the model adds up a learned halting score, and it stops as soon as the score passes a threshold (or
after ``max_steps``). Inputs with a large norm are also rescaled first. Both decisions read traced
values (the activations), so under ``nnx.jit`` / ``jax.jit`` alone the ``if`` raises
``TracerBoolConversionError``. With ``@autograph_lite.convert`` on ``__call__`` the same code jits:

- the ``if`` on the input norm becomes a ``lax.cond``;
- ``for _ in range(self.max_steps): ... if halting > threshold: break`` becomes one ``lax.scan`` whose
  iterations after the ``break`` leave the state unchanged. Unlike a ``while`` loop (a
  ``lax.while_loop``, forward-mode only) a scan supports reverse mode, so the model trains with
  ``nnx.value_and_grad`` and an optax optimizer, all inside one ``nnx.jit``.

A module class that you cannot decorate (it comes from another package) is converted as an instance
(``instance_forms``): ``nnx.jit(lambda model, x: autograph_lite.convert(model)(x))`` (also under
``nnx.grad`` / ``nnx.vmap``), which carries changes of the model's state out as ``nnx.jit`` does, or
``autograph_lite.jit(model)``, whose program takes the model's parameters as arguments, read at every
call (so it sees optimizer updates; a ``__call__`` that changes the model's state is refused there).

Run ``python examples/flax_nnx_adaptive.py``: it checks the jitted model against the eager Python
run of the same ``__call__``, shows the ``scan`` / ``cond`` in the jaxpr, and trains for a few steps.
"""

import re

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

import autograph_lite


class AdaptiveMLP(nnx.Module):
    def __init__(self, features, hidden, *, max_steps=6, threshold=1.5, max_norm=3.0, rngs):
        self.encoder = nnx.Linear(features, hidden, rngs=rngs)
        self.block = nnx.Linear(hidden, hidden, rngs=rngs)
        self.halt = nnx.Linear(hidden, 1, rngs=rngs)
        self.head = nnx.Linear(hidden, 1, rngs=rngs)
        self.max_steps = max_steps
        self.threshold = threshold
        self.max_norm = max_norm

    @autograph_lite.convert
    def __call__(self, x):
        """One example ``x`` of shape ``(features,)`` -> (prediction, residual steps taken)."""
        norm = jnp.linalg.norm(x)
        if norm > self.max_norm:
            x = x * (self.max_norm / norm)
        h = nnx.relu(self.encoder(x))
        halting = 0.0
        steps = 0
        for _ in range(self.max_steps):
            h = h + nnx.tanh(self.block(h))
            halting = halting + nnx.sigmoid(self.halt(h)[0])
            steps = steps + 1
            if halting > self.threshold:
                break
        return self.head(h)[0], steps


def eager_call(model, x):
    """The same ``__call__`` as written, without conversion: plain Python control flow."""
    return AdaptiveMLP.__call__.__wrapped__(model, x)


@nnx.jit
def predict(model, xs):
    """A batch of predictions and step counts, compiled once (``vmap`` over the examples)."""
    return jax.vmap(model)(xs)


def loss_fn(model, xs, ys):
    predictions, _ = jax.vmap(model)(xs)
    return jnp.mean((predictions - ys) ** 2)


@nnx.jit
def train_step(model, optimizer, xs, ys):
    loss, grads = nnx.value_and_grad(loss_fn)(model, xs, ys)
    optimizer.update(model, grads)
    return loss


class Gate(nnx.Module):
    """A module left as written (no decorator): a linear map, negated when its sum is positive."""

    def __init__(self, features, *, rngs):
        self.linear = nnx.Linear(features, features, rngs=rngs)

    def __call__(self, x):
        y = self.linear(x)
        if jnp.sum(y) > 0:
            y = -y
        return y


def instance_forms(features=3):
    """The forms that convert a module instance, each checked against the eager call."""
    gate = Gate(features, rngs=nnx.Rngs(1))
    xs = jnp.stack([jnp.ones(features), -jnp.ones(features)])
    eager = jnp.stack([gate(x) for x in xs])  # concrete x: the if runs in Python
    call = nnx.jit(lambda model, x: autograph_lite.convert(model)(x))
    np.testing.assert_allclose(jnp.stack([call(gate, x) for x in xs]), eager, rtol=1e-6)
    batched = nnx.vmap(lambda model, x: autograph_lite.convert(model)(x), in_axes=(None, 0))(gate, xs)
    np.testing.assert_allclose(batched, eager, rtol=1e-6)
    jitted = autograph_lite.jit(gate)
    np.testing.assert_allclose(jnp.stack([jitted(x) for x in xs]), eager, rtol=1e-6)
    grads = nnx.grad(lambda model: jnp.sum(autograph_lite.convert(model)(xs[0])))(gate)
    eager_grads = nnx.grad(lambda model: jnp.sum(model(xs[0])))(gate)  # concrete input: eager if
    np.testing.assert_allclose(grads["linear"]["kernel"][...], eager_grads["linear"]["kernel"][...], rtol=1e-6)
    return "nnx.jit / nnx.vmap / nnx.grad of convert(model), autograph_lite.jit(model): ok"


def make_data(n=64, features=3, seed=0):
    rng = np.random.default_rng(seed)
    xs = rng.normal(size=(n, features)).astype(np.float32) * 2.0
    ys = np.sin(xs).sum(axis=1).astype(np.float32)
    return jnp.asarray(xs), jnp.asarray(ys)


def control_flow_primitives(model, x):
    """The ``lax`` control-flow primitives in the jaxpr of one call, nested ones included."""
    graphdef, state = nnx.split(model)
    jaxpr = jax.make_jaxpr(lambda state, x: nnx.merge(graphdef, state)(x))(state, x)
    return sorted(set(re.findall(r"\b(cond|while|scan)\[", str(jaxpr))))


def train(model, xs, ys, steps=60, learning_rate=1e-2):
    optimizer = nnx.Optimizer(model, optax.adam(learning_rate), wrt=nnx.Param)
    return [float(train_step(model, optimizer, xs, ys)) for _ in range(steps)]


def main():
    model = AdaptiveMLP(3, 16, rngs=nnx.Rngs(0))
    xs, ys = make_data()

    predictions, steps = predict(model, xs)
    eager = [eager_call(model, x) for x in xs[:4]]
    eager_predictions = np.array([float(p) for p, _ in eager])
    eager_steps = np.array([s for _, s in eager])
    np.testing.assert_allclose(np.asarray(predictions[:4]), eager_predictions, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(np.asarray(steps[:4]), eager_steps)
    print("jitted == eager on 4 examples: ok")
    print("residual steps per example (first 4):", eager_steps.tolist())
    print("control flow in the jaxpr:", ", ".join(control_flow_primitives(model, xs[0])))

    losses = train(model, xs, ys)
    print(f"training: loss {losses[0]:.4f} -> {losses[-1]:.4f} in {len(losses)} steps (one nnx.jit program)")
    _, steps_after = predict(model, xs)
    print(f"mean residual steps after training: {float(jnp.mean(steps_after)):.2f}")
    print("module instance forms:", instance_forms())


if __name__ == "__main__":
    main()

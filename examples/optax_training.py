"""A whole optax training loop, ``while loss > tol and step < max_steps``, compiled as one program.

The usual training loop runs in Python and jits only the step, because the stopping test needs a
concrete loss: under ``jax.jit`` the ``while`` test is a traced array and raises
``TracerBoolConversionError``, and making ``tol`` / ``max_steps`` static would not help (the loss is
still traced). With ``@autograph_lite.jit`` the loop as written becomes one ``lax.while_loop`` (the
``and`` of two traced tests a ``logical_and``): a single compiled program that runs as many optimizer
steps as the data needs, for any ``tol`` and ``max_steps``, with no host round trip per step.

The model is a linear regression fitted with ``jax.value_and_grad`` and ``optax.adam``.
Run ``python examples/optax_training.py``.
"""

import re

import jax
import jax.numpy as jnp
import numpy as np
import optax

import autograph_lite

optimizer = optax.adam(learning_rate=0.05)


def loss_fn(params, xs, ys):
    predictions = xs @ params["w"] + params["b"]
    return jnp.mean((predictions - ys) ** 2)


def fit(params, xs, ys, tol, max_steps):
    """Adam steps until the mean squared error is at most ``tol`` or ``max_steps`` steps were taken."""
    opt_state = optimizer.init(params)
    loss, grads = jax.value_and_grad(loss_fn)(params, xs, ys)
    step = 0
    while loss > tol and step < max_steps:
        updates, opt_state = optimizer.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        loss, grads = jax.value_and_grad(loss_fn)(params, xs, ys)
        step += 1
    return params, loss, step


fit_jit = autograph_lite.jit(fit)


def make_data(n=128, seed=0):
    rng = np.random.default_rng(seed)
    true_w = np.array([2.0, -3.0, 0.5], np.float32)
    xs = rng.normal(size=(n, 3)).astype(np.float32)
    ys = xs @ true_w + 1.0 + 0.1 * rng.normal(size=n).astype(np.float32)
    return jnp.asarray(xs), jnp.asarray(ys), true_w


def initial_params():
    return {"w": jnp.zeros(3), "b": jnp.zeros(())}


def control_flow_primitives(function, *args):
    """The ``lax`` control-flow primitives in the jaxpr of ``function``, nested ones included."""
    return sorted(set(re.findall(r"\b(cond|while|scan)\[", str(jax.make_jaxpr(function)(*args)))))


def main():
    xs, ys, true_w = make_data()
    params = initial_params()

    for tol, max_steps in [(0.05, 1000), (0.02, 1000), (0.02, 50)]:
        fitted, loss, steps = fit_jit(params, xs, ys, tol, max_steps)
        print(f"tol={tol} max_steps={max_steps}: stopped after {int(steps)} steps, loss {float(loss):.5f}")
    fitted, _, _ = fit_jit(params, xs, ys, 0.02, 1000)
    print(f"fitted with tol=0.02: w = {np.asarray(fitted['w']).round(2)}, b = {float(fitted['b']):.2f}"
          f" (true w = {true_w}, b = 1.0)")
    print(f"compiled {fit_jit._cache_size()} time(s) for 3 (tol, max_steps) pairs")
    print("control flow in the jaxpr:", ", ".join(control_flow_primitives(autograph_lite.convert(fit),
                                                                          params, xs, ys, 0.02, 1000)))

    eager_params, eager_loss, eager_steps = fit(params, xs, ys, 0.02, 1000)
    fitted, loss, steps = fit_jit(params, xs, ys, 0.02, 1000)
    assert int(steps) == eager_steps, (int(steps), eager_steps)
    np.testing.assert_allclose(float(loss), float(eager_loss), rtol=1e-4)
    np.testing.assert_allclose(np.asarray(fitted["w"]), np.asarray(eager_params["w"]), rtol=1e-4, atol=1e-5)
    print(f"jit == eager Python loop ({eager_steps} steps): ok")


if __name__ == "__main__":
    main()

"""An Equinox RNN over zero-padded sequences: it stops at the padding and clips its hidden state.

A batch of variable-length sequences is usually padded to one length. The natural way to write the
recurrence is a Python ``for`` over the rows, ``break`` at the first padding row, and an ``if`` that
rescales the hidden state when its norm grows too large. Under ``eqx.filter_jit`` / ``jax.jit`` alone
both the ``break`` test and the ``if`` test are traced arrays: ``TracerBoolConversionError``. With
``@autograph_lite.convert`` on ``__call__``:

- ``for x in xs`` over a traced array becomes one ``lax.scan`` (compiled once for any length; the
  rows after the ``break`` leave the state unchanged);
- the norm test becomes a ``lax.cond`` inside it.

Because the loop is a scan, not a ``while_loop``, reverse mode works: ``eqx.filter_grad`` of a loss
through the model gives the same gradient as the eager Python run.

A module class that you cannot decorate (it comes from another package) is converted as an instance:
``autograph_lite.convert(model)`` is its ``__call__`` converted and bound to it, and still a pytree
with the model's arrays as leaves, so ``eqx.filter_jit`` / ``eqx.filter_grad`` trace them;
``autograph_lite.jit(model)`` passes them to the compiled program as arguments (``instance_forms``).

Run ``python examples/equinox_module.py``.
"""

import re

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

import autograph_lite


class PaddedRNN(eqx.Module):
    cell: eqx.nn.GRUCell
    readout: eqx.nn.Linear
    max_norm: float = eqx.field(static=True)

    def __init__(self, features, hidden, *, max_norm=0.6, key):
        cell_key, readout_key = jax.random.split(key)
        self.cell = eqx.nn.GRUCell(features, hidden, key=cell_key)
        self.readout = eqx.nn.Linear(hidden, "scalar", key=readout_key)
        self.max_norm = max_norm

    @autograph_lite.convert
    def __call__(self, xs):
        """``xs``: (time, features), zero rows at the end are padding. Returns (output, length)."""
        h = jnp.zeros(self.cell.hidden_size)
        length = 0
        for x in xs:
            if jnp.all(x == 0.0):
                break
            h = self.cell(x, h)
            norm = jnp.linalg.norm(h)
            if norm > self.max_norm:
                h = h * (self.max_norm / norm)
            length = length + 1
        return self.readout(h), length


def eager_call(model, xs):
    """The same ``__call__`` as written, without conversion: plain Python control flow."""
    return PaddedRNN.__call__.__wrapped__(model, xs)


@eqx.filter_jit
def batch_outputs(model, batch):
    return jax.vmap(model)(batch)


def loss(model, xs, target):
    output, _ = model(xs)
    return (output - target) ** 2


def eager_loss(model, xs, target):
    output, _ = eager_call(model, xs)
    return (output - target) ** 2


grad_loss = eqx.filter_jit(eqx.filter_grad(loss))


class NormClip(eqx.Module):
    """A module left as written (no decorator): rescale ``h`` when its norm is above ``max_norm``."""

    scale: jax.Array
    max_norm: float = eqx.field(static=True)

    def __call__(self, h):
        h = self.scale * h
        norm = jnp.linalg.norm(h)
        if norm > self.max_norm:
            h = h * (self.max_norm / norm)
        return h


def instance_forms():
    """The forms that convert a module instance, each checked against the eager call."""
    clip = NormClip(jnp.array([1.0, 2.0, 3.0]), max_norm=2.0)
    small, large = jnp.array([0.1, 0.2, 0.1]), jnp.array([1.0, 1.0, 1.0])
    converted = autograph_lite.convert(clip)  # a pytree: eqx.filter_jit traces clip.scale
    for h in (small, large):
        eager = clip(h)  # concrete h: the if runs in Python
        np.testing.assert_allclose(eqx.filter_jit(converted)(h), eager, rtol=1e-6)
        np.testing.assert_allclose(autograph_lite.jit(clip)(h), eager, rtol=1e-6)
    grads = eqx.filter_grad(lambda model, h: jnp.sum(model(h)))(converted, large)
    eager_grads = eqx.filter_grad(lambda model, h: jnp.sum(model(h)))(clip, large)
    np.testing.assert_allclose(grads.instance.scale, eager_grads.scale, rtol=1e-5)
    return "eqx.filter_jit(convert(clip)), autograph_lite.jit(clip), eqx.filter_grad: ok"


def control_flow_primitives(function, *args):
    """The ``lax`` control-flow primitives in the jaxpr of ``function``, nested ones included."""
    return sorted(set(re.findall(r"\b(cond|while|scan)\[", str(jax.make_jaxpr(function)(*args)))))


def make_batch(lengths=(5, 2, 8, 0), time=8, features=3, seed=0):
    rng = np.random.default_rng(seed)
    batch = rng.normal(size=(len(lengths), time, features)).astype(np.float32)
    for row, length in enumerate(lengths):
        batch[row, length:] = 0.0
    return jnp.asarray(batch)


def main():
    model = PaddedRNN(3, 8, key=jax.random.PRNGKey(0))
    batch = make_batch()

    outputs, lengths = batch_outputs(model, batch)
    eager = [eager_call(model, xs) for xs in batch]
    np.testing.assert_allclose(np.asarray(outputs), [float(o) for o, _ in eager], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(lengths), [n for _, n in eager])
    print("lengths found at run time:", np.asarray(lengths).tolist())
    print("filter_jit outputs == eager outputs: ok")

    print("control flow in the jaxpr:", ", ".join(control_flow_primitives(model, batch[0])))

    grads = grad_loss(model, batch[0], 1.0)
    eager_grads = eqx.filter_grad(eager_loss)(model, batch[0], 1.0)
    for got, want in zip(jax.tree_util.tree_leaves(grads), jax.tree_util.tree_leaves(eager_grads)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-6)
    norm = jnp.sqrt(sum(jnp.sum(g**2) for g in jax.tree_util.tree_leaves(grads)))
    print(f"reverse-mode gradient through the scan == eager gradient: ok (norm {float(norm):.4f})")
    print("module instance forms:", instance_forms())


if __name__ == "__main__":
    main()

"""``train_mlp``, the benchmark program whose compile time was 1.22x its hand-written version's
(issue #19): what the converted program is, and that the hand-written baseline computes what Python does.

The gap is in XLA's compilation, not in what the converter traces: the converted jaxpr is, primitive
for primitive, the hand-written program with a ``lax.cond`` for the clip's ``if`` (its branch divides
by the traced norm: not gradient-neutral) and selects for the ``if`` / ``elif`` of the schedule (small
sums and products with finite values: runtime/selects.py); the hand-written baseline computes the
clip with a select too, which XLA compiles into fewer kernels (docs/performance.md, "train_mlp").
These tests pin both halves: the converter adds nothing beyond that cond, traces each user
function as often as ``jax.jit`` does, and the baseline agrees with eager Python where it once did not.
"""

from __future__ import annotations

import collections
import sys

import jax
import jax.numpy as jnp
from jax import lax
from support import assert_same

import autograph_lite
from bench.measure import primitive_counts
from bench.programs import PROGRAMS, _mlp_args, expert, natural

TRAIN_MLP = next(program for program in PROGRAMS if program.name == "train_mlp")


def _clip_with_a_cond(grads, max_norm):
    """``natural.clip_by_global_norm`` by hand: its ``if`` is a ``lax.cond``."""
    norm = jnp.sqrt(sum(jnp.sum(g * g) for g in grads))
    return lax.cond(norm > max_norm, lambda gs: [g * (max_norm / norm) for g in gs], list, grads)


def _schedule_with_selects(loss, best, learning_rate, step):
    """The ``if`` / ``elif`` / ``else`` of ``natural.train_mlp`` by hand: one select per carried value
    for the ``elif``, whose result the ``if``'s selects take as their ``else``. Returns the new learning
    rate and this step's rate."""
    worse, halved = loss > best, learning_rate * 0.5
    later = (lax.select(worse, halved, learning_rate), lax.select(worse, halved, learning_rate))
    warm_up, warm = step < 5, (learning_rate, learning_rate * (step + 1) / 5)
    return tuple(lax.select(warm_up, early, late) for early, late in zip(warm, later))


def _train_mlp_with_conds(params, xs, ys, max_steps):
    """``natural.train_mlp`` written by hand with ``lax.cond`` for the clip and selects for the
    schedule (the learning rate starts as a Python float, a weakly typed carry, as in the Python
    version)."""

    def step(carry):
        params, _, best, learning_rate, step = carry
        loss, grads = jax.value_and_grad(expert.mlp_loss)(params, xs, ys)
        grads = _clip_with_a_cond(grads, 1.0)
        learning_rate, rate = _schedule_with_selects(loss, best, learning_rate, step)
        params = [p - rate * g for p, g in zip(params, grads)]
        # Python's min(best, loss) keeps best unless loss is smaller (a NaN loss never wins): a select
        return params, loss, lax.select(loss < best, loss, best), learning_rate, step + 1

    loss = expert.mlp_loss(params, xs, ys)
    start = (params, loss, loss, 0.05, 0)
    params, loss, _, _, step = lax.while_loop(lambda c: (c[4] < max_steps) & (c[1] > 1e-3), step, start)
    return params, loss, step


def test_converted_jaxpr_is_the_hand_written_program_with_a_cond_for_the_clip():
    converted = primitive_counts(autograph_lite.convert(natural.train_mlp), *TRAIN_MLP.bench_args)
    by_hand = primitive_counts(_train_mlp_with_conds, *TRAIN_MLP.bench_args)
    assert converted == by_hand
    assert converted["cond"] == 1 and converted["while"] == 1


def test_the_hand_written_program_with_conds_computes_the_same_values():
    """The comparison above is between equals: the cond version is a faithful hand translation."""
    for args in TRAIN_MLP.test_args:
        assert_same(jax.jit(_train_mlp_with_conds)(*args), natural.train_mlp(*args), what=f"conds {args[-1]}")


def _calls_while_tracing(trace, filename: str) -> collections.Counter:
    """How often each function defined in ``filename`` starts running during ``trace()``."""
    calls: collections.Counter = collections.Counter()

    def profile(frame, event, _arg):
        if event == "call" and frame.f_code.co_filename == filename:
            calls[frame.f_code.co_name] += 1

    jax.clear_caches()
    sys.setprofile(profile)
    try:
        trace()
    finally:
        sys.setprofile(None)
    return calls


def test_user_functions_are_traced_as_often_as_under_jax_jit():
    """Each user function runs once per trace (``mlp_loss`` twice: before the loop and under
    ``value_and_grad``), as in the hand-written version: nothing is traced again or aside."""
    args = TRAIN_MLP.bench_args
    autograph_lite.jit(natural.train_mlp).trace(*args)  # converts the called functions once
    ours = _calls_while_tracing(lambda: autograph_lite.jit(natural.train_mlp).trace(*args), natural.__file__)
    by_hand = _calls_while_tracing(lambda: jax.jit(expert.train_mlp).trace(*args), expert.__file__)
    user_functions = ("train_mlp", "mlp_loss", "clip_by_global_norm")
    assert {name: ours[name] for name in user_functions} == {name: by_hand[name] for name in user_functions}
    assert ours["mlp_loss"] == 2 and ours["train_mlp"] == ours["clip_by_global_norm"] == 1


def test_an_inf_in_the_data_gives_pythons_values_in_both_versions():
    """An inf input makes the gradient norm NaN; `if norm > max_norm` is then false and leaves the
    gradients as they are (only the first layer's weights turn NaN). The hand-written version once
    clipped with jnp.minimum(1.0, max_norm / norm), which made every parameter NaN."""
    params, xs, ys, _ = _mlp_args(0, 3, 8, 16, 1)
    xs = xs.at[0, 0].set(jnp.inf)
    for max_steps in (1, 2, 5):
        args = (params, xs, ys, jnp.int32(max_steps))
        expected = natural.train_mlp(*args)
        if max_steps == 1:  # the case the test is about: b1 stays finite (a second step spreads the NaN)
            assert not bool(jnp.isnan(expected[0][1]).any())
        assert_same(autograph_lite.jit(natural.train_mlp)(*args), expected, what=f"converted, {max_steps} steps")
        assert_same(jax.jit(expert.train_mlp)(*args), expected, what=f"lax, {max_steps} steps")



def _root_or_identity(x):
    if x > 0:
        y = jnp.sqrt(x)
    else:
        y = x
    return y


def test_a_traced_if_keeps_eager_gradients_where_a_select_gives_nan():
    """Why a traced `if` stays a `lax.cond`, though a select of both branches' values compiles
    faster: the select's reverse-mode gradient multiplies the zero cotangent of the branch not taken
    by that branch's derivative, here sqrt's at -1 (NaN); the cond's is eager's 1."""
    x = jnp.float32(-1.0)
    expected = jax.grad(_root_or_identity)(x)
    assert_same(expected, jnp.float32(1.0))
    assert_same(jax.jit(jax.grad(autograph_lite.convert(_root_or_identity)))(x), expected, what="jit of grad")
    assert_same(jax.grad(autograph_lite.jit(_root_or_identity))(x), expected, what="grad of jit")
    assert bool(jnp.isnan(jax.grad(lambda x: jnp.where(x > 0, jnp.sqrt(x), x))(x)))

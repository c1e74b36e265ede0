"""The real-library examples (Flax NNX, Equinox, optax, an ODE solver, dynamic programming) run as
scripts, agree with eager Python (or a pure-Python reference), and stage the control flow they claim.

The five scripts are started together, in the background, when this module's first test runs, and
checked at the end; the in-process tests run meanwhile.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx
from support import assert_equivalent, assert_same, count_equations, primitives

import autograph_lite

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ["flax_nnx_adaptive", "equinox_module", "optax_training", "ode_adaptive", "dynamic_programming"]
CONTROL_FLOW = {"cond", "while", "scan"}


def _import_example(name):
    spec = importlib.util.spec_from_file_location(f"_test_library_examples_{name}", ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


flax_example = _import_example("flax_nnx_adaptive")
equinox_example = _import_example("equinox_module")
optax_example = _import_example("optax_training")
ode_example = _import_example("ode_adaptive")
dp_example = _import_example("dynamic_programming")


@pytest.fixture(scope="module", autouse=True)
def script_runs(tmp_path_factory):
    """Start every example as a script, from an unrelated directory, before the in-process tests."""
    cwd = tmp_path_factory.mktemp("elsewhere")
    processes = {
        name: subprocess.Popen([sys.executable, str(ROOT / "examples" / f"{name}.py")], cwd=cwd,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for name in EXAMPLES
    }
    outputs = {}

    def output(name):
        if name not in outputs:
            stdout, stderr = processes[name].communicate(timeout=300)
            assert processes[name].returncode == 0, f"{name}.py failed:\n{stdout[-3000:]}\n{stderr[-3000:]}"
            outputs[name] = stdout
        return outputs[name]

    yield output
    for process in processes.values():
        if process.poll() is None:
            process.kill()
            process.communicate()


def _control_flow(function, *args):
    return primitives(function, *args) & CONTROL_FLOW


# --- Flax NNX: adaptive computation ----------------------------------------------------------------


@pytest.fixture(scope="module")
def flax_model():
    return flax_example.AdaptiveMLP(3, 16, rngs=nnx.Rngs(0))


@pytest.fixture(scope="module")
def flax_data():
    return flax_example.make_data(n=8)


def test_flax_jitted_calls_match_eager(flax_model, flax_data):
    xs, _ = flax_data
    graphdef, state = nnx.split(flax_model)
    forward = jax.jit(lambda state, x: nnx.merge(graphdef, state)(x))
    eager = [flax_example.eager_call(flax_model, x) for x in xs]
    batched_predictions, batched_steps = flax_example.predict(flax_model, xs)
    for index, (x, (prediction, steps)) in enumerate(zip(xs, eager)):
        assert_same(forward(state, x), (prediction, steps), what=f"jax.jit, example {index}")
    assert_same(batched_predictions, np.array([p for p, _ in eager]), what="nnx.jit of vmap")
    assert_same(batched_steps, np.array([s for _, s in eager]), what="nnx.jit of vmap, steps")
    # Both exits of the loop are taken (the halting break and max_steps), and the norm clip fires.
    steps = {s for _, s in eager}
    assert flax_model.max_steps in steps and min(steps) < flax_model.max_steps
    norms = np.linalg.norm(np.asarray(xs), axis=1)
    assert (norms > flax_model.max_norm).any() and (norms <= flax_model.max_norm).any()


def test_flax_gradient_through_the_masked_scan_matches_eager(flax_model, flax_data):
    xs, ys = flax_data[0][:2], flax_data[1][:2]  # one example stops at the halting score, one at max_steps
    assert len({flax_example.eager_call(flax_model, x)[1] for x in xs}) == 2

    def eager_loss(model):
        errors = [(flax_example.eager_call(model, x)[0] - y) ** 2 for x, y in zip(xs, ys)]
        return sum(errors) / len(errors)

    jitted = nnx.jit(nnx.grad(flax_example.loss_fn))(flax_model, xs, ys)
    eager = nnx.grad(eager_loss)(flax_model)
    assert_same(nnx.state(jitted), nnx.state(eager), rtol=1e-4, what="gradients")
    assert any(float(jnp.abs(leaf).max()) > 0 for leaf in jax.tree_util.tree_leaves(jitted))


def test_flax_call_stages_a_scan_and_a_cond(flax_model, flax_data):
    xs, _ = flax_data
    graphdef, state = nnx.split(flax_model)
    assert _control_flow(lambda state, x: nnx.merge(graphdef, state)(x), state, xs[0]) == {"scan", "cond"}


def test_flax_script(script_runs):
    output = script_runs("flax_nnx_adaptive")
    assert "jitted == eager on 4 examples: ok" in output
    assert "control flow in the jaxpr: cond, scan" in output
    first, last = map(float, re.search(r"training: loss ([\d.]+) -> ([\d.]+) in 60 steps", output).groups())
    assert last < first / 10


# --- Equinox: an RNN over padded sequences -----------------------------------------------------------


@pytest.fixture(scope="module")
def rnn():
    return equinox_example.PaddedRNN(3, 8, key=jax.random.PRNGKey(0))


LENGTHS = (5, 2, 8, 0)


def test_equinox_jitted_calls_match_eager(rnn):
    batch = equinox_example.make_batch(LENGTHS)
    single = eqx.filter_jit(rnn)
    for xs, length in zip(batch, LENGTHS):
        eager = equinox_example.eager_call(rnn, xs)
        assert eager[1] == length
        assert_same(single(xs), eager, what=f"length {length}")
    outputs, lengths = equinox_example.batch_outputs(rnn, batch)
    np.testing.assert_array_equal(np.asarray(lengths), LENGTHS)
    assert_same(outputs, np.array([float(equinox_example.eager_call(rnn, xs)[0]) for xs in batch]))
    # The clipping `if` matters: without it the outputs differ.
    unclipped = equinox_example.PaddedRNN(3, 8, max_norm=100.0, key=jax.random.PRNGKey(0))
    assert not np.allclose(np.asarray(equinox_example.batch_outputs(unclipped, batch)[0]), np.asarray(outputs))


def test_equinox_reverse_mode_gradient_matches_eager(rnn):
    xs = equinox_example.make_batch(LENGTHS)[0]
    jitted = equinox_example.grad_loss(rnn, xs, 1.0)
    eager = eqx.filter_grad(equinox_example.eager_loss)(rnn, xs, 1.0)
    assert_same(eqx.filter(jitted, eqx.is_array), eqx.filter(eager, eqx.is_array), rtol=1e-4)
    assert float(jnp.abs(jitted.cell.weight_ih).max()) > 0


def test_equinox_call_stages_a_scan_with_conds(rnn):
    xs = equinox_example.make_batch(LENGTHS)[0]
    assert _control_flow(rnn, xs) == {"scan", "cond"}


def test_equinox_script(script_runs):
    output = script_runs("equinox_module")
    assert "lengths found at run time: [5, 2, 8, 0]" in output
    assert "filter_jit outputs == eager outputs: ok" in output
    assert "reverse-mode gradient through the scan == eager gradient: ok" in output


# --- optax: the whole training loop under jit --------------------------------------------------------


@pytest.fixture(scope="module")
def regression():
    xs, ys, _ = optax_example.make_data()
    return optax_example.initial_params(), xs, ys


@pytest.mark.parametrize("tol, max_steps, expected_steps", [(0.02, 1000, 93), (0.02, 40, 40), (100.0, 1000, 0)])
def test_optax_fit_matches_eager(regression, tol, max_steps, expected_steps):
    params, xs, ys = regression
    _, loss, steps = assert_equivalent(optax_example.fit, params, xs, ys, tol, max_steps, rtol=1e-4)
    assert steps == expected_steps
    assert (loss <= tol) == (steps < max_steps)


def test_optax_fit_is_one_while_loop_compiled_once(regression):
    params, xs, ys = regression
    assert "while" in _control_flow(autograph_lite.convert(optax_example.fit), params, xs, ys, 0.02, 1000)
    fit = jax.jit(autograph_lite.convert(optax_example.fit))
    step_counts = {int(fit(params, xs, ys, tol, max_steps)[2]) for tol, max_steps in [(0.05, 500), (0.02, 500), (0.02, 7)]}
    assert step_counts == {82, 93, 7}
    assert fit._cache_size() == 1


def test_optax_script(script_runs):
    output = script_runs("optax_training")
    assert "tol=0.02 max_steps=1000: stopped after 93 steps" in output
    assert "compiled 1 time(s) for 3 (tol, max_steps) pairs" in output
    assert "control flow in the jaxpr: while" in output
    assert "jit == eager Python loop (93 steps): ok" in output


# --- an adaptive-step ODE integrator -----------------------------------------------------------------


@pytest.mark.parametrize("t_end, tol, omega, zeta", [(5.0, 1e-3, 2.0, 0.1), (3.0, 1e-3, 6.0, 0.3), (0.0, 1e-3, 2.0, 0.1)])
def test_ode_integrator_matches_eager_and_the_exact_solution(t_end, tol, omega, zeta):
    y0 = jnp.array([1.0, 0.0])
    y, accepted, rejected = assert_equivalent(ode_example.integrate, y0, t_end, tol, omega, zeta, rtol=1e-4)
    assert (accepted > 0) == (t_end > 0)
    if t_end > 0:
        assert rejected > 0  # the first step, dt = 0.5, is too long: the `else` branch runs too
    np.testing.assert_allclose(np.asarray(y), ode_example.exact((1.0, 0.0), t_end, omega, zeta), atol=10 * tol)


def test_ode_integrator_is_a_while_loop_with_selects():
    # Both `if`s move and add values only: selects, as an expert writes them with jnp.where.
    found = primitives(autograph_lite.convert(ode_example.integrate), jnp.array([1.0, 0.0]), 1.0, 1e-3, 2.0, 0.1)
    assert found & CONTROL_FLOW == {"while"} and "select_n" in found


def test_ode_script(script_runs):
    output = script_runs("ode_adaptive")
    assert "compiled 1 time(s) for 3 (tol, omega, zeta) settings" in output
    assert "control flow in the jaxpr: while\n" in output
    assert re.search(r"jit == eager Python loop \(\d+ accepted, \d+ rejected\): ok", output)


# --- dynamic programming -----------------------------------------------------------------------------

# Eager JAX cannot run `table[i, j] = v` (JAX arrays are immutable), so the reference is pure Python,
# and convert() on concrete inputs (every condition concrete: Python semantics) must agree as well.

WORDS = [("kitten", "sitting"), ("", "abc"), ("abc", ""), ("a", "a"), ("abab", "baba"), ("flaw", "lawn")]


@pytest.mark.parametrize("first, second", WORDS)
def test_levenshtein_matches_pure_python(first, second):
    a, b = dp_example.encode(first), dp_example.encode(second)
    expected = dp_example.levenshtein_reference(first, second)
    assert int(dp_example.levenshtein_jit(a, b)) == expected
    assert int(autograph_lite.convert(dp_example.levenshtein)(a, b)) == expected


@pytest.mark.parametrize("seed", range(3))
def test_knapsack_matches_pure_python(seed):
    rng = np.random.default_rng(seed)
    weights, values = rng.integers(1, 7, size=6).tolist(), rng.integers(1, 10, size=6).tolist()
    capacity = int(rng.integers(5, 15))
    expected = dp_example.knapsack_reference(weights, values, capacity)
    w, v = jnp.asarray(weights, jnp.int32), jnp.asarray(values, jnp.int32)
    assert int(dp_example.knapsack_jit(w, v, capacity=capacity)) == expected
    assert int(autograph_lite.convert(dp_example.knapsack)(w, v, capacity)) == expected


def test_dp_tables_are_filled_by_nested_scans_not_unrolled():
    levenshtein = autograph_lite.convert(dp_example.levenshtein)
    short = (dp_example.encode("abc"), dp_example.encode("abcd"))
    long = (dp_example.encode("abcdefghij"), dp_example.encode("abcdefghijkl"))
    assert _control_flow(levenshtein, *short) == {"scan"}  # the cost's conditional expression: a select
    assert count_equations(levenshtein, *short) == count_equations(levenshtein, *long)
    knapsack = autograph_lite.convert(dp_example.knapsack)
    weights, values = jnp.asarray([2, 3], jnp.int32), jnp.asarray([3, 4], jnp.int32)
    assert _control_flow(lambda w, v: knapsack(w, v, 6), weights, values) == {"scan", "cond"}


def test_dp_script(script_runs):
    output = script_runs("dynamic_programming")
    assert "levenshtein('kitten', 'sitting') = 3  (pure Python: 3)" in output
    assert "knapsack(capacity=9) = 13  (pure Python: 13)" in output
    assert output.count("control flow in the jaxpr: scan\n") == 1
    assert output.count("control flow in the jaxpr: cond, scan\n") == 1

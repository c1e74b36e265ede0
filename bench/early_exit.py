"""``python -m bench.early_exit [--quick]``: where the masked scan of a ``for ... break`` loses
against a ``while_loop``.

A ``for`` loop over a static trip count with a traced ``break`` becomes a ``lax.scan`` whose
iterations after the exit are skipped by a ``lax.cond`` on a break flag (a masked scan): it stays
reverse-mode differentiable, which a ``lax.while_loop`` is not, but it still steps through every
remaining iteration. This script measures that cost: the converted loop against the same loop
hand-written as a ``while_loop`` that stops at the exit, for trip counts 10 to 10,000, a cheap body (a
compare) and a heavy one (a 128 x 128 matrix-vector product), and an exit early (after 10% of
the iterations) or late (after 90%). It prints a Markdown table (docs/performance.md quotes it).

Both carry a float (the value found, the state ``h``), which is what keeps the masked scan; a loop
that carries integers and bools only (``natural.first_above``: an index) is staged as the
``while_loop`` itself, and is measured as the "index" body for comparison.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import autograph_lite

from . import measure
from .programs import expert, natural

HEAVY_WIDTH = 128
TRIP_COUNTS = (10, 100, 1000, 10000)
EXIT_FRACTIONS = {"early": 0.1, "late": 0.9}


def value_above(xs: jax.Array, limit: jax.Array) -> jax.Array:
    """The cheap body, as a user writes it: the first value above ``limit`` (0.0 if none), a float carry."""
    found = 0.0
    for i in range(xs.shape[0]):
        if xs[i] > limit:
            found = xs[i]
            break
    return found


def value_above_while(xs: jax.Array, limit: jax.Array) -> jax.Array:
    """The cheap body, hand-written: the search as a ``while_loop``, then the value it stopped at."""
    n = xs.shape[0]
    i = lax.while_loop(lambda i: (i < n) & (xs[jnp.minimum(i, n - 1)] <= limit), lambda i: i + 1, 0)
    return jnp.where(i < n, xs[jnp.minimum(i, n - 1)], 0.0)


def recurrence(w: jax.Array, h: jax.Array, xs: jax.Array, limit: jax.Array) -> jax.Array:
    """The heavy body, as a user writes it: a recurrent update, stopped by a signal in the input."""
    for i in range(xs.shape[0]):
        h = jnp.tanh(w @ h + xs[i])
        if xs[i, 0] > limit:
            break
    return h


def recurrence_while(w: jax.Array, h: jax.Array, xs: jax.Array, limit: jax.Array) -> jax.Array:
    """The heavy body, hand-written as a ``while_loop`` that stops after the exiting iteration."""
    n = xs.shape[0]

    def step(carry: tuple) -> tuple:
        i, h, _ = carry
        return i + 1, jnp.tanh(w @ h + xs[i]), xs[i, 0] > limit

    return lax.while_loop(lambda carry: (carry[0] < n) & ~carry[2], step, (0, h, False))[1]


def _inputs(body: str, n: int, exit_at: int) -> tuple:
    """Inputs that exit at iteration ``exit_at``: a value above the limit planted there, none before."""
    rng = np.random.default_rng(n)
    if body in ("cheap", "index"):
        xs = rng.uniform(0.0, 1.0, size=n).astype(np.float32)
        xs[exit_at] = 5.0
        return jnp.asarray(xs), jnp.float32(2.0)
    xs = rng.uniform(0.0, 0.1, size=(n, HEAVY_WIDTH)).astype(np.float32)
    xs[exit_at, 0] = 5.0
    w = rng.normal(size=(HEAVY_WIDTH, HEAVY_WIDTH)).astype(np.float32) / np.sqrt(HEAVY_WIDTH)
    return jnp.asarray(w), jnp.zeros(HEAVY_WIDTH, jnp.float32), jnp.asarray(xs), jnp.float32(2.0)


VERSIONS: dict[str, tuple[Callable, Callable]] = {
    "cheap": (value_above, value_above_while),
    "heavy": (recurrence, recurrence_while),
    "index": (natural.first_above, expert.first_above),  # the expert's while_loop, as the bench times it
}


def measure_case(body: str, n: int, exit_name: str, rounds: int) -> dict:
    """Run time per call (and compile time) of the converted loop (A: a masked scan, or for "index" a
    ``while_loop``) and the hand-written ``while_loop`` (B)."""
    args = _inputs(body, n, min(n - 1, int(n * EXIT_FRACTIONS[exit_name])))
    python, by_hand = VERSIONS[body]
    converted, hand_written = autograph_lite.jit(python), jax.jit(by_hand)
    np.testing.assert_allclose(converted(*args), hand_written(*args), rtol=1e-5, atol=1e-6)
    count = measure.calls_per_sample(lambda: jax.block_until_ready(converted(*args)), 0.02)
    run = measure.side_by_side(rounds, measure.per_call_blocking(converted, args, count),
                               measure.per_call_blocking(hand_written, args, count))

    def compile_sampler(function: Callable) -> Callable[[], float]:
        def sample() -> float:
            jax.clear_caches()
            return measure.timed(lambda: function.trace(*args).lower().compile())

        return sample

    compile_ = measure.side_by_side(max(1, rounds // 2), compile_sampler(converted), compile_sampler(hand_written))
    return {"body": body, "n": n, "exit": exit_name, "run": run, "compile": compile_}


def gradients_agree_with_eager() -> bool:
    """The reason for the masked scan: ``jax.grad`` goes through it (a ``while_loop`` would raise)."""
    w, h, xs, limit = _inputs("heavy", 20, 5)
    loss = lambda fn: lambda w: jnp.sum(fn(w, h, xs, limit))
    staged = jax.jit(jax.grad(loss(autograph_lite.convert(recurrence))))(w)
    eager = jax.grad(loss(recurrence))(w)
    return bool(np.allclose(staged, eager, rtol=1e-4, atol=1e-6))


def render(cases: list[dict]) -> str:
    lines = ["| body | trip count | exit | run: masked scan / while_loop (µs) | ratio | "
             "compile: masked scan / while_loop (ms) | ratio |", "|---|---|---|---|---|---|---|"]
    for case in cases:
        run, compile_ = case["run"], case["compile"]
        lines.append(
            f"| {case['body']} | {case['n']} | {case['exit']} | {run['a_median_s'] * 1e6:.3g} / "
            f"{run['b_median_s'] * 1e6:.3g} | {run['ratio']:.2f} | {compile_['a_median_s'] * 1e3:.3g} / "
            f"{compile_['b_median_s'] * 1e3:.3g} | {compile_['ratio']:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.early_exit", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, noisier")
    options = parser.parse_args(argv)
    rounds = 3 if options.quick else 9
    cases = []
    for body in VERSIONS:
        for n in TRIP_COUNTS:
            for exit_name in EXIT_FRACTIONS:
                cases.append(measure_case(body, n, exit_name, rounds))
                print(f"  {body} n={n} exit {exit_name}: run ratio "
                      f"{cases[-1]['run']['ratio']:.2f}", file=sys.stderr, flush=True)
    print(render(cases))
    ratios = [case["run"]["ratio"] for case in cases]
    print(f"\nrun ratio median {statistics.median(ratios):.2f}, max {max(ratios):.2f}; "
          f"jax.grad through the masked scan equals eager: {gradients_agree_with_eager()}")


if __name__ == "__main__":
    main(sys.argv[1:])

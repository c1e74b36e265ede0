"""The benchmark programs: each one written twice, in plain Python (``natural``) and by hand with
``jax.lax`` (``expert``), with the inputs it is tested and timed on.

Keeping the two versions in two modules lets the conversion benchmark load ``natural`` afresh from
its text, and keeps each module free of the other's idioms.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from . import expert, natural


@dataclasses.dataclass(frozen=True)
class Program:
    """One benchmark program.

    ``functions`` names every function of ``natural`` that the program runs, entry point first: the
    conversion benchmark converts them all, since both engines convert called functions lazily, on
    first call, and that work belongs to the program.
    """

    name: str
    what: str
    functions: tuple[str, ...]
    test_args: tuple[tuple[Any, ...], ...]
    bench_args: tuple[Any, ...]

    @property
    def python(self) -> Callable:
        return getattr(natural, self.functions[0])

    @property
    def lax(self) -> Callable:
        return getattr(expert, self.functions[0])


def _normal(seed: int, *shape: int) -> jnp.ndarray:
    return jnp.asarray(np.random.default_rng(seed).normal(size=shape), dtype=jnp.float32)


def _ints(seed: int, size: int, high: int = 4) -> jnp.ndarray:
    return jnp.asarray(np.random.default_rng(seed).integers(0, high, size=size), dtype=jnp.int32)


def _rnn_args(seed: int, hidden: int, inputs: int, steps: int) -> tuple:
    return (
        _normal(seed, hidden, hidden) / np.sqrt(hidden),
        _normal(seed + 1, hidden, inputs),
        _normal(seed + 2, hidden),
        _normal(seed + 3, steps, inputs),
    )


def _model_args(seed: int, scale: float) -> tuple:
    return (
        scale * _normal(seed, 8, 4),
        _normal(seed + 1, 8),
        scale * _normal(seed + 2, 4, 8),
        _normal(seed + 3, 4),
        _normal(seed + 4, 4),
    )


def _graph(seed: int, n: int, negative_edge: bool = False) -> jnp.ndarray:
    """Dense positive edge weights; optionally one negative edge (a negative cycle with its reverse)."""
    weights = np.random.default_rng(seed).uniform(1.0, 10.0, size=(n, n)).astype(np.float32)
    if negative_edge:
        weights[1, 2] = -20.0
    return jnp.asarray(weights)


def _mlp_args(seed: int, inputs: int, hidden: int, samples: int, max_steps: int) -> tuple:
    params = [0.5 * _normal(seed, inputs, hidden), _normal(seed + 1, hidden) * 0.1,
              0.5 * _normal(seed + 2, hidden, 1), _normal(seed + 3, 1) * 0.1]
    xs = _normal(seed + 4, samples, inputs)
    return params, xs, jnp.sin(xs.sum(axis=1, keepdims=True)), jnp.int32(max_steps)


f32, i32 = jnp.float32, jnp.int32

PROGRAMS: tuple[Program, ...] = (
    Program(
        "piecewise", "if/elif/else on a traced scalar", ("piecewise",),
        test_args=((f32(-2.0),), (f32(0.5),), (f32(2.0),), (f32(5.0),)),
        bench_args=(f32(0.5),),
    ),
    Program(
        "accumulate", "for i in range(n), n traced", ("accumulate",),
        test_args=((i32(7), f32(1.5)), (i32(0), f32(2.0))),
        bench_args=(i32(1000), f32(0.5)),
    ),
    Program(
        "newton_sqrt", "traced while, tolerance", ("newton_sqrt",),
        test_args=((f32(2.0),), (f32(10.0),), (f32(0.25),)),
        bench_args=(f32(2.0),),
    ),
    Program(
        "rnn", "for row in xs (RNN)", ("rnn",),
        test_args=(_rnn_args(0, 8, 4, 5), _rnn_args(10, 8, 4, 5)),
        bench_args=_rnn_args(20, 16, 8, 50),
    ),
    Program(
        "edit_distance", "nested loops, DP row .at[].set", ("edit_distance",),
        test_args=((_ints(0, 4), _ints(1, 5)), (_ints(2, 4), _ints(3, 5)),
                   (jnp.array([1, 2, 3, 4], i32), jnp.array([1, 3, 4, 5, 6], i32))),
        bench_args=(_ints(4, 12), _ints(5, 12)),
    ),
    Program(
        "first_above", "search with break", ("first_above",),
        test_args=((_normal(0, 16), f32(1.0)), (_normal(0, 16), f32(10.0))),
        bench_args=(_normal(1, 256), f32(2.0)),
    ),
    Program(
        "trajectory", "ys.append in a static loop, stack", ("trajectory",),
        test_args=((_normal(0, 4),), (_normal(1, 4),)),
        bench_args=(_normal(2, 32),),
    ),
    Program(
        "model_step", "helper calls, clip in a helper", ("model_step", "dense", "clip_norm"),
        test_args=(_model_args(0, 0.05), _model_args(0, 3.0)),
        bench_args=_model_args(5, 1.0),
    ),
    Program(
        "collatz_steps", "while with an if in its body", ("collatz_steps",),
        test_args=((i32(27),), (i32(6),), (i32(1),)),
        bench_args=(i32(27),),
    ),
    Program(
        "cartpole_episode", "env step: branches, clip, termination (60 lines)",
        ("cartpole_episode", "linear_policy", "cartpole_step", "cartpole_dynamics"),
        test_args=((_normal(0, 4), 0.05 * _normal(1, 4)), (-_normal(0, 4), 0.05 * _normal(2, 4)),
                   (jnp.array([0.0, 0.0, 0.0, 0.0], f32), jnp.array([0.0, 0.0, 0.01, 0.0], f32))),
        bench_args=(jnp.array([0.5, 1.0, 20.0, 2.0], f32), 0.05 * _normal(3, 4)),
    ),
    Program(
        "shortest_route", "Bellman-Ford, early stop, nested loops (55 lines)",
        ("shortest_route", "bellman_ford", "path_to"),
        test_args=((_graph(0, 5), i32(0), i32(3)), (_graph(1, 5, negative_edge=True), i32(0), i32(4)),
                   (_graph(2, 4), i32(2), i32(2))),
        bench_args=(_graph(3, 12), i32(0), i32(7)),
    ),
    Program(
        "train_mlp", "MLP SGD, warm-up, loss-driven decay, clipping (50 lines)",
        ("train_mlp", "mlp_loss", "clip_by_global_norm"),
        test_args=(_mlp_args(0, 3, 8, 16, 12), _mlp_args(10, 3, 8, 16, 0)),
        bench_args=_mlp_args(20, 8, 32, 128, 100),
    ),
    Program(
        "interpret", "for over opcodes, 8-way elif on an int (lax.switch)", ("interpret",),
        test_args=((_ints(0, 12, 9), _normal(1, 12), f32(0.5)), (jnp.array([-1, 7, 8, 0, 3], i32), _normal(2, 5), f32(-1.0))),
        bench_args=(_ints(3, 256, 8), _normal(4, 256), f32(0.5)),
    ),
)

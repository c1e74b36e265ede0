"""Timers and jaxpr equation counts: the measuring instruments, with no knowledge of the programs.

Timings are medians: the machine is shared and noisy, and a median ignores the odd slow repeat that a
mean would average in. Two versions are always timed side by side, in alternating order (A B, then
B A, ...), so that a slow phase of the machine hits both; their ratio is the median of the per-round
ratios, which cancels drift that the two separate medians would keep.
"""

from __future__ import annotations

import collections
import gc
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

import jax


def timed(action: Callable[[], Any]) -> float:
    """Seconds that one call of ``action`` takes, with the garbage collector kept out of it."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        action()
        return time.perf_counter() - start
    finally:
        gc.enable()


def side_by_side(rounds: int, measure_a: Callable[[], float], measure_b: Callable[[], float]) -> dict:
    """Run two measurements ``rounds`` times each, interleaved A B / B A; summarize them.

    Each ``measure_*`` returns one sample in seconds (and may set up fresh state before timing).
    """
    a_samples, b_samples = [], []
    for round_ in range(rounds):
        if round_ % 2 == 0:
            a_samples.append(measure_a())
            b_samples.append(measure_b())
        else:
            b_samples.append(measure_b())
            a_samples.append(measure_a())
    return summarize(a_samples, b_samples)


def summarize(a_samples: list[float], b_samples: list[float]) -> dict:
    return {
        "a_s": a_samples,
        "b_s": b_samples,
        "a_median_s": statistics.median(a_samples),
        "b_median_s": statistics.median(b_samples),
        "ratio": statistics.median(a / b for a, b in zip(a_samples, b_samples)),
    }


def calls_per_sample(call: Callable[[], Any], budget_s: float) -> int:
    """How many calls fill about ``budget_s``: short calls are timed in batches, so that the timer's
    own resolution and overhead do not dominate."""
    single = min(timed(call) for _ in range(3))
    return max(1, int(budget_s / max(single, 1e-7)))


def per_call_blocking(function: Callable, args: tuple, count: int) -> Callable[[], float]:
    """A sampler of the time of one call, result ready: ``count`` calls, each waited for."""

    def sample() -> float:
        def run():
            for _ in range(count):
                jax.block_until_ready(function(*args))

        return timed(run) / count

    return sample


def per_call_dispatch(function: Callable, args: tuple, count: int) -> Callable[[], float]:
    """A sampler of the dispatch cost of one call: ``count`` calls issued back to back, only the
    last one waited for, so that (on small inputs) the time is the per-call overhead of the jitted
    function's Python and C++ path, not the computation."""

    def sample() -> float:
        def run():
            result = None
            for _ in range(count):
                result = function(*args)
            jax.block_until_ready(result)

        return timed(run) / count

    return sample


def primitive_counts(function: Callable, *args: Any) -> collections.Counter:
    """How often each primitive occurs in ``function``'s jaxpr, sub-jaxprs included (``cond``
    branches, ``while`` test and body, ``scan`` body, ``pjit``, ``custom_jvp`` ...)."""
    return collections.Counter(equation.primitive.name for equation in _equations(jax.make_jaxpr(function)(*args).jaxpr))


def _equations(jaxpr) -> Iterator:
    for equation in jaxpr.eqns:
        yield equation
        for parameter in equation.params.values():
            for sub in parameter if isinstance(parameter, (tuple, list)) else (parameter,):
                inner = getattr(sub, "jaxpr", sub)  # a ClosedJaxpr holds a Jaxpr; a Jaxpr is one
                if hasattr(inner, "eqns"):
                    yield from _equations(inner)

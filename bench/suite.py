"""The measurements, one function per column of the report; each returns plain data (JSON-ready).

Every comparison is "autograph_lite on the plain-Python version" (A) against a baseline (B): malt on
the same source for conversion time, the hand-written ``lax`` version for everything else.
"""

from __future__ import annotations

import dataclasses
import statistics
from typing import Any

import jax

import autograph_lite

from . import malt_engine, measure
from .fresh import FreshModules
from .programs import PROGRAMS, Program, natural


@dataclasses.dataclass(frozen=True)
class Settings:
    """How much to repeat; ``quick`` trades precision for a run of under a minute."""

    conversion_rounds: int
    compile_rounds: int
    run_rounds: int
    sample_budget_s: float
    curve_rounds: int
    trip_counts: tuple[int, ...] = (10, 100, 1000)


FULL = Settings(conversion_rounds=21, compile_rounds=15, run_rounds=21, sample_budget_s=0.03, curve_rounds=3)
QUICK = Settings(conversion_rounds=5, compile_rounds=3, run_rounds=5, sample_budget_s=0.005, curve_rounds=1)


def conversion_time(program: Program, fresh: FreshModules, rounds: int) -> dict:
    """(a) Seconds to convert all of the program's functions, from a never-converted copy, by
    ``autograph_lite.convert`` (A) and ``malt.to_graph`` (B).

    ``convert`` does the whole rewrite and compile before it returns (nothing is deferred to the
    first call but the conversion of called functions, which is why every function of the program
    is converted here); ``to_graph`` likewise. Loading the fresh copy is not timed.
    """

    def sampler(convert):
        def sample() -> float:
            module = fresh.load()
            functions = [getattr(module, name) for name in program.functions]
            return measure.timed(lambda: [convert(function) for function in functions])

        return sample

    return measure.side_by_side(rounds, sampler(autograph_lite.convert), sampler(malt_engine.convert))


def equation_counts(program: Program) -> dict:
    """(b) Equations in the jaxprs, sub-jaxprs included, of the converted (A) and hand-written (B)
    versions, with the primitives that differ."""
    converted = measure.primitive_counts(autograph_lite.convert(program.python), *program.bench_args)
    by_hand = measure.primitive_counts(program.lax, *program.bench_args)
    a, b = sum(converted.values()), sum(by_hand.values())
    return {
        "a": a,
        "b": b,
        "ratio": a / b,
        "only_converted": dict(converted - by_hand),
        "only_by_hand": dict(by_hand - converted),
    }


def compile_time(program: Program, rounds: int) -> dict:
    """(c) Seconds for ``jit(f).trace(*args)``, then ``.lower().compile()``, JAX's caches cleared
    before each sample so that every sample traces, lowers and compiles. The conversion itself is
    cached (it happened once, before): this is the cost that the converted program adds to JAX's.

    The tracing part is also kept on its own (``*_trace_median_s``): it is where the converter's
    runtime operators run, so it is where a difference comes from when the jaxprs are alike.
    """
    args = program.bench_args
    trace_times: dict[str, list[float]] = {"a": [], "b": []}

    def sampler(make_jitted, side: str):
        def sample() -> float:
            jax.clear_caches()
            jitted, traced = make_jitted(), []
            trace_s = measure.timed(lambda: traced.append(jitted.trace(*args)))
            trace_times[side].append(trace_s)
            return trace_s + measure.timed(lambda: traced[0].lower().compile())

        return sample

    autograph_lite.jit(program.python).trace(*args)  # converts the called functions too, once
    results = measure.side_by_side(
        rounds, sampler(lambda: autograph_lite.jit(program.python), "a"), sampler(lambda: jax.jit(program.lax), "b")
    )
    for side, samples in trace_times.items():
        results[f"{side}_trace_median_s"] = statistics.median(samples)
    return results


def first_call_latency(program: Program, fresh: FreshModules, rounds: int) -> dict:
    """(f) Seconds from a never-converted function to its first result: ``autograph_lite.jit`` of a
    fresh copy of the Python version (conversion, tracing, lowering, compiling and one call, the
    called functions converted on the way) (A) against ``jax.jit`` of the hand-written version
    (tracing, lowering, compiling, one call) (B); JAX's caches cleared before each sample.

    This is what a user waits for on the first call of a script or notebook cell: the conversion
    counts here, where the compile column leaves it out.
    """
    args = program.bench_args

    def converted() -> float:
        function = getattr(fresh.load(), program.functions[0])
        jax.clear_caches()
        return measure.timed(lambda: jax.block_until_ready(autograph_lite.jit(function)(*args)))

    def by_hand() -> float:
        jax.clear_caches()
        return measure.timed(lambda: jax.block_until_ready(jax.jit(program.lax)(*args)))

    return measure.side_by_side(rounds, converted, by_hand)


def call_times(program: Program, settings: Settings) -> dict:
    """(d) Compiled programs, called: the time of one call on the benchmark inputs, waited for
    (``run``), and the per-call dispatch cost of back-to-back calls on small inputs (``dispatch``)."""
    converted, by_hand = autograph_lite.jit(program.python), jax.jit(program.lax)
    results = {}
    for kind, sampler, args in (
        ("run", measure.per_call_blocking, program.bench_args),
        ("dispatch", measure.per_call_dispatch, program.test_args[0]),
    ):
        jax.block_until_ready((converted(*args), by_hand(*args)))  # compile outside the timing
        count = measure.calls_per_sample(lambda: jax.block_until_ready(by_hand(*args)), settings.sample_budget_s)  # noqa: B023 (called here)
        results[kind] = measure.side_by_side(
            settings.run_rounds, sampler(converted, args, count), sampler(by_hand, args, count)
        )
        results[kind]["calls_per_sample"] = count
    return results


def compile_curve(settings: Settings) -> dict:
    """(e) Compile time (trace + lower + compile) of ``accumulate`` against its trip count: converted
    with the count traced (one ``fori_loop``), converted with the count static (one ``scan``), and
    the plain function under ``jax.jit`` with the count static (the loop unrolled)."""
    x = jax.numpy.float32(0.5)
    series = {
        "autograph_lite.jit, n traced (fori_loop)": lambda n: autograph_lite.jit(natural.accumulate).trace(
            jax.numpy.int32(n), x
        ),
        "autograph_lite.jit, n static (scan)": lambda n: autograph_lite.jit(
            natural.accumulate, static_argnums=0
        ).trace(n, x),
        "jax.jit, n static (unrolled)": lambda n: jax.jit(natural.accumulate, static_argnums=0).trace(n, x),
    }
    results: dict[str, Any] = {"trip_counts": list(settings.trip_counts), "seconds": {}, "samples": {}}
    for label, trace in series.items():
        medians, samples = [], []
        for n in settings.trip_counts:
            runs = []
            for _ in range(settings.curve_rounds):
                jax.clear_caches()
                runs.append(measure.timed(lambda: trace(n).lower().compile()))  # noqa: B023 (called here)
            samples.append(runs)
            medians.append(statistics.median(runs))
        results["seconds"][label] = medians
        results["samples"][label] = samples
    return results


def run(settings: Settings, progress=print) -> dict:
    """All measurements for all programs, then the compile curve."""
    programs = []
    with FreshModules() as fresh:
        conversion_time(PROGRAMS[-1], fresh, 1)  # first conversions pay for imports and warm-up
        for program in PROGRAMS:
            progress(f"  {program.name}")
            programs.append(
                {
                    "name": program.name,
                    "what": program.what,
                    "conversion": conversion_time(program, fresh, settings.conversion_rounds),
                    "equations": equation_counts(program),
                    "compile": compile_time(program, settings.compile_rounds),
                    "first_call": first_call_latency(program, fresh, settings.compile_rounds),
                    **call_times(program, settings),
                }
            )
    progress("  compile time against trip count")
    return {"programs": programs, "compile_curve": compile_curve(settings)}

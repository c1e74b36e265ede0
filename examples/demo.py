"""The ``make demo`` tour: convert the quickstart functions, run them jitted, and compare with jax.jit.

1. the rewritten source of each function, printed by the CLI (``python -m autograph_lite show``);
2. each function under ``autograph_lite.jit`` on inputs that take every path, next to eager Python;
3. the lax primitives in each function's jaxpr (nested jaxprs included);
4. ``conditional_double`` three ways: ``jax.jit`` fails, static arguments recompile for every threshold,
   ``autograph_lite.jit`` compiles once for all of them.

Runs from any working directory. Exits nonzero if a converted result differs from eager Python.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import autograph_lite

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))

import quickstart  # noqa: E402  (found through the path set just above)

ROWS = jnp.array([[1.0, 2.0], [10.0, 20.0], [0.5, 0.5]])

# name -> [(arguments, the path they take)], covering every branch of every function.
CASES = {
    "conditional_double": [
        ((jnp.float32(3.0), jnp.float32(1.0)), "x > threshold: doubled"),
        ((jnp.float32(0.5), jnp.float32(1.0)), "x < threshold: unchanged"),
        ((jnp.float32(1.0), jnp.float32(1.0)), "x == threshold: unchanged"),
    ],
    "piecewise": [
        ((jnp.float32(-2.0),), "if: x < -1"),
        ((jnp.float32(0.5),), "elif: -1 <= x < 1"),
        ((jnp.float32(3.0),), "else: x >= 1"),
    ],
    "soft_sign": [
        ((jnp.float32(2.0), jnp.float32(1.0)), "x >= 0"),
        ((jnp.float32(-2.0), jnp.float32(1.0)), "x < 0"),
    ],
    "in_band": [
        ((jnp.float32(0.5), jnp.float32(0.0), jnp.float32(1.0)), "strictly inside"),
        ((jnp.float32(0.0), jnp.float32(0.0), jnp.float32(1.0)), "on the low edge"),
        ((jnp.float32(1.0), jnp.float32(0.0), jnp.float32(1.0)), "on the high edge"),
        ((jnp.float32(2.0), jnp.float32(0.0), jnp.float32(1.0)), "outside"),
    ],
    "count_halvings": [
        ((jnp.float32(0.5),), "loop body never runs"),
        ((jnp.float32(10.0),), "4 iterations"),
        ((jnp.float32(1000.0),), "10 iterations"),
    ],
    "geometric_sum": [
        ((jnp.float32(0.5), jnp.int32(0)), "n = 0: no iteration"),
        ((jnp.float32(0.5), jnp.int32(10)), "n = 10"),
        ((jnp.float32(2.0), jnp.int32(5)), "n = 5"),
    ],
    "clipped_sum": [
        ((ROWS, jnp.float32(5.0)), "some rows clipped, some not"),
        ((ROWS, jnp.float32(100.0)), "no row clipped"),
    ],
    "relu_or_leaky": [
        ((jnp.float32(2.0), jnp.bool_(True)), "x > 0"),
        ((jnp.float32(-2.0), jnp.bool_(True)), "x <= 0, leaky"),
        ((jnp.float32(-2.0), jnp.bool_(False)), "x <= 0, not leaky"),
    ],
}

# select_n: a traced `if` whose branches are small, pure and gradient-neutral (a select, not a cond).
CONTROL_FLOW = {"cond", "select_n", "while", "scan"}


def heading(title: str) -> None:
    print()
    print("=" * 78)
    print(title)
    print("=" * 78)


def show_sources() -> None:
    heading("1. Rewritten source, printed by the CLI")
    for name in CASES:
        command = [sys.executable, "-m", "autograph_lite", "show", f"examples/quickstart.py::{name}"]
        print(f"\n$ python -m autograph_lite show examples/quickstart.py::{name}")
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"the CLI failed on {name} (exit {result.returncode}):\n{result.stderr}")
        print(result.stdout, end="")


def fmt(value) -> str:
    array = np.asarray(value)
    if array.ndim == 0:
        if np.issubdtype(array.dtype, np.floating):
            return np.format_float_positional(array.item(), precision=6, trim="0")
        return str(array.item())
    return np.array2string(array, precision=4, separator=", ")


def run_jitted() -> bool:
    heading("2. autograph_lite.jit next to eager Python")
    all_match = True
    for name, cases in CASES.items():
        function = getattr(quickstart, name)
        jitted = autograph_lite.jit(function)
        print(f"\n{name}")
        for arguments, path in cases:
            expected = function(*arguments)
            got = jitted(*arguments)
            match = np.allclose(np.asarray(got), np.asarray(expected), rtol=1e-5, atol=1e-6)
            all_match &= match
            shown_args = ", ".join("rows" if a is ROWS else fmt(a) for a in arguments)
            print(f"  ({shown_args}){'':<{max(0, 16 - len(shown_args))}} {path:<28} jit: {fmt(got):<16} eager: {fmt(expected):<16} "
                  f"{'ok' if match else 'MISMATCH'}")
    return all_match


def primitive_names(jaxpr) -> set[str]:
    """Every primitive in ``jaxpr``, looking into the jaxprs that cond / while / scan carry in their params."""
    names = set()
    for equation in jaxpr.eqns:
        names.add(equation.primitive.name)
        for parameter in equation.params.values():
            for sub in parameter if isinstance(parameter, (tuple, list)) else (parameter,):
                inner = getattr(sub, "jaxpr", sub)  # a ClosedJaxpr wraps a Jaxpr
                if hasattr(inner, "eqns"):
                    names |= primitive_names(inner)
    return names


def show_primitives() -> None:
    heading("3. lax primitives in each jaxpr (nested jaxprs included)")
    for name, cases in CASES.items():
        arguments = cases[0][0]
        jaxpr = jax.make_jaxpr(autograph_lite.convert(getattr(quickstart, name)))(*arguments).jaxpr
        names = primitive_names(jaxpr)
        control = sorted(names & CONTROL_FLOW)
        others = sorted(names - CONTROL_FLOW)
        print(f"  {name:<20} control flow: {', '.join(control) or '-':<16} other: {', '.join(others)}")


def compare_with_jax_jit() -> None:
    heading("4. conditional_double three ways")
    x = jnp.float32(3.0)
    thresholds = [0.0, 1.0, 2.0, 3.0, 4.0]

    print("\n(a) plain jax.jit: Python `if` on a traced value")
    try:
        jax.jit(quickstart.conditional_double)(x, 1.0)
        print("  unexpectedly succeeded")
    except (jax.errors.TracerBoolConversionError, jax.errors.ConcretizationTypeError) as error:
        print(f"  {type(error).__name__}: {str(error).splitlines()[0]}")

    def counting(log: list):
        """conditional_double with a Python side effect that runs once per trace (= per compilation)."""

        def conditional_double(x, threshold):
            log.append(threshold)
            return quickstart.conditional_double(x, threshold)

        return conditional_double

    print('\n(b) static arguments: the values are baked into the compiled program')
    try:
        jax.jit(quickstart.conditional_double, static_argnames="threshold")(x, threshold=1.0)
        print('  static_argnames="threshold": unexpectedly succeeded')
    except (jax.errors.TracerBoolConversionError, jax.errors.ConcretizationTypeError) as error:
        print(f'  static_argnames="threshold" alone: {type(error).__name__} (the test also reads x, still traced)')
    static_log: list = []
    static = jax.jit(counting(static_log), static_argnames=("x", "threshold"))
    print('  static_argnames=("x", "threshold"): works, but every new value is a new program')
    for t in thresholds:
        print(f"  threshold={t}: {fmt(static(x=3.0, threshold=t))}")
    print(f"  compiled {len(static_log)} times for {len(thresholds)} thresholds (and again for every new x)")

    staged_log: list = []
    staged = autograph_lite.jit(counting(staged_log))
    print("\n(c) autograph_lite.jit: both arguments traced, the `if` is one select (its branches are this small)")
    for t in thresholds:
        print(f"  threshold={t}: {fmt(staged(x, t))}")
    print(f"  compiled {len(staged_log)} time(s) for {len(thresholds)} thresholds")
    print(f"\nCompilations for {len(thresholds)} thresholds: static_argnames {len(static_log)}, "
          f"autograph_lite {len(staged_log)}")


def main() -> int:
    print(f"autograph_lite {autograph_lite.__version__}, JAX {jax.__version__}, backend {jax.default_backend()}")
    show_sources()
    all_match = run_jitted()
    show_primitives()
    compare_with_jax_jit()
    if not all_match:
        print("\nSome converted results differ from eager Python.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The quickstart examples agree with eager Python on every path, and ``make demo`` runs and says what it should."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest
from support import assert_equivalent, primitives

import autograph_lite

ROOT = Path(__file__).resolve().parent.parent


def _import_quickstart():
    spec = importlib.util.spec_from_file_location("_test_examples_quickstart", ROOT / "examples" / "quickstart.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


quickstart = _import_quickstart()
ROWS = np.array([[1.0, 2.0], [10.0, 20.0], [0.5, 0.5]], np.float32)

# (function, arguments, eager result): the eager result pins down which path the arguments take.
CASES = [
    ("conditional_double", (3.0, 1.0), 6.0),
    ("conditional_double", (0.5, 1.0), 0.5),
    ("conditional_double", (1.0, 1.0), 1.0),
    ("piecewise", (-2.0,), -1.0),
    ("piecewise", (-1.0,), -1.0),
    ("piecewise", (0.5,), 0.125),
    ("piecewise", (1.0,), 1.0),
    ("piecewise", (3.0,), 5.0),
    ("soft_sign", (2.0, 1.0), 2.0 / 3.0),
    ("soft_sign", (-2.0, 1.0), -2.0 / 3.0),
    ("soft_sign", (0.0, 1.0), 0.0),
    ("in_band", (0.5, 0.0, 1.0), 0.5),
    ("in_band", (0.0, 0.0, 1.0), 0.0),
    ("in_band", (1.0, 0.0, 1.0), 0.0),
    ("in_band", (2.0, 0.0, 1.0), 0.0),
    ("in_band", (-1.0, 0.0, 1.0), 0.0),
    ("count_halvings", (0.5,), 0),
    ("count_halvings", (1.0,), 0),
    ("count_halvings", (10.0,), 4),
    ("count_halvings", (1000.0,), 10),
    ("geometric_sum", (0.5, 0), 0.0),
    ("geometric_sum", (0.5, 1), 1.0),
    ("geometric_sum", (2.0, 5), 31.0),
    ("clipped_sum", (ROWS, 5.0), [1.0 + 5.0 / 3.0 + 0.5, 2.0 + 10.0 / 3.0 + 0.5]),
    ("clipped_sum", (ROWS, 100.0), [11.5, 22.5]),
    ("clipped_sum", (ROWS[:0], 1.0), [0.0, 0.0]),
    ("relu_or_leaky", (2.0, True), 2.0),
    ("relu_or_leaky", (-2.0, True), -0.02),
    ("relu_or_leaky", (-2.0, False), 0.0),
]


@pytest.mark.parametrize("name, arguments, expected", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_quickstart_matches_eager_python(name, arguments, expected):
    eager = assert_equivalent(getattr(quickstart, name), *arguments)
    np.testing.assert_allclose(np.asarray(eager), np.asarray(expected), rtol=1e-6)


def test_every_quickstart_function_is_covered():
    functions = {name for name, value in vars(quickstart).items()
                 if callable(value) and getattr(value, "__module__", None) == quickstart.__name__}
    assert functions == {name for name, _, _ in CASES}


@pytest.mark.parametrize("name, arguments, staged", [
    ("conditional_double", (jnp.float32(1.0), jnp.float32(2.0)), {"select_n"}),
    ("piecewise", (jnp.float32(1.0),), {"cond"}),
    ("soft_sign", (jnp.float32(1.0), jnp.float32(1.0)), {"select_n"}),
    ("in_band", (jnp.float32(1.0), jnp.float32(0.0), jnp.float32(2.0)), {"select_n"}),
    ("count_halvings", (jnp.float32(8.0),), {"while"}),
    ("geometric_sum", (jnp.float32(0.5), jnp.int32(3)), {"while"}),
    ("clipped_sum", (jnp.asarray(ROWS), jnp.float32(5.0)), {"scan", "cond"}),
    ("relu_or_leaky", (jnp.float32(1.0), jnp.bool_(True)), {"select_n"}),
])
def test_quickstart_stages_the_expected_primitives(name, arguments, staged):
    found = primitives(autograph_lite.convert(getattr(quickstart, name)), *arguments)
    assert staged <= found
    assert not ({"cond", "select_n", "while", "scan"} - staged) & found


@pytest.fixture(scope="module")
def demo_output(tmp_path_factory) -> str:
    # Run from an unrelated directory: the demo must find its files from its own location.
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "demo.py")],
        cwd=tmp_path_factory.mktemp("elsewhere"), capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def test_demo_prints_the_rewritten_source_of_every_function(demo_output):
    for name, _, _ in CASES:
        assert f"$ python -m autograph_lite show examples/quickstart.py::{name}" in demo_output
        assert f"\ndef {name}(" in demo_output
    assert "_ag.if_stmt(x > threshold," in demo_output


def test_demo_results_match_eager(demo_output):
    assert "MISMATCH" not in demo_output
    assert len(re.findall(r" ok$", demo_output, flags=re.MULTILINE)) >= 20


def test_demo_reports_cond_and_while_primitives(demo_output):
    assert re.search(r"^  conditional_double\s+control flow: select_n\b", demo_output, re.MULTILINE)
    assert re.search(r"^  piecewise\s+control flow: cond\b", demo_output, re.MULTILINE)
    assert re.search(r"^  count_halvings\s+control flow: while\b", demo_output, re.MULTILINE)
    assert re.search(r"^  clipped_sum\s+control flow: cond, scan\b", demo_output, re.MULTILINE)


def test_demo_compares_compilation_counts(demo_output):
    assert "TracerBoolConversionError" in demo_output
    assert "compiled 5 times for 5 thresholds" in demo_output
    assert "compiled 1 time(s) for 5 thresholds" in demo_output
    assert "Compilations for 5 thresholds: static_argnames 5, autograph_lite 1" in demo_output

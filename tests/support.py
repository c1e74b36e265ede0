"""Checking converted functions against eager Python, the contract every test relies on.

``assert_equivalent(fn, *args)`` runs ``fn`` eagerly (the reference), then ``convert(fn)`` on the same
concrete arguments (every condition concrete: Python semantics), then ``jit(fn)`` (every condition on an
argument traced), and asserts that all three agree: exactly for integers and booleans, within float
tolerance for floats, and with the same pytree structure.
"""

from __future__ import annotations

import importlib.util
import inspect
import itertools
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import numpy as np
import pytest

import autograph_lite
from autograph_lite import ConversionError
from bench.measure import primitive_counts

_module_counter = itertools.count()


def assert_same(actual: Any, expected: Any, *, rtol: float = 1e-5, atol: float = 1e-6, what: str = "") -> None:
    actual_leaves, actual_tree = jax.tree_util.tree_flatten(actual)
    expected_leaves, expected_tree = jax.tree_util.tree_flatten(expected)
    assert actual_tree == expected_tree, f"{what}: structure {actual_tree} != {expected_tree}"
    for got, want in zip(actual_leaves, expected_leaves):
        got_array, want_array = np.asarray(got), np.asarray(want)
        assert got_array.shape == want_array.shape, f"{what}: shape {got_array.shape} != {want_array.shape}"
        if np.issubdtype(want_array.dtype, np.inexact) or np.issubdtype(got_array.dtype, np.inexact):
            np.testing.assert_allclose(got_array, want_array, rtol=rtol, atol=atol, err_msg=what)
        else:
            np.testing.assert_array_equal(got_array, want_array, err_msg=what)


def assert_equivalent(fn: Callable, *args: Any, static_argnums=(), rtol: float = 1e-5, **kwargs: Any) -> Any:
    """Assert eager ``fn(*args)`` == ``convert(fn)(*args)`` == ``jit(fn)(*args)``; return the eager value."""
    expected = fn(*args, **kwargs)
    converted = autograph_lite.convert(fn)(*args, **kwargs)
    assert_same(converted, expected, rtol=rtol, what=f"convert({fn.__name__}) on concrete inputs")
    jitted = autograph_lite.jit(fn, static_argnums=static_argnums)(*args, **kwargs)
    assert_same(jitted, expected, rtol=rtol, what=f"jit({fn.__name__}) on traced inputs")
    return expected


def load_source(source: str, directory: Path, name: str | None = None):
    """Write ``source`` to a real .py file under ``directory`` and import it (the converter reads files)."""
    module_name = name or f"_autograph_lite_test_module_{next(_module_counter)}"
    path = Path(directory) / f"{module_name}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def primitives(fn: Callable, *args: Any) -> set[str]:
    """Names of all primitives in the jaxpr of ``fn``, sub-jaxprs included."""
    return set(primitive_counts(fn, *args))


# A traced `if` stages one of these: a lax.cond, or selects where both branches are small, pure and
# gradient-neutral (runtime/selects.py).
STAGED_CHOICE = frozenset({"cond", "select_n"})


def stages_a_choice(fn: Callable, *args: Any) -> bool:
    """Whether the converted ``fn`` traced on ``args`` stages a traced choice (a cond or a select)."""
    return bool(primitives(autograph_lite.convert(fn), *args) & STAGED_CHOICE)


def assert_summed_in_a_scan(helper: Callable, xs: Any) -> None:
    """A static loop summing ``helper(x)`` over the rows of ``xs`` gives eager's value and is staged as
    a scan: what ``helper`` changes is the staged code's own (an effect on outside state would run the
    loop as Python instead)."""
    def sums(xs):
        total = 0.0
        for x in xs:
            total = total + helper(x)
        return total

    assert_equivalent(sums, xs)
    assert "scan" in primitives(autograph_lite.convert(sums), xs)


def count_equations(fn: Callable, *args: Any) -> int:
    """Number of equations in the jaxpr of ``fn``, sub-jaxprs included."""
    return sum(primitive_counts(fn, *args).values())


def where(fn, text: str) -> str:
    """``file:line`` of the one line of ``fn`` containing ``text``, as located errors print it."""
    lines, start = inspect.getsourcelines(fn)
    (line,) = [start + index for index, source in enumerate(lines) if text in source]
    return f"{fn.__code__.co_filename}:{line}"


def conversion_error(fn, *args, **options) -> str:
    """The message of the ``ConversionError`` that jitting ``fn`` and calling it raises."""
    with pytest.raises(ConversionError) as raised:
        autograph_lite.jit(fn, **options)(*args)
    return str(raised.value)


def refused_at_marked_line(fn, *args: Any, marker: str = "# store") -> str:
    """The message of the ``ConversionError`` that ``jit(fn)(*args)`` raises (a test failure, naming
    eager's and the converted value, where it returns), which must be located at ``fn``'s line holding
    ``marker``."""
    eager = fn(*args)
    with pytest.raises(ConversionError) as raised:
        converted = autograph_lite.jit(fn)(*args)
        pytest.fail(f"no error: eager {eager}, converted {converted}")  # a silent wrong value
    lines, first = inspect.getsourcelines(fn)
    assert raised.value.location.filename == fn.__code__.co_filename
    assert raised.value.location.lineno == first + next(k for k, line in enumerate(lines) if marker in line)
    return str(raised.value)


def run_program(directory: Path, source: str, name: str = "program") -> None:
    """Run ``source`` as a script of its own (for a process-wide setting such as ``jax_enable_x64``),
    written to a file because the converter reads functions' source; it must print ``ok``."""
    program = directory / f"{name}.py"
    program.write_text(source)
    finished = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0 and finished.stdout.strip() == "ok", finished.stdout + finished.stderr

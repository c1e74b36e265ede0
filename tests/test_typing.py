"""The API as a type checker sees it: ``jit`` / ``convert`` keep the wrapped function's signature.

mypy ``--strict`` runs on tests/typing_examples/user_code.py, a user's module that uses every form of
the API, and must report nothing; the same module with deliberate misuses appended must report each
one at its line, so that an API typed as ``Any`` (which accepts everything) fails here. The package is
followed silently, as mypy follows an installed package: only the user's file is judged.
tests/test_packaging.py runs the same check against the installed wheel (which needs ``py.typed``).
"""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
from pathlib import Path

import jax
import pytest

from autograph_lite.jit_types import JitOptions

ROOT = Path(__file__).resolve().parent.parent
USER_CODE = ROOT / "tests" / "typing_examples" / "user_code.py"

# (a call a user could write by mistake, the error code mypy must report for it)
MISUSES = [
    ('conditional_double("three", 1.0)', "arg-type"),
    ("power(jnp.float32(2.0))", "call-arg"),
    ('power.lower("x", 3)', "arg-type"),
    ('halvings("x")', "arg-type"),
    ("wrong: int = conditional_double(jnp.float32(2.0), 1.0)", "assignment"),
    ("autograph_lite.jit(halvings, static_argnames=3)", "call-overload"),
    ("autograph_lite.jit(halvings, static_argnum=1)", "call-overload"),
    ("autograph_lite.jit(static_argnames=(1, 2))(halvings)", "arg-type"),
]

MYPY_CONFIG = """\
[mypy]
strict = True
# The package is judged by `make lint`; here only the user's code is.
[mypy-autograph_lite,autograph_lite.*]
follow_imports = silent
"""


def run_mypy(files: list[Path], cwd: Path, cache: Path, *options: str) -> subprocess.CompletedProcess:
    """mypy --strict on ``files``, from ``cwd``, with a cache that later runs in the session reuse."""
    config = cache.parent / "mypy.ini"
    config.write_text(MYPY_CONFIG)
    command = [sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", str(cache),
               "--no-error-summary", "--hide-error-context", *options, *map(str, files)]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)


def shared_mypy_cache(tmp_path_factory) -> Path:
    """One mypy cache for the test session: jax's modules are analysed once (about 20 s), not per run."""
    folder = tmp_path_factory.getbasetemp() / "mypy"
    folder.mkdir(exist_ok=True)
    return folder / "cache"


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory) -> Path:
    return shared_mypy_cache(tmp_path_factory)


def test_a_users_module_type_checks_with_no_error(mypy_cache):
    done = run_mypy([USER_CODE], ROOT, mypy_cache)
    assert done.returncode == 0 and done.stdout == "", done.stdout + done.stderr


def test_each_misuse_is_reported_at_its_line(mypy_cache, tmp_path):
    source = USER_CODE.read_text().replace('\nif __name__ == "__main__":\n    main()\n', "\n")
    lines = source.splitlines() + ["", "", "def misuse() -> None:"]
    expected = {}
    for call, code in MISUSES:
        lines.append(f"    {call}")
        expected[len(lines)] = (call, code)
    misused = tmp_path / "misused.py"
    misused.write_text("\n".join(lines) + "\n")
    done = run_mypy([misused], ROOT, mypy_cache)
    reported: dict[int, set[str]] = {}
    for line in done.stdout.splitlines():
        found = re.match(r".*misused\.py:(\d+): error: .*\[([a-z-]+)\]$", line)
        if found:
            reported.setdefault(int(found[1]), set()).add(found[2])
    assert set(reported) == set(expected), done.stdout
    for line_number, (call, code) in expected.items():
        assert code in reported[line_number], (call, done.stdout)


def test_the_users_module_runs():
    """The example is a working program too (assert_type is a no-op at run time)."""
    done = subprocess.run([sys.executable, str(USER_CODE)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "6.0" in done.stdout and "_ag.while_stmt" in done.stdout and "conditional_double:" in done.stdout


def test_jit_options_are_jax_jits_keyword_arguments():
    """A JAX release that adds, removes or retypes a ``jax.jit`` option fails here, not in a user's build."""
    parameters = inspect.signature(jax.jit).parameters
    keywords = {name: p for name, p in parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    annotations = {name: ref.__forward_arg__ for name, ref in JitOptions.__annotations__.items()}
    assert set(annotations) == set(keywords)
    assert JitOptions.__total__ is False
    for name, parameter in keywords.items():
        if "." not in str(parameter.annotation):  # `xc.Device` is spelt `jax.Device` here
            assert annotations[name] == parameter.annotation, name


"""The ``autograph_lite`` logger: silent by default; with a verbosity, the decisions ``explain`` reports
and the conversions, as log records."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from explain_corpus import programs

import autograph_lite
from autograph_lite import logs

ROOT = Path(__file__).resolve().parent.parent
XS = jax.ShapeDtypeStruct((3, 2), jnp.float32)


@pytest.fixture(autouse=True)
def default_verbosity() -> Iterator[None]:
    yield
    autograph_lite.set_verbosity(0)
    logs.LOGGER.setLevel(logging.NOTSET)  # as after import, without the environment variable


def ours(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == "autograph_lite"]


def trace(function, *arguments) -> None:
    """Trace ``convert(function)`` afresh (a new callable each time, so that no jit cache skips it)."""
    converted = autograph_lite.convert(function)
    jax.jit(lambda *a: converted(*a)).trace(*arguments)


def test_silent_by_default(caplog, capsys):
    caplog.set_level(logging.WARNING)  # the root logger's default: what an unconfigured program shows
    trace(programs.loops, XS, 4)
    assert ours(caplog) == []
    assert capsys.readouterr().err == ""
    assert not logs.LOGGER.isEnabledFor(logging.INFO)
    assert any(isinstance(handler, logging.NullHandler) for handler in logs.LOGGER.handlers)


def branch_in_a_static_loop(x):
    for i in range(3):
        if x > i:
            x = x - 1.0
    return x


@pytest.mark.parametrize(("function", "arguments"), [(programs.loops, (XS, 4)), (branch_in_a_static_loop, (1.0,))])
def test_verbosity_1_logs_each_decision_that_explain_reports(caplog, function, arguments):
    autograph_lite.set_verbosity(1)
    # static_loops="auto" traces a loop's body once as a trial first: its `if` is logged once, not twice.
    trace(function, *arguments)
    logged = sorted(record.getMessage() for record in ours(caplog) if " -> " in record.getMessage())
    explained = sorted("\n".join(d.lines()) for d in autograph_lite.explain(function, *arguments).decisions)
    assert len(logged) >= 2 and logged == explained
    assert all(record.levelno == logging.INFO for record in ours(caplog))


def test_verbosity_1_logs_conversions_and_2_also_cache_hits(caplog):
    def fresh(x):
        return -x if x < 0 else x

    autograph_lite.set_verbosity(1)
    autograph_lite.convert(fresh)
    autograph_lite.convert(fresh)
    messages = [record.getMessage() for record in ours(caplog)]
    code = fresh.__code__
    assert messages == [f"converted {fresh.__qualname__} ({code.co_filename}:{code.co_firstlineno})"]
    autograph_lite.set_verbosity(2)
    autograph_lite.convert(fresh)
    assert ours(caplog)[-1].levelno == logging.DEBUG
    assert ours(caplog)[-1].getMessage() == f"converted {fresh.__qualname__}: from the cache"


def test_a_function_left_as_written_says_why(caplog):
    @autograph_lite.do_not_convert
    def as_written(x):
        return x

    autograph_lite.set_verbosity(1)
    assert autograph_lite.convert(as_written) is as_written
    assert ours(caplog)[-1].getMessage().endswith("left as written: marked do_not_convert")


def test_verbosity_0_turns_it_off_again(caplog):
    autograph_lite.set_verbosity(1)
    autograph_lite.set_verbosity(0)
    trace(programs.branches, 1.0, 2.0)
    assert ours(caplog) == []


@pytest.mark.parametrize("level", [-1, 1.5, "1", True])
def test_set_verbosity_refuses_what_is_not_a_level(level):
    with pytest.raises(ValueError, match="verbosity must be 0, 1 or 2"):
        autograph_lite.set_verbosity(level)


def test_a_bad_environment_value_is_a_warning(monkeypatch):
    monkeypatch.setenv(logs.ENVIRONMENT_VARIABLE, "loud")
    with pytest.warns(UserWarning, match="AUTOGRAPH_LITE_VERBOSITY='loud' is not 0, 1 or 2: ignored"):
        logs.apply_environment()
    assert logs.LOGGER.level == logging.NOTSET


PROGRAM = textwrap.dedent("""\
    import jax.numpy as jnp
    import autograph_lite

    def halve(x):
        while x > 1.0:
            x = x / 2.0
        return x

    print(autograph_lite.jit(halve)(jnp.float32(10.0)))
    """)


def run_program(tmp_path: Path, verbosity: str | None) -> subprocess.CompletedProcess:
    (tmp_path / "program.py").write_text(PROGRAM)
    environment = {k: v for k, v in os.environ.items() if k != logs.ENVIRONMENT_VARIABLE}
    if verbosity is not None:
        environment[logs.ENVIRONMENT_VARIABLE] = verbosity
    return subprocess.run([sys.executable, "program.py"], cwd=tmp_path, env=environment,
                          capture_output=True, text=True, timeout=120)


def test_a_program_prints_nothing_without_the_environment_variable(tmp_path):
    done = run_program(tmp_path, None)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "0.625\n" and done.stderr == ""


def test_the_environment_variable_prints_the_decisions_on_stderr(tmp_path):
    done = run_program(tmp_path, "1")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "0.625\n"
    program = tmp_path / "program.py"  # Python names the script by its absolute path
    assert done.stderr.splitlines() == [
        f"autograph_lite: converted halve ({program}:4)",
        f"autograph_lite: {program}:5: `while` loop -> lax.while_loop (the test is traced)",
        "    carries x: f32[]",
    ]

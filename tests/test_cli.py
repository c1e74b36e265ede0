"""The ``autograph-lite`` command line, run as a user runs it: in a subprocess, checking output and exit codes."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import autograph_lite

ROOT = Path(__file__).resolve().parent.parent
QUICKSTART = ROOT / "examples" / "quickstart.py"


def run_cli(*arguments: str, cwd: Path = ROOT, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pythonpath), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "autograph_lite", *arguments], cwd=cwd, env=env, capture_output=True, text=True
    )


def assert_one_line_error(result: subprocess.CompletedProcess, code: int, *fragments: str) -> None:
    assert result.returncode == code, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("autograph-lite: error: ")
    for fragment in fragments:
        assert fragment in lines[0]


def import_file(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """A tiny importable package under tmp_path: ``cli_sample_pkg.model`` with a method and a generator."""
    directory = tmp_path / "cli_sample_pkg"
    directory.mkdir()
    (directory / "__init__.py").write_text("")
    (directory / "model.py").write_text(textwrap.dedent("""\
        class Model:
            def __init__(self, scale):
                self.scale = scale

            def __call__(self, x):
                if x > 0:
                    y = x * self.scale
                else:
                    y = -x
                return y


        def numbers(n):
            i = 0
            while i < n:
                yield i
                i = i + 1
        """))
    return tmp_path


def test_show_by_file_path_prints_to_source():
    result = run_cli("show", "examples/quickstart.py::conditional_double")
    assert result.returncode == 0, result.stderr
    quickstart = import_file(QUICKSTART, "_test_cli_quickstart")
    assert result.stdout == autograph_lite.to_source(quickstart.conditional_double)
    assert result.stdout.startswith("def conditional_double(x, threshold):\n")
    assert "_ag.if_stmt(x > threshold," in result.stdout
    assert "if x > threshold:" not in result.stdout


def test_show_by_absolute_file_path_from_another_directory(tmp_path):
    result = run_cli("show", f"{QUICKSTART}::count_halvings", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "_ag.while_stmt(" in result.stdout
    assert "while x > 1.0" not in result.stdout


def test_show_by_module_and_dotted_qualname(package):
    result = run_cli("show", "cli_sample_pkg.model:Model.__call__", pythonpath=package)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("def __call__(self, x):\n")
    assert "_ag.if_stmt(x > 0," in result.stdout
    assert "y = x * self.scale" in result.stdout


def test_diff_shows_removed_and_added_lines():
    result = run_cli("show", "--diff", "examples/quickstart.py::conditional_double")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("--- ") and lines[1].startswith("+++ ")
    removed = [line for line in lines[2:] if line.startswith("-")]
    added = [line for line in lines[2:] if line.startswith("+")]
    assert "-    if x > threshold:" in removed
    assert any("_ag.if_stmt(" in line for line in added)
    # The unchanged header line is context, not a change.
    assert " def conditional_double(x, threshold):" in lines


def test_missing_file_is_a_usage_error(tmp_path):
    result = run_cli("show", f"{tmp_path / 'absent.py'}::f")
    assert_one_line_error(result, 2, "no such file", "absent.py")


def test_missing_name_is_a_usage_error():
    result = run_cli("show", "examples/quickstart.py::no_such_function")
    assert_one_line_error(result, 2, "no attribute 'no_such_function'")


def test_missing_attribute_of_a_class_is_a_usage_error(package):
    result = run_cli("show", "cli_sample_pkg.model:Model.forward", pythonpath=package)
    assert_one_line_error(result, 2, "Model", "no attribute 'forward'")


def test_missing_module_is_a_usage_error(tmp_path):
    result = run_cli("show", "no_such_module_for_cli_test:f", cwd=tmp_path)
    assert_one_line_error(result, 2, "no module named 'no_such_module_for_cli_test'")


def test_target_without_function_is_a_usage_error():
    result = run_cli("show", "examples/quickstart.py")
    assert_one_line_error(result, 2, "FILE.py::FUNC")


def test_class_target_is_a_usage_error(package):
    result = run_cli("show", "cli_sample_pkg.model:Model", pythonpath=package)
    assert_one_line_error(result, 2, "is a class", "Model.__call__")


def test_non_function_target_is_a_usage_error():
    result = run_cli("show", "examples/quickstart.py::jnp")
    assert_one_line_error(result, 2, "'jnp' is a module, not a function")


def test_module_with_a_missing_dependency_reports_the_import_error(tmp_path):
    (tmp_path / "needs_missing_dep.py").write_text("import no_such_dependency_xyz\n\ndef f(x):\n    return x\n")
    result = run_cli("show", "needs_missing_dep:f", pythonpath=tmp_path)
    assert_one_line_error(result, 2, "importing needs_missing_dep failed", "no_such_dependency_xyz")


def test_file_that_fails_to_import_is_a_usage_error(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("raise RuntimeError('boom at import')\n\ndef f(x):\n    return x\n")
    result = run_cli("show", f"{path}::f")
    assert_one_line_error(result, 2, "RuntimeError: boom at import")


def test_unsupported_syntax_is_a_conversion_error_with_location(package):
    result = run_cli("show", "cli_sample_pkg.model:numbers", pythonpath=package)
    model = package / "cli_sample_pkg" / "model.py"
    yield_line = model.read_text().splitlines().index("        yield i") + 1
    assert_one_line_error(result, 1, f"{model}:{yield_line}:", "yield")


def test_unsupported_syntax_in_a_file_target(tmp_path):
    path = tmp_path / "gen.py"
    path.write_text("def gen(x):\n    yield x\n")
    result = run_cli("show", "--diff", f"{path}::gen")
    assert_one_line_error(result, 1, f"{path}:2:", "generator")


@pytest.mark.parametrize("arguments", [["--help"], ["show", "--help"]])
def test_help_exits_zero_and_documents_exit_codes(arguments):
    result = run_cli(*arguments)
    assert result.returncode == 0, result.stderr
    assert "exit codes:" in result.stdout
    assert "examples/quickstart.py::conditional_double" in result.stdout
    for code in ("0  success", "1  the function cannot be converted", "2  usage error"):
        assert code in result.stdout


def test_no_command_is_a_usage_error():
    result = run_cli()
    assert result.returncode == 2
    assert "usage: autograph-lite" in result.stderr


SCRIPT = Path(sys.executable).parent / "autograph-lite"


@pytest.mark.skipif(not SCRIPT.exists(), reason="the console script is installed by `pip install -e .`")
def test_console_script_runs_the_same_command():
    result = subprocess.run(
        [str(SCRIPT), "show", "examples/quickstart.py::soft_sign"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "_ag.if_exp(x >= 0, lambda: x, lambda: -x)" in result.stdout


# --- colour -------------------------------------------------------------------------------------

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.mark.parametrize("extra", [[], ["--diff"]])
def test_color_always_adds_ansi_codes_over_the_same_text(extra):
    plain = run_cli("show", *extra, f"{QUICKSTART}::piecewise")
    coloured = run_cli("show", *extra, "--color", "always", f"{QUICKSTART}::piecewise")
    assert plain.returncode == coloured.returncode == 0
    assert not ANSI.search(plain.stdout)  # not a terminal: auto means no colour
    assert ANSI.search(coloured.stdout)
    assert ANSI.sub("", coloured.stdout) == plain.stdout


def test_color_auto_colours_a_terminal_unless_no_color(monkeypatch, capsys):
    from autograph_lite import cli

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert cli.main(["show", f"{QUICKSTART}::piecewise"]) == 0
    assert ANSI.search(capsys.readouterr().out)
    monkeypatch.setenv("NO_COLOR", "1")
    assert cli.main(["show", f"{QUICKSTART}::piecewise"]) == 0
    assert not ANSI.search(capsys.readouterr().out)
    assert cli.main(["show", "--color", "never", f"{QUICKSTART}::piecewise"]) == 0
    assert not ANSI.search(capsys.readouterr().out)


def test_color_always_without_pygments_is_a_usage_error(tmp_path):
    blocker = tmp_path / "pygments.py"
    blocker.write_text("raise ImportError('pygments is not installed here')\n")
    result = run_cli("show", "--color", "always", f"{QUICKSTART}::piecewise", pythonpath=tmp_path)
    assert_one_line_error(result, 2, "--color always needs Pygments", "autograph-lite[cli]")
    assert run_cli("show", f"{QUICKSTART}::piecewise", pythonpath=tmp_path).returncode == 0

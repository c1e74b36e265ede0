"""The ``autograph-lite`` command line, run as a user runs it: in a subprocess, checking output and exit codes."""

from __future__ import annotations

import importlib.util
import json
import os
import pty
import re
import shlex
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
    assert "y = x * _ag.getattr(self, 'scale')" in result.stdout


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


def test_diff_of_a_decorated_function_starts_at_its_def_line(tmp_path, capsys):
    from autograph_lite import cli

    path = tmp_path / "decorated.py"
    path.write_text(textwrap.dedent("""\
        import autograph_lite


        def registered(fn):
            return fn
        @autograph_lite.jit
        # a comment between decorators
        @registered
        def f(x):
            if x > 0:
                x = x + 1
            return x
        """))
    assert cli.main(["show", "--diff", f"{path}::f"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"--- {path}:9 (original)"  # the `def` line, not the first decorator's
    assert not any(line.startswith(("-@", "+@", "-#")) for line in lines), lines
    assert " def f(x):" in lines and "-    if x > 0:" in lines


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


@pytest.mark.parametrize("arguments", [["--help"], ["show", "--help"], ["explain", "--help"]])
def test_help_exits_zero_and_documents_exit_codes(arguments):
    result = run_cli(*arguments)
    assert result.returncode == 0, result.stderr
    assert "exit codes:" in result.stdout and "\nexamples:\n" in result.stdout
    assert "examples/quickstart.py::" in result.stdout
    for code in ("0  success", "1  the function cannot be converted", "2  usage error"):
        assert code in result.stdout


def test_show_help_documents_the_colour_modes():
    text = run_cli("show", "--help").stdout
    assert "--color {auto,always,never}" in text
    for fragment in ("NO_COLOR", "stdout is a terminal", "without Pygments this is a usage error (exit code 2)"):
        assert fragment in text


def help_examples() -> list[str]:
    """Every example command line printed by the three --help texts, once each."""
    commands = []
    for arguments in (["--help"], ["show", "--help"], ["explain", "--help"]):
        text = run_cli(*arguments).stdout
        block = text.split("\nexamples:\n", 1)[1].split("\n\n", 1)[0]
        commands += [line.strip() for line in block.splitlines() if line.strip() not in commands]
    return commands


def test_every_help_example_runs():
    """The examples in --help are real: each one (bar the placeholder package) exits 0 with output."""
    commands = [c for c in help_examples() if "mypackage" not in c]
    assert len(commands) >= 6
    argument_lists = []
    for command in commands:
        words = shlex.split(command.split("|")[0])
        assert words[:1] in (["autograph-lite"], ["python"]), command
        argument_lists.append(words[1:] if words[0] == "autograph-lite" else words[3:])
    # One interpreter for all of them (JAX starts once); each call's exit code and output are checked.
    program = textwrap.dedent("""\
        import contextlib, io, json, sys
        from autograph_lite import cli
        results = []
        for arguments in json.loads(sys.argv[1]):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = cli.main(arguments)
            results.append([code, out.getvalue()])
        print(json.dumps(results))
        """)
    done = subprocess.run(
        [sys.executable, "-c", program, json.dumps(argument_lists)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    for command, (code, output) in zip(commands, json.loads(done.stdout.splitlines()[-1]), strict=True):
        assert code == 0, command
        assert output.strip(), command
        if " explain " in f" {command} ":
            assert "quickstart.py:" in output and "->" in output, command
        elif "--color always" in command:
            assert ANSI.search(output), command
        else:
            assert not ANSI.search(output) and "_ag." in output, command


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


def run_on_terminal(*arguments: str, no_color: str | None = None, pythonpath: Path | None = None) -> tuple[int, str]:
    """Run the command line with its stdout on a pseudo-terminal, as in an interactive shell."""
    env = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    if no_color is not None:
        env["NO_COLOR"] = no_color
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pythonpath), env.get("PYTHONPATH")]))
    controller, terminal = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "autograph_lite", *arguments],
            cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=terminal, stderr=subprocess.PIPE,
        )
    finally:
        os.close(terminal)
    chunks = []
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(controller)
    stderr = process.stderr.read()
    process.stderr.close()
    code = process.wait(timeout=60)
    assert not stderr, stderr
    # The terminal turns "\n" into "\r\n".
    return code, b"".join(chunks).decode().replace("\r\n", "\n")


@pytest.mark.parametrize("extra", [[], ["--diff"]])
def test_color_auto_colours_a_terminal(extra):
    plain = run_cli("show", *extra, f"{QUICKSTART}::piecewise")
    code, output = run_on_terminal("show", *extra, f"{QUICKSTART}::piecewise")
    assert code == 0
    assert ANSI.search(output)
    assert ANSI.sub("", output) == plain.stdout


@pytest.mark.parametrize(
    ("extra", "no_color", "coloured"),
    [
        ([], "1", False),  # NO_COLOR set: no colour on a terminal
        ([], "", True),  # NO_COLOR empty counts as unset (no-color.org)
        (["--color", "never"], None, False),
        (["--color", "always"], "1", True),  # an explicit flag wins over NO_COLOR
    ],
)
def test_color_on_a_terminal_follows_no_color_and_the_flag(extra, no_color, coloured):
    code, output = run_on_terminal("show", *extra, f"{QUICKSTART}::piecewise", no_color=no_color)
    assert code == 0
    assert bool(ANSI.search(output)) == coloured
    assert "_ag.if_stmt(" in ANSI.sub("", output)


def test_color_diff_highlights_removed_and_added_lines():
    coloured = run_cli("show", "--diff", "--color", "always", f"{QUICKSTART}::conditional_double").stdout
    lines = coloured.splitlines()
    removed = next(line for line in lines if ANSI.sub("", line) == "-    if x > threshold:")
    added = next(line for line in lines if ANSI.sub("", line).startswith("+") and "_ag.if_stmt(" in line)
    context = next(line for line in lines if ANSI.sub("", line) == " def conditional_double(x, threshold):")
    # The diff lexer colours a whole deleted or inserted line, each in its own colour; the text of a
    # context line carries neither colour.
    removed_colour, added_colour = ANSI.match(removed).group(), ANSI.match(added).group()
    assert removed_colour != added_colour
    assert removed_colour not in context and added_colour not in context
    assert "def conditional_double(x, threshold):" in context


def test_color_always_on_an_empty_diff_prints_nothing(tmp_path, capsys):
    from autograph_lite import cli

    path = tmp_path / "nothing_to_convert.py"
    path.write_text("def f(x):\n    return x + 1\n")
    for colour in ("never", "always"):
        assert cli.main(["show", "--diff", "--color", colour, f"{path}::f"]) == 0
        assert capsys.readouterr().out == ""


def test_color_always_keeps_leading_and_trailing_blank_lines():
    from autograph_lite import cli

    text = "\n\ndef f(x):\n    return x\n\n"
    coloured = cli._coloured(text, "python", "always")
    assert ANSI.search(coloured)
    assert ANSI.sub("", coloured) == text


def test_color_always_without_pygments_is_a_usage_error(tmp_path):
    blocker = tmp_path / "pygments.py"
    blocker.write_text("raise ImportError('pygments is not installed here')\n")
    result = run_cli("show", "--color", "always", f"{QUICKSTART}::piecewise", pythonpath=tmp_path)
    assert_one_line_error(result, 2, "--color always needs Pygments", "autograph-lite[cli]")
    # auto, even on a terminal, falls back to plain text.
    code, output = run_on_terminal("show", f"{QUICKSTART}::piecewise", pythonpath=tmp_path)
    assert code == 0
    assert "_ag.if_stmt(" in output and not ANSI.search(output)

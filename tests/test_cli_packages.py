"""``autograph-lite`` targets inside packages, nested functions, library code, and ``explain``'s usage errors.

Most tests call ``cli.main`` in this process (JAX starts once) on packages built in ``tmp_path`` under
names of their own; a fixture gives ``sys.path`` and ``sys.modules`` back afterwards. One test per
kind runs the real command in a subprocess, for the exit code a shell sees.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograph_lite import cli

ROOT = Path(__file__).resolve().parent.parent
_package_numbers = itertools.count()

MODEL = """\
from .helpers import scale
from . import helpers


class Model:
    def __init__(self, factor=3.0):
        self.factor = factor

    def __call__(self, x):
        if x > 0:
            y = x * scale() * self.factor
        else:
            y = -x
        return y

    def halve(self, x):
        def inner(y):
            while y > 1.0:
                y = y / helpers.TWO
            return y
        return inner(x)

    @staticmethod
    def clip(x):
        return x if x < 1.0 else 1.0


class NeedsArguments:
    def __init__(self, width, depth=2):
        self.width = width

    def __call__(self, x):
        return x * self.width


def outer(x):
    def inner(y):
        if y > 0:
            y = y + 1
        return y
    return inner(x)


def twice_defined(x, flag):
    if flag:
        def helper(y):
            return y + 1
    else:
        def helper(y):
            return y - 1
    return helper(x)


def loop_then_branch(xs, limit):
    total = xs[0] * 0
    for row in xs:
        if row.sum() > limit:
            total = total + row
    return total
"""


@pytest.fixture
def restored_imports() -> Iterator[None]:
    """Undo what importing the tmp packages does to the interpreter."""
    path, modules = list(sys.path), set(sys.modules)
    yield
    sys.path[:] = path
    for name in set(sys.modules) - modules:
        del sys.modules[name]


@pytest.fixture
def package(tmp_path: Path, restored_imports: None) -> Path:
    """``<tmp>/src/<pkg>/sub/model.py`` with relative imports; returns the package directory."""
    name = f"cli_package_{next(_package_numbers)}"
    directory = tmp_path / "src" / name
    (directory / "sub").mkdir(parents=True)
    (directory / "__init__.py").write_text("")
    (directory / "sub" / "__init__.py").write_text("")
    (directory / "sub" / "helpers.py").write_text("TWO = 2.0\n\n\ndef scale():\n    return 2.0\n")
    (directory / "sub" / "model.py").write_text(MODEL)
    return directory


def main(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = cli.main(list(arguments))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_usage_error(result: tuple[int, str, str], code: int, *fragments: str) -> None:
    returned, out, err = result
    assert returned == code, err
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("autograph-lite: error: "), err
    for fragment in fragments:
        assert fragment in err, err


def model_path(package: Path) -> str:
    return str(package / "sub" / "model.py")


def line_of(package: Path, text: str) -> int:
    return MODEL.splitlines().index(text) + 1


# --- targets inside packages -------------------------------------------------------------------


def test_file_with_relative_imports_is_imported_as_its_package_module(package, capsys):
    code, out, err = main(capsys, "show", f"{model_path(package)}::Model.__call__")
    assert code == 0, err
    assert out.startswith("def __call__(self, x):\n")
    assert "_ag.if_stmt(x > 0," in out and "_ag.call(scale)" in out
    module = sys.modules[f"{package.name}.sub.model"]  # its dotted name, found through the __init__.py files
    assert Path(module.__file__) == package / "sub" / "model.py"


def test_relative_file_path_from_the_package_parent(package, capsys, monkeypatch):
    monkeypatch.chdir(package.parent)
    code, out, err = main(capsys, "show", f"{package.name}/sub/model.py::outer")
    assert code == 0, err
    assert "def outer(x):" in out and "_ag.if_stmt(y > 0," in out


def test_package_init_file_is_the_package_itself(tmp_path, capsys, restored_imports):
    directory = tmp_path / f"cli_init_package_{next(_package_numbers)}"
    directory.mkdir()
    (directory / "helpers.py").write_text("LIMIT = 1\n")
    (directory / "__init__.py").write_text("from .helpers import LIMIT\n\n\ndef f(x):\n    while x > LIMIT:\n        x = x - 1\n    return x\n")
    code, out, err = main(capsys, "show", f"{directory / '__init__.py'}::f")
    assert code == 0, err
    assert "_ag.while_stmt(" in out
    assert directory.name in sys.modules


def test_module_name_shadowed_by_another_module_is_a_usage_error(tmp_path, capsys, restored_imports):
    directory = tmp_path / "json"  # the standard library's json comes first on sys.path
    directory.mkdir()
    (directory / "__init__.py").write_text("")
    (directory / "tool2.py").write_text("from . import other\n\ndef f(x):\n    return x\n")
    result = main(capsys, "show", f"{directory / 'tool2.py'}::f")
    assert_usage_error(result, 2, "json.tool2", "another module of that name comes first on sys.path")


def test_module_colon_qualname_uses_the_standard_resolver(package, capsys):
    sys.path.insert(0, str(package.parent))
    code, out, err = main(capsys, "show", f"{package.name}.sub.model:Model.halve")
    assert code == 0, err
    assert out.startswith("def halve(self, x):\n")


def test_malformed_module_name_is_a_usage_error(capsys):
    assert_usage_error(main(capsys, "show", "not-a-module:f"), 2, "'not-a-module' is not a module name")


# --- nested functions ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["outer.inner", "outer.<locals>.inner"])
def test_nested_function_is_shown_as_the_outer_rewrite_holds_it(package, capsys, name):
    code, out, err = main(capsys, "show", f"{model_path(package)}::{name}")
    assert code == 0, err
    _, whole, _ = main(capsys, "show", f"{model_path(package)}::outer")
    assert out.startswith("def inner(y):\n") and "_ag.if_stmt(y > 0," in out
    assert textwrap.indent(out, "    ") in whole  # exactly the def inside the outer function's rewrite


def test_nested_function_of_a_method_and_its_diff(package, capsys):
    code, out, err = main(capsys, "show", "--diff", f"{model_path(package)}::Model.halve.inner")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == f"--- {model_path(package)}:{line_of(package, '        def inner(y):')} (original)"
    assert "-    while y > 1.0:" in lines and any("_ag.while_stmt(" in line for line in lines)


def test_function_defined_twice_in_one_outer_names_the_lines_and_the_fix(package, capsys):
    result = main(capsys, "show", f"{model_path(package)}::twice_defined.helper")
    assert_usage_error(result, 2, "defines 2 functions named 'helper'", "show twice_defined")


@pytest.mark.parametrize(("name", "fragment"), [
    ("outer.nothing", "outer has no attribute or nested function 'nothing'"),
    ("outer.<locals>", "ends with <locals>"),
    ("outer.<lambda>", "no def of its own: show outer"),
])
def test_missing_nested_names_are_usage_errors(package, capsys, name, fragment):
    assert_usage_error(main(capsys, "show", f"{model_path(package)}::{name}"), 2, fragment)


# --- library code ---------------------------------------------------------------------------------


def test_show_refuses_library_code_as_convert_does(capsys):
    import jax.numpy as jnp

    import autograph_lite

    with pytest.raises(autograph_lite.ConversionError) as refused:
        autograph_lite.convert(jnp.where)
    result = main(capsys, "show", "jax.numpy:where")
    assert_usage_error(result, 1, "cannot convert 'where': its code is library code", refused.value.hint.split(":")[0])


def test_show_of_library_code_exits_1_in_a_shell():
    done = subprocess.run([sys.executable, "-m", "autograph_lite", "show", "jax.numpy:where"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "library code" in done.stderr


# --- explain: methods, usage errors ----------------------------------------------------------------


# Both explained choices have small, pure, gradient-neutral branches: selects (runtime/selects.py).
SELECTED = "lax.select_n (the condition is traced; both branches are small, pure and gradient-neutral: a select of their values)"


def test_method_is_explained_on_an_instance_made_without_arguments(package, capsys):
    code, out, err = main(capsys, "explain", f"{model_path(package)}::Model.__call__", "--args", "f32[]")
    assert code == 0, err
    assert out.startswith("Model.__call__:\n")
    assert f"model.py:{line_of(package, '        if x > 0:')}: `if` -> {SELECTED}" in out


def test_static_method_needs_no_instance(package, capsys):
    code, out, err = main(capsys, "explain", f"{model_path(package)}::Model.clip", "--args", "f32[]")
    assert code == 0, err
    clip_line = line_of(package, "        return x if x < 1.0 else 1.0")
    assert f"model.py:{clip_line}: conditional expression -> {SELECTED}" in out


def test_method_of_a_class_whose_constructor_needs_arguments_is_a_usage_error(package, capsys):
    result = main(capsys, "explain", f"{model_path(package)}::NeedsArguments.__call__", "--args", "f32[]")
    assert_usage_error(result, 2, "NeedsArguments() needs width;", "explain a function that builds one")


def test_nested_function_cannot_be_explained_alone(package, capsys):
    result = main(capsys, "explain", f"{model_path(package)}::outer.inner", "--args", "f32[]")
    assert_usage_error(result, 2, "defined inside outer", "explain outer")


@pytest.mark.parametrize(("arguments", "fragment"), [
    (["--args", "f32[3,2]"], "--args gives 1 argument, but loop_then_branch(xs, limit) cannot take them: "
                             "missing a required argument: 'limit'"),
    (["--args", "f32[3,2], f32[], 1"], "--args gives 3 arguments, but loop_then_branch(xs, limit) cannot take them"),
    ([], "--args gives 0 arguments"),
    (["--args", "f32[3"], "cannot read argument 'f32[3'"),
    (["--args", "q9[3]"], "unknown dtype 'q9'"),
    (["--args", "f32[3,2], 1.0", "--static-argnums", "one"], "'one' is not a position"),
    (["--args", "f32[3,2], 1.0", "--static-argnums", "2"], "position 2 names no argument: --args gives 2"),
    (["--args", "f32[3,2], 1.0", "--static-argnums", "0"], "argument 0 is an array type (float32[3,2])"),
    (["--args", "f32[3,2], [1.0]", "--static-argnums", "1"], "is not hashable"),
])
def test_explain_usage_errors_exit_2_on_one_line(package, capsys, arguments, fragment):
    result = main(capsys, "explain", f"{model_path(package)}::loop_then_branch", *arguments)
    assert_usage_error(result, 2, fragment)


def test_negative_static_position_counts_from_the_end(package, capsys):
    code, out, err = main(capsys, "explain", f"{model_path(package)}::loop_then_branch",
                          "--args", "f32[3,2], 1.0", "--static-argnums", "-1")
    assert code == 0, err
    assert "lax.scan" in out


def test_explain_usage_error_exits_2_without_a_traceback_in_a_shell(package):
    done = subprocess.run(
        [sys.executable, "-m", "autograph_lite", "explain", f"{model_path(package)}::loop_then_branch", "--args", "f32[3]"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env=dict(os.environ),
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "missing a required argument: 'limit'" in done.stderr


def test_explain_lists_statements_in_source_order(package, capsys):
    code, out, err = main(capsys, "explain", f"{model_path(package)}::loop_then_branch", "--args", "f32[3,2], f32[]")
    assert code == 0, err
    loop, branch = line_of(package, "    for row in xs:"), line_of(package, "        if row.sum() > limit:")
    assert out.index(f"model.py:{loop}: `for` loop") < out.index(f"model.py:{branch}: `if`")


def test_explain_of_library_code_is_a_conversion_error(capsys):
    result = main(capsys, "explain", "jax.numpy:where", "--args", "bool[3], f32[3], f32[3]")
    assert_usage_error(result, 1, "cannot convert 'where': its code is library code")


def test_show_still_sees_through_a_plain_jax_jit(tmp_path, capsys, restored_imports):
    path = tmp_path / "plain_jit.py"
    path.write_text("import jax\n\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        x = x + 1\n    return x\n")
    code, out, err = main(capsys, "show", f"{path}::f")
    assert code == 0, err
    assert out.startswith("def f(x):\n") and "_ag.if_stmt(x > 0," in out

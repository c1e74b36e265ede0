"""The package as users get it: a wheel built from the checkout, installed away from it, working.

The wheel is built once per session with ``python -m build`` (in build isolation, so it uses the
setuptools that pyproject.toml asks for) and installed with ``pip --target`` into a temporary
directory. The checks then run in a fresh interpreter whose working directory is elsewhere, so
that the checkout cannot be what gets imported.
"""

from __future__ import annotations

import email
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import autograph_lite

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=600,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (path,) = out.glob("autograph_lite-*.whl")
    return path


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(wheel)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return target


def run_installed(target: Path, cwd: Path, *command: str) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=str(target))
    return subprocess.run(command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=300)


def test_the_wheel_holds_the_package_and_nothing_else(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    for module in ("autograph_lite/runtime/loops.py", "autograph_lite/passes/conditionals.py",
                   "autograph_lite/analysis/liveness.py", "autograph_lite/cli.py", "autograph_lite/__main__.py"):
        assert module in names
    top_level = {name.split("/")[0] for name in names}
    assert top_level == {"autograph_lite", f"autograph_lite-{autograph_lite.__version__}.dist-info"}


def test_the_wheel_metadata_names_version_dependencies_and_script(wheel):
    archive = zipfile.ZipFile(wheel)
    info = f"autograph_lite-{autograph_lite.__version__}.dist-info"
    metadata = email.message_from_string(archive.read(f"{info}/METADATA").decode())
    assert metadata["Version"] == autograph_lite.__version__
    requirements = " ".join(metadata.get_all("Requires-Dist"))
    assert "jax" in requirements and "gast" in requirements
    entry_points = archive.read(f"{info}/entry_points.txt").decode()
    assert "autograph-lite = autograph_lite.cli:main" in entry_points


def test_the_installed_package_converts_and_runs(installed, tmp_path):
    program = (
        "import autograph_lite, jax.numpy as jnp\n"
        "@autograph_lite.jit\n"
        "def f(x):\n"
        "    if x > 0:\n"
        "        return x * 2\n"
        "    return -x\n"
        "print(autograph_lite.__file__)\n"
        "print(autograph_lite.__version__, float(f(jnp.float32(3.0))), float(f(jnp.float32(-4.0))))\n"
    )
    (tmp_path / "program.py").write_text(program)
    done = run_installed(installed, tmp_path, sys.executable, "program.py")
    assert done.returncode == 0, done.stderr
    location, values = done.stdout.splitlines()
    assert Path(location).is_relative_to(installed)
    assert values == f"{autograph_lite.__version__} 6.0 4.0"


def test_the_installed_command_line_works(installed, tmp_path):
    (tmp_path / "shown.py").write_text("def g(x):\n    while x > 1:\n        x = x / 2\n    return x\n")
    script = installed / "bin" / "autograph-lite"
    for command in ([str(script), "show", "shown.py::g"], [sys.executable, "-m", "autograph_lite", "show", "shown.py::g"]):
        done = run_installed(installed, tmp_path, *command)
        assert done.returncode == 0, done.stderr
        assert "_ag.while_stmt" in done.stdout
    assert run_installed(installed, tmp_path, str(script), "show", "shown.py::missing").returncode == 2

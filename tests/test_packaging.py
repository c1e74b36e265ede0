"""The package as users get it: a wheel built from a clean copy of the checkout, installed away from it.

The wheel is built once per module with ``python -m build --wheel`` from a copy of the files git
tracks or would track (so a stale ``build/lib`` or egg-info in the checkout cannot leak into it, and
the checkout is not written to), then installed with ``pip install --no-deps --target`` into a
temporary directory. The checks run in a fresh interpreter whose working directory is elsewhere,
so that the checkout cannot be what gets imported.

pyproject.toml asks for setuptools>=77 (the SPDX ``license`` string). When this interpreter has
it, the build runs with ``--no-isolation`` (offline); otherwise ``build`` makes an isolated
environment and pip downloads setuptools into it (from PyPI, or pip's cache).
"""

from __future__ import annotations

import email
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import autograph_lite

ROOT = Path(__file__).resolve().parent.parent


PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
GENERATED = shutil.ignore_patterns(".git", ".venv", "build", "dist", "site", "*.egg-info", "__pycache__",
                                   ".pytest_cache", ".hypothesis")


def clean_copy(destination: Path) -> Path:
    """The checkout's source files (tracked, or untracked and not ignored) copied to ``destination``."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True)
    if listed.returncode != 0:  # not a git checkout (an unpacked sdist): leave out what builds produce
        shutil.copytree(ROOT, destination, ignore=GENERATED)
        return destination
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_file():  # a deleted but still tracked file is listed too
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    return destination


def has_setuptools_77() -> bool:
    try:
        return int(importlib.metadata.version("setuptools").split(".")[0]) >= 77
    except importlib.metadata.PackageNotFoundError:
        return False


def test_version_is_the_one_in_pyproject():
    assert autograph_lite.__version__ == PYPROJECT["project"]["version"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    source = clean_copy(tmp_path_factory.mktemp("checkout"))
    assert (source / "pyproject.toml").is_file() and not (source / "build").exists()
    out = tmp_path_factory.mktemp("dist")
    isolation = ["--no-isolation"] if has_setuptools_77() else []
    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", *isolation, "--outdir", str(out), str(source)],
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
    # Every module of the package, subpackages included, and no other Python file under it.
    modules = {path.relative_to(ROOT).as_posix() for path in (ROOT / "autograph_lite").rglob("*.py")}
    assert {name for name in names if name.endswith(".py")} == modules
    for module in ("autograph_lite/runtime/loops.py", "autograph_lite/passes/conditionals.py",
                   "autograph_lite/analysis/liveness.py", "autograph_lite/cli.py", "autograph_lite/__main__.py"):
        assert module in names
    top_level = {name.split("/")[0] for name in names}
    assert top_level == {"autograph_lite", f"autograph_lite-{autograph_lite.__version__}.dist-info"}


def test_the_wheel_metadata_names_version_dependencies_and_script(wheel):
    archive = zipfile.ZipFile(wheel)
    info = f"autograph_lite-{autograph_lite.__version__}.dist-info"
    metadata = email.message_from_string(archive.read(f"{info}/METADATA").decode())
    assert metadata["Name"] == PYPROJECT["project"]["name"]
    assert metadata["Version"] == autograph_lite.__version__ == PYPROJECT["project"]["version"]
    requirements = metadata.get_all("Requires-Dist")
    unconditional = {r.split(";")[0].replace(" ", "") for r in requirements if "extra ==" not in r}
    assert unconditional == {d.replace(" ", "") for d in PYPROJECT["project"]["dependencies"]}
    assert any(r.startswith("jax") for r in unconditional) and any(r.startswith("gast") for r in unconditional)
    assert any(r.startswith("pygments") and 'extra == "cli"' in r for r in requirements)
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
    assert script.is_file()
    for launcher in ([str(script)], [sys.executable, "-m", "autograph_lite"]):
        done = run_installed(installed, tmp_path, *launcher, "show", "shown.py::g")
        assert done.returncode == 0, done.stderr
        assert "_ag.while_stmt" in done.stdout
        helped = run_installed(installed, tmp_path, *launcher, "--help")
        assert helped.returncode == 0, helped.stderr
        assert helped.stdout.startswith("usage: autograph-lite") and "exit codes:" in helped.stdout
        versioned = run_installed(installed, tmp_path, *launcher, "--version")
        assert versioned.stdout.strip() == f"autograph-lite {autograph_lite.__version__}"
        missing = run_installed(installed, tmp_path, *launcher, "show", "shown.py::missing")
        assert missing.returncode == 2 and "no attribute 'missing'" in missing.stderr

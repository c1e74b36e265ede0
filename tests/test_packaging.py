"""The package as users get it: an sdist and a wheel built from a clean copy of the checkout, the
wheel installed in a fresh virtual environment away from it.

``python -m build`` runs once per module on a copy of the files git tracks or would track (so a stale
``build/lib`` or egg-info in the checkout cannot leak into it, and the checkout is not written to): it
makes the sdist, then the wheel from the unpacked sdist, so the sdist is known to be complete. The
wheel goes into a new venv with ``pip --python VENV install --no-deps``; the venv reaches its
dependencies (jax, gast, and pytest / mypy for the checks) through a ``.pth`` file naming this
interpreter's site-packages, whose own ``.pth`` files (the checkout's editable install) are not read,
so the only ``autograph_lite`` it can import is the wheel's. The checks run with that venv's
interpreter, from a working directory elsewhere: a user's program and command line, mypy on a user's
file (which needs ``py.typed``), and the sdist's own tests, collected and partly run against the
installed package.

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
import sysconfig
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest
from test_typing import USER_CODE, run_mypy, shared_mypy_cache

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
def source(tmp_path_factory) -> Path:
    """The copy of the checkout that the sdist is built from."""
    return clean_copy(tmp_path_factory.mktemp("checkout"))


@pytest.fixture(scope="module")
def dist(source, tmp_path_factory) -> Path:
    """The folder holding the sdist and the wheel built from it."""
    assert (source / "pyproject.toml").is_file() and not (source / "build").exists()
    out = tmp_path_factory.mktemp("dist")
    isolation = ["--no-isolation"] if has_setuptools_77() else []
    built = subprocess.run(
        [sys.executable, "-m", "build", *isolation, "--outdir", str(out), str(source)],
        capture_output=True, text=True, timeout=600,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def wheel(dist) -> Path:
    (path,) = dist.glob("autograph_lite-*.whl")
    return path


@pytest.fixture(scope="module")
def sdist(dist) -> Path:
    (path,) = dist.glob("autograph_lite-*.tar.gz")
    return path


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A new venv (the returned folder) with the wheel installed in it and nothing else of its own."""
    venv = tmp_path_factory.mktemp("venv")
    made = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    python = venv_python(venv)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", str(wheel)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    site_packages = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   capture_output=True, text=True).stdout.strip()
    (Path(site_packages) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def run_installed(venv: Path, cwd: Path, *command: str) -> subprocess.CompletedProcess:
    """``command`` run from ``cwd``; a command starting with "python" runs the venv's interpreter."""
    if command[0] == "python":
        command = (str(venv_python(venv)), *command[1:])
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
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
    done = run_installed(installed, tmp_path, "python", "program.py")
    assert done.returncode == 0, done.stderr
    location, values = done.stdout.splitlines()
    assert Path(location).is_relative_to(installed)
    assert values == f"{autograph_lite.__version__} 6.0 4.0"


def test_the_installed_command_line_works(installed, tmp_path):
    (tmp_path / "shown.py").write_text("def g(x):\n    while x > 1:\n        x = x / 2\n    return x\n")
    script = installed / "bin" / "autograph-lite"
    assert script.is_file()
    for launcher in ([str(script)], ["python", "-m", "autograph_lite"]):
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


def test_the_wheel_holds_the_license_and_the_type_marker(wheel):
    archive = zipfile.ZipFile(wheel)
    info = f"autograph_lite-{autograph_lite.__version__}.dist-info"
    assert archive.read(f"{info}/licenses/LICENSE") == (ROOT / "LICENSE").read_bytes()
    assert b"Apache License" in archive.read(f"{info}/licenses/LICENSE")
    assert "autograph_lite/py.typed" in archive.namelist()  # PEP 561: type checkers read the annotations
    metadata = email.message_from_string(archive.read(f"{info}/METADATA").decode())
    assert metadata["License-Expression"] == "Apache-2.0" and metadata["License-File"] == "LICENSE"


def test_the_wheel_metadata_is_ready_for_an_index(wheel):
    info = f"autograph_lite-{autograph_lite.__version__}.dist-info"
    metadata = email.message_from_string(zipfile.ZipFile(wheel).read(f"{info}/METADATA").decode())
    project = PYPROJECT["project"]
    assert metadata.get_all("Classifier") == project["classifiers"]
    assert "Typing :: Typed" in project["classifiers"]
    assert metadata["Keywords"].split(",") == project["keywords"]
    urls = {entry.split(", ", 1)[0]: entry.split(", ", 1)[1] for entry in metadata.get_all("Project-URL")}
    assert urls == project["urls"] and {"Source", "Documentation", "Issues"} <= set(urls)
    # The long description is the README: it starts with the pip install line, then a usage example;
    # the contributors' `make` set-up comes later.
    assert metadata["Description-Content-Type"] == "text/markdown"
    description = metadata.get_payload()
    assert description.strip() == (ROOT / "README.md").read_text().strip()
    first_block = description.split("```")[1]
    assert first_block.startswith("sh\npip install autograph-lite")
    assert description.index("```python\n") < description.index("@autograph_lite.jit") < description.index("make test")


def test_the_sdist_holds_the_license_and_everything_the_tests_read(sdist, source):
    names = tarfile.open(sdist).getnames()
    prefix = f"autograph_lite-{autograph_lite.__version__}/"
    files = {name.removeprefix(prefix) for name in names}
    for folder in ("tests", "examples", "bench", "autograph_lite"):
        expected = {path.relative_to(source).as_posix() for path in (source / folder).rglob("*") if path.is_file()}
        assert {name for name in files if name.startswith(f"{folder}/")} >= expected, folder
    assert {"LICENSE", "README.md", "pyproject.toml", "tests/conftest.py", "tests/support.py"} <= files
    assert not [name for name in files if "__pycache__" in name or name.endswith(".pyc") or "bench/results" in name]


def test_the_sdists_tests_collect_and_pass_against_the_installed_package(sdist, installed, tmp_path):
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path, filter="data")
    (unpacked,) = tmp_path.glob("autograph_lite-*")
    # The tests import bench/ and examples/ from the sdist's root, which pytest puts on sys.path; without
    # the package's source there, `import autograph_lite` finds the venv's copy.
    shutil.rmtree(unpacked / "autograph_lite")
    (unpacked / "tests" / "test_installed_location.py").write_text(
        "from pathlib import Path\nimport autograph_lite\n\n"
        "def test_the_package_is_the_installed_one():\n"
        f"    assert Path(autograph_lite.__file__).is_relative_to({str(installed)!r})\n"
    )
    pytest_command = ("python", "-m", "pytest", "-q", "-p", "no:cacheprovider")
    collected = run_installed(installed, unpacked, *pytest_command, "--collect-only")
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-3000:]
    modules = {line.split("::")[0] for line in collected.stdout.splitlines() if "::" in line}
    assert modules == {path.relative_to(unpacked).as_posix() for path in (unpacked / "tests").glob("test_*.py")}
    ran = run_installed(installed, unpacked, *pytest_command, "tests/test_smoke.py", "tests/test_installed_location.py")
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert " passed" in ran.stdout and "failed" not in ran.stdout and "skipped" not in ran.stdout


def test_a_users_module_type_checks_against_the_installed_package(installed, tmp_path, tmp_path_factory):
    """mypy --strict on a user's file, the package found only in the venv: no error (py.typed is read),
    and a wrong argument to a jitted function is reported."""
    shutil.copy(USER_CODE, tmp_path / "user_code.py")
    (tmp_path / "misuse.py").write_text("from user_code import conditional_double\n\nconditional_double('three', 1.0)\n")
    done = run_mypy([tmp_path / "user_code.py", tmp_path / "misuse.py"], tmp_path, shared_mypy_cache(tmp_path_factory),
                    "--python-executable", str(venv_python(installed)))
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, done.stdout + done.stderr
    assert errors[0].startswith("misuse.py:3: error:") and errors[0].endswith("[arg-type]"), errors

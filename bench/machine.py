"""What the numbers were measured on: they mean little without the machine, versions and commit."""

from __future__ import annotations

import os
import pathlib
import platform
import subprocess

import jax

import autograph_lite

_ROOT = pathlib.Path(__file__).resolve().parent.parent


def describe() -> dict:
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "jax": jax.__version__,
        "backend": jax.default_backend(),
        "device": jax.devices()[0].device_kind,
        "autograph_lite": autograph_lite.__version__,
        "commit": _git("rev-parse", "--short", "HEAD"),
        # Uncommitted edits of the converter change what is measured: name them.
        "uncommitted_changes": [line[3:] for line in _git("status", "--porcelain", "--", "autograph_lite").splitlines()],
    }


def _cpu_model() -> str:
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _git(*args: str) -> str:
    try:
        return subprocess.run(
            ["git", *args], cwd=_ROOT, capture_output=True, text=True, check=True
        ).stdout.rstrip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"

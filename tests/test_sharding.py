"""Converted functions across eight host CPU devices: NamedSharding inputs under jit, and shard_map.

JAX fixes the number of host devices when it starts, and this process already started it with one;
so the checks (tests/sharding_checks.py) run in a fresh interpreter with the device count forced.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CHECKS = Path(__file__).with_name("sharding_checks.py")


def test_converted_functions_on_eight_devices_agree_with_eager_python():
    environment = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8", JAX_PLATFORMS="cpu")
    finished = subprocess.run(
        [sys.executable, str(CHECKS)], env=environment, capture_output=True, text=True, timeout=300,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert "sharding checks passed: 9 on 8 devices" in finished.stdout

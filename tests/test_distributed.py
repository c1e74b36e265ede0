"""Converted code under JAX's multi-controller runtime: two CPU processes on loopback.

Nothing in autograph_lite knows about processes: the converted function stages the same ``lax``
control flow as in one process, and JAX runs it on a global array whose rows live in two processes.
This test checks that claim end to end: two worker processes join one ``jax.distributed`` job (the
gloo CPU collectives), build a globally sharded array from their own rows, run a converted function
with a traced ``while``, a traced ``if`` and a staged ``for`` over rows under ``autograph_lite.jit``,
and must both print what eager Python computes on the whole array in this process.

Bounded: every wait has a timeout, and both workers are killed (and reaped) whatever happens.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import jax.numpy as jnp
import numpy as np
from support import assert_same, load_source, primitives

import autograph_lite

WORKER_TIMEOUT_S = 240

# The user's function, as a user writes it; the workers and this process load the same text.
PROGRAM = '''
import jax.numpy as jnp


def damped_row_sum(xs, limit):
    total = jnp.sum(xs)
    scale = 1.0
    while jnp.abs(total) * scale > limit:
        scale = scale * 0.5
    if total > 0:
        ys = xs * scale
    else:
        ys = -xs * scale
    acc = jnp.zeros(xs.shape[1])
    for row in ys:
        acc = acc + jnp.tanh(row)
    return acc, scale
'''

WORKER = '''
import json
import sys

import jax

jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_cpu_collectives_implementation", "gloo")
port, process_id = sys.argv[1], int(sys.argv[2])
jax.distributed.initialize(coordinator_address=f"127.0.0.1:{port}", num_processes=2,
                           process_id=process_id, initialization_timeout=120)

import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

import autograph_lite
import program

assert jax.process_count() == 2 and len(jax.devices()) == 2, (jax.process_count(), jax.devices())
data = np.load(sys.argv[3])
mesh = Mesh(np.array(jax.devices()), ("rows",))
rows = NamedSharding(mesh, PartitionSpec("rows"))
local = data[process_id * 4:(process_id + 1) * 4]  # this process's half of the rows
xs = jax.make_array_from_process_local_data(rows, local, data.shape)
assert not xs.is_fully_addressable
replicated = NamedSharding(mesh, PartitionSpec())
converted = autograph_lite.jit(program.damped_row_sum, out_shardings=replicated)
acc, scale = converted(xs, np.float32(sys.argv[4]))
print("RESULT " + json.dumps({"acc": np.asarray(acc).tolist(), "scale": float(scale)}), flush=True)
jax.distributed.shutdown()
'''


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _run_workers(directory: Path, data: np.ndarray, limit: float) -> list[dict]:
    """Start both workers, wait for both (bounded), return their results; kill both on any failure."""
    (directory / "program.py").write_text(textwrap.dedent(PROGRAM))
    (directory / "worker.py").write_text(textwrap.dedent(WORKER))
    np.save(directory / "data.npy", data)
    environment = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": str(directory)}
    environment.pop("XLA_FLAGS", None)  # one CPU device per process, whatever the caller set
    port = _free_port()
    workers = [
        subprocess.Popen([sys.executable, str(directory / "worker.py"), str(port), str(i),
                          str(directory / "data.npy"), str(limit)],
                         cwd=directory, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for i in range(2)
    ]
    outputs = []
    try:
        for i, worker in enumerate(workers):
            try:
                output, _ = worker.communicate(timeout=WORKER_TIMEOUT_S)
            except subprocess.TimeoutExpired as timeout:
                raise AssertionError(f"worker {i} did not finish in {WORKER_TIMEOUT_S} s: "
                                     f"jax.distributed on loopback with gloo hung or is unavailable here") from timeout
            assert worker.returncode == 0, f"worker {i} failed (exit {worker.returncode}):\n{output[-4000:]}"
            outputs.append(output)
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
            worker.communicate()
    results = []
    for i, output in enumerate(outputs):
        lines = [line for line in output.splitlines() if line.startswith("RESULT ")]
        assert len(lines) == 1, f"worker {i} printed no result:\n{output[-4000:]}"
        results.append(json.loads(lines[0][len("RESULT "):]))
    return results


def test_two_processes_get_the_single_process_result(tmp_path):
    data = np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32) + 0.5
    limit = 0.75
    function = load_source(PROGRAM, tmp_path, "expected_program").damped_row_sum
    expected = function(jnp.asarray(data), jnp.float32(limit))
    assert float(expected[1]) < 1.0, "the while loop must run at least once for the test to mean anything"
    staged = primitives(autograph_lite.convert(function), jnp.asarray(data), jnp.float32(limit))
    assert {"while", "cond", "scan"} <= staged, f"the workers would not run staged control flow: {staged}"
    work = tmp_path / "workers"
    work.mkdir()
    for process_id, result in enumerate(_run_workers(work, data, limit)):
        assert_same((np.asarray(result["acc"], np.float32), np.float32(result["scale"])), expected,
                    what=f"process {process_id}")

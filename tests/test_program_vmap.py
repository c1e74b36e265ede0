"""The generator's ``vmap`` check (program_vmap.py): each lane of ``jit(vmap(convert(f)))`` against eager."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from program_check import check_function
from support import load_source

BRANCHES = """
def f(a, n):
    s = a * 0.0
    for i in range(n):
        if a[i % 3] > 0:
            s = s + a
        else:
            break
    return s
"""

# Knows when it runs batched (a test of the checker, not a program anyone writes): eager and jit agree,
# the vmapped lanes do not.
BATCH_AWARE = """
def f(a):
    if type(a).__name__ == "BatchTracer":
        return a + 1.0
    return a
"""

INPUTS = [(np.array([1.0, 2.0, -1.0], np.float32), np.int32(4)), (np.array([-1.0, 2.0, 3.0], np.float32), np.int32(2))]


def test_lanes_that_agree_with_eager(tmp_path):
    module = load_source(BRANCHES, tmp_path)
    assert check_function(module.f, INPUTS, vmapped=True).kind == "agree"


def test_a_lane_that_differs_is_a_vmap_mismatch(tmp_path):
    module = load_source(BATCH_AWARE, tmp_path)
    inputs = [(np.array([1.0, 2.0], np.float32),), (np.array([0.5, 0.0], np.float32),)]
    assert check_function(module.f, inputs).kind == "agree"
    outcome = check_function(module.f, inputs, vmapped=True)
    assert (outcome.kind, outcome.detail, outcome.mode) == ("mismatch", "vmap", "jit[vmap]")
    assert np.allclose(outcome.converted, jnp.array([2.0, 3.0]))

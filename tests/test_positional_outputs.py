"""NumPy writing a result into an output passed by position, in a helper called from a staged loop.

``BUF.cumsum(0, None, BUF)`` writes ``BUF`` as ``BUF.cumsum(out=BUF)`` does; only the keyword form (and a
ufunc's outputs by position) was checked, so in a loop that ``static_loops="auto"`` stages as a scan
the helper wrote ``BUF`` once while tracing (``jit`` 12.0 for eager's 21.0, silently). Every array
method with an ``out`` parameter, reached bound or through ``np.ndarray``, and every NumPy function
taking ``out`` by position (``np.cumsum(a, 0, None, BUF)``) is now checked: the loop runs as Python,
or a staged one is refused at the call.
"""

from __future__ import annotations

import inspect

import jax.numpy as jnp
import numpy as np
import pytest
from support import assert_equivalent, assert_summed_in_a_scan, conversion_error

from autograph_lite.runtime import library_mutators

BUF = np.zeros(3)
GRID = np.ones((2, 3))

# Each writes BUF (or its first item) with a value that changes from call to call.


def write_cumsum():
    BUF.cumsum(0, None, BUF)


def write_cumprod():
    (BUF + 1.0).cumprod(0, None, BUF)


def write_sum():
    (GRID + BUF).sum(0, None, BUF)


def write_prod():
    (GRID + BUF).prod(0, None, BUF)


def write_mean():
    (GRID + BUF + 1.0).mean(0, None, BUF)


def write_max():
    (GRID + BUF + 1.0).max(0, BUF)


def write_min():
    (GRID + BUF + 1.0).min(0, BUF)


def write_clip():
    (BUF + 1.0).clip(0.0, 100.0, BUF)


def write_round():
    (BUF + 1.25).round(0, BUF)


def write_take():
    (BUF + 1.0).take([0, 1, 2], 0, BUF)


def write_dot():
    np.eye(3).dot(BUF + 1.0, BUF)


def write_conj():
    (BUF + 1.0).conj(BUF)


def write_std():
    np.stack([BUF, 2.0 * BUF + 1.0]).std(0, None, BUF)


def write_unbound():
    np.ndarray.cumsum(BUF, 0, None, BUF)


def write_np_cumsum():
    np.cumsum(BUF, 0, None, BUF)


def write_np_clip():
    np.clip(BUF + 1.0, 0.0, 100.0, BUF)


def write_np_sum():
    np.sum(GRID + BUF, 0, None, BUF)


WRITES = {name[len('write_'):]: function for name, function in dict(globals()).items() if name.startswith('write_')}


def _summing_loop(write):
    def helper(v):
        write()
        return v

    def sums(xs):
        BUF[:] = 1.0
        t = 0.0
        for x in xs:
            t = t + helper(x)
        return t + BUF[0] + BUF[2]

    return sums


@pytest.mark.parametrize("name", WRITES)
def test_an_output_by_position_is_written_once_per_iteration(name):
    sums = _summing_loop(WRITES[name])
    eager = float(sums(jnp.arange(4.0)))
    assert_equivalent(sums, jnp.arange(4.0))
    assert float(sums(jnp.arange(4.0))) == eager


def helper_cumsum(v):
    BUF.cumsum(0, None, BUF)
    return v


def traced_cumsum(x, n):
    for i in range(n):
        x = x + helper_cumsum(x)
    return x


def test_an_output_by_position_in_a_staged_loop_is_refused_at_the_call():
    error = conversion_error(traced_cumsum, jnp.float32(1.0), jnp.int32(3))
    assert "ndarray.cumsum" in error and "NumPy array" in error


def reads_numpy(x):
    """NumPy called without an output (np.sum now goes through the runtime, which checks its arguments)."""
    return x + float(np.sum(GRID, 0)[0]) + float(GRID.sum(0, None)[1]) + float(np.clip(GRID, 0.0, 0.5)[0, 0])


def test_numpy_without_an_output_stays_staged():
    assert_summed_in_a_scan(reads_numpy, jnp.arange(3.0))


def test_every_array_method_with_an_output_is_known():
    """The positions match NumPy's functions of the same name (which take the array first), so a method
    that NumPy gives an ``out`` parameter is not missed."""
    for name in dir(np.ndarray):
        function = getattr(np, name, None)
        if name.startswith("_") or function is None or isinstance(function, np.ufunc):
            continue
        parameters = list(inspect.signature(function).parameters)
        if "out" in parameters:
            assert library_mutators._METHOD_OUT_POSITIONS.get(name) == parameters.index("out") - 1, name

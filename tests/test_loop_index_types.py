"""A staged loop's index has the type of eager's: a Python int, weakly typed under ``jit``.

``range`` and ``enumerate`` give Python ints, which take the dtype of an array they meet: ``i + v_int8``
is int8 arithmetic eagerly (wrapping past 127). ``lax`` loops count in strongly typed int32, so a
strongly typed counter made that int32 arithmetic: 150 where eager has -106 (found by review; present
before the session that fixed it). Every lowering is covered: a ``scan`` over a static range (with and
without an exit, replaying the static-loop trial's trace or not), a ``while_loop`` that stops at the
exit, a ``fori_loop`` / ``while_loop`` over a traced range (with a start and a step), ``enumerate``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from support import assert_same, run_program

import autograph_lite

V = jnp.int8(100)
XS = jnp.arange(60, dtype=jnp.float32)


def last_sum(xs, v):
    out = v
    for i in range(50):
        out = i + v
    return out


def staged_last_sum(xs, v):
    out = v
    for i in autograph_lite.stage(range(50)):
        out = i + v
    return out


def first_sum_above(xs, v):  # an exit, a float carried: a masked scan
    out, best = v, 0.0
    for i in range(xs.shape[0]):
        if xs[i] > 49.5:
            out, best = i + v, xs[i]
            break
    return out, best


def first_index_above(xs, v):  # an exit, integers carried: a while_loop
    out = v
    for i in range(xs.shape[0]):
        if xs[i] > 49.5:
            out = i + v
            break
    return out


def over_traced_range(n, v):
    out = v
    for i in range(n):
        out = i + v
    return out


def over_traced_range_with_step(start, n, v):
    out = v
    for i in range(start, n, 2):
        out = i + v
    return out


def over_traced_range_with_exit(n, v):
    out = v
    for i in range(n):
        out = i + v
        if i > 40:
            break
    return out


def index_out_of_a_masked_scan(xs, v):  # the index leaves the loop, then meets the int8
    idx, best = -1, 0.0
    for i in range(xs.shape[0]):
        if xs[i] > 49.5:
            idx, best = i, xs[i]
            break
    return idx + v, best



def index_out_of_a_traced_range(n, v):
    last = -1
    for i in range(n):
        last = i
    return last + v


def enumerated(xs, v):
    out = v
    for k, x in enumerate(xs, 1):
        out = k + v
    return out


@pytest.mark.parametrize("function, args", [
    (last_sum, (XS, V)),
    (staged_last_sum, (XS, V)),
    (first_sum_above, (XS, V)),
    (first_index_above, (XS, V)),
    (over_traced_range, (jnp.int32(50), V)),
    (over_traced_range_with_step, (jnp.int32(3), jnp.int32(50), V)),
    (over_traced_range_with_exit, (jnp.int32(50), V)),
    (enumerated, (XS[:40], V)),
    (index_out_of_a_masked_scan, (XS, V)),
    (index_out_of_a_traced_range, (jnp.int32(50), V)),
])
def test_the_index_computes_in_the_dtype_it_meets_as_eagerly(function, args):
    eager_args = tuple(int(a) if a.dtype == jnp.int32 and a.ndim == 0 else a for a in args)
    expected = function(*eager_args)
    jitted = autograph_lite.jit(function)(*args)
    assert_same(jitted, expected, what=function.__name__)
    for got, want in zip(jax.tree_util.tree_leaves(jitted), jax.tree_util.tree_leaves(expected)):
        assert jnp.asarray(got).dtype == jnp.asarray(want).dtype, (function.__name__, got, want)


def test_the_index_is_weakly_typed_where_it_leaves_the_loop():
    def last_index(xs):
        last = 0
        for i in range(xs.shape[0]):
            last = i
        return last

    assert jax.typeof(autograph_lite.jit(last_index)(XS)).weak_type  # eager returns a Python int


def offset_ranges(xs, v):
    """Ranges that start elsewhere than 0 count from their start (no addition per iteration): through
    enumerate and zip, with and without an exit, the items are still eager's."""
    total = xs[0]
    for i in range(3, 20):
        total = total + i * xs[i]
    found = -1
    for i in range(5, 30):
        if xs[i] > 11.5:
            found = i
            break
    pairs = jnp.float32(0)
    for k, i in enumerate(range(2, 9)):
        pairs = pairs + k * i + xs[k]
    for i, x in zip(range(1, 6), xs):
        pairs = pairs + i * x
    return total, found + v, pairs


def test_ranges_with_a_start_give_eager_items():
    args = (XS[:40], V)
    expected, jitted = offset_ranges(*args), autograph_lite.jit(offset_ranges)(*args)
    assert_same(jitted, expected, what="offset_ranges")
    report = str(autograph_lite.explain(offset_ranges, *args))
    assert report.count("-> lax.scan") == 3 and report.count("-> lax.while_loop") == 1, report  # enumerate(range) too
    for got, want in zip(jitted, expected):
        assert jnp.asarray(got).dtype == jnp.asarray(want).dtype


X64_PROGRAM = """
import jax, jax.numpy as jnp, autograph_lite
jax.config.update("jax_enable_x64", True)
XS = jnp.arange(60.0)

def take_in_scan(xs):
    total = xs[0]
    for i in range(1, 40):
        total = total + jnp.take(xs, i)
    return total

def first_sum(xs, v):
    out = v
    for i in range(20, 55):
        if xs[i] > 30.5:
            out = i + v
            break
    return out

assert float(autograph_lite.jit(take_in_scan)(XS)) == float(take_in_scan(XS))
got, want = autograph_lite.jit(first_sum)(XS, jnp.int8(100)), first_sum(XS, jnp.int8(100))
assert int(got) == int(want) and got.dtype == want.dtype, (got, want)
print("ok")
"""


def test_the_index_follows_x64_mode(tmp_path):
    """Under ``jax_enable_x64`` a Python int is a weakly typed int64: the trial's counter must be too
    (a fixed int32 one made the scan fail to lower, found by review)."""

    run_program(tmp_path, X64_PROGRAM, "x64_program")

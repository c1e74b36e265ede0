"""A static loop whose Python ints do not fit a staged loop's index runs as Python.

A staged ``range`` / ``enumerate`` counts in the type of a Python int under ``jit``: int32 (int64 with
``jax_enable_x64``). Eager Python's ints do not wrap, so ``range(0, 2**32, 2**30)`` staged as a scan
summed -2 where eager and plain ``jax.jit`` sum 6, and ``range(2**31, 2**31 + 3)`` raised a bare
``OverflowError`` with no line of the user's. Such a loop stays Python, with the reason in ``explain``;
marked ``stage(...)``, it is a located error whose fix (``unroll(...)``) works.
"""

from __future__ import annotations

import jax.numpy as jnp
import pytest
from support import assert_equivalent, conversion_error, run_program, where
from test_loops import F32, LOOPS, staged

import autograph_lite


def blocks(x):
    acc = x
    for i in range(0, 2**32, 2**30):
        acc = acc + i // 2**30
    return acc


def past_int32_from_the_start(x):
    acc = x
    for i in range(2**31, 2**31 + 3):
        acc = acc + i % 7
    return acc


def below_int32(x):
    acc = x
    for i in range(-2**31 + 1, -2**31 - 3, -1):
        acc = acc + i % 7
    return acc


def counted_from_a_large_start(xs):
    acc = 0.0
    for i, v in enumerate(xs, start=2**31 - 1):
        acc = acc + (i % 7) * v
    return acc


def zipped_with_a_large_range(xs):
    acc = 0.0
    for i, v in zip(range(2**31 - 2, 2**31 + 1), xs):
        acc = acc + (i % 7) * v
    return acc


def up_to_int32_max(xs):
    acc = 0.0
    for i, v in enumerate(xs, start=2**31 - 3):
        acc = acc + (i % 7) * v
    return acc


def marked_stage(x):
    acc = x
    for i in autograph_lite.stage(range(0, 2**32, 2**30)):
        acc = acc + i // 2**30
    return acc


def marked_unroll(x):
    acc = x
    for i in autograph_lite.unroll(range(0, 2**32, 2**30)):
        acc = acc + i // 2**30
    return acc


XS = jnp.asarray([1.0, 2.0, 3.0], F32)


@pytest.mark.parametrize("function", [blocks, past_int32_from_the_start, below_int32])
def test_a_range_past_int32_runs_as_python(function):
    assert_equivalent(function, F32(0.5))
    assert not LOOPS & staged(function, F32(0.5))
    report = str(autograph_lite.explain(function, F32(0.5)))
    assert "-> Python loop" in report and "past the int32 of a staged loop's index" in report, report


@pytest.mark.parametrize("function", [counted_from_a_large_start, zipped_with_a_large_range])
def test_an_enumerate_or_zip_counting_past_int32_runs_as_python(function):
    assert_equivalent(function, XS)
    assert not LOOPS & staged(function, XS)


def test_a_count_that_ends_at_int32_max_is_still_staged():
    assert_equivalent(up_to_int32_max, XS)
    assert LOOPS & staged(up_to_int32_max, XS)


def test_stage_of_a_range_past_int32_is_a_located_error_whose_fix_works():
    message = conversion_error(marked_stage, F32(0.5))
    assert message.startswith(where(marked_stage, "for i in autograph_lite.stage")), message
    assert "3221225472" in message and "unroll(...)" in message
    assert_equivalent(marked_unroll, F32(0.5))  # the fix the message gives


X64_PROGRAM = """
import jax, jax.numpy as jnp, autograph_lite
jax.config.update("jax_enable_x64", True)

def blocks(x):
    acc = x
    for i in range(0, 2**32, 2**30):
        acc = acc + i // 2**30
    return acc

def past_int64(x):
    acc = x
    for i in range(2**63 - 2, 2**63 + 1):
        acc = acc + i % 7
    return acc

x = jnp.float32(0.5)
for function, primitive in ((blocks, "lax.scan"), (past_int64, "Python loop")):
    assert float(autograph_lite.jit(function)(x)) == float(function(x)), function.__name__
    assert "-> " + primitive in str(autograph_lite.explain(function, x)), function.__name__
print("ok")
"""


def test_under_x64_the_index_is_int64(tmp_path):
    """An int64 index holds 2**32 (the loop is staged); 2**63 is past it too (the loop stays Python)."""
    run_program(tmp_path, X64_PROGRAM, "x64_program")

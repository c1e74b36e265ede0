"""``for_stmt`` over ``range``, called directly with body functions written as the rewriter writes them.

The contract (runtime/loops.py): a concrete ``range`` has a static trip count, so the loop is staged as
one ``lax.scan`` or run as Python (the ``static_loops`` policy decides; either way the result is
Python's), and a ``scan`` keeps reverse-mode gradients. A ``range`` with a traced bound becomes
``lax.fori_loop``, a ``while`` primitive: forward-mode differentiation only. The range reaches the
operator as converted code builds it, through ``_ag.call(range, ...)``.
"""

from __future__ import annotations

import itertools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import assert_same, primitives

import autograph_lite
from autograph_lite.conversion import operators
from autograph_lite.errors import ConversionError, StagingTypeError

_ag = operators("auto")

REVERSE_MODE_ERROR = "Reverse-mode differentiation does not work for lax.while_loop"


def power_op(x: Any, n: Any, static_loops: str = "auto") -> Any:
    """``y = 1.0; for _ in range(n): y = y * x`` through the operators of one ``static_loops`` mode."""
    ag = operators(static_loops)
    (y,) = ag.for_stmt(ag.call(range, n), lambda i, y: (y * x,), (1.0,), ("y",))
    return y


def test_for_over_concrete_range_with_python_values_runs_as_python() -> None:
    items: list[Any] = []

    def body(i: Any, total: Any) -> tuple[Any]:
        items.append(i)
        return (total + i,)

    assert _ag.for_stmt(_ag.call(range, 2, 11, 3), body, (0,), ("total",)) == (sum(range(2, 11, 3)),)
    # "auto" first traces the body once aside, with an abstract index, to decide; then Python runs it.
    concrete = [item for item in items if not isinstance(item, jax.core.Tracer)]
    assert concrete == list(range(2, 11, 3)), "a Python loop sees each item as a Python int, in order"
    assert len(items) - len(concrete) <= 1


@pytest.mark.parametrize(("static_loops", "loop_primitive"), [("auto", "scan"), ("stage", "scan"), ("unroll", None)])
def test_for_over_concrete_range_with_traced_carry(static_loops: str, loop_primitive: str | None) -> None:
    power = jax.jit(lambda x: power_op(x, 5, static_loops))
    assert_same(power(1.5), np.float32(1.5**5), what=static_loops)
    names = primitives(lambda x: power_op(x, 5, static_loops), 1.5)
    assert ("scan" in names) == (loop_primitive == "scan") and "while" not in names


@pytest.mark.parametrize("static_loops", ["auto", "stage", "unroll"])
def test_for_over_concrete_range_keeps_reverse_mode(static_loops: str) -> None:
    for n in (0, 1, 4):
        slope = jax.grad(lambda x: power_op(x, n, static_loops))(2.0)
        assert float(slope) == n * 2.0 ** (n - 1)


def test_for_over_concrete_range_under_vmap_stays_one_scan() -> None:
    xs = jnp.array([0.5, 1.0, 2.0])
    batched = jax.vmap(lambda x: power_op(x, 3))
    assert_same(batched(xs), np.array([0.125, 1.0, 8.0], np.float32), what="vmap(for_stmt)")
    assert "scan" in primitives(batched, xs)


def count_and_sum_op(start: Any, stop: Any, step: Any) -> tuple[Any, ...]:
    """``for i in range(start, stop, step): count += 1; total += i; last = i`` (a traced range)."""

    def body(i: Any, count: Any, total: Any, last: Any) -> tuple[Any, Any, Any]:
        return (count + 1, total + i, i)

    return _ag.for_stmt(_ag.call(range, start, stop, step), body, (0, 0, -99), ("count", "total", "last"))


def count_and_sum(start: int, stop: int, step: int) -> tuple[int, int, int]:
    items = list(range(start, stop, step))
    return len(items), sum(items), items[-1] if items else -99


_count_and_sum_jit = jax.jit(count_and_sum_op)

BOUNDS = st.integers(min_value=-12, max_value=12)


@given(start=BOUNDS, stop=BOUNDS, step=BOUNDS.filter(lambda s: s != 0))
def test_for_over_traced_range_matches_python_range(start: int, stop: int, step: int) -> None:
    assert count_and_sum_op(start, stop, step) == count_and_sum(start, stop, step)  # concrete: Python
    assert_same(_count_and_sum_jit(start, stop, step), count_and_sum(start, stop, step), what="jit(for_stmt)")


@st.composite
def wide_ranges(draw: st.DrawFn) -> tuple[int, int, int]:
    """int32 bounds of opposite signs, at least 2**30 apart (often past int32's largest value), with a
    step either way that keeps the trip count small (at most 16)."""
    start, stop = draw(st.integers(-(2**31), -(2**29))), draw(st.integers(2**29, 2**31 - 1))
    if draw(st.booleans()):
        start, stop = stop, start
    span = abs(stop - start)
    magnitude = draw(st.integers(min_value=-(-span // 16), max_value=2**31 - 1))
    return start, stop, draw(st.sampled_from([magnitude, -magnitude]))


def count_and_last_op(start: Any, stop: Any, step: Any) -> tuple[Any, Any]:
    """``for i in range(start, stop, step): count += 1; last = i`` (a traced range)."""
    return _ag.for_stmt(_ag.call(range, start, stop, step), lambda i, count, last: (count + 1, i), (0, -99),
                        ("count", "last"))


@given(bounds=wide_ranges())
def test_for_over_traced_range_counts_a_span_past_int32(bounds: tuple[int, int, int]) -> None:
    """``stop - start`` past int32 (``range(-2e9, 2e9, 1e9)`` runs 4 times) counts as Python does; an
    int32 span would wrap and the loop run no iteration."""
    items = list(range(*bounds))
    expected = (len(items), items[-1] if items else -99)
    int32_bounds = [jnp.int32(bound) for bound in bounds]
    assert_same(jax.jit(count_and_last_op)(*int32_bounds), expected, what="jit(for_stmt)")


def test_for_over_traced_range_is_a_while_loop_traced_once() -> None:
    traced: list[Any] = []

    def body(i: Any, total: Any) -> tuple[Any]:
        traced.append(i)
        return (total + i,)

    sum_below = lambda n: _ag.for_stmt(_ag.call(range, n), body, (0,), ("total",))
    names = primitives(sum_below, 10)
    assert "while" in names and "scan" not in names
    assert len(traced) == 1
    assert int(jax.jit(sum_below)(10)[0]) == 45


def test_for_over_traced_range_under_vmap_with_batched_bounds() -> None:
    stops = jnp.array([0, 3, -2, 7])
    totals = jax.vmap(lambda stop: count_and_sum_op(1, stop, 2))(stops)
    assert_same(totals, tuple(np.array([count_and_sum(1, int(stop), 2) for stop in stops]).T), what="vmap")


def test_for_over_traced_range_reverse_mode_is_jaxs_documented_error() -> None:
    with pytest.raises(ValueError, match=REVERSE_MODE_ERROR):
        jax.jit(jax.grad(power_op))(2.0, 3)  # n traced by jit


def test_for_over_traced_range_forward_mode() -> None:
    tangent = jax.jit(lambda x, n: jax.jvp(lambda x: power_op(x, n), (x,), (1.0,))[1])
    for n in (0, 1, 4):
        assert float(tangent(2.0, n)) == n * 2.0 ** (n - 1)


def test_for_over_traced_range_cannot_be_unrolled() -> None:
    with pytest.raises(ConversionError, match="marked unroll"):
        jax.jit(lambda n: _ag.for_stmt(autograph_lite.unroll(_ag.call(range, n)), lambda i, t: (t + i,), (0,), ("t",)))(3)


def test_for_over_traced_range_loop_variable_read_after_it_is_checked_at_run_time() -> None:
    # `for i in range(n): pass` then `return i`: Python fails only when n == 0; a traced n cannot rule
    # it out, so the read (`_ag.ld`) raises Python's UnboundLocalError at run time when the loop did not run.
    last_index = lambda n: _ag.ld(_ag.for_stmt(_ag.call(range, n), lambda item, i: (item,), (_ag.Undefined("i"),),
                                               ("i",), assigned_first=("i",))[0])
    assert last_index(4) == 3
    assert int(jax.jit(last_index)(4)) == 3
    with pytest.raises(jax.errors.JaxRuntimeError, match="UnboundLocalError: cannot access local variable 'i'"):
        jax.jit(last_index)(0)


def last_scaled_op(x: Any, static_loops: str) -> tuple[Any, ...]:
    """``y = x; for i in range(4): y = y * x + i`` then ``return i, y``: ``i`` is unassigned before the loop."""
    ag = operators(static_loops)
    return ag.for_stmt(ag.call(range, 4), lambda item, i, y: (item, y * x + item), (ag.Undefined("i"), x), ("i", "y"),
                       assigned_first=("i",))


def last_scaled(x: float) -> tuple[int, float]:
    y = x
    for i in range(4):
        y = y * x + i
    return i, y


@pytest.mark.parametrize("static_loops", ["auto", "stage", "unroll"])
def test_for_over_static_range_loop_variable_read_after_it(static_loops: str) -> None:
    assert last_scaled_op(2.0, static_loops) == last_scaled(2.0)
    assert_same(jax.jit(lambda x: last_scaled_op(x, static_loops))(2.0), last_scaled(2.0), what=static_loops)


def test_for_staged_loop_variable_starts_as_a_placeholder() -> None:
    assert "scan" in primitives(lambda x: last_scaled_op(x, "stage"), 2.0)


def test_for_auto_policy_stages_a_loop_that_first_assigns_a_name_read_after_it() -> None:
    assert "scan" in primitives(lambda x: last_scaled_op(x, "auto"), 2.0)
    assert_same(jax.jit(lambda x: last_scaled_op(x, "auto"))(2.0), last_scaled(2.0), what="auto, staged")


def test_for_over_traced_range_with_zero_step_is_an_error() -> None:
    """Python raises ValueError; a traced step is checked at run time (before: iterations ran)."""
    with pytest.raises(ValueError, match="range\\(\\) arg 3 must not be zero"):
        count_and_sum(5, 0, 0)
    with pytest.raises(Exception, match="range\\(\\) arg 3 must not be zero"):
        jax.block_until_ready(_count_and_sum_jit(5, 0, 0))
    with pytest.raises(ValueError, match="range\\(\\) arg 3 must not be zero"):  # a concrete step: at once
        jax.jit(lambda a: count_and_sum_op(a, 0, 0))(5)
    assert_same(_count_and_sum_jit(5, 0, -2), count_and_sum(5, 0, -2))  # a non-zero traced step still runs


def last_index_before_exit(x: Any) -> tuple[Any, Any]:
    """The loop variable, unassigned before the loop, read after a loop that may exit early."""
    for i in range(6):
        x = x * 2.0
        if x > 10.0:
            break
    return i, x


@pytest.mark.parametrize("x", [1.0, 100.0, -1.0], ids=["exits-later", "exits-at-once", "runs-out"])
def test_for_auto_policy_loop_variable_read_after_a_loop_with_an_exit(x: float) -> None:
    expected = last_index_before_exit(x)
    assert_same(autograph_lite.jit(last_index_before_exit)(jnp.float32(x)), expected, what="jit, auto")
    assert_same(autograph_lite.jit(last_index_before_exit, static_loops="stage")(jnp.float32(x)), expected,
                what="jit, stage")


def reversed_digits(start, stop, step):
    out = 0
    for i in reversed(range(start, stop, step)):
        out = out * 10 + i
    return out


@pytest.mark.parametrize("bounds", [(0, 4, 1), (0, 0, 1), (1, 9, 3), (8, 0, -2), (5, 5, -1), (2, 7, 4)])
def test_reversed_traced_range(bounds):
    # reversed(...) of a range with a traced bound is a range of its own (it was an unlocated TypeError
    # naming TracedRange)
    expected = reversed_digits(*bounds)
    assert_same(autograph_lite.jit(reversed_digits)(*[jnp.int32(b) for b in bounds]), expected, what="jit")


def length_of_a_traced_range(n):
    return len(range(n))


def test_len_of_a_traced_range_is_a_located_error():
    with pytest.raises(autograph_lite.StagingTypeError, match="len\\(\\) of a range with a traced bound") as raised:
        autograph_lite.jit(length_of_a_traced_range)(jnp.int32(3))
    assert raised.value.location.lineno == length_of_a_traced_range.__code__.co_firstlineno + 1


def counts_with_enumerate(xs, n):
    s = 0.0
    for k, i in enumerate(range(1, n)):
        s = s + k * xs[i]
    return s


def test_a_traced_range_taken_item_by_item_elsewhere_is_a_located_error():
    with pytest.raises(StagingTypeError, match="outside a `for` loop's own header") as raised:
        autograph_lite.jit(counts_with_enumerate)(jnp.arange(5.0), jnp.int32(4))
    assert "test_operator_for_range.py" in str(raised.value) and "k = i - start" in str(raised.value)


def grows_over_an_endless_count(x):
    for i in itertools.count():
        x = x * 1.5
        if x > 10:
            break
    return x, i


def grows_in_a_while_loop(x):  # the fix the error gives
    i = 0
    while True:
        x = x * 1.5
        if x > 10:
            break
        i = i + 1
    return x, i


def test_an_endless_iterator_with_a_traced_break_is_a_located_error_whose_fix_works():
    with pytest.raises(StagingTypeError, match="endless iterator") as raised:
        autograph_lite.jit(grows_over_an_endless_count)(jnp.float32(1.0))
    assert "test_operator_for_range.py" in str(raised.value)
    assert_same(autograph_lite.jit(grows_in_a_while_loop)(jnp.float32(1.0)), grows_over_an_endless_count(jnp.float32(1.0)))


def sums_its_index(n):
    s = 0
    for i in range(n):
        s = s + i
    return s


def weighs_down(n):
    s = 0
    for i in reversed(range(n)):
        s = s * 3 % 1000 + i  # the order of the indices matters
    return s


@pytest.mark.parametrize("n", [np.uint8(5), np.uint16(7), np.uint32(6), np.int8(100), np.int16(300)])
def test_a_traced_bound_of_another_integer_dtype_counts_as_a_python_int(n):
    for function in (sums_its_index, weighs_down):
        assert int(autograph_lite.jit(function)(n)) == function(int(n))

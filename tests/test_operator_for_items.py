"""``for_stmt`` over arrays, ``enumerate`` / ``zip``, and loops that stop early, called directly.

An array's leading axis, and ``enumerate`` / ``zip`` over arrays (built by converted code through
``_ag.call``, which keeps them open), have a static trip count: staged as one ``lax.scan`` (reverse-mode
gradients) or run as Python. A ``break`` reaches the operator as the rewriter writes it: a flag
carried by the loop, set by an ``if_stmt`` in the body, and a ``stop_test`` that reads it. Concrete:
Python's ``break``. Traced: a ``scan`` whose iterations after the exit leave the state unchanged, or,
with ``stage(..., early_exit=True)`` or a traced ``range``, a ``while_loop`` (forward mode only).
"""

from __future__ import annotations

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

_ag = operators("auto")

REVERSE_MODE_ERROR = "Reverse-mode differentiation does not work for lax.while_loop"


def decayed_sum_op(xs: Any) -> Any:
    """``total = jnp.zeros(xs.shape[1:]); for row in xs: total = total * 0.5 + row``."""
    start = jnp.zeros(xs.shape[1:], jnp.float32)
    (total,) = _ag.for_stmt(xs, lambda row, total: (total * 0.5 + row,), (start,), ("total",))
    return total


def decayed_sum(rows: np.ndarray) -> np.ndarray:
    total = np.zeros(rows.shape[1:], np.float32)
    for row in rows:
        total = total * np.float32(0.5) + row
    return total


ROWS = st.lists(st.lists(st.floats(-10, 10, width=32), min_size=2, max_size=2), min_size=1, max_size=5)


@given(rows=ROWS)
def test_for_over_array_rows_matches_python(rows: list[list[float]]) -> None:
    xs = np.array(rows, np.float32)
    assert_same(decayed_sum_op(jnp.asarray(xs)), decayed_sum(xs), what="concrete")
    assert_same(jax.jit(decayed_sum_op)(xs), decayed_sum(xs), what="jit")


def test_for_over_traced_array_rows_is_one_scan() -> None:
    assert "scan" in primitives(decayed_sum_op, jnp.ones((4, 3)))


def test_for_over_a_numpy_array_stays_python_under_jit() -> None:
    rows = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    shifted = lambda x: decayed_sum_op(rows) + x
    assert "scan" not in primitives(shifted, 1.0)
    assert_same(jax.jit(shifted)(1.0), decayed_sum(rows) + 1.0, what="numpy rows")


def test_for_over_array_rows_reverse_mode_through_the_scan() -> None:
    xs = jnp.arange(8.0).reshape(4, 2)
    slopes = jax.grad(lambda xs: decayed_sum_op(xs).sum())(xs)
    # Row k is halved once per later row: d total / d xs[k] = 0.5 ** (3 - k).
    assert_same(slopes, np.repeat(0.5 ** np.arange(3.0, -1.0, -1.0), 2).reshape(4, 2), what="grad(scan)")


def test_for_over_array_rows_under_vmap_stays_one_scan() -> None:
    batches = jnp.arange(24.0).reshape(2, 4, 3)
    batched = jax.vmap(decayed_sum_op)
    assert_same(batched(batches), np.stack([decayed_sum(np.asarray(b)) for b in batches]), what="vmap")
    assert "scan" in primitives(batched, batches)


def test_for_over_a_zero_dimensional_array_fails_as_python_iteration_does() -> None:
    with pytest.raises(TypeError, match="0-d array"):
        decayed_sum_op(jnp.float32(1.0))


def weighted_pairs_op(xs: Any, ys: Any, start: Any = 0) -> Any:
    """``for i, (x, y) in enumerate(zip(xs, ys), start): total = total + i * x * y``."""

    def body(item: Any, total: Any) -> tuple[Any]:
        i, (x, y) = item
        return (total + i * x * y,)

    pairs = _ag.call(enumerate, _ag.call(zip, xs, ys), start)
    return _ag.for_stmt(pairs, body, (0.0,), ("total",))[0]


def weighted_pairs(xs: list[float], ys: list[float], start: int = 0) -> float:
    return sum(i * x * y for i, (x, y) in enumerate(zip(xs, ys), start))


@pytest.mark.parametrize("start", [0, 5])
@pytest.mark.parametrize(("n_x", "n_y"), [(4, 4), (3, 5), (5, 2)])
def test_for_over_enumerate_zip_of_arrays_of_unequal_lengths(n_x: int, n_y: int, start: int) -> None:
    xs, ys = jnp.arange(1.0, n_x + 1.0), jnp.arange(n_y) * 10.0
    expected = weighted_pairs(xs.tolist(), ys.tolist(), start)
    assert_same(weighted_pairs_op(xs, ys, start), np.float32(expected), what="concrete")
    assert_same(jax.jit(weighted_pairs_op)(xs, ys, start), np.float32(expected), what="jit, traced start")
    assert "scan" in primitives(lambda xs, ys: weighted_pairs_op(xs, ys, start), xs, ys)
    slopes = jax.grad(weighted_pairs_op)(xs, ys, start)
    length = min(n_x, n_y)
    expected_slopes = [(start + i) * float(ys[i]) if i < length else 0.0 for i in range(n_x)]
    assert_same(slopes, np.array(expected_slopes, np.float32), what="grad(scan)")


def test_for_over_zip_of_a_range_and_an_array() -> None:
    def indexed_sum(xs: Any) -> Any:
        return _ag.for_stmt(_ag.call(zip, range(3), xs), lambda item, t: (t + item[0] * item[1],), (0.0,), ("t",))[0]

    xs = jnp.array([1.0, 2.0, 3.0, 4.0, 5.0])
    assert_same(jax.jit(indexed_sum)(xs), np.float32(0 * 1 + 1 * 2 + 2 * 3), what="jit")
    assert_same(jax.vmap(indexed_sum)(jnp.stack([xs, -xs])), np.array([8.0, -8.0], np.float32), what="vmap")


# --- break: a flag carried by the loop --------------------------------------------------------


def running_total_until(xs: list[float], limit: float) -> tuple[bool, float]:
    """The reference: ``for x in xs: total += x; if total > limit: break``."""
    total, stopped = 0.0, False
    for x in xs:
        total = total + x
        if total > limit:
            stopped = True
            break
    return stopped, total


def running_total_until_op(xs: Any, limit: Any, seen: list[Any] | None = None) -> tuple[Any, ...]:
    log = [] if seen is None else seen

    def stop_test(stopped: Any, total: Any) -> Any:
        return _ag.not_(stopped)

    def body(x: Any, stopped: Any, total: Any) -> tuple[Any, Any]:
        log.append(x)
        total = total + x
        (stopped,) = _ag.if_stmt(total > limit, lambda s: (True,), lambda s: (s,), (stopped,), ("stopped",))
        return (stopped, total)

    return _ag.for_stmt(xs, body, (False, 0.0), ("stopped", "total"), stop_test=stop_test)


def test_for_break_with_concrete_values_stops_as_python() -> None:
    seen: list[Any] = []
    xs = jnp.array([1.0, 2.0, 3.0, 4.0])
    assert_same(running_total_until_op(xs, 2.5, seen), running_total_until([1.0, 2.0, 3.0, 4.0], 2.5), what="break")
    concrete = [float(x) for x in seen if not isinstance(x, jax.core.Tracer)]
    assert concrete == [1.0, 2.0], "no iteration after the break runs"


_running_total_until_jit = jax.jit(running_total_until_op)


@given(xs=st.lists(st.integers(-5, 5).map(float), min_size=4, max_size=4), limit=st.integers(-3, 8).map(float))
def test_for_break_with_traced_exit_matches_python(xs: list[float], limit: float) -> None:
    expected = running_total_until(xs, limit)
    assert_same(_running_total_until_jit(jnp.array(xs), limit), expected, what="jit(for_stmt with break)")


def test_for_break_with_traced_exit_is_a_scan_and_keeps_reverse_mode() -> None:
    xs = jnp.array([1.0, 2.0, 3.0, 4.0])
    names = primitives(running_total_until_op, xs, 2.5)
    assert "scan" in names and "while" not in names
    slopes = jax.grad(lambda xs: running_total_until_op(xs, 2.5)[1])(xs)
    assert_same(slopes, np.array([1.0, 1.0, 0.0, 0.0], np.float32), what="only the rows before the exit count")


def test_for_break_under_vmap_each_element_exits_on_its_own() -> None:
    rows = [[1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 5.0, 1.0], [0.5, 0.5, 0.5, 0.5]]
    stopped, totals = jax.vmap(running_total_until_op, in_axes=(0, None))(jnp.array(rows), 2.5)
    expected = [running_total_until(row, 2.5) for row in rows]
    np.testing.assert_array_equal(stopped, [s for s, _ in expected])
    np.testing.assert_allclose(totals, [t for _, t in expected])


def early_exit_op(xs: Any) -> Any:
    return running_total_until_op(autograph_lite.stage(xs, early_exit=True), 2.5)[1]


def test_for_break_staged_with_early_exit_is_a_while_loop_forward_mode_only() -> None:
    xs = jnp.array([1.0, 2.0, 3.0, 4.0])
    assert_same(jax.jit(early_exit_op)(xs), np.float32(3.0), what="early exit")
    assert "while" in primitives(early_exit_op, xs)
    _, tangent = jax.jvp(early_exit_op, (xs,), (jnp.array([1.0, 10.0, 100.0, 1000.0]),))
    assert float(tangent) == 11.0, "the rows after the exit do not count"
    with pytest.raises(ValueError, match=REVERSE_MODE_ERROR):
        jax.grad(early_exit_op)(xs)


def test_for_break_over_a_traced_range_is_a_while_loop() -> None:
    def first_square_over(n: Any, limit: Any) -> tuple[Any, ...]:
        def body(i: Any, found: Any, value: Any) -> tuple[Any, Any]:
            return _ag.if_stmt(i * i > limit, lambda f, v: (True, i * i), lambda f, v: (f, v), (found, value),
                               ("found", "value"))

        return _ag.for_stmt(_ag.call(range, n), body, (False, -1), ("found", "value"), stop_test=lambda f, v: _ag.not_(f))

    assert "while" in primitives(first_square_over, 10, 20)
    for n, limit, expected in [(10, 20, (True, 25)), (4, 20, (False, -1)), (0, -5, (False, -1))]:
        assert first_square_over(n, limit) == expected  # concrete: Python
        assert_same(jax.jit(first_square_over)(n, limit), expected, what=f"n={n}, limit={limit}")


def test_for_break_on_a_python_index_in_an_unrolled_loop_is_pythons_break() -> None:
    seen: list[Any] = []

    def first_three(x: Any) -> Any:
        def body(i: Any, stopped: Any, total: Any) -> tuple[Any, Any]:
            seen.append(i)
            (stopped,) = _ag.if_stmt(i == 2, lambda s: (True,), lambda s: (s,), (stopped,), ("stopped",))
            return (stopped, total + x * i)

        loop = autograph_lite.unroll(_ag.call(range, 10))
        return _ag.for_stmt(loop, body, (False, 0.0), ("stopped", "total"), stop_test=lambda s, t: _ag.not_(s))[1]

    assert_same(jax.jit(first_three)(2.0), np.float32(2.0 * (0 + 1 + 2)), what="unrolled break")
    assert seen == [0, 1, 2]

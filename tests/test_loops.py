"""``while`` and ``for`` loops: Python when concrete, ``lax`` loops when traced, always equal to eager.

Each function is checked with ``support.assert_equivalent`` (eager vs ``convert`` on concrete inputs vs
``jit`` on traced ones) on inputs that take every path (zero, one and several iterations), and the
staged primitive is checked in the jaxpr. Errors name the variable, both types and the loop's
``file.py:LINE``, computed from this file's source with ``line_of``.
"""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import assert_equivalent, assert_same, primitives

import autograph_lite

F32 = jnp.float32
I32 = jnp.int32
LOOPS = {"while", "scan"}


def line_of(fn, text: str, occurrence: int = 0) -> int:
    lines, start = inspect.getsourcelines(fn)
    hits = [start + index for index, line in enumerate(lines) if text in line]
    return hits[occurrence]


def where(fn, text: str) -> str:
    return f"{fn.__code__.co_filename}:{line_of(fn, text)}"


def staged(fn, *args, **options):
    return primitives(autograph_lite.convert(fn, **options), *args)


def _never_traced(*_):
    raise AssertionError("traced where Python would not have run it")


# --- while -------------------------------------------------------------------------------------------


def halve_until_small(x):
    n = 0
    while x > 1:
        x = x / 2
        n += 1
    return x, n


@pytest.mark.parametrize("x", [0.5, 1.0, 3.0, 100.0])
def test_while_with_traced_test(x):
    assert_equivalent(halve_until_small, F32(x))
    assert "while" in staged(halve_until_small, F32(x))


def test_while_counter_started_as_python_int_is_int32():
    _, n = autograph_lite.jit(halve_until_small)(F32(10.0))
    assert n.dtype == jnp.int32 and int(n) == 4


def count_up(x):
    k = 0
    while k < 3:
        k = k + x
    return k


@pytest.mark.parametrize("x", [1.0, 0.5, 2.0, 5.0])
def test_while_whose_test_starts_concrete_and_becomes_traced(x):
    # The first test (0 < 3) is concrete; after one Python iteration k is traced, and the rest of the
    # loop is staged.
    assert_equivalent(count_up, F32(x))
    assert "while" in staged(count_up, F32(x))


def countdown(x, n):
    while n > 0:
        x = x * 2 + n
        n = n - 1
    return x


@pytest.mark.parametrize("n", [0, 1, 4])
def test_while_with_concrete_test_stays_python(n):
    assert_equivalent(countdown, F32(1.0), n, static_argnums=1)
    assert "while" not in primitives(lambda x: autograph_lite.convert(countdown)(x, n), F32(1.0))


@pytest.mark.parametrize("n", [0, 1, 4])
def test_same_while_with_traced_count_is_staged(n):
    assert_equivalent(countdown, F32(1.0), I32(n))
    assert "while" in staged(countdown, F32(1.0), I32(n))


def while_with_branches(x):
    steps = 0
    while x != 1 and steps < 50:
        if x % 2 == 0:
            x = x // 2
        else:
            x = 3 * x + 1
        steps += 1
    return x, steps


@pytest.mark.parametrize("x", [1, 6, 7, 27])
def test_branches_in_a_while(x):
    assert_equivalent(while_with_branches, I32(x))


def while_zero_iterations(x, limit):
    total = x
    while total < limit:
        total = total * 2
    return total


def test_while_that_never_runs_returns_the_initial_values():
    assert_equivalent(while_zero_iterations, F32(5.0), F32(1.0))
    assert_equivalent(while_zero_iterations, F32(5.0), F32(30.0))


# --- for over range ------------------------------------------------------------------------------------


def sum_range(n, x):
    acc = jnp.zeros_like(x)
    for i in range(n):
        acc = acc + x * i
    return acc


def sum_range_start_stop_step(start, stop, step, x):
    acc = x
    for k in range(start, stop, step):
        acc = acc * 0.5 + k
    return acc


@pytest.mark.parametrize("n", [0, 1, 5])
def test_for_over_traced_range(n):
    assert_equivalent(sum_range, I32(n), F32(1.5))
    assert "while" in staged(sum_range, I32(n), F32(1.5))


@pytest.mark.parametrize(
    "start, stop, step",
    [(0, 10, 3), (10, 0, -3), (5, 5, 1), (0, -5, -1), (3, 0, 1), (0, 3, -1), (-4, 4, 2), (7, -8, -5)],
)
def test_for_over_traced_range_with_start_stop_step(start, stop, step):
    assert_equivalent(sum_range_start_stop_step, I32(start), I32(stop), I32(step), F32(1.0))


@pytest.mark.parametrize("which", [0, 1, 2])
def test_any_single_traced_bound_stages_the_range(which):
    bounds = [2, 11, 3]
    args = [I32(b) if i == which else b for i, b in enumerate(bounds)]
    static = tuple(i for i in range(3) if i != which)
    assert_equivalent(sum_range_start_stop_step, *args, F32(1.0), static_argnums=static)


def loop_variable_after_the_loop(n, x):
    i = -1
    for i in range(n):
        x = x + i
    return x, i


@pytest.mark.parametrize("n", [0, 1, 4])
def test_loop_variable_after_a_traced_range_when_initialised(n):
    assert_equivalent(loop_variable_after_the_loop, I32(n), F32(0.0))


def loop_variable_static_range(x):
    for i in range(4):
        x = x * 1.5 + i
    return x, i


def test_loop_variable_after_a_static_range():
    # Python defines `i` after a range of four; whichever way "auto" runs the loop, the value is Python's.
    assert_equivalent(loop_variable_static_range, F32(1.0))


def loop_variable_uninitialised(n, x):
    for i in range(n):
        x = x + i
    return x, i


def test_loop_variable_of_a_traced_range_unbound_before_is_checked_at_run_time():
    # Python leaves `i` unbound when n == 0, which a traced n cannot rule out: the read after the loop
    # raises Python's UnboundLocalError when the program runs and the loop ran zero times (issue #15).
    # With a static n >= 1 Python defines `i`, and the staged loop gives it Python's value.
    assert_equivalent(loop_variable_uninitialised, 3, F32(0.0), static_argnums=(0,))
    assert_equivalent(loop_variable_uninitialised, I32(3), F32(0.0))
    with pytest.raises(UnboundLocalError, match="^cannot access local variable 'i' where it is not associated"):
        autograph_lite.jit(loop_variable_uninitialised)(I32(0), F32(0.0))


def loop_variable_after_a_concrete_range(n):
    for i in range(n):
        pass
    return i


def assigned_in_a_concrete_while(x, n):
    while n > 0:
        last = x
        n = n - 1
    return last


def test_reading_a_loop_variable_a_zero_trip_loop_left_unbound_raises_unbound_local_error():
    # Eager Python raises UnboundLocalError; the converted function must not return a stand-in object.
    assert autograph_lite.convert(loop_variable_after_a_concrete_range)(3) == 2
    with pytest.raises(UnboundLocalError, match="'i'"):
        autograph_lite.convert(loop_variable_after_a_concrete_range)(0)


def test_reading_a_variable_a_zero_trip_while_left_unbound_raises_unbound_local_error():
    assert float(autograph_lite.convert(assigned_in_a_concrete_while)(F32(1.0), 2)) == 1.0
    with pytest.raises(UnboundLocalError, match="'last'"):
        autograph_lite.convert(assigned_in_a_concrete_while)(F32(1.0), 0)


# --- for over arrays: scan -----------------------------------------------------------------------------


def sum_rows(xs):
    acc = jnp.zeros(xs.shape[1:], xs.dtype)
    for row in xs:
        acc = acc * 0.5 + row
    return acc


def enumerate_rows(xs):
    acc = 0.0
    for i, row in enumerate(xs):
        acc = acc + i * row.sum()
    return acc


def enumerate_from(xs):
    acc = 0.0
    for i, row in enumerate(xs, 3):
        acc = acc + i * row
    return acc


def zip_rows(a, b):
    acc = 0.0
    for x, y in zip(a, b):
        acc = acc + x * y
    return acc


def enumerate_zip(a, b):
    acc = 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        acc = acc + i * x - y
    return acc


def zip_array_and_range(a):
    acc = 0.0
    for k, x in zip(range(10, 20), a):
        acc = acc + k * x
    return acc


XS = jnp.arange(12.0, dtype=F32).reshape(4, 3)


@pytest.mark.parametrize("fn, args", [
    (sum_rows, (XS,)),
    (enumerate_rows, (XS,)),
    (enumerate_from, (jnp.arange(5.0, dtype=F32),)),
    (zip_rows, (jnp.arange(3.0, dtype=F32), jnp.arange(4.0, dtype=F32))),
    (zip_rows, (jnp.arange(4.0, dtype=F32), jnp.arange(2.0, dtype=F32))),
    (enumerate_zip, (jnp.arange(3.0, dtype=F32), jnp.arange(5.0, dtype=F32) * 2)),
    (zip_array_and_range, (jnp.arange(4.0, dtype=F32),)),
], ids=["rows", "enumerate", "enumerate_start", "zip", "zip_shorter_second", "enumerate_zip", "zip_range"])
def test_for_over_traced_arrays_is_a_scan(fn, args):
    assert_equivalent(fn, *args)
    assert "scan" in staged(fn, *args)


@pytest.mark.parametrize("fn, args", [
    (sum_rows, (jnp.zeros((0, 3), F32),)),
    (enumerate_rows, (jnp.zeros((0, 2), F32),)),
    (zip_rows, (jnp.zeros((0,), F32), jnp.ones(3, F32))),
])
def test_empty_arrays_return_the_initial_values(fn, args):
    assert_equivalent(fn, *args)


def test_one_row_is_fine():
    assert_equivalent(sum_rows, jnp.ones((1, 3), F32))
    assert_equivalent(enumerate_rows, jnp.ones((1, 2), F32))


def sum_rows_numpy(x, table):
    for row in table:
        x = x + row
    return x


def test_for_over_a_numpy_array_with_traced_carry():
    table = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    got = jax.jit(lambda x: autograph_lite.convert(sum_rows_numpy)(x, table))(jnp.zeros(2, F32))
    assert_same(got, sum_rows_numpy(np.zeros(2, np.float32), table))


# --- for over Python containers stays Python --------------------------------------------------------


def over_list(x):
    for w in [1.0, -2.0, 3.0]:
        if w > 0:
            x = x * w
        else:
            x = x + w
    return x


def over_tuple_of_functions(x):
    for fn in (jnp.sin, jnp.cos, jnp.tanh):
        x = fn(x)
    return x


def over_dict(x, weights):
    total = 0.0
    for name in weights:
        total = total + weights[name] * x
    for name, w in weights.items():
        if name.startswith("a"):
            total = total - w
    return total


def over_list_of_arrays(xs):
    acc = 0.0
    for x in xs:
        acc = acc + x
    return acc


@pytest.mark.parametrize("x", [2.0, -1.0])
def test_for_over_python_containers_stays_python(x):
    assert_equivalent(over_list, F32(x))
    assert_equivalent(over_tuple_of_functions, F32(x))
    assert not LOOPS & staged(over_list, F32(x))
    assert not LOOPS & staged(over_tuple_of_functions, F32(x))


def test_for_over_a_dict_stays_python():
    weights = {"a": 1.0, "b": 2.0, "ab": 3.0}
    converted = autograph_lite.convert(over_dict)
    assert float(converted(F32(2.0), weights)) == over_dict(2.0, weights)
    assert float(jax.jit(lambda x: converted(x, weights))(F32(2.0))) == over_dict(2.0, weights)
    assert not LOOPS & primitives(lambda x: converted(x, weights), F32(2.0))


def test_for_over_a_list_of_traced_arrays():
    xs = [F32(1.0), F32(2.0), F32(4.0)]
    assert_equivalent(over_list_of_arrays, xs)


# --- static trip counts: staged when it pays, Python when the body needs it ------------------------------

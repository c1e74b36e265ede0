"""In-place operators on what a helper is handed, and stores into attributes of outer items.

A helper called from a loop that ``static_loops="auto"`` stages as a scan (or from a staged loop) runs
once while tracing. Before these checks, ``xs += [1.0]`` on a list the caller passed (``list.__iadd__``
changes the caller's list in place), ``tank += 1.0`` on the caller's NumPy array and
``TALLIES[0].n += 1`` on an attribute of a module-level list's item returned eager's value after one
iteration, silently. Each is now exact in a static loop (it runs as Python) and a located
``ConversionError`` in staged code; what the staged code owns (its own lists and numbers, a NumPy array
made in each iteration, a ``Counter`` it made, its copy of a carried list of lists) keeps working
staged, and a static loop outside any transformation runs its body as often as Python does. Nested
item stores, ``setattr`` and implicit user code: tests/test_nested_effects_stores.py.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from support import assert_equivalent, conversion_error, primitives, where
from test_nested_effects_stores import Counter

import autograph_lite


def puts(rows, x):
    rows[0][1] = rows[0][1] + x
    return rows


def carries_rows(x, n):
    rows = [[0.0, 0.0]]
    for i in range(n):
        rows = puts(rows, x)  # the body's rows is the staged loop's copy, its inner lists too
    return rows[0][1]


def test_a_helper_may_change_the_staged_loops_copy_of_a_carried_list_of_lists():
    assert assert_equivalent(carries_rows, jnp.float32(1.5), jnp.int32(3)) == 4.5
    assert "while" in primitives(autograph_lite.convert(carries_rows), jnp.float32(1.5), jnp.int32(3))


def grows(xs, v):
    xs += [1.0]  # list.__iadd__: the caller's list changes in place
    return v + len(xs)


def grows_pool(x, n):
    pool = [0.0]
    for i in range(n):
        x = grows(OUTER_POOL, x)
    return x + len(pool)


OUTER_POOL = [0.0]


def test_an_in_place_operator_on_the_callers_list_is_refused_in_staged_code():
    def static_loop(x):
        OUTER_POOL[:] = [0.0]
        for i in range(3):
            x = grows(OUTER_POOL, x)
        return x

    assert assert_equivalent(static_loop, jnp.float32(1.0)) == 10.0
    error = conversion_error(grows_pool, jnp.float32(1.0), jnp.int32(3))
    assert error.startswith(f"{where(grows, 'xs += [1.0]')}: this += on a list from the caller, which mutates a list "
                            "from outside the staged code")


def extends_own_parts(x):
    parts = [x]
    parts += [x * 2.0]  # a local's list: not checked
    more = [x]  # a display of the staged code's own, passed on: grows() may extend it
    return grows(more, 0.0) + parts[0] + parts[1] + more[1]


def test_in_place_operators_on_the_staged_codes_own_lists_and_numbers_are_allowed():
    def sums(xs):
        total = 0.0
        steps = 0
        for x in xs:
            total += extends_own_parts(x)
            steps += 1
        return total, steps

    assert_equivalent(sums, jnp.arange(4.0))
    assert "scan" in primitives(autograph_lite.convert(sums), jnp.arange(4.0))
    source = autograph_lite.to_source(sums)
    assert "check_in_place_operator(total, '+=')" in source  # 0.0, then a call's value: read as it is
    assert "lambda: steps" not in source  # only ever a number written out


TANK = np.zeros(2)


def fills(tank, x):
    tank += 1.0  # NumPy's in-place add: the caller's array changes
    return x + tank[0]


def test_an_in_place_operator_on_the_callers_numpy_array_is_exact_or_refused():
    """A NumPy array passed in and changed with ``+=`` mutates the caller's array, as a list's does:
    a static loop runs as Python (eager 7.0, where one trace gave 4.0), a staged one is refused."""

    def static_loop(x):
        TANK[:] = 0.0
        for i in range(3):
            x = fills(TANK, x)
        return x

    def staged_loop(x, n):
        TANK[:] = 0.0
        for i in range(n):
            x = fills(TANK, x)
        return x

    assert float(autograph_lite.jit(static_loop)(jnp.float32(1.0))) == static_loop(1.0) == 7.0
    assert TANK.tolist() == [3.0, 3.0]
    error = conversion_error(staged_loop, jnp.float32(1.0), jnp.int32(3))
    assert error.startswith(f"{where(fills, 'tank += 1.0')}: this += on a NumPy array from the caller, which "
                            "mutates a NumPy array from outside the staged code")


def test_a_numpy_array_made_in_each_iteration_may_be_changed():
    def fresh_tank(x):
        for i in range(3):
            x = fills(np.zeros(2), x)
        return x

    assert assert_equivalent(fresh_tank, jnp.float32(1.0)) == 4.0


TALLIES = [Counter()]


def bump_first(x):
    TALLIES[0].n += 1  # an attribute of an item of a module-level list
    return x + TALLIES[0].n


def test_an_attribute_of_an_outer_item_is_exact_or_refused():
    """``TALLIES[0].n += 1`` in a helper: the owner is read again by the check (a subscript by a
    constant), so a static loop runs as Python (eager 7.0, where one trace gave 4.0) and a staged
    loop is refused; found extending the generator (``item_tick()``)."""

    def static_loop(x):
        TALLIES[0].n = 0
        for i in range(3):
            x = bump_first(x)
        return x

    def staged_loop(x, n):
        TALLIES[0].n = 0
        for i in range(n):
            x = bump_first(x)
        return x

    assert float(autograph_lite.jit(static_loop)(jnp.float32(1.0))) == static_loop(1.0) == 7.0
    error = conversion_error(staged_loop, jnp.float32(1.0), jnp.int32(3))
    assert error.startswith(f"{where(bump_first, 'TALLIES[0].n += 1')}: this assignment to TALLIES[0].n, which "
                            "changes an object of class Counter that the staged code did not make")


def doubled_through(counters, x):
    counters[0].n = x  # the staged code made the Counter: its own to change
    return counters[0].n * 2.0


def test_an_attribute_of_an_item_the_staged_code_made_may_be_changed():
    def own_counters(x, n):
        for i in range(n):
            x = doubled_through([Counter()], x)
        return x

    assert assert_equivalent(own_counters, jnp.float32(1.0), jnp.int32(3)) == 8.0


SEEN = []


def remembers(v):
    seen = SEEN  # an alias of a module-level list: an effect no check sees
    seen += [v]
    return v + 1.0


def test_a_static_loop_outside_any_transformation_runs_its_body_as_often_as_python():
    """``convert(f)`` on concrete inputs: nothing can be traced, so no trial runs the body aside (it
    ran the helper a fourth time: SEEN had 4 entries for eager's 3; found by review)."""

    def loop(x):
        for i in range(3):
            x = remembers(x)
        return x

    SEEN.clear()
    assert autograph_lite.convert(loop)(1.0) == 4.0
    assert SEEN == [1.0, 2.0, 3.0]

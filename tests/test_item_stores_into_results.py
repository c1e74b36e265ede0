"""An item store into what a call returns (``vars(o)[k] = v``, ``row_of(GRID)[2] = v``): the runtime reads
the container once, in Python's order, and checks it (passes/item_updates.py ``_store_into_a_result``).

Left as written, such a store (``make()[0] += v`` too) had no check (a check before the statement could not read the call
again): in a helper called from a loop that ``static_loops="auto"`` stages as a scan, it changed the
module-level container once while tracing, silently (found by the generator's ``grid_set()``).
"""

from __future__ import annotations

import jax.numpy as jnp
import pytest
from support import assert_equivalent, assert_same, conversion_error, where

import autograph_lite

GRID = [[0] * 4]
ORDER = []


class Tally:
    def __init__(self):
        self.count = 0


TALLY = Tally()


def grid_row():
    return GRID[0]


def bump_a_returned_row():
    grid_row()[2] = grid_row()[2] + 1
    return 1.0


def bump_in_place():
    grid_row()[2] += 1
    return 1.0


def bump_a_namespace():
    vars(TALLY)["count"] = TALLY.count + 1
    return 1.0


def looped(helper):
    def run(xs):
        GRID[0] = [0] * 4
        TALLY.count = 0
        t = 0.0
        for x in xs:
            t = t + x * helper()
        return t, GRID[0][2], TALLY.count

    run.__name__ = f"looped_{helper.__name__}"
    return run


@pytest.mark.parametrize("helper", [bump_a_returned_row, bump_in_place, bump_a_namespace])
def test_a_store_into_a_call_result_from_outside_happens_once_per_iteration(helper):
    """Before: jit left the count at 2 for eager's 3 (the store ran once while tracing the scan)."""
    run = looped(helper)
    expected = run(jnp.arange(3.0))
    assert_same(autograph_lite.jit(run)(jnp.arange(3.0)), expected)
    assert max(expected[1], expected[2]) == 3


def traced_trip(n):
    GRID[0] = [0] * 4
    total = 0.0
    for i in range(n):
        total = total + bump_a_returned_row()
    return total


def test_in_a_loop_over_a_traced_range_it_is_refused_at_its_line():
    error = conversion_error(traced_trip, jnp.int32(3))
    assert error.startswith(f"{where(bump_a_returned_row, 'grid_row()[2] = ')}: ")


def noting(tag, value):
    ORDER.append(tag)
    return value


def test_the_value_is_evaluated_before_the_container_and_the_index():
    rows = [[0, 0]]

    def stores(x):
        ORDER.clear()
        noting("container", rows)[noting("index", 0)] = noting("value", [x])
        del noting("deleted", rows[0])[noting("at", 0)]
        return x

    assert_equivalent(stores, 1.0)
    assert ORDER == ["value", "container", "index", "deleted", "at"]


class Logged(list):
    def __getitem__(self, index):
        ORDER.append("item")
        return super().__getitem__(index)


def test_an_augmented_store_reads_the_item_before_the_operand():
    rows = Logged([[0]])

    def adds(x):
        ORDER.clear()
        noting("container", rows)[noting("index", 0)] += noting("operand", [1])
        return x

    assert_equivalent(adds, 1.0)
    assert ORDER == ["container", "index", "item", "operand"]
    assert "_ag.augment_item(" in autograph_lite.to_source(adds)


def same(value):
    return value


def made_inside(xs):
    t = 0.0
    for x in xs:
        row = [0.0, 0.0]
        same(row)[1] = x
        t = t + row[1]
    return t


def test_a_container_the_staged_code_made_is_stored_into_staged():
    assert assert_equivalent(made_inside, jnp.arange(3.0)) == 3.0
    assert "lax.scan" in str(autograph_lite.explain(made_inside, jnp.arange(3.0)))


class Pools(dict):
    """A dict the staged code makes (its own), which may hold lists from outside."""


BAG: list = []


def extend_a_held_list():
    Pools(r=BAG)["r"] += [0]
    return 1.0


def extend_a_list_made_here():
    held = [0]
    Pools(r=held)["r"] += [1]
    return float(len(held))


def counted_while(helper):
    def run(x, n):
        BAG.clear()
        i = 0
        while i < n:
            x = x + helper()
            i += 1
        return x

    run.__name__ = f"counted_while_{helper.__name__}"
    return run


def test_an_in_place_operator_on_an_item_from_outside_is_refused_at_its_line():
    """Before: the container (made by the staged code) was checked, the item was not: ``BAG`` was extended once while
    tracing the while loop, silently (jit 5.0 and one item for eager's 11.0 and four)."""
    error = conversion_error(counted_while(extend_a_held_list), 1.0, jnp.int32(4))
    assert error.startswith(f"{where(extend_a_held_list, 'Pools(r=BAG)')}: this += on a list held as an item of ")
    assert BAG == []


def test_an_in_place_operator_on_an_item_the_staged_code_made_is_staged():
    assert assert_equivalent(counted_while(extend_a_list_made_here), 1.0, jnp.int32(4)) == 9.0

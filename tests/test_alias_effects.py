"""Outside state mutated through a local alias or a library function.

A helper called from a loop that ``static_loops="auto"`` stages as a scan runs once while tracing.
Before these checks, each helper below left ``jit`` with eager's value after one iteration, silently
(12.0 for eager's 17.0 in the static loop below): an in-place operator or a nested item store through
a local name that holds a module-level container (``xs = POOL; xs += [v]``, ``b = BUF; b += 1.0``,
``rows = [GRID[0]]; rows[0][1] += 1.0``), and a library function that mutates its argument
(``heapq.heappush``, ``bisect.insort``, ``operator.setitem``, ``list.append(POOL, v)``, ``out=`` of a
ufunc, ``np.copyto``). Each is now exact in a static loop (the trial refuses it, so the loop runs as
Python) and a located ``ConversionError`` in a loop over a traced range, whose first fix (a static
bound) works. What the function builds itself keeps working staged: a list it made and extends, a
list of lists it made, an array from ``np.zeros``, a heap in a local list.
"""

from __future__ import annotations

import bisect
import heapq
import operator
from heapq import heappush

import jax.numpy as jnp
import numpy as np
import pytest
from support import assert_equivalent, assert_same, assert_summed_in_a_scan, conversion_error, primitives, where

import autograph_lite

POOL = [0.0]
BUF = np.zeros(1)
HEAP: list[float] = []
SORTED: list[float] = []
GRID = [[0.0, 0.0]]
TABLE = {"n": 0.0}


class Counter:
    def __init__(self):
        self.n = 0.0


COUNTER = Counter()


def reset():
    POOL[:] = [0.0]
    BUF[:] = 0.0
    HEAP.clear()
    SORTED.clear()
    GRID[0][:] = [0.0, 0.0]
    TABLE["n"] = 0.0
    COUNTER.n = 0.0


def measure():
    return float(len(POOL) + POOL[0] + BUF[0] + len(HEAP) + len(SORTED) + GRID[0][1] + TABLE["n"] + COUNTER.n)


def alias_list(v):
    xs = POOL
    xs += [v]
    return v + measure()


def alias_np(v):
    b = BUF
    b += 1.0
    return v + measure()


def alias_nested(v):
    rows = [GRID[0]]
    rows[0][1] += 1.0
    return v + measure()


def alias_in_a_closure(v):
    rows = [GRID[0]]

    def bump():
        rows[0][1] += 1.0  # rows is the enclosing function's

    bump()
    return v + measure()


def alias_of_alias(v):
    xs = POOL
    ys = xs
    ys += [1.0]
    return v + measure()


def alias_view(v):
    b = BUF[:]  # a NumPy slice is a view of BUF
    b += 1.0
    return v + measure()


def alias_not_copied(v):
    b = np.array(BUF, copy=False)  # told it may hand back BUF itself: not a new array
    b += 1.0
    return v + measure()


def alias_on_one_path(v, fresh=False):
    xs = [] if fresh else POOL
    xs += [1.0]
    return v + measure()


def push(v):
    heapq.heappush(HEAP, 1.0)
    return v + measure()


def imported_push(v):
    heappush(HEAP, 1.0)
    return v + measure()


def insort(v):
    bisect.insort(SORTED, 1.0)
    return v + measure()


def setitem(v):
    operator.setitem(POOL, 0, POOL[0] + 1.0)
    return v + measure()


def in_place_function(v):
    operator.iadd(POOL, [1.0])
    return v + measure()


def unbound_append(v):
    list.append(POOL, 1.0)
    return v + measure()


def unbound_update(v):
    dict.update(TABLE, n=TABLE["n"] + 1.0)
    return v + measure()


def np_out(v):
    np.add(BUF, 1.0, out=BUF)
    return v + measure()


def np_copyto(v):
    np.copyto(BUF, BUF + 1.0)
    return v + measure()


def item_of_a_local_display(v):
    rows = {"r": POOL}  # a new dict, its value the module's list
    rows["r"] += [1.0]  # list.__iadd__ on POOL, where it is
    return v + measure()


def np_positional_out(v):
    np.multiply(BUF + 1.0, 1.0, BUF)  # a ufunc's output passed by position
    return v + measure()


def array_method_out(v):
    (BUF + 1.0).clip(0.0, 100.0, out=BUF)  # an array method's out=
    return v + measure()


def ufunc_method_out(v):
    np.add.accumulate(BUF + 1.0, out=BUF)  # a ufunc method's out=
    return v + measure()


def along_axis(v):
    np.put_along_axis(BUF, np.array([0]), BUF + 1.0, axis=0)
    return v + measure()


def ufunc_at(v):
    np.add.at(BUF, 0, 1.0)
    return v + measure()


def object_setattr(v):
    object.__setattr__(COUNTER, "n", COUNTER.n + 1.0)
    return v + measure()


def loops_of(helper):
    def static_loop(x):
        reset()
        for i in range(3):
            x = helper(x) + 1.0
        return x + measure()

    def traced_loop(x, n):
        reset()
        for i in range(n):
            x = helper(x) + 1.0
        return x + measure()

    return static_loop, traced_loop


LIST = "which mutates a list from outside the staged code"
ARRAY = "which mutates a NumPy array from outside the staged code"
HELPERS = [
    (alias_list, "xs += [v]", "this += on a list that may come from outside the function (the name is not bound to "
                              "a new list on every path), " + LIST),
    (alias_np, "b += 1.0", "this += on a NumPy array that may come from outside the function (the name is not "
                           "bound to a new NumPy array on every path), " + ARRAY),
    (alias_nested, "rows[0][1] += 1.0", "this item assignment into rows[0], " + LIST),
    (alias_in_a_closure, "rows[0][1] += 1.0  #", "this item assignment into rows[0], " + LIST),
    (alias_of_alias, "ys += [1.0]", "this += on a list that may come from outside the function"),
    (alias_view, "b += 1.0", "this += on a NumPy array that may come from outside the function"),
    (alias_not_copied, "b += 1.0", "this += on a NumPy array that may come from outside the function"),
    (alias_on_one_path, "xs += [1.0]", "this += on a list that may come from outside the function"),
    (push, "heapq.heappush(HEAP", "this call of heapq.heappush(), " + LIST),
    (imported_push, "heappush(HEAP", "this call of heapq.heappush(), " + LIST),
    (insort, "bisect.insort(SORTED", "this call of bisect.insort(), " + LIST),
    (setitem, "operator.setitem(POOL", "this call of operator.setitem(), " + LIST),
    (in_place_function, "operator.iadd(POOL", "this call of operator.iadd(), " + LIST),
    (unbound_append, "list.append(POOL", "this call of list.append(), " + LIST),
    (unbound_update, "dict.update(TABLE", "this call of dict.update(), which mutates a dict from outside the staged code"),
    (np_out, "np.add(BUF", "this call of np.add(out=...), " + ARRAY),
    (np_copyto, "np.copyto(BUF", "this call of np.copyto(), " + ARRAY),
    (item_of_a_local_display, 'rows["r"] += [1.0]', "this += on a list held as an item of rows, which may hold a list "
                                                    "from outside"),
    (np_positional_out, "np.multiply(BUF", "this call of np.multiply(out=...), " + ARRAY),
    (array_method_out, "(BUF + 1.0).clip(", "this call of ndarray.clip(out=...), " + ARRAY),
    (ufunc_method_out, "np.add.accumulate(", "this call of np.add.accumulate(out=...), " + ARRAY),
    (along_axis, "np.put_along_axis(", "this call of np.put_along_axis(), " + ARRAY),
    (ufunc_at, "np.add.at(BUF", "this call of np.add.at(), " + ARRAY),
    (object_setattr, "object.__setattr__(COUNTER", "this call of object.__setattr__(), which changes an object of "
                                                   "class Counter that the staged code did not make"),
]
IDS = [helper.__name__ for helper, _, _ in HELPERS]


@pytest.mark.parametrize("helper, line, message", HELPERS, ids=IDS)
def test_a_static_loop_whose_helper_mutates_outside_state_gives_eagers_value(helper, line, message):
    static_loop, _ = loops_of(helper)
    assert assert_equivalent(static_loop, jnp.float32(1.0)) == 17.0


@pytest.mark.parametrize("helper, line, message", HELPERS, ids=IDS)
def test_a_traced_loop_whose_helper_mutates_outside_state_is_refused_at_the_line(helper, line, message):
    _, traced_loop = loops_of(helper)
    error = conversion_error(traced_loop, jnp.float32(1.0), jnp.int32(3))
    assert error.startswith(f"{where(helper, line)}: {message}")
    assert "Make the condition or the loop bound static (static_argnums" in error


@pytest.mark.parametrize("helper, line, message", HELPERS, ids=IDS)
def test_the_suggested_fix_a_static_bound_works(helper, line, message):
    _, traced_loop = loops_of(helper)
    expected = traced_loop(jnp.float32(1.0), 3)
    assert expected == 17.0
    fixed = autograph_lite.jit(traced_loop, static_argnums=1)(jnp.float32(1.0), 3)
    assert_same(fixed, expected)


def test_nothing_is_mutated_before_the_refusal():
    reset()
    with pytest.raises(autograph_lite.ConversionError):
        autograph_lite.jit(lambda x: push(x) if x > 0 else x)(jnp.float32(1.0))
    assert HEAP == []


def test_the_rewrite_marks_only_the_alias_that_may_come_from_outside():
    assert "from_outside=True" in autograph_lite.to_source(alias_list)
    assert "from_outside" not in autograph_lite.to_source(builds_and_extends)
    assert "items_only=False" in autograph_lite.to_source(alias_nested)
    assert "items_only" not in autograph_lite.to_source(builds_rows)


# What the function builds itself: each keeps working staged (one scan), with eager's value.
def builds_and_extends(v):
    parts = [v]
    parts += [v]
    return v + len(parts)


def builds_rows(v):
    rows = [[0.0, 0.0]]
    rows[0][1] += 1.0
    return v + rows[0][1]


def aliases_its_own_rows(v):
    rows = [[0.0, 0.0]]
    same = rows
    same[0][1] += 1.0
    return v + rows[0][1]


def fills_its_own_array(v):
    b = np.zeros(3)
    b += 1.0
    return v + b[0]


def accumulates(v):
    total = v * 0.0
    total += v
    return total + 1.0


def copies_then_extends(v):
    xs = list(POOL)
    xs += [1.0]
    return v + len(xs)


def keeps_its_own_heap(v):
    heap = []
    heapq.heappush(heap, 1.0)
    return v + len(heap)


def appends_through_the_class(v):
    ys = []
    list.append(ys, 1.0)
    return v + len(ys)


OWN = [builds_and_extends, builds_rows, aliases_its_own_rows, fills_its_own_array, accumulates, copies_then_extends,
       keeps_its_own_heap, appends_through_the_class]


@pytest.mark.parametrize("helper", OWN, ids=[helper.__name__ for helper in OWN])
def test_what_the_function_builds_itself_stays_staged(helper):
    static_loop, _ = loops_of(helper)
    assert_equivalent(static_loop, jnp.float32(1.0))
    assert "scan" in primitives(autograph_lite.convert(static_loop), jnp.float32(1.0))


class Frozen:
    """Sets its attribute through object.__setattr__, as a frozen class's __init__ does."""

    def __init__(self, v):
        object.__setattr__(self, "v", v)

    def __setattr__(self, name, value):
        raise AttributeError("frozen")


def makes_a_frozen_object(v):
    return Frozen(v).v + 1.0


def counts_with_a_number_a_nested_function_rebinds(v):
    n = 0
    n += 1

    def other():
        n = 5
        return n

    return v + n + other()


@pytest.mark.parametrize("helper", [makes_a_frozen_object, counts_with_a_number_a_nested_function_rebinds],
                         ids=["frozen", "number"])
def test_object_setattr_on_a_new_object_and_a_number_stay_staged(helper):
    static_loop, _ = loops_of(helper)
    assert_equivalent(static_loop, jnp.float32(1.0))
    assert "scan" in primitives(autograph_lite.convert(static_loop), jnp.float32(1.0))


def grows_its_own_row(v):
    rows = [[0.0]]  # built by the function two levels down: its item is its own
    rows[0] += [v]
    return rows[0][1] * 2.0


def test_an_augmented_store_into_an_item_the_function_built_stays_staged():
    assert_summed_in_a_scan(grows_its_own_row, jnp.arange(3.0))

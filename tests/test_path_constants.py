"""A value that every path of a traced ``if`` or switch leaves the same constant stays that constant
(autograph_lite/runtime/path_constants.py): a Python int that no branch changes is still a Python int
after the statement, as in eager Python, not an int32 that wraps past its range.

Each function records the type of the value after the statement while it is traced (``TYPES``), and
computes with it past int32's range, where a traced int32 gives another number."""

from __future__ import annotations

import jax.numpy as jnp
import pytest
from support import assert_equivalent

import autograph_lite

F32, I32 = jnp.float32, jnp.int32
TYPES: list[type] = []
BIG = 2**30


def record(value):
    TYPES.append(type(value))


def log_count(count, scale):
    """A helper called for its effect, which only reads its arguments."""
    assert count > 0 and scale is not None


def dict_item_no_branch_changes(x):
    state = {"n": 3, "w": x}
    if x > 0:
        state["w"] = state["w"] * 2.0
    record(state["n"])
    return state["w"] + state["n"] * BIG // 1024


def name_handed_to_a_helper(x):
    n = 5
    if x > 0:
        log_count(n, x)
        x = x * 2.0
    record(n)
    return x + n * BIG // 1024


def same_number_on_both_paths(x):
    if x > 0:
        k = 7
        x = x + 1.0
    else:
        k = 7
    record(k)
    return x + k * BIG // 1024


def switch_leaves_it(x, code):
    n = 6
    if code == 0:
        x = x + 1.0
    elif code == 1:
        x = x * 3.0
    elif code == 2:
        log_count(n, x)
    else:
        x = -x
    record(n)
    return x + n * BIG // 1024


@pytest.mark.parametrize("function", [dict_item_no_branch_changes, name_handed_to_a_helper, same_number_on_both_paths])
@pytest.mark.parametrize("x", [1.5, -2.0])
def test_a_python_int_no_branch_changes_stays_a_python_int(function, x):
    TYPES.clear()
    assert_equivalent(function, F32(x))
    assert TYPES and set(TYPES) == {int}  # eager, converted on concrete values, traced under jit (once)


@pytest.mark.parametrize("code", [0, 1, 2, 3])
def test_a_python_int_no_branch_of_a_switch_changes_stays_a_python_int(code):
    TYPES.clear()
    assert_equivalent(switch_leaves_it, F32(1.5), I32(code))
    assert TYPES and set(TYPES) == {int}


def different_numbers(x):
    if x > 0:
        k = 1
    else:
        k = 2
    record(k)
    return x * k


def test_numbers_that_differ_between_branches_are_still_chosen_at_run_time():
    TYPES.clear()
    assert float(autograph_lite.jit(different_numbers)(F32(-1.5))) == -3.0
    assert TYPES[0] is not int


def reset_in_a_traced_range(x, k):
    n = 3
    for _ in range(k):
        x = x + n
        n = 3
    record(n)
    return x + n * BIG // 1024


def reset_in_a_static_range(x):
    n = 3
    for _ in range(4):
        x = x + n
        n = 3
    record(n)
    return x + n * BIG // 1024


def reset_in_a_traced_while(x):
    n = 3
    while x < 10.0:
        x = x * 2.0 + n
        n = 3
    record(n)
    return x + n * BIG // 1024


@pytest.mark.parametrize("function, args", [
    (reset_in_a_traced_range, (F32(1.0), I32(3))),
    (reset_in_a_static_range, (F32(1.0),)),
    (reset_in_a_traced_while, (F32(1.0),)),
])
def test_a_python_int_a_loop_sets_to_the_number_it_entered_with_stays_a_python_int(function, args):
    TYPES.clear()
    assert_equivalent(function, *args)
    assert TYPES and set(TYPES) == {int}

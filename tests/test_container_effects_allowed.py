"""What the effect checks allow, and the writes they refuse besides mutating methods.

Allowed: a concrete loop that pops (Python), a user object's pure update method, read-only list methods,
a container the staged code builds itself. Refused with a located error: a nonlocal / global writer
called from staged code, an item assignment into a container from outside the staged code.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest
from support import STAGED_CHOICE, assert_same, conversion_error, primitives, where

import autograph_lite
from autograph_lite import ConversionError

F32 = jnp.float32


# --- what is not refused -------------------------------------------------------------------------------


def pop_in_python_loop(x):
    stack = [1.0, 2.0, 4.0]
    for _ in [0, 1]:  # a Python iterable: a Python loop
        x = x + stack.pop()
    while stack:  # a concrete test
        x = x * stack.pop()
    return x


def test_a_concrete_loop_pops_as_python():
    expected = pop_in_python_loop(F32(1.0))
    assert_same(autograph_lite.convert(pop_in_python_loop)(F32(1.0)), expected)
    assert_same(autograph_lite.jit(pop_in_python_loop)(F32(1.0)), expected)


class Optimizer:
    """Optax-like: a pure ``update`` that returns the new values."""

    def __init__(self, rate):
        self.rate = rate

    def update(self, grads, state):
        return -self.rate * grads, state + 1


def optimizer_steps(x, n):
    optimizer = Optimizer(0.5)
    state = jnp.int32(0)
    for i in range(n):
        step, state = optimizer.update(x, state)
        x = x + step
    return x, state


def test_a_pure_update_method_of_a_user_object_is_staged():
    expected = optimizer_steps(F32(8.0), 3)
    assert_same(autograph_lite.jit(optimizer_steps)(F32(8.0), 3), expected)
    assert "while" in primitives(autograph_lite.convert(optimizer_steps), F32(8.0), 3)


def read_only_list_methods(x, n):
    values = [1.0, 2.0, 2.0]
    for i in range(n):
        x = x + values.index(2.0) + values.count(2.0) + len(values.copy())
    return x, values


def test_non_mutating_list_methods_are_staged():
    expected = read_only_list_methods(F32(1.0), 3)
    assert_same(autograph_lite.jit(read_only_list_methods)(F32(1.0), 3), expected)
    assert "while" in primitives(autograph_lite.convert(read_only_list_methods), F32(1.0), 3)


def features(x):
    parts = [x]
    parts.extend([x * 2.0])  # a list this call built itself: private to the trace
    for scale in [3.0, 4.0]:
        parts.append(x * scale)
    return jnp.stack(parts).sum()


def features_in_branch(x):
    if x > 0:
        y = features(x)
    else:
        y = x
    return y


def features_in_loop(x, n):
    for i in range(n):
        x = x * 0.1 + features(x)
    return x


def test_a_list_built_inside_the_staged_code_may_be_mutated():
    assert_same(autograph_lite.jit(features_in_branch)(F32(1.0)), features_in_branch(F32(1.0)))
    assert primitives(autograph_lite.convert(features_in_branch), F32(1.0)) & STAGED_CHOICE
    assert_same(autograph_lite.jit(features_in_loop)(F32(1.0), 3), features_in_loop(F32(1.0), 3))


def scratch_in_body(x, n):
    for i in range(n):
        scratch = [x, x * 2.0]
        x = scratch.pop() - scratch.pop()
    return x


def test_a_list_built_in_the_loop_body_may_be_mutated():
    assert_same(autograph_lite.jit(scratch_in_body)(F32(1.5), 3), scratch_in_body(F32(1.5), 3))
    assert "while" in primitives(autograph_lite.convert(scratch_in_body), F32(1.5), 3)


# --- nonlocal and global writers -----------------------------------------------------------------------


def counter_loop(x, n):
    c = 0

    def inc():
        nonlocal c
        c += 1
        return c

    for i in range(n):
        x = x + inc()
    return x, c


def test_a_nonlocal_writer_called_in_a_traced_loop_is_a_located_error():
    message = conversion_error(counter_loop, F32(1.0), 3)
    assert message.startswith(where(counter_loop, "c += 1") + ": ")
    assert "assigns to the nonlocal variable 'c'" in message
    assert where(counter_loop, "for i in range(n):") in message


@pytest.mark.parametrize("n", [0, 3])
def test_a_nonlocal_writer_called_in_a_static_loop_runs_as_python(n):
    expected = counter_loop(F32(1.0), n)
    assert_same(autograph_lite.convert(counter_loop)(F32(1.0), n), expected)
    assert_same(autograph_lite.jit(counter_loop, static_argnames="n")(F32(1.0), n=n), expected)
    if n:
        report = str(autograph_lite.explain(counter_loop, F32(1.0), n, static_argnames="n"))
        assert "its body calls a function that assigns to the nonlocal variable 'c'" in report


CALLS = 0


def count_call(value):
    global CALLS
    CALLS = CALLS + 1
    return value


def global_writer_in_branch(x):
    if x > 0:
        x = count_call(x) * 2
    return x


def test_a_global_writer_called_in_a_traced_branch_is_a_located_error():
    global CALLS
    CALLS = 0
    message = conversion_error(global_writer_in_branch, F32(1.0))
    assert message.startswith(where(count_call, "CALLS = CALLS + 1") + ": ")
    assert "assigns to the global variable 'CALLS'" in message
    assert CALLS == 0  # refused before the assignment
    assert autograph_lite.convert(global_writer_in_branch)(2.0) == 4.0 and CALLS == 1


def cell_assigned_in_loop(x, n):
    c = 0
    get = lambda: c
    for i in range(n):
        c = c + 1
        x = x + get()
    return x


def test_only_the_users_own_declarations_are_checked():
    source = autograph_lite.to_source(counter_loop)
    assert source.count("_ag.outer_write(") == 1
    assert "_ag.outer_write('c', 'nonlocal')" in source
    generated = autograph_lite.to_source(cell_assigned_in_loop)
    assert "nonlocal c" in generated and "outer_write" not in generated
    assert_same(autograph_lite.jit(cell_assigned_in_loop)(F32(1.0), 3), cell_assigned_in_loop(F32(1.0), 3))


# --- item assignment on a container from outside the staged code ---------------------------------


def add_and_read(a, k, x):
    a[k] += x
    return a[k]


def loop_calling_add_and_read(x, b):
    s = x * 0.0
    for _ in range(1, 4):
        s = s + add_and_read(b, 0, 3.0) * x
    return s


def test_an_item_assignment_into_an_outer_numpy_array_is_never_made_by_a_trial_or_a_staging():
    eager_array = np.array([1.0, 2.0], np.float32)
    expected = loop_calling_add_and_read(np.float32(2.0), eager_array)
    converted_array = np.array([1.0, 2.0], np.float32)
    got = autograph_lite.convert(loop_calling_add_and_read)(F32(2.0), converted_array)
    assert_same(got, expected)
    np.testing.assert_array_equal(converted_array, eager_array)  # the trial added nothing
    staged_array = np.array([1.0, 2.0], np.float32)
    with pytest.raises(ConversionError) as raised:
        autograph_lite.convert(loop_calling_add_and_read, static_loops="stage")(F32(2.0), staged_array)
    assert str(raised.value).startswith(where(add_and_read, "a[k] += x") + ": ")
    assert "mutates a NumPy array from outside the staged code" in str(raised.value)
    np.testing.assert_array_equal(staged_array, [1.0, 2.0])  # refused before the assignment


def dict_built_and_filled_in_a_traced_loop(x, n):
    total = x * 0.0
    for i in range(n):
        scratch = {"k": 0.0}
        scratch["k"] = x * i  # rewritten to scratch = _ag.setitem(scratch, ...): still the same dict
        total = total + scratch["k"]
    return total


def test_item_assignment_into_a_dict_the_staged_body_built_is_allowed():
    for n in (0, 3):
        assert_same(autograph_lite.jit(dict_built_and_filled_in_a_traced_loop)(F32(1.5), n),
                    dict_built_and_filled_in_a_traced_loop(F32(1.5), n))


OUTER_LAYER = {"w": 1.0}


def stores_through_an_indexed_item(x, i):
    layers = [OUTER_LAYER, {"w": x * 2}]  # layers[0] is from outside: the nested store stays refused
    if x > 0:
        layers[i]["w"] = layers[i]["w"] - 1.0
    return layers[0]["w"]


def test_a_refused_store_through_an_item_is_named_as_written():
    message = conversion_error(stores_through_an_indexed_item, F32(1.0), jnp.int32(0))
    assert "its body assigns to layers[i]['w']" in message and "_ag" not in message, message


def appends_until_small(x):
    history = []
    for _ in range(5):
        history.append(x)
        x = x * 0.5
        if x < 0.1:
            break
    return jnp.stack(history)


def test_an_append_in_a_loop_that_stops_at_a_traced_break_names_the_loop():
    message = conversion_error(appends_until_small, F32(1.0))
    assert "inside a `for` loop that can stop early (break or return) on a traced condition" in message, message
    assert "branch of an `if`" not in message


def extrapolates_until_settled(x):
    table = [x]
    for k in autograph_lite.unroll(range(1, 4)):
        table.append(table[k - 1] * 0.5 + 1.0)
        if jnp.abs(table[k] - table[k - 1]) < 0.3:
            return table[k]
    return table[-1]


def extrapolates_until_settled_in_an_array(x):
    table = jnp.zeros(4).at[0].set(x)
    for k in range(1, 4):
        table = table.at[k].set(table[k - 1] * 0.5 + 1.0)
        if jnp.abs(table[k] - table[k - 1]) < 0.3:
            return table[k]
    return table[-1]


def test_a_list_changed_after_a_traced_exit_is_not_told_to_unroll():
    """The fix offered was to iterate over unroll(...), which the loop already did (the iterations
    after a traced exit run under it either way); the other fix, an array, works."""
    message = conversion_error(extrapolates_until_settled, F32(4.0))
    assert "runs inside a `for` loop that can stop early (break or return) on a traced condition" in message
    assert "unroll(...) alone does not help" in message and "rather than stage(...)" not in message, message
    for x in (F32(4.0), F32(0.5), F32(2.0)):
        assert_same(autograph_lite.jit(extrapolates_until_settled_in_an_array)(x), extrapolates_until_settled(x))

"""Effects that only show at run time: a mutating method call used as a value, an outer variable assigned.

``total += stack.pop()`` inside a staged loop would pop once while tracing, whatever the trip count.
Such a call is refused before it runs: in the static-loop policy's trial the loop runs as Python
instead (same result as eager), in a real staging it is a located ``ConversionError``. What mutates is
decided by the receiver's run-time type (a list, dict, set, deque, bytearray), never by the method's
name: a user's ``update`` method stages. A container the staged code builds itself may be mutated.
"""

from __future__ import annotations

import collections

import jax.numpy as jnp
import pytest
from support import assert_same, conversion_error, where

import autograph_lite

F32 = jnp.float32


# --- the repro: pop in a loop ------------------------------------------------------------------------


def pop_in_loop(n):
    stack = [1.0, 2.0, 4.0]
    total = 0.0
    k = 0
    for i in range(n):
        total += stack.pop()
        k += 1
    return total, len(stack)


def test_pop_in_a_loop_over_a_traced_range_is_a_located_error():
    message = conversion_error(pop_in_loop, 2)
    assert message.startswith(where(pop_in_loop, "total += stack.pop()") + ": ")
    assert "list.pop(), which mutates a list" in message
    assert where(pop_in_loop, "for i in range(n):") in message  # the staged statement
    assert "static_argnames" in message  # the fix


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_pop_in_a_loop_over_a_static_range_runs_as_python(n):
    expected = pop_in_loop(n)
    assert autograph_lite.convert(pop_in_loop)(n) == expected
    assert_same(autograph_lite.jit(pop_in_loop, static_argnames="n")(n=n), expected)


def pop_from_parameter(x, stack, n):
    for i in range(n):
        x = x + stack.pop()
    return x


def test_the_callers_list_is_mutated_as_eagerly_and_not_by_the_trial():
    eager_stack, converted_stack = [1.0, 2.0, 4.0], [1.0, 2.0, 4.0]
    expected = pop_from_parameter(F32(1.0), eager_stack, 2)
    assert_same(autograph_lite.convert(pop_from_parameter)(F32(1.0), converted_stack, 2), expected)
    assert converted_stack == eager_stack == [1.0]


STACK = [1.0, 2.0, 4.0]


def pop_from_global(x, n):
    for i in range(n):
        x = x + STACK.pop()
    return x


def test_a_global_list_is_mutated_as_eagerly_under_jit_with_a_static_bound():
    STACK[:] = [1.0, 2.0, 4.0]
    expected = pop_from_global(1.0, 2)
    eager_stack = list(STACK)
    STACK[:] = [1.0, 2.0, 4.0]
    assert_same(autograph_lite.jit(pop_from_global, static_argnames="n")(F32(1.0), n=2), expected)
    assert STACK == eager_stack == [1.0]


def test_explain_gives_the_mutation_as_the_reason_for_a_python_loop():
    report = str(autograph_lite.explain(pop_in_loop, 2, static_argnames="n"))
    line = where(pop_in_loop, "for i in range(n):")
    assert f"{line}: `for` loop -> Python loop (its body calls list.pop(), which mutates a list)" in report


def test_a_loop_marked_stage_is_a_located_error():
    def staged_pop(x):
        stack = [1.0, 2.0, 4.0]
        for i in autograph_lite.stage(range(2)):
            x = x + stack.pop()
        return x

    message = conversion_error(staged_pop, F32(1.0))
    assert message.startswith(where(staged_pop, "x = x + stack.pop()") + ": ")
    assert "which mutates a list" in message and "lax.scan" in message


# --- other containers ----------------------------------------------------------------------------------


def dict_pop(x, n):
    table = {0: 1.0, 1: 2.0, 2: 4.0}
    for i in range(n):
        x = x + table.pop(i)
    return x, sorted(table)


def set_add(x, n):
    seen = {0}
    for i in range(n):
        x = x + len(seen) + float(seen.add(i + 1) is None)
    return x, sorted(seen)


def deque_popleft(x, n):
    queue = collections.deque([1.0, 2.0, 4.0])
    for i in range(n):
        x = x * 2 + queue.popleft()
    return x, len(queue)


def bytearray_pop(x, n):
    data = bytearray(b"\x01\x02\x03")
    for i in range(n):
        x = x + data.pop()
    return x, len(data)


@pytest.mark.parametrize("fn, kind, call", [
    (dict_pop, "dict", "table.pop(i)"),
    (set_add, "set", "seen.add(i + 1)"),
    (deque_popleft, "deque", "queue.popleft()"),
    (bytearray_pop, "bytearray", "data.pop()"),
])
def test_other_containers(fn, kind, call):
    message = conversion_error(fn, F32(1.0), 2)
    assert message.startswith(where(fn, call) + ": ")
    assert f"which mutates a {kind}" in message
    expected = fn(F32(1.0), 2)
    assert_same(autograph_lite.convert(fn)(F32(1.0), 2), expected)
    assert_same(autograph_lite.jit(fn, static_argnames="n")(F32(1.0), n=2), expected)


def test_a_value_used_set_mutation_under_a_traced_if_is_refused():
    def discard_in_branch(x):
        seen = {0, 1}
        if x > 0:
            x = x + float(seen.discard(0) is None)
        return x, len(seen)

    message = conversion_error(discard_in_branch, F32(1.0))
    assert message.startswith(where(discard_in_branch, "seen.discard(0)") + ": ")
    assert "which mutates a set" in message


# --- other staged statements ---------------------------------------------------------------------------


def pop_in_branch(x):
    stack = [1.0, 2.0]
    if x > 0:
        y = x + stack.pop()
    else:
        y = x
    return y, len(stack)


def test_pop_in_a_traced_branch_is_a_located_error():
    message = conversion_error(pop_in_branch, F32(1.0))
    assert message.startswith(where(pop_in_branch, "y = x + stack.pop()") + ": ")
    assert "which mutates a list" in message and "branch of an `if`" in message
    assert pop_in_branch(1.0) == autograph_lite.convert(pop_in_branch)(1.0) == (3.0, 1)


def pop_in_lazy_operand(x):
    stack = [1.0, 2.0]
    if x > 0 and stack.pop() > 1.0:
        y = x + 1.0
    else:
        y = x - 1.0
    return y, len(stack)


def test_pop_in_an_operand_python_may_skip_is_a_located_error_once_an_earlier_one_is_traced():
    # Eager Python skips the pop when x <= 0; a traced x makes the right operand run while tracing.
    message = conversion_error(pop_in_lazy_operand, F32(-1.0))
    assert message.startswith(where(pop_in_lazy_operand, "stack.pop() > 1.0") + ": ")
    assert "which mutates a list" in message and "lazy operand of `and`" in message
    for x in (-1.0, 1.0):
        assert_same(autograph_lite.convert(pop_in_lazy_operand)(x), pop_in_lazy_operand(x))


def pop_in_conditional_expression(x):
    stack = [1.0, 2.0]
    y = stack.pop() if x > 0 else 0.0
    return x + y, len(stack)


def test_pop_in_a_traced_conditional_expression_is_a_located_error():
    message = conversion_error(pop_in_conditional_expression, F32(1.0))
    assert message.startswith(where(pop_in_conditional_expression, "y = stack.pop()") + ": ")
    assert "which mutates a list" in message


def pop_in_traced_while(x):
    stack = [1.0, 2.0, 4.0]
    while x < 100.0:
        x = x * 2 + stack.pop()
    return x


def test_pop_in_a_while_with_a_traced_test_is_a_located_error():
    message = conversion_error(pop_in_traced_while, F32(1.0))
    assert message.startswith(where(pop_in_traced_while, "x = x * 2 + stack.pop()") + ": ")
    assert "which mutates a list" in message and "`while` loop" in message


def pop_in_while_test(x, stack):
    while stack.pop() > 1.0:  # concrete, though x is traced: evaluated as Python
        x = x * 2
    return x


def test_a_while_test_that_pops_is_evaluated_once_per_iteration_as_python():
    eager_stack, jit_stack = [0.5, 2.0, 3.0], [0.5, 2.0, 3.0]
    expected = pop_in_while_test(F32(1.0), eager_stack)
    closed = autograph_lite.jit(lambda x: pop_in_while_test(x, jit_stack))
    assert_same(closed(F32(1.0)), expected)
    assert jit_stack == eager_stack == []


def test_a_while_test_that_pops_and_is_traced_is_a_located_error():
    def traced_test(x):
        stack = [4.0, 2.0, 0.5]
        while x < stack.pop():
            x = x * 2
        return x

    message = conversion_error(traced_test, F32(1.0))
    assert message.startswith(where(traced_test, "while x < stack.pop():") + ": ")
    assert "which mutates a list" in message


# --- what is not refused -------------------------------------------------------------------------------


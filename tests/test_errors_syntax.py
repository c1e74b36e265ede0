"""Unsupported syntax rejected at conversion with its line, what is supported and must match eager, and
errors raised by user code that keep their meaning.

Each error names the user's ``file.py:LINE``, computed from this file's source.
"""

from __future__ import annotations

import re
import warnings

import jax
import jax.numpy as jnp
import pytest
from test_errors import F32, assigned_in_true_branch_only, line_of, message_of, where

import autograph_lite
from autograph_lite import ConversionError, StagingTypeError, UnsupportedSyntaxError

# --- unsupported syntax, rejected at conversion with the line ------------------------------------------

COUNTER = 0


def a_generator(x):
    yield x


def a_delegating_generator(x):
    yield from [x]


async def an_async_function(x):
    return x


def del_in_branch(x):
    y = x
    if x > 0:
        del y
        y = x + 1
    return y


def del_in_loop(x):
    for _ in range(3):
        t = x
        del t
    return x


def global_write_in_branch(x):
    global COUNTER
    if x > 0:
        COUNTER = 1
    return x


def global_write_in_loop(x):
    global COUNTER
    for _ in range(2):
        COUNTER = COUNTER + 1
    return x


def nonlocal_write_in_loop_factory():
    count = 0

    def inner(x):
        nonlocal count
        while x > 0:
            count = count + 1
            x = x - 1
        return x

    return inner


def walrus_in_while_test(x):
    while (y := x - 1) > 0:
        x = y
    return x


def walrus_after_and(x):
    return x > 0 and (y := x * 2) > 1


def walrus_in_ternary(x):
    return x if x > 0 else (y := -x)


UNSUPPORTED = [
    (a_generator, "yield x", "a generator (`yield`) cannot be converted", "collect the values"),
    (a_delegating_generator, "yield from", "a generator (`yield`) cannot be converted", "collect the values"),
    (an_async_function, "async def", "'async def an_async_function' cannot be converted", "plain def"),
    (del_in_branch, "del y", "`del y` inside a branch or loop cannot be converted", "Assign y = None instead"),
    (del_in_loop, "del t", "`del t` inside a branch or loop cannot be converted", "Assign t = None instead"),
    (global_write_in_branch, "if x > 0:", "'COUNTER' is declared global or nonlocal and assigned inside this if statement",
     "Return the new value of 'COUNTER'"),
    (global_write_in_loop, "for _ in range(2):", "'COUNTER' is declared global or nonlocal and assigned inside this for statement",
     "Return the new value of 'COUNTER'"),
    (walrus_in_while_test, "while (y :=", "an assignment expression (`:=`) in the test of a `while` loop cannot be converted",
     "Assign y before the loop"),
    (walrus_after_and, "(y := x * 2)", "an assignment expression (`:=`) in an operand that Python evaluates lazily",
     "Assign y on its own line first"),
    (walrus_in_ternary, "(y := -x)", "an assignment expression (`:=`) in an operand that Python evaluates lazily",
     "Assign y on its own line first"),
]


@pytest.mark.parametrize("fn, text, what, hint", UNSUPPORTED, ids=[case[0].__name__ for case in UNSUPPORTED])
def test_unsupported_syntax_is_rejected_at_conversion_with_its_line(fn, text, what, hint):
    with pytest.raises(UnsupportedSyntaxError) as excinfo:
        autograph_lite.convert(fn)
    message = message_of(excinfo)
    assert message.startswith(where(fn, text) + ": "), message
    assert what in message
    assert hint in message
    error = excinfo.value
    assert isinstance(error, SyntaxError) and isinstance(error, ConversionError)
    assert error.filename == fn.__code__.co_filename and error.lineno == line_of(fn, text)


def test_nonlocal_write_in_a_loop_is_rejected():
    inner = nonlocal_write_in_loop_factory()
    with pytest.raises(UnsupportedSyntaxError) as excinfo:
        autograph_lite.jit(inner)(F32(2.0))
    message = message_of(excinfo)
    assert "'count' is declared global or nonlocal" in message
    assert where(nonlocal_write_in_loop_factory, "while x > 0:") in message


def test_unsupported_syntax_is_reported_by_jit_too():
    with pytest.raises(UnsupportedSyntaxError, match=re.escape(where(a_generator, "yield x"))):
        autograph_lite.jit(a_generator)


# --- what is supported and must match eager Python ------------------------------------------------------


def walrus_in_if_test(x):
    if (y := x * 2) > 1:
        x = y + 1
    return x, y


@pytest.mark.parametrize("x", [2.0, 0.0])
def test_walrus_in_an_if_test_is_supported_and_matches_eager(x):
    # The test is evaluated in the function's own scope, so the name is bound as in Python.
    expected = walrus_in_if_test(F32(x))
    for got in (autograph_lite.convert(walrus_in_if_test)(F32(x)), autograph_lite.jit(walrus_in_if_test)(F32(x))):
        assert [float(v) for v in got] == [float(v) for v in expected]


def del_after_branch(x):
    y = x * 2
    if x > 0:
        x = x + y
    del y
    return x


@pytest.mark.parametrize("x", [2.0, -2.0])
def test_del_outside_control_flow_is_fine(x):
    assert float(autograph_lite.jit(del_after_branch)(F32(x))) == del_after_branch(x)


def global_read_in_branch(x):
    if x > 0:
        x = x + COUNTER
    return x


def test_reading_a_global_in_a_branch_is_fine():
    assert float(autograph_lite.jit(global_read_in_branch)(F32(1.0))) == 1.0 + COUNTER


def nested_generator_is_left_alone(x):
    gen = (i * 2 for i in range(3))
    return x + sum(gen)


def test_a_generator_expression_inside_is_fine():
    # JAX deprecates flattening a generator as a pytree leaf (a future error): sum(<generator>) in
    # converted code must not hand the generator to jax.tree_util.
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        assert float(autograph_lite.jit(nested_generator_is_left_alone)(F32(1.0))) == 7.0


# --- errors raised by user code keep their meaning ------------------------------------------------------


def raises_value_error(x, flag):
    if flag:
        raise ValueError("flag must be false")
    return x


def test_user_exceptions_in_a_concrete_branch_propagate_unchanged():
    with pytest.raises(ValueError, match="flag must be false"):
        autograph_lite.jit(raises_value_error, static_argnums=1)(F32(1.0), True)
    assert float(autograph_lite.jit(raises_value_error, static_argnums=1)(F32(1.0), False)) == 1.0


def raise_in_a_traced_branch(x):
    if x > 0:
        raise ValueError("positive")
    return x


def test_raise_in_a_traced_branch_raises_at_run_time_only_when_taken():
    # Issue #15: the raise is a run-time check (tests/test_runtime_checks.py), no longer a trace-time raise.
    assert float(autograph_lite.jit(raise_in_a_traced_branch)(F32(-1.0))) == -1.0
    with pytest.raises(ValueError, match="^positive\n"):
        autograph_lite.jit(raise_in_a_traced_branch)(F32(1.0))


def test_conversion_errors_are_not_silenced_by_jax():
    with pytest.raises(StagingTypeError):
        jax.make_jaxpr(autograph_lite.convert(assigned_in_true_branch_only))(F32(1.0))


def test_converting_library_code_names_the_inner_function_to_convert():
    # jax.vmap(f) of a user function converts f (tests/test_transform_arguments.py); of library code,
    # there is nothing of the user's to convert, and the message says how to convert a user function.
    with pytest.raises(autograph_lite.ConversionError, match=r"(?s)library code.*jax.vmap\(autograph_lite.convert\(f\)\)"):
        autograph_lite.jit(jax.vmap(jnp.sin))

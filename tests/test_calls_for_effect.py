"""A call made for its effect in a branch or a loop (``if c: log_state(x)``): the runtime decides
(``_ag.call_for_effect``, runtime/calls.py).

Before, the rewrite refused to stage any ``if`` or loop whose body held such a statement ("its body
calls log_state(...) for its effect"), whatever the callee, while ``y = log_state(x)`` was staged, the
helper converted and its effects checked where they are written. Now the statement form is the same:
a function of the user's runs converted; library code or a builtin, whose effect the runtime cannot
see, is refused at the call inside staged code.
"""

from __future__ import annotations

import threading

import jax
import jax.numpy as jnp
import pytest
from print_support import assert_prints_like_eager, staged_as
from support import conversion_error, where

import autograph_lite

LOG: list[int] = []
EVENT = threading.Event()


def log_state(x):
    print("state", x)


def branch_logs(x):
    if x > 0:
        log_state(x)
    else:
        log_state(-x)
    return x * 2.0


def test_a_helper_that_prints_called_in_a_traced_branch_is_staged():
    """Before: ConversionError "its body calls log_state(...) for its effect"."""
    assert_prints_like_eager(branch_logs, jnp.float32(1.5), expected="state 1.5\n")
    assert_prints_like_eager(branch_logs, jnp.float32(-2.0), expected="state 2.0\n")


def loop_logs(xs):
    total = 0.0
    for x in xs:
        log_state(x)
        total = total + x
    return total


def test_a_static_loop_calling_it_is_staged_as_a_scan():
    """Before: the statement made "auto" run the loop as Python (unrolled)."""
    assert_prints_like_eager(loop_logs, jnp.arange(2.0), expected="state 0.0\nstate 1.0\n")
    assert "lax.scan" in staged_as(loop_logs, jnp.arange(2.0))


def bump():
    LOG.append(1)


def branch_bumps(x):
    if x > 0:
        bump()
    return x


def test_the_helpers_own_effect_is_refused_where_it_is_written():
    """The error points at ``LOG.append`` inside the helper, where it pointed at the ``if`` before."""
    assert conversion_error(branch_bumps, jnp.float32(1.0)).startswith(f"{where(bump, 'LOG.append(1)')}: ")


def branch_signals_to_a_library(x):
    if x > 0:
        EVENT.set()
    return x


def test_a_library_call_made_for_its_effect_is_refused_at_the_call():
    """(A logger's call is staged instead: tests/test_staged_logging.py.)"""
    error = conversion_error(branch_signals_to_a_library, jnp.float32(1.0))
    assert error.startswith(f"{where(branch_signals_to_a_library, 'EVENT.set(')}: this call of EVENT.set(), made for "
                            "its effect and not converted")


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_outside_staged_code_every_callee_runs_as_written(x):
    LOG.clear()
    autograph_lite.convert(branch_bumps)(x)
    EVENT.clear()
    autograph_lite.convert(branch_signals_to_a_library)(x)
    assert LOG == ([1] if x > 0 else []) and EVENT.is_set() == (x > 0)
    assert "_ag.call_for_effect('bump', bump)" in autograph_lite.to_source(branch_bumps)


def debug_print_in_a_traced_branch(x):
    if x > 2:
        jax.debug.print("big {x}", x=x)
    return x + 1


def debug_print_in_a_traced_while(x):
    while x < 10:
        x = x * 2
        jax.debug.print("x={x}", x=x)
    return x


@pytest.mark.parametrize("function, x, expected", [
    (debug_print_in_a_traced_branch, 5.0, "big 5.0\n"),
    (debug_print_in_a_traced_branch, 1.0, ""),
    (debug_print_in_a_traced_while, 1.0, "x=2.0\nx=4.0\nx=8.0\nx=16.0\n"),
])
def test_jax_debug_print_is_staged_where_it_is_called(function, x, expected):
    # JAX stages its own effect: it prints when, and as often as, the staged code runs (it was refused
    # as a library call made for its effect)
    assert_prints_like_eager(function, jnp.float32(x), expected=expected)


def noted_in_a_nested_branch(a, c):
    if c > 0:
        y = 1
    else:
        if c < -5:
            y = 2
        else:
            log_state(a)
            y = 3
    return y


@pytest.mark.parametrize("c", [1.0, -1.0, -9.0])
def test_a_parameter_handed_to_a_helper_in_a_nested_branch_is_passed_once(c):
    """The outer ``if`` carries ``a`` (handed to a call made for its effect inside it) and took it as
    an input of its own as well: its branches were defined with ``a`` twice, a SyntaxError."""
    expected = "state 2.0\n" if -5 <= c <= 0 else ""
    assert_prints_like_eager(noted_in_a_nested_branch, jnp.float32(2.0), jnp.float32(c), expected=expected)

"""What a ``finally`` block or a context manager's ``__exit__`` prints when a run-time check in its body
fails (runtime/cleanups.py). Eager Python prints it on the way out, then the caller gets the
exception; the compiled program stopped at the check's callback, so ``exit s`` never came out.

PYTEST_DONT_REWRITE: the user functions here hold asserts, whose eager messages must stay Python's.
"""

from __future__ import annotations

import contextlib
import io

import jax
import jax.numpy as jnp
import pytest
from support import where
from test_context_managers import Section

import autograph_lite

F32 = jnp.float32


class Inspecting(Section):
    def __exit__(self, kind, error, trace):
        print("exit", self.name, kind is None)
        return False


class Suppressing(Section):
    def __exit__(self, *raised):
        return True


def within_limit(v):
    if v > 5:
        raise OverflowError("past the limit")
    return v


def section_around_raise(x):
    with Section("s"):
        if x > 0:
            raise ValueError("positive")
        print("inside")
    return x


def finally_around_assert(x):
    try:
        y = jnp.sqrt(jnp.abs(x))
        assert x < 5, "big"
        print("checked")
    finally:
        print("finally")
    return y


def nested_cleanups(x):
    with Section("outer"):
        try:
            total = x
            for _ in range(3):
                total = within_limit(total * 2)
        finally:
            print("finally")
    return total


def finally_printing_a_traced_value(x):
    try:
        if x > 0:
            raise ValueError("positive")
    finally:
        print("finally", x)  # the line the error names
    return x


def finally_printing_without_a_check(x):
    try:
        y = x * 2
    finally:
        print("finally", x)
    return y


def exit_reading_its_exception(x):
    with Inspecting("s"):
        assert x < 5
    return x


def exit_suppressing(x):
    with Suppressing("s"):
        assert x < 5
    return x


def outcome(function, *args):
    """What ``function`` prints (its staged prints included) and returns or raises."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result = ("returned", float(function(*args)))
        except Exception as error:
            result = ("raised", type(error), str(error))
        jax.effects_barrier()
    return out.getvalue(), result


@pytest.mark.parametrize("function", [section_around_raise, finally_around_assert, nested_cleanups,
                                      finally_printing_without_a_check])
@pytest.mark.parametrize("x", [F32(1.0), F32(-1.0), F32(7.0)])
def test_a_cleanup_prints_before_the_exception_as_eagerly(function, x):
    eager = outcome(function, x)
    jitted = autograph_lite.jit(function)
    assert outcome(jitted, x) == eager, "first call"
    assert outcome(jitted, x) == eager, "cached call"


def test_a_cleanup_printing_a_traced_value_after_a_check_is_refused_at_its_print():
    with pytest.raises(autograph_lite.ConversionError) as raised:
        autograph_lite.jit(finally_printing_a_traced_value)(F32(1.0))
    message = str(raised.value)
    assert message.startswith(where(finally_printing_a_traced_value, 'print("finally", x)'))
    assert f"staged in its body ({where(finally_printing_a_traced_value, 'raise ValueError')})" in message


@pytest.mark.parametrize("function, what", [
    (exit_reading_its_exception, "reads the exception it is given"),
    (exit_suppressing, "returns True, which would suppress it"),
])
def test_an_exit_that_reads_or_suppresses_the_exception_is_refused(function, what):
    with pytest.raises(autograph_lite.ConversionError) as raised:
        autograph_lite.jit(function)(F32(1.0))
    assert f"this context manager's __exit__ {what}" in str(raised.value)
    assert str(raised.value).startswith(where(function, "with "))

"""A ``with`` statement's ``__enter__`` / ``__exit__`` of the user's run converted
(runtime/context_managers.py): their prints come out where eager Python prints them, on every call,
and an ``if`` on a traced value works there. They ran as written, while tracing: their prints came
first on the first call (before the function's staged prints) and never on a cached call.
"""

from __future__ import annotations

import contextlib
import io
import sys

import jax
import jax.numpy as jnp
import pytest
from print_support import assert_prints_like_eager
from support import assert_same

import autograph_lite

F32 = jnp.float32


class Section:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        print("enter", self.name)
        return self

    def __exit__(self, *raised):
        print("exit", self.name)
        return False


def around(x):
    print("before", x)
    with Section("s") as section:
        print("inside", x, section.name)
        y = x * 2
    print("after", y)
    return y


def in_a_loop_and_a_branch(x, n):
    for i in range(n):
        with Section("step"):
            x = x * 2
    if x > 10:
        with Section("big"):
            x = x - 10
    return x


def test_enter_and_exit_print_in_eagers_order_on_every_call():
    assert_prints_like_eager(around, F32(1.5), expected="before 1.5\nenter s\ninside 1.5 s\nexit s\nafter 3.0\n")


@pytest.mark.parametrize("x, n", [(F32(1.5), 3), (F32(0.5), 2), (F32(1.0), 0)])
def test_a_with_in_a_staged_loop_and_a_traced_branch_prints_per_iteration_and_path(x, n):
    expected = "enter step\nexit step\n" * n + ("enter big\nexit big\n" if x * 2 ** n > 10 else "")
    assert_prints_like_eager(in_a_loop_and_a_branch, x, n, expected=expected)


class Clipped:
    """A manager whose ``__enter__`` branches on a traced value."""

    def __init__(self, x):
        self.x = x

    def __enter__(self):
        if self.x > 1:
            return self.x - 1
        return self.x

    def __exit__(self, *raised):
        return False


def clipped(x):
    with Clipped(x) as y:
        return y * 3


@pytest.mark.parametrize("x", [F32(0.5), F32(4.0)])
def test_an_if_on_a_traced_value_in_enter_is_staged(x):
    assert_same(autograph_lite.jit(clipped)(x), clipped(x))


class Swallowing:
    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        print("swallowed", kind.__name__ if kind else None)
        return kind is ZeroDivisionError


def swallows(x):
    with Swallowing():
        print(1 / 0)
    return x + 1


def test_an_exit_that_suppresses_the_exception_does_so_converted():
    assert_prints_like_eager(swallows, F32(1.0), expected="swallowed ZeroDivisionError\n")
    assert_same(autograph_lite.jit(swallows)(F32(1.0)), swallows(F32(1.0)))


class EnterOnly:
    def __enter__(self):
        return self


def without_exit(x):
    with EnterOnly():
        return x


def test_a_manager_without_exit_raises_pythons_type_error():
    with pytest.raises(TypeError) as eager:
        without_exit(F32(1.0))
    with pytest.raises(TypeError) as converted:
        autograph_lite.jit(without_exit)(F32(1.0))
    assert str(converted.value) == str(eager.value)


def library_managers(x):
    with jax.named_scope("outer"), contextlib.suppress(KeyError):
        x = x * 2
        {}["missing"]
    return x


def test_library_managers_are_entered_as_written():
    """Handed to ``_ag.context`` (which watches for a swap of ``sys.stdout``), they still run as written:
    ``suppress`` suppresses."""
    assert_same(autograph_lite.jit(library_managers)(F32(2.0)), library_managers(F32(2.0)))


def quiet(x):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print("noisy", x)
        if x > 0:
            print("pos")
    return x, len(buf.getvalue())


def test_a_staged_print_inside_a_redirection_of_the_function_is_a_located_error(capsys):
    """The redirection was entered and left while tracing: the prints came out on the real stdout when
    the program ran, and the captured text was empty (0 where eager returns 14 and prints nothing)."""
    assert quiet(F32(1.5))[1] == 14 and capsys.readouterr().out == ""
    with pytest.raises(autograph_lite.ConversionError, match=r"sys.stdout, which the `with` at .*:\d+ swapped") as raised:
        autograph_lite.jit(quiet)(F32(1.5))
    assert raised.value.location.lineno == quiet.__code__.co_firstlineno + 3
    jax.effects_barrier()
    assert capsys.readouterr().out == ""
    assert autograph_lite.convert(quiet)(1.5) == (1.5, 14)  # no trace: Python's print, into the buffer


def loud(x):
    print("noisy", x)
    if x > 0:
        print("pos")
    return x


def test_the_fix_of_a_redirection_inside_the_function_captures_eager_text():
    captured = {}
    for name, function in (("eager", loud), ("converted", autograph_lite.jit(loud))):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            function(F32(1.5))
            jax.effects_barrier()
        captured[name] = buf.getvalue()
    assert captured["converted"] == captured["eager"] == "noisy 1.5\npos\n"


def prints_to_the_redirected_stream(x, buf):
    with contextlib.redirect_stdout(buf):
        if x > 0:
            print("pos", x, file=sys.stdout)  # the stream the manager swapped in: buf
    return x


def test_a_print_naming_the_redirected_stream_writes_to_it(capsys):
    """It wrote to the sys.stdout current when the program ran, the real one."""
    captured = {}
    for name, function in (("eager", prints_to_the_redirected_stream),
                           ("converted", autograph_lite.jit(prints_to_the_redirected_stream, static_argnums=1))):
        buf = io.StringIO()
        function(F32(1.5), buf)
        jax.effects_barrier()
        captured[name] = buf.getvalue()
    assert captured["converted"] == captured["eager"] == "pos 1.5\n"
    assert capsys.readouterr().out == ""

"""Reads of a function's locals by their names (``locals()``, ``vars()``, ``eval(text)``, ``exec(text)``)
are refused at conversion with the user's line, and the rewrites the hint names compute eager's values.

The rewrite runs a converted ``if`` / ``for`` / ``while`` in helpers that pass on only the names the
code reads: ``locals()['a']`` after a loop that assigns ``a`` gave the value from before the loop,
``"{scale}".format(**locals())`` after a traced ``if`` printed the old scale, and ``eval('scale')``
read the old value, even from ``convert(f)`` on Python numbers.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from support import assert_equivalent
from test_errors import line_of, message_of, where

import autograph_lite
from autograph_lite import ConversionError, UnsupportedSyntaxError

F32 = jnp.float32


def formatted_from_locals(x):
    scale = 1.0
    if x > 0:
        scale = 10.0
    print("scale={scale}".format(**locals()))
    return x


def local_read_after_a_loop(x):
    a = 1.0
    for _ in range(2):
        a = 3.0
    return locals()["a"] * x


def vars_in_a_branch(x):
    y = x
    if x > 0:
        y = vars()["x"] * 2
    return y


def evaluated_name(x):
    scale = 1.0
    if x > 0:
        scale = 7.0
    return x * eval("scale")


def executed_text(x):
    y = 1.0
    exec("print(y)")
    return x + y


REFUSED = [
    (formatted_from_locals, "**locals()", "`locals()`", 'f"scale={scale}"'),
    (local_read_after_a_loop, 'locals()["a"]', "`locals()`", '{"scale": scale}'),
    (vars_in_a_branch, 'vars()["x"]', "`vars()`", "in place of locals()"),
    (evaluated_name, 'eval("scale")', "`eval(...)`", 'eval(text, {"scale": scale})'),
    (executed_text, "exec(", "`exec(...)`", 'exec(text, {"scale": scale})'),
]


@pytest.mark.parametrize("fn, text, what, hint", REFUSED, ids=[case[0].__name__ for case in REFUSED])
def test_a_read_of_the_locals_by_name_is_refused_with_its_line(fn, text, what, hint):
    for wrap in (autograph_lite.convert, autograph_lite.jit):
        with pytest.raises(UnsupportedSyntaxError) as excinfo:
            wrap(fn)(F32(1.5))
        message = message_of(excinfo)
        assert message.startswith(f"{where(fn, text)}: {what} reads the function's local variables"), message
        assert hint in message
        assert isinstance(excinfo.value, ConversionError) and excinfo.value.lineno == line_of(fn, text)


def formatted_by_name(x):
    scale = 1.0
    if x > 0:
        scale = 10.0
    print(f"scale={scale}")
    return x


def local_read_from_a_dict(x):
    a = 1.0
    for _ in range(2):
        a = 3.0
    return {"a": a}["a"] * x


def evaluated_in_a_namespace(x):
    scale = 1.0
    if x > 0:
        scale = 7.0
    return x * eval("scale", {"scale": scale})


def executed_in_a_namespace(x):
    scale = 1.0
    if x > 0:
        scale = 7.0
    namespace = {"scale": scale}
    exec("y = scale * 2", namespace)
    return x + namespace["y"]


@pytest.mark.parametrize("x", [1.5, -1.5])
def test_the_hinted_rewrites_compute_eagers_values(x, capsys):
    assert_equivalent(local_read_from_a_dict, F32(x))
    assert_equivalent(evaluated_in_a_namespace, F32(x))
    assert_equivalent(executed_in_a_namespace, F32(x))
    formatted_by_name(F32(x))
    autograph_lite.convert(formatted_by_name)(F32(x))
    autograph_lite.jit(formatted_by_name)(F32(x))
    jax.effects_barrier()
    expected = "scale=10.0\n" if x > 0 else "scale=1.0\n"
    assert capsys.readouterr().out == expected * 3


class Box:
    def __init__(self, value):
        self.value = value


def attributes_through_vars(x):
    box = Box(2.0)
    if x > 0:
        x = x * vars(box)["value"]
    return x


def test_vars_of_an_object_is_no_read_of_the_locals():
    assert_equivalent(attributes_through_vars, F32(1.5))

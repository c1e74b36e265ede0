# ruff: noqa: UP030, UP031, UP032 - the str.format calls and %-formatting are what the tests are about
"""``str`` / ``repr`` / ``format``, ``str.format``, ``str.join``, ``%`` and ``+`` of text made from traced
values (runtime/text.py, runtime/printing.py): the text eager Python makes, written when the program runs.

Before, each formatted the tracer while tracing: ``print("loss " + str(loss))`` printed
``loss JitTracer(float32[])`` on every call, an exception's message held the tracer's name, and
``"{:.3f}".format(x)`` raised JAX's TypeError on every input, where eager code succeeds.
"""

from __future__ import annotations

import contextlib
import io

import jax
import jax.numpy as jnp
import pytest

import autograph_lite
from autograph_lite.errors import ConversionError

F32 = jnp.float32


def printed(function, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        function(*args)
        jax.effects_barrier()
    return out.getvalue()


def concatenated(x):
    print("loss: " + str(x))
    print(str(x) + " is the loss")
    print("[" + repr(x) + "]")
    print(ascii(x), ascii(["é", 1]))
    return x


def formatted(x, y):
    print("total={:.3f}".format(x))
    print("{} and {name}".format(x, name=y))
    print("{0:>8.2f}|{1!r}".format(x, y))
    print(format(x, ".2f"), format(y))
    print("{:{}}".format(x, 6))
    return x


def joined(xs):
    parts = []
    for k in range(xs.shape[0]):
        parts.append(f"{xs[k]:.1f}")
    print(", ".join(parts))
    print(" | ".join(["start", str(xs[0])]))
    return xs


def percent(x, n):
    print("loss %.3f after %d steps" % (x, n))
    print("value: %s" % x + "!")
    print("%d%% of %r" % (n, x))
    return x


def in_a_branch(x):
    if x > 0:
        print("positive " + str(x))
    else:
        print("negative {:.2f}".format(x))
    return x


@pytest.mark.parametrize("function, args", [
    (concatenated, (F32(1.5),)),
    (formatted, (F32(2.25), F32(-0.5))),
    (joined, (jnp.array([0.5, 1.5, 2.5], jnp.float32),)),
    (percent, (F32(1.25), jnp.int32(3))),
    (in_a_branch, (F32(3.0),)),
    (in_a_branch, (F32(-3.0),)),
], ids=["concatenated", "formatted", "joined", "percent", "branch-true", "branch-false"])
def test_text_of_a_traced_value_prints_as_eager(function, args):
    expected = printed(function, *args)
    assert "Tracer" not in expected
    assert printed(autograph_lite.convert(function), *args) == expected
    jitted = autograph_lite.jit(function)
    assert printed(jitted, *args) == expected
    assert printed(jitted, *args) == expected  # the cached program prints it again


def checked(x):
    if x < 0:
        raise ValueError("negative input: " + str(x))
    return x


def test_an_exception_message_holds_the_value():
    with pytest.raises(ValueError, match="^negative input: -1.0$"):
        checked(F32(-1.0))
    with pytest.raises(ValueError) as raised:
        autograph_lite.jit(checked)(F32(-1.0))
    assert str(raised.value) == "negative input: -1.0"  # the note says where the program raised it
    assert float(autograph_lite.jit(checked)(F32(2.0))) == 2.0


def keyed(x):
    table = {str(x): 1}
    return table


def test_text_used_as_a_str_while_tracing_is_a_located_error():
    with pytest.raises(ConversionError, match="a string formatted from a traced value"):
        autograph_lite.jit(keyed)(F32(1.0))


def concrete(x):
    return str(3) + repr("a") + "{:>3}".format(7) + format(2.5, ".1f") + "-".join(["p", "q"]) + str(x.shape)


def concrete_length(x):
    return len(concrete(x)) + x * 0


def test_concrete_values_give_the_builtins_text():
    assert autograph_lite.convert(concrete)(F32(1.0)) == concrete(F32(1.0)) == "3'a'  72.5p-q()"
    assert float(autograph_lite.jit(concrete_length)(F32(1.0))) == len(concrete(F32(1.0)))


class EnvError(Exception):
    def __init__(self, value):
        super().__init__(f"env failed with value {value:.2f}")
        self.value = value


def env_step(x):
    x = x * 1.7
    if x > 50:
        raise EnvError(x)
    return x


def test_an_exception_class_of_the_users_formats_its_message_at_run_time():
    # its __init__ runs converted, as any class's of the user's: the f-string of the traced value is
    # text known at run time (run unconverted, it was JAX's TypeError on every input)
    assert float(autograph_lite.jit(env_step)(F32(10.0))) == float(env_step(F32(10.0)))
    with pytest.raises(EnvError) as raised:
        autograph_lite.jit(env_step)(F32(40.0))
    assert str(raised.value) == "env failed with value 68.00"
    assert float(raised.value.value) == 68.0

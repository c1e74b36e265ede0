"""What a lazy operand of ``and`` / ``or`` stages for run time happens only where eager Python
evaluates it.

After a traced operand, the next one is traced too (its value is selected at run time), whatever
the traced one turns out to be. A ``print`` or a ``raise`` in it (in a helper it calls) was staged
as if it always ran: ``x > 0 or shout()`` printed on every call where eager Python printed nothing
for a positive ``x``, and ``x < 0 or check(x)`` raised eager's ValueError where eager returned
``True``. Both now wait for the condition under which Python evaluates the operand.
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import pytest

import autograph_lite


def shout():
    print("evaluated")
    return 1


def check(x):
    if x < 0:
        raise ValueError("negative")
    return True


def prints_in_or(x):
    return x > 0 or shout() > 0


def prints_in_and(x):
    return x > 0 and shout() > 0


def prints_in_value_or(x):
    return (jnp.reshape(x, (1,)) or jnp.reshape(shout(), (1,)))[0]


def prints_in_a_chain(x):
    return 0 < x < shout()


@pytest.mark.parametrize("function", [prints_in_or, prints_in_and, prints_in_value_or, prints_in_a_chain],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [2.0, -1.0, 0.0])
def test_a_print_in_a_lazy_operand_prints_where_python_evaluates_it(function, x, capsys):
    expected = function(jnp.float32(x))
    printed = capsys.readouterr().out
    jitted = autograph_lite.jit(function)
    for _ in range(2):  # the trace, then the cached program
        assert bool(jitted(jnp.float32(x)) == expected)
        assert capsys.readouterr().out == printed


def raises_in_or(x):
    return x < 0 or check(x)


@pytest.mark.parametrize("x", [-1.0, 2.0])
def test_a_check_in_a_lazy_operand_fires_where_python_evaluates_it(x):
    assert bool(autograph_lite.jit(raises_in_or)(jnp.float32(x))) == raises_in_or(jnp.float32(x))


def test_the_check_still_fires_where_python_evaluates_the_operand():
    def raises_in_and(x):
        return x < 1 and check(x)

    with pytest.raises(ValueError, match="negative"):
        raises_in_and(jnp.float32(-1.0))
    with pytest.raises(ValueError, match="negative"):
        autograph_lite.jit(raises_in_and)(jnp.float32(-1.0))


def test_under_vmap_nothing_prints_where_no_lane_evaluates_the_operand(capsys):
    xs = jnp.array([2.0, 3.0])
    jax.vmap(autograph_lite.convert(prints_in_or))(xs)
    jax.effects_barrier()
    assert capsys.readouterr().out == ""
    jax.vmap(autograph_lite.convert(prints_in_or))(jnp.array([2.0, -1.0]))
    jax.effects_barrier()
    assert "evaluated" in capsys.readouterr().out


def loud(i):
    print("loud", i)
    return 1


def while_test_prints(n):
    i = 0
    while i < n and loud(i) > 0:
        y = i > 0 or shout() > 0  # a lazy operand in the body: its print waits for the body's path
        i = i + 1
    return i


def test_a_print_in_a_while_test_prints_once_per_test(capsys):
    """Found by review: the staged body's path traced the test again, and staged its print twice."""
    expected = while_test_prints(jnp.int32(3))
    printed = capsys.readouterr().out
    assert int(autograph_lite.jit(while_test_prints)(jnp.int32(3))) == int(expected)
    jax.effects_barrier()
    assert capsys.readouterr().out == printed


def asserts_with_a_printing_message(x):
    assert x >= 0, f"negative: {shout()}"  # Python evaluates the message only when the test fails
    return x


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_an_assert_message_prints_only_when_the_assertion_fails(x, capsys):
    """Found by the generator (an f-string message calling a printing helper): the message was
    evaluated while tracing and its print staged as if it always ran."""
    try:
        asserts_with_a_printing_message(jnp.float32(x))
    except AssertionError:
        pass
    printed = capsys.readouterr().out
    try:
        autograph_lite.jit(asserts_with_a_printing_message)(jnp.float32(x))
    except AssertionError:
        pass
    jax.effects_barrier()
    assert capsys.readouterr().out == printed


def warns(i):
    warnings.warn("tested", stacklevel=1)
    return 1


def while_test_warns(n):
    i = 0
    while i < n and warns(i) > 0:
        y = i > 0 or shout() > 0  # the body's path traces the test again
        i = i + 1
    return i


def test_a_warning_in_a_while_test_is_given_once_per_test(capsys):
    counts = []
    for function in (while_test_warns, autograph_lite.jit(while_test_warns)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            function(jnp.int32(3))
            jax.effects_barrier()
        counts.append(len(caught))
    assert counts[1] == counts[0] == 3

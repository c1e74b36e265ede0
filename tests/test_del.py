"""``del name`` unbinds a local: converted code raises where Python raises, never returns a stand-in.

The analysis once took ``del y`` for an assignment of ``y``: ``y`` then counted as assigned before
every read, so a staged branch that had not assigned it again gave zeros where Python raises
``UnboundLocalError`` (``jit``), and ``convert`` returned the ``Undefined`` marker itself. The
generated-program fuzzer found the same with feature ``del`` (tests/regressions/ replays it).
"""

from __future__ import annotations

import textwrap

import gast
import jax.numpy as jnp
import pytest
from golden.analysis.corpus import deleted_in_try_then_assigned_on_one_path, deleted_then_assigned_on_one_path

import autograph_lite
from autograph_lite import ConversionError
from autograph_lite.analysis import NameScanner, analyze
from autograph_lite.analysis.assigned_before_read import assigned_before_every_read

UNBOUND_Y = "cannot access local variable 'y' where it is not associated with a value"


def deleted_then_assigned_again(x):
    y = x + 1
    del y
    y = x * 2
    if x > 0:
        y = y + 1
    return y


def assigned_in_try_read_in_a_handler_branch(x):
    try:
        y = x + 1
        raise ValueError
    except ValueError:
        if x > 0:
            y = y + 1
    return y


@pytest.mark.parametrize("function", [deleted_then_assigned_on_one_path, deleted_in_try_then_assigned_on_one_path])
def test_convert_raises_where_python_raises(function):
    with pytest.raises(UnboundLocalError, match=UNBOUND_Y):
        function(-1)
    with pytest.raises(UnboundLocalError, match=UNBOUND_Y):
        autograph_lite.convert(function)(-1)
    assert autograph_lite.convert(function)(3) == function(3) == 2


@pytest.mark.parametrize("function", [deleted_then_assigned_on_one_path, deleted_in_try_then_assigned_on_one_path])
def test_jit_refuses_a_name_deleted_and_assigned_on_one_path(function):
    """A traced condition cannot tell which inputs raise: the documented, located refusal, for both."""
    for x in (-1, 3):
        with pytest.raises(ConversionError, match=r"'y' is assigned only in the true branch"):
            autograph_lite.jit(function)(jnp.int32(x))


def test_a_name_assigned_again_after_del_stages():
    for x in (-1, 3):
        assert autograph_lite.jit(deleted_then_assigned_again)(jnp.int32(x)) == deleted_then_assigned_again(x)


def test_a_handler_keeps_what_the_try_body_assigned():
    """The ``try`` rule of the binding analysis, which ``del`` changed, once forgot that a handler may
    run after the body bound a name: the staged ``if`` rebound ``y`` to the ``Undefined`` marker, and
    ``convert`` raised UnboundLocalError where Python returns 5."""
    function = assigned_in_try_read_in_a_handler_branch
    for x in (-3, 3):
        assert autograph_lite.convert(function)(x) == function(x)
        assert autograph_lite.jit(function)(jnp.int32(x)) == function(x)


# --- the analysis, on source text ----------------------------------------------------------------


def parsed(source: str) -> gast.FunctionDef:
    return gast.parse(textwrap.dedent(source)).body[0]


@pytest.mark.parametrize(("source", "assigned_before_every_read_of_y"), [
    ("def f(x):\n    y = x\n    del y\n    if x:\n        y = 2\n    return y\n", False),
    ("def f(x):\n    y = x\n    del y\n    y = 2\n    return y\n", True),
    # deleting a name that may be unbound reads it
    ("def f(x):\n    if x:\n        y = 2\n    del y\n    return x\n", False),
    # a handler may resume after the del
    ("def f(x):\n    y = x\n    try:\n        del y\n    except NameError:\n        pass\n    return y\n", False),
    # a later iteration reads what an earlier one deleted
    ("def f(xs):\n    y = 0\n    for x in xs:\n        s = y\n        del y\n    return s\n", False),
])
def test_del_unbinds_for_the_placeholder_analysis(source, assigned_before_every_read_of_y):
    assert ("y" in assigned_before_every_read(parsed(source), NameScanner())) is assigned_before_every_read_of_y


def test_a_deleted_name_is_unbound_before_the_next_statement():
    function = parsed("def f(x):\n    y = x\n    del y\n    if x:\n        y = 2\n    return y\n")
    (info,) = analyze(function).values()
    assert (info.carried, info.unbound, info.maybe_unbound) == (("y",), ("y",), ())


def deleted_after_a_loop_that_may_not_assign(n):
    for _ in range(n):
        v = 0
    del v
    return n


def test_deleting_a_name_a_loop_may_not_have_assigned_raises_as_python():
    with pytest.raises(UnboundLocalError, match="'v'"):
        deleted_after_a_loop_that_may_not_assign(0)
    with pytest.raises(UnboundLocalError, match="'v'"):
        autograph_lite.convert(deleted_after_a_loop_that_may_not_assign)(0)
    assert autograph_lite.convert(deleted_after_a_loop_that_may_not_assign)(2) == 2


def deleted_after_an_early_return(x):
    if x > 0:
        y = x
    else:
        return x
    del x
    return y


def test_a_del_after_a_statement_that_may_return_is_refused_with_its_line():
    with pytest.raises(autograph_lite.UnsupportedSyntaxError) as raised:
        autograph_lite.jit(deleted_after_an_early_return)(jnp.float32(1.0))
    message = str(raised.value)
    line = deleted_after_an_early_return.__code__.co_firstlineno + 5
    assert f"test_del.py:{line}: `del x` after a statement that may `return` early" in message
    assert "move the `del` before the statement that returns" in message

"""``return`` inside the branches of a staged ``if``, and nested ``if`` statements.

Checked against eager Python with ``support.assert_equivalent`` like tests/test_conditionals.py: a
``return`` in one branch, both, an ``elif`` or a nested ``if`` (the rest of the function then runs
in the other branch only), returning pytrees, a concrete ``if`` returning before a traced one, and a
concrete ``if`` nested in a traced one, which stays Python. What a staged ``if`` carries:
tests/test_conditionals_carry.py.
"""

from __future__ import annotations

import pytest
from support import STAGED_CHOICE, assert_equivalent
from test_conditionals import F32, _never_traced, _staged

# --- return inside branches -------------------------------------------------------------------------


def return_in_both_branches(x):
    if x > 0:
        return x * 2
    else:
        return x - 1


def early_return_then_code(x):
    if x > 0:
        return x * 2
    y = x - 1
    y = y * 3
    return y


def return_in_else_only(x):
    y = x + 1
    if x > 0:
        y = y * 4
    else:
        return -y
    return y + 10


def nested_returns(x, y):
    if x > 0:
        if y > 0:
            return x + y
        z = x - y
        return z * 2
    elif y > 0:
        return y
    return x * y


def return_in_elif(x):
    if x > 2:
        return x
    elif x > 0:
        x = x * 10
    else:
        return -x
    return x + 1


def return_after_nested_if_without_return(x, y):
    if x > 0:
        if y > 0:
            x = x + y
        else:
            x = x - y
        return x
    return -x


@pytest.mark.parametrize("fn", [return_in_both_branches, early_return_then_code, return_in_else_only, return_in_elif])
@pytest.mark.parametrize("x", [3.0, 1.0, 0.0, -2.0])
def test_returns_in_branches(fn, x):
    assert_equivalent(fn, F32(x))
    assert _staged(fn, F32(x)) & STAGED_CHOICE


@pytest.mark.parametrize("fn", [nested_returns, return_after_nested_if_without_return])
@pytest.mark.parametrize("x, y", [(1.0, 2.0), (1.0, -2.0), (-1.0, 2.0), (-1.0, -2.0)])
def test_returns_in_nested_ifs(fn, x, y):
    assert_equivalent(fn, F32(x), F32(y))


def return_pytree_in_branches(x):
    if x > 0:
        return {"v": x, "w": (x, x)}
    return {"v": -x, "w": (x, -x)}


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_returning_pytrees_from_branches(x):
    assert_equivalent(return_pytree_in_branches, F32(x))


def return_mixes_concrete_and_traced(x, flag):
    if flag:
        return x
    if x > 0:
        return x * 2
    return x * 3


@pytest.mark.parametrize("flag", [True, False])
@pytest.mark.parametrize("x", [1.0, -1.0])
def test_concrete_then_traced_return(flag, x):
    assert_equivalent(return_mixes_concrete_and_traced, F32(x), flag, static_argnums=1)


# --- nested ifs, ifs on several variables -----------------------------------------------------------


def nested_ifs(x, y):
    z = x
    if x > 0:
        if y > 0:
            z = x + y
        else:
            z = x - y
            if z > 5:
                z = z / 2
    else:
        if y > x:
            z = y
    return z


@pytest.mark.parametrize("x, y", [(1.0, 2.0), (1.0, -2.0), (1.0, -9.0), (-1.0, 2.0), (-1.0, -2.0)])
def test_nested_ifs(x, y):
    assert_equivalent(nested_ifs, F32(x), F32(y))


def nested_concrete_in_traced(x, n):
    if x > 0:
        if n > 1:
            y = x * n
        else:
            y = _never_traced(x)
    else:
        y = x
    return y


def test_concrete_if_inside_traced_if_keeps_python():
    assert_equivalent(nested_concrete_in_traced, F32(2.0), 3, static_argnums=1)
    assert_equivalent(nested_concrete_in_traced, F32(-2.0), 3, static_argnums=1)

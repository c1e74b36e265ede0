"""An ``else`` that raises, weakly typed scalars: still one ``lax.switch``, typed as the nested conds (issue #19).

A chain whose ``else`` (or ``case _``) raises, or whose branches mix Python scalars with arrays, stages
one ``lax.switch`` on a traced integer subject. Each function is checked against eager Python (raising
eager's exception only when the raising branch is taken, under vmap too), and the switch's jaxpr
against the one the nested ``lax.cond``s give (the ``nested_conds`` fixture turns the switch off): the
same output types and values for every subject, fewer equations, and the same errors where the branch
types cannot be unified. The raising ``else`` and a weak scalar are also pinned against the same chain
written by hand with ``lax.switch``.

PYTEST_DONT_REWRITE: a user function here holds an assert, whose eager message must stay Python's.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from jax import lax
from jax.extend.core import jaxpr_as_fun
from support import assert_equivalent, assert_same, count_equations
from test_switch_semantics import F32, I32, KS, weak_scalar_in_one_branch

import autograph_lite
from autograph_lite.runtime import switches as switch_runtime
from bench.measure import _equations
from tests.test_runtime_checks import assert_like_eager


def else_raises(op, x):
    if op == 0:
        y = x + 1.0
    elif op == 1:
        y = x * 2.0
    elif op == 2:
        y = x - 3.0
    else:
        raise ValueError(f"unknown op {op}")
    return y


def default_case_raises(op, x):
    match op:
        case 0:
            return x
        case 1 | 2:
            return x * 2
        case 5:
            return -x
        case _:
            raise KeyError(f"op {op} at x={x}")


def first_and_else_raise(op, x):
    if op == 0:
        raise ValueError("zero")
    elif op == 1:
        y = x * 2
    elif op == 2:
        assert x > 0, f"x={x}"
        y = x
    else:
        raise OverflowError(f"op {op}")
    return y


def weak_scalar_and_raising_else(op, x):
    if op == 0:
        y = 0
    elif op == 1:
        y = x
    elif op == 2:
        y = x * 2
    else:
        raise ValueError(f"unknown op {op}")
    return y


RAISING_ELSE = [else_raises, default_case_raises, first_and_else_raise, weak_scalar_and_raising_else]


@pytest.fixture
def nested_conds(monkeypatch):
    """Make every chain stage its nested conds, the reference the switch must equal."""
    return lambda: monkeypatch.setattr(switch_runtime, "_switchable", lambda subject, constants: False)


def _fresh_jaxpr(function, *args):
    """The jaxpr of ``convert(function)``, traced anew (make_jaxpr caches traces by function)."""
    return jax.make_jaxpr(lambda *values: autograph_lite.convert(function)(*values))(*args)


def _output_types(closed) -> list[tuple]:
    return [(aval.shape, aval.dtype, aval.weak_type) for aval in closed.out_avals]


def _cond_branch_counts(closed) -> list[int]:
    """The number of branches of every cond in a jaxpr, sub-jaxprs included (a switch has more than 2)."""
    return sorted(len(equation.params["branches"]) for equation in _equations(closed.jaxpr)
                  if equation.primitive.name == "cond")


@pytest.mark.parametrize("function", RAISING_ELSE)
@pytest.mark.parametrize("op", [-1, 0, 1, 2, 3, 5, 100])
def test_a_raising_else_raises_eagers_exception_only_when_taken(function, op):
    assert_like_eager(function, I32(op), F32(1.5))
    assert_like_eager(function, I32(op), F32(-0.5))


@pytest.mark.parametrize("function", RAISING_ELSE)
def test_a_raising_else_is_one_switch(function, nested_conds):
    text = str(autograph_lite.explain(function, I32(1), F32(1.5)))
    assert "-> lax.switch (the subject is a traced integer; 4 branches)" in text and "nested" not in text, text
    assert "raises: it returns zeros" in text, text
    switch = _fresh_jaxpr(function, I32(1), F32(1.5))
    equations = count_equations(lambda *values: autograph_lite.convert(function)(*values), I32(1), F32(1.5))
    nested_conds()
    nested = _fresh_jaxpr(function, I32(1), F32(1.5))
    # The three conds of the tests become one switch; the run-time checks' own conds stay.
    assert _cond_branch_counts(switch) == sorted(_cond_branch_counts(nested)[3:] + [4])
    assert _output_types(switch) == _output_types(nested)
    assert equations < count_equations(lambda *values: autograph_lite.convert(function)(*values), I32(1), F32(1.5))


def test_a_raising_else_against_the_hand_written_switch():
    def hand_written(op, x):
        def fail(op):
            raise ValueError(f"unknown op {op}")

        def unknown(x):
            jax.debug.callback(fail, op)
            return jnp.zeros_like(x)

        index = jnp.where((op >= 0) & (op < 3), op + 1, 0)
        return lax.switch(index, [unknown, lambda x: x + 1.0, lambda x: x * 2.0, lambda x: x - 3.0], x)

    for op in (0, 1, 2):
        assert_same(hand_written(I32(op), F32(1.5)), autograph_lite.jit(else_raises)(I32(op), F32(1.5)))
    # Two more: the run-time check guards its callback with the else's predicate (`index == 0`, in a
    # cond), where the hand-written callback is unguarded; the index costs the same.
    converted = count_equations(autograph_lite.convert(else_raises), I32(1), F32(1.5))
    assert converted <= count_equations(hand_written, I32(1), F32(1.5)) + 2


def test_a_raising_else_under_vmap_raises_when_one_element_takes_it():
    ks, xs = jnp.array([0, 1, 2, 1], I32), jnp.linspace(-1.0, 1.0, 4, dtype=F32)
    batched = jax.jit(jax.vmap(autograph_lite.convert(else_raises)))
    assert_same(batched(ks, xs), jnp.stack([else_raises(int(k), x) for k, x in zip(ks, xs)]))
    with pytest.raises(jax.errors.JaxRuntimeError, match="ValueError: unknown op 7"):
        jax.block_until_ready(batched(ks.at[2].set(7), xs))


def weak_or_array(k, x):
    """cartpole_step's force, with a third action."""
    if k == 0:
        force = -10.0
    elif k == 1:
        force = 10.0
    elif k == 2:
        force = x
    else:
        force = 0.0
    return force, x * force


def python_floats_only(k, x):
    if k == 0:
        force = -10.0
    elif k == 1:
        force = 10.0
    elif k == 2:
        force = 2.5
    else:
        force = 0.0
    return force, x * force


def weak_float_meets_int(k, x):
    """A traced k is strongly typed, so the inner conds' y is a strongly typed int32 (the output of a
    cond is strongly typed where a branch's value is), and a Python float beside it would make it a
    float32, which loses int32 values past 2**24: refused, by the switch as by the nested conds."""
    if k == 0:
        y = 0.5
    elif k == 1:
        y = k
    elif k == 2:
        y = k * 2
    else:
        y = 1
    return y, x + y


def weak_int_meets_narrow_float(k, x):
    if k == 0:
        y = x
    elif k == 1:
        y = 3
    elif k == 2:
        y = x * x
    else:
        y = -1
    return y, y * x


def promoted_twice(k, x):
    """The else's 3 becomes float32 at the cond of `k == 1`, then complex64 at the cond of `k == 0`."""
    if k == 0:
        y = 1j
    elif k == 1:
        y = 0.5
    elif k == 2:
        y = 2
    else:
        y = 3
    return y, x * y


def returns_a_python_int_in_a_loop(k, x):
    """<return value> is zeros where a branch does not return, and promoted where `return 0` is."""
    for _ in range(2):
        if k == 0:
            return 0
        elif k == 1:
            x = x + 1
        elif k == 2:
            return x * 2.0
        else:
            x = x * 3.0
    return x


WEAK = [(weak_scalar_in_one_branch, F32), (weak_or_array, F32), (python_floats_only, F32),
        (weak_int_meets_narrow_float, jnp.float16), (weak_int_meets_narrow_float, jnp.bfloat16), (promoted_twice, F32),
        (returns_a_python_int_in_a_loop, F32), (weak_scalar_and_raising_else, F32)]


@pytest.mark.parametrize("function, dtype", WEAK)
@pytest.mark.parametrize("k", KS)
def test_weak_scalars_agree_with_eager(function, dtype, k):
    if function is weak_scalar_and_raising_else and k not in (0, 1, 2):
        return  # raises: test_a_raising_else_raises_eagers_exception_only_when_taken
    assert_equivalent(function, k, jnp.asarray(1.5, dtype))
    assert_equivalent(function, I32(k), jnp.asarray(-0.5, dtype))


@pytest.mark.parametrize("function, dtype", WEAK)
def test_weak_scalars_make_one_switch_typed_and_valued_as_the_nested_conds(function, dtype, nested_conds):
    args = (I32(1), jnp.asarray(1.5, dtype))
    switch = _fresh_jaxpr(function, *args)
    assert "lax.switch" in str(autograph_lite.explain(function, *args))
    nested_conds()
    nested = _fresh_jaxpr(function, *args)
    assert _output_types(switch) == _output_types(nested)
    assert 4 in _cond_branch_counts(switch) and 4 not in _cond_branch_counts(nested)
    for k in [k for k in KS if function is not weak_scalar_and_raising_else or k in (0, 1, 2)]:
        ours, theirs = jaxpr_as_fun(switch)(I32(k), args[1]), jaxpr_as_fun(nested)(I32(k), args[1])
        assert [a.dtype for a in ours] == [a.dtype for a in theirs]
        assert_same(ours, theirs, what=f"{function.__name__}({k})")


def test_a_weak_scalar_costs_no_more_equations_than_the_hand_written_switch():
    def hand_written(k, x):
        index = jnp.where((k >= 0) & (k < 3), k + 1, 0)
        return lax.switch(index, [lambda x: x, lambda x: jnp.float32(0), lambda x: x * 2.0, lambda x: x - 1.0], x)

    for k in (-1, 0, 1, 2, 3):
        assert_same(hand_written(I32(k), F32(1.5)), autograph_lite.jit(weak_scalar_in_one_branch)(I32(k), F32(1.5)))
    converted = count_equations(autograph_lite.convert(weak_scalar_in_one_branch), I32(1), F32(1.5))
    assert converted <= count_equations(hand_written, I32(1), F32(1.5))


def test_dtypes_that_differ_with_no_weak_scalar_are_the_nested_conds_error(nested_conds):
    def strongly_typed(k, x):
        if k == 0:
            y = k
        elif k == 1:
            y = x
        elif k == 2:
            y = x
        else:
            y = x
        return y

    messages = []
    for _ in range(2):
        with pytest.raises(autograph_lite.StagingTypeError) as raised:
            _fresh_jaxpr(strongly_typed, I32(1), F32(1.5))
        messages.append(str(raised.value))
        nested_conds()
    assert messages[0] == messages[1]
    assert "'y' is i32[] in the true branch" in messages[0], messages[0]


def test_a_python_float_beside_a_strongly_typed_int_is_refused_as_the_nested_conds_refuse_it(nested_conds):
    messages = []
    for _ in range(2):  # the switch's attempt, then the nested conds alone
        with pytest.raises(autograph_lite.StagingTypeError) as raised:
            _fresh_jaxpr(weak_float_meets_int, I32(1), F32(1.5))
        messages.append(str(raised.value))
        nested_conds()
    assert messages[0] == messages[1] and "'y' is weakly typed f32[]" in messages[0], messages

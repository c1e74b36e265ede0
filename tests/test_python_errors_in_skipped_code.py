"""An error of Python's in staged code that eager Python skips (runtime/raises.py
``python_errors_at_run_time``).

Both branches of a traced ``if`` (both arms of a traced conditional expression, every branch of a
switch), the body of a staged loop, the operands of a chained comparison after a traced comparison and
the elements of ``any`` / ``all`` after a traced truth are traced, whatever the run-time values. An error of Python's
that such a trace raised (an index past a Python list's end, a closure over a deleted name) was
raised on every call under ``jit``, where eager Python returns; it is now a run-time check that
raises eager's exception where eager runs that code, as a ``raise`` written there does.
"""

from __future__ import annotations

import math
import re

import jax
import jax.numpy as jnp
import pytest
from support import assert_equivalent, where

import autograph_lite
from autograph_lite.errors import TracedValueError

T = [1.0, 2.0]


def index_in_a_branch(x):
    if x > 0:
        y = x * 2.0
    else:
        y = T[5]
    return y


def closure_over_a_deleted_name(x):
    s = x + 1.0
    h = lambda: s * 2.0  # noqa: F821 - reads s, deleted below: the closure the generator draws
    del s
    if x > 5:
        return h()
    return x


def index_in_an_arm(x):
    return x * 2.0 if x > 0 else T[7]


def index_in_a_switch_branch(k, x):
    if k == 0:
        y = x
    elif k == 1:
        y = T[9]
    elif k == 2:
        y = x * 3.0
    else:
        y = -x
    return y


def index_in_a_while_body(x):
    while x > 10:
        x = x - T[4]
    return x


def index_in_a_traced_range_body(n, x):
    for _ in range(n):
        x = x + T[3]
    return x


def index_in_a_chained_comparison(x):
    return 0.0 < x < T[5]


def index_in_an_any_fold(xs):
    return any(xs[i] > 0 if i < 2 else T[6] > 0 for i in range(3))


CASES = [  # the function, inputs on which eager returns, inputs on which it raises, eager's exception
    (index_in_a_branch, (jnp.float32(1.0),), (jnp.float32(-1.0),), IndexError),
    (closure_over_a_deleted_name, (jnp.float32(1.0),), (jnp.float32(9.0),), NameError),
    (index_in_an_arm, (jnp.float32(2.0),), (jnp.float32(-2.0),), IndexError),
    (index_in_a_switch_branch, (jnp.int32(3), jnp.float32(1.0)), (jnp.int32(1), jnp.float32(1.0)), IndexError),
    (index_in_a_while_body, (jnp.float32(3.0),), (jnp.float32(12.0),), IndexError),
    (index_in_a_traced_range_body, (jnp.int32(0), jnp.float32(1.0)), (jnp.int32(2), jnp.float32(1.0)), IndexError),
    (index_in_a_chained_comparison, (jnp.float32(-1.0),), (jnp.float32(1.0),), IndexError),
    (index_in_an_any_fold, (jnp.array([1.0, -1.0]),), (jnp.array([-1.0, -1.0]),), IndexError),
]
IDS = [case[0].__name__ for case in CASES]


@pytest.mark.parametrize("function, fine, raising, error", CASES, ids=IDS)
def test_code_python_skips_raises_nothing(function, fine, raising, error):
    """Before: the error was raised while tracing, on every call (each fails on the parent commit)."""
    assert_equivalent(function, *fine)


@pytest.mark.parametrize("function, fine, raising, error", CASES, ids=IDS)
def test_where_python_runs_it_the_run_raises_eagers_error(function, fine, raising, error):
    """The first call traces, the second runs the cached program: each raises eager's exception, as
    ``autograph_lite.jit`` raises a check's (the function's own type where it wraps ``jax.jit``, JAX's
    error ending with eager's type and message where it returns ``jax.jit``'s own function)."""
    with pytest.raises(error) as eager:
        function(*raising)
    jitted = autograph_lite.jit(function)
    wrapped = isinstance(jitted, autograph_lite.api.JitWithChecks)
    for _ in range(2):
        with pytest.raises(error if wrapped else jax.errors.JaxRuntimeError) as staged:
            jitted(*raising)
        if wrapped:
            assert str(staged.value) == str(eager.value)
        else:
            assert str(staged.value).endswith(f"\n{error.__name__}: {eager.value}")
    assert_equivalent(function, *fine)  # and the same program gives eager's value where it does not raise


def checked_index_in_a_branch(x):
    assert x < 100.0, "too big"  # a check of its own: autograph_lite.jit raises the check's exception
    if x > 0:
        return x * 2.0
    return T[5]


def test_a_function_with_a_check_of_its_own_raises_eagers_type_and_message():
    with pytest.raises(IndexError) as eager:
        checked_index_in_a_branch(jnp.float32(-1.0))
    jitted = autograph_lite.jit(checked_index_in_a_branch)
    assert jitted(jnp.float32(1.0)) == 2.0
    with pytest.raises(IndexError) as staged:
        jitted(jnp.float32(-1.0))
    assert str(staged.value) == str(eager.value) == "list index out of range"


def both_branches_fail(x):
    if x > 0:
        y = T[5]
    else:
        y = T[6]
    return y


def test_when_every_branch_raises_the_error_is_raised_while_tracing():
    with pytest.raises(IndexError, match="list index out of range"):
        autograph_lite.jit(both_branches_fail)(jnp.float32(1.0))


def caught_outside(x):
    try:
        if x > 0:
            y = x
        else:
            y = T[5]
    except IndexError:
        y = -1.0
    return y


def test_an_error_a_handler_outside_the_staged_if_would_catch_is_refused():
    """Eager's handler catches it only where the branch runs: a run-time check cannot reach a handler,
    so this is the located refusal of a staged ``raise`` under such a ``try``, not a handler run on
    every input (which the trace-time error was)."""
    with pytest.raises(autograph_lite.ConversionError, match="IndexError") as refused:
        autograph_lite.jit(caught_outside)(jnp.float32(1.0))
    assert str(refused.value).startswith(f"{__file__}:{caught_outside.__code__.co_firstlineno + 5}: ")


def tracer_error_in_a_branch(x, n):
    if x > 0:
        y = x
    else:
        y = x * math.floor(n)  # a traced value where Python needs a number: an error only tracing raises
    return y


def test_an_error_only_tracing_raises_is_raised_while_tracing():
    with pytest.raises(autograph_lite.ConversionError, match="ConcretizationTypeError"):
        autograph_lite.jit(tracer_error_in_a_branch)(jnp.float32(1.0), jnp.int32(2))


# Python's error about a traced value itself (probe D, F7): eager raises it only where it takes the
# branch, for the JAX array (`'jaxlib._jax.ArrayImpl'`); the trace raises it, naming the tracer, on every
# call. It was raised as it was, with no file:line; now a located error naming the `if`, in eager's words.


def labelled_when_large(x):
    if x > 2.0:
        return x + "!"
    return x


def unit_when_large(x):
    if x > 2.0:
        return x.magnitude
    return x


def guarded_label(x):
    try:
        if x > 2.0:
            return x + "!"
    except TypeError:
        return -x
    return x


@pytest.mark.parametrize(("fn", "text", "error_class", "eager_words"), [
    (labelled_when_large, 'return x + "!"', TypeError, "unsupported operand type(s) for +: 'jaxlib._jax.ArrayImpl' and 'str'"),
    (unit_when_large, "return x.magnitude", AttributeError, "'jaxlib._jax.ArrayImpl' object has no attribute 'magnitude'"),
])
def test_an_error_about_the_traced_value_in_a_branch_is_located_at_the_branch(fn, text, error_class, eager_words):
    with pytest.raises(TracedValueError) as raised:
        autograph_lite.jit(fn)(jnp.float32(1.5))
    error = raised.value
    assert isinstance(error, error_class)
    assert str(error).startswith(f"{where(fn, text)}: {eager_words}")
    assert f"a branch of the `if` at {where(fn, 'if x > 2.0:')}, traced as a lax.cond" in str(error)
    with pytest.raises(error_class, match=re.escape(eager_words)):
        fn(jnp.float32(2.5))  # eager's words where it takes the branch
    for value in (1.5, 2.5):  # the fix offered: a condition that is not traced
        eager = _outcome(fn, value)
        assert _outcome(autograph_lite.jit(fn, static_argnums=0), value) == eager


def test_a_handler_around_the_traced_if_does_not_catch_it():
    with pytest.raises(TracedValueError, match=re.escape(where(guarded_label, 'return x + "!"'))):
        autograph_lite.jit(guarded_label)(jnp.float32(1.5))  # eager returns 1.5: the handler must not run
    for value in (1.5, 2.5):
        assert _outcome(autograph_lite.jit(guarded_label, static_argnums=0), value) == _outcome(guarded_label, value)


def _outcome(fn, value):
    try:
        return float(fn(value))
    except (TypeError, AttributeError) as error:
        return type(error)


def labelled_inside(x):
    if x > 2.0:
        try:
            y = x + "!"
        except TypeError:
            y = -x
    else:
        y = x
    return y


def test_a_handler_inside_the_branch_still_catches_it():
    for value in (1.5, 2.5):
        assert_equivalent(labelled_inside, jnp.float32(value))

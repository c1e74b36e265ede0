"""A Python value (None, a string, a list, a function) that a traced condition would choose: a located
``StagingTypeError`` naming the variable and a fix that works (found by probe D, F1 and F4).

``x or None``, ``x or "default"``, ``v or [0.5]``, ``(x > 0) and [x, x]`` with a traced left operand
raised JAX's raw ``ValueError`` / ``TypeError`` from ``jnp.asarray`` with no file:line (runtime/logic.py
made both operands arrays first; a list of numbers became an array, where eager returns the list).
The same choice as a conditional expression named ``<expression value>`` rather than the variable it is
assigned to, and two functions (or two objects of one class) that differ were described alike
("the function g (PyTreeDef(*))" twice), with a fix, "make 'g' an array", that cannot apply.
"""

import dataclasses

import jax.numpy as jnp
import pytest
from support import assert_same, where

import autograph_lite
from autograph_lite.errors import StagingTypeError

F32 = jnp.float32


def refusal(fn, *args) -> StagingTypeError:
    with pytest.raises(StagingTypeError) as raised:
        autograph_lite.jit(fn)(*args)
    return raised.value


def given_or_none(x):
    chosen = x or None
    return chosen


def given_or_zero(x):
    chosen = x or 0.0
    return chosen


def test_or_none_is_located_naming_the_variable_and_a_number_or_a_static_argument_fixes_it():
    error = refusal(given_or_none, F32(1.0))
    message = str(error)
    assert message.startswith(where(given_or_none, "chosen = x or None") + ": 'chosen' is the left operand of `or`")
    assert "the right one is None" in message and "`x or 0.0`" in error.hint and "static_argnums" in error.hint
    for value in (1.5, 0.0):
        assert_same(autograph_lite.jit(given_or_zero)(F32(value)), given_or_zero(F32(value)))
        assert autograph_lite.jit(given_or_none, static_argnums=0)(value) == given_or_none(value)


def or_text(x):
    return x or "default"


def or_list(v):
    return v or [0.5]


def and_pair(x):
    return (x > 0) and [x, x]


def or_function(x):
    return (x > 0) or jnp.sin


@pytest.mark.parametrize(("fn", "arg", "shown"), [
    (or_text, F32(1.0), "the string 'default'"),
    (or_list, jnp.asarray([2.0]), "a list of (weakly typed f32[])"),
    (and_pair, F32(1.0), "a list of (f32[], f32[])"),
    (or_function, F32(1.0), "the function sin"),
])
def test_a_python_right_operand_is_located_at_its_line(fn, arg, shown):
    error = refusal(fn, arg)
    assert str(error).startswith(where(fn, "return ") + ": the result is the left operand of")
    assert f"the right one is {shown}" in str(error)


def or_array(v):
    return v or jnp.asarray([0.5])


def test_the_list_made_an_array_fixes_it():
    for value in ([2.0], [0.0]):
        assert_same(autograph_lite.jit(or_array)(jnp.asarray(value)), or_array(jnp.asarray(value)))


def labelled(x, y):
    label = "positive" if x > 0 else "other"
    return y * len(label)


def test_a_conditional_expression_names_the_variable_it_is_assigned_to():
    error = refusal(labelled, F32(1.0), F32(2.0))
    assert "'label' is the string 'positive' in the true branch of the conditional expression" in str(error)
    assert "Make 'label' an array" in error.hint
    for value in (1.0, -1.0):
        assert_same(autograph_lite.jit(labelled, static_argnums=0)(value, F32(2.0)), labelled(value, F32(2.0)))


def pick_activation(x):
    if x > 0:
        def g(v):
            return v * 2
    else:
        def g(v):
            return v - 1
    return g(x)


def called_in_each_branch(x):
    if x > 0:
        def g(v):
            return v * 2
        y = g(x)
    else:
        def g(v):
            return v - 1
        y = g(x)
    return y


def test_two_functions_are_told_apart_and_calling_each_in_its_branch_fixes_it():
    error = refusal(pick_activation, F32(2.0))
    message = str(error)
    true_line, false_line = (int(where(pick_activation, text).rsplit(":", 1)[1]) for text in ("return v * 2", "return v - 1"))
    assert (f"'g' is the function g (defined at line {true_line - 1}) in the true branch of the `if` but the "
            f"function g (defined at line {false_line - 1}) in the false branch") in message
    assert "Call 'g' inside each branch" in error.hint and "an array" not in error.hint.split("(")[0]
    for value in (2.0, -2.0):
        assert_same(autograph_lite.jit(called_in_each_branch)(F32(value)), pick_activation(F32(value)))


@dataclasses.dataclass
class Settings:
    rate: float
    momentum: float


def rebuilt(x):
    settings = Settings(0.1, 0.0)
    if x > 0:
        settings = dataclasses.replace(settings, momentum=x)
    else:
        settings = dataclasses.replace(settings, rate=0.5)
    return settings.momentum + settings.rate


def test_two_objects_of_one_class_are_told_apart_by_their_contents():
    message = str(refusal(rebuilt, F32(2.0)))
    assert "'settings' is Settings (Settings(rate=0.1, momentum=" in message
    assert "but Settings (Settings(rate=0.5, momentum=0.0)) in the false branch" in message

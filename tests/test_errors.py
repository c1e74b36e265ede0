"""Error messages for conditionals and unsupported syntax: class, variable, ``file.py:LINE`` and hint.

Every user function sits in this file, so the expected location is this file and the line of the
offending statement, computed from the source (``line_of``) rather than written down by hand.
"""

from __future__ import annotations

import inspect

import jax.numpy as jnp
import pytest

import autograph_lite
from autograph_lite import ConversionError, StagingTypeError, TracedPredicateError

F32 = jnp.float32


def line_of(fn, text: str, occurrence: int = 0) -> int:
    """The line number in this file of the ``occurrence``-th line of ``fn`` containing ``text``."""
    lines, start = inspect.getsourcelines(fn)
    hits = [start + index for index, line in enumerate(lines) if text in line]
    assert len(hits) > occurrence, f"{text!r} not found in {fn.__name__}"
    return hits[occurrence]


def where(fn, text: str, occurrence: int = 0) -> str:
    """``file.py:LINE`` as errors print it, for the line of ``fn`` containing ``text``."""
    return f"{fn.__code__.co_filename}:{line_of(fn, text, occurrence)}"


def message_of(excinfo) -> str:
    return str(excinfo.value)


# --- a variable assigned in one branch of a traced if --------------------------------------------------


def assigned_in_true_branch_only(x):
    if x > 0:
        z = x * 2
    return z


def assigned_in_false_branch_only(x):
    y = x
    if x > 0:
        y = y + 1
    else:
        late = y * 3
    return y + late


def assigned_in_elif_only(x):
    if x > 1:
        w = x
    elif x > 0:
        pass
    else:
        w = -x
    return w


def test_variable_in_one_branch_of_a_traced_if_is_named_with_its_location():
    with pytest.raises(StagingTypeError) as excinfo:
        autograph_lite.jit(assigned_in_true_branch_only)(F32(1.0))
    message = message_of(excinfo)
    assert message.startswith(where(assigned_in_true_branch_only, "if x > 0:") + ": ")
    assert "'z' is assigned only in the true branch of the `if`" in message
    assert "Assign 'z' before the `if`" in message
    assert isinstance(excinfo.value, ConversionError) and isinstance(excinfo.value, TypeError)
    assert excinfo.value.location.lineno == line_of(assigned_in_true_branch_only, "if x > 0:")


def test_variable_in_the_false_branch_only():
    with pytest.raises(StagingTypeError) as excinfo:
        autograph_lite.jit(assigned_in_false_branch_only)(F32(1.0))
    message = message_of(excinfo)
    assert where(assigned_in_false_branch_only, "if x > 0:") in message
    assert "'late' is assigned only in the false branch" in message


def test_variable_missing_from_one_elif_branch_points_at_that_elif():
    with pytest.raises(StagingTypeError) as excinfo:
        autograph_lite.jit(assigned_in_elif_only)(F32(1.0))
    message = message_of(excinfo)
    assert "'w'" in message
    # The `if` whose branch misses it is the `elif`, a nested `if` on its own line.
    assert where(assigned_in_elif_only, "elif x > 0:") in message


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_same_function_is_fine_when_the_predicate_is_concrete(x):
    if x > 0:
        assert float(autograph_lite.convert(assigned_in_true_branch_only)(F32(x))) == 2 * x
    else:
        with pytest.raises(UnboundLocalError):
            assigned_in_true_branch_only(F32(x))


def assigned_in_one_branch_dead_after(x):
    if x > 0:
        unused = x * 2
        x = unused + 1
    return x


def test_variable_in_one_branch_is_fine_when_dead_after_the_if():
    jitted = autograph_lite.jit(assigned_in_one_branch_dead_after)
    assert float(jitted(F32(1.0))) == 3.0 and float(jitted(F32(-1.0))) == -1.0


# --- non-scalar predicates ------------------------------------------------------------------------------


def vector_predicate(x):
    if x > 0:
        x = x + 1
    return x


def vector_while(x):
    while x < 3:
        x = x + 1
    return x


def vector_ternary(x):
    return 1.0 if x > 0 else 0.0


@pytest.mark.parametrize(
    "fn, text, construct",
    [(vector_predicate, "if x > 0:", "`if`"), (vector_while, "while x < 3:", "`while` loop"),
     (vector_ternary, "return 1.0 if", "conditional expression")],
)
def test_non_scalar_traced_predicate_asks_for_any_or_all(fn, text, construct):
    with pytest.raises(TracedPredicateError) as excinfo:
        autograph_lite.jit(fn)(jnp.ones(3))
    message = message_of(excinfo)
    assert where(fn, text) in message
    assert construct in message and "shape (3,)" in message
    assert ".any()" in message and ".all()" in message
    assert isinstance(excinfo.value, TypeError)


# --- dtypes that differ between the branches -------------------------------------------------------------


def int_vs_float(x, n):
    if x > 0:
        y = n
    else:
        y = x
    return y


def shape_differs(x):
    if x.sum() > 0:
        y = x
    else:
        y = x[:2]
    return y


def structure_differs(x):
    if x > 0:
        y = (x, x)
    else:
        y = x
    return y


def python_value_differs(x):
    if x > 0:
        tag = "positive"
    else:
        tag = "negative"
    return x, tag


def test_int32_vs_float32_in_branches_names_the_variable_and_both_types():
    with pytest.raises(StagingTypeError) as excinfo:
        autograph_lite.jit(int_vs_float)(F32(1.0), jnp.int32(2))
    message = message_of(excinfo)
    assert message.startswith(where(int_vs_float, "if x > 0:") + ": ")
    assert "'y' is i32[] in the true branch of the `if` but f32[] in the false branch (the dtype differs)" in message
    assert "Give 'y' the same dtype in both branches, e.g. with jnp.asarray(..., jnp.float32)" in message
    assert excinfo.value.__cause__ is not None  # JAX's own error is kept


def test_shape_difference_names_the_variable_and_both_shapes():
    with pytest.raises(StagingTypeError) as excinfo:
        autograph_lite.jit(shape_differs)(jnp.ones(3))
    message = message_of(excinfo)
    assert where(shape_differs, "if x.sum() > 0:") in message
    assert "'y' is f32[3] in the true branch of the `if` but f32[2] in the false branch (the shape differs)" in message
    assert "Give 'y' the same shape in both branches" in message and "dtype" not in excinfo.value.hint


def test_structure_difference_names_the_variable():
    with pytest.raises(StagingTypeError) as excinfo:
        autograph_lite.jit(structure_differs)(F32(1.0))
    message = message_of(excinfo)
    assert where(structure_differs, "if x > 0:") in message and "'y'" in message
    assert "tuple" in message


def test_python_values_that_differ_between_traced_branches_are_an_error():
    with pytest.raises(StagingTypeError) as excinfo:
        autograph_lite.jit(lambda x: python_value_differs(x)[0])(F32(1.0))
    message = message_of(excinfo)
    assert "'tag'" in message and where(python_value_differs, "if x > 0:") in message


def traced_falls_off_the_end(x):
    if x > 0:
        return x * 2


def test_traced_if_with_a_path_falling_off_the_end_explains_none():
    with pytest.raises(StagingTypeError) as excinfo:
        autograph_lite.jit(traced_falls_off_the_end)(F32(1.0))
    message = message_of(excinfo)
    assert where(traced_falls_off_the_end, "if x > 0:") in message
    assert "None" in message and "returns None" in message


def returns_different_dtypes(x, n):
    if x > 0:
        return n
    return x


def test_return_of_different_dtypes_names_the_return_lines():
    with pytest.raises(StagingTypeError) as excinfo:
        autograph_lite.jit(returns_different_dtypes)(F32(1.0), jnp.int32(3))
    message = message_of(excinfo)
    assert "the function returns i32[]" in message
    assert f"at line {line_of(returns_different_dtypes, 'return n')}" in message
    assert f"at line {line_of(returns_different_dtypes, 'return x')}" in message

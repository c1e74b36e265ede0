"""Error messages for conditionals and unsupported syntax: class, variable, ``file.py:LINE`` and hint.

Every user function sits in this file, so the expected location is this file and the line of the
offending statement, computed from the source (``line_of``) rather than written down by hand.
"""

from __future__ import annotations

import contextlib
import inspect
import re
import warnings

import jax
import jax.numpy as jnp
import pytest

import autograph_lite
from autograph_lite import ConversionError, StagingTypeError, TracedPredicateError, UnsupportedSyntaxError

F32 = jnp.float32
COUNTER = 0


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
    assert "'y' is i32[] in the true branch of the `if` but f32[] in the false branch" in message
    assert "Give 'y' the same dtype and shape in both branches" in message
    assert excinfo.value.__cause__ is not None  # JAX's own error is kept


def test_shape_difference_names_the_variable_and_both_shapes():
    with pytest.raises(StagingTypeError) as excinfo:
        autograph_lite.jit(shape_differs)(jnp.ones(3))
    message = message_of(excinfo)
    assert where(shape_differs, "if x.sum() > 0:") in message
    assert "'y'" in message and "f32[3]" in message and "f32[2]" in message


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


# --- unsupported syntax, rejected at conversion with the line ------------------------------------------


def a_generator(x):
    yield x


def a_delegating_generator(x):
    yield from [x]


async def an_async_function(x):
    return x


def del_in_branch(x):
    y = x
    if x > 0:
        del y
        y = x + 1
    return y


def del_in_loop(x):
    for _ in range(3):
        t = x
        del t
    return x


def global_write_in_branch(x):
    global COUNTER
    if x > 0:
        COUNTER = 1
    return x


def global_write_in_loop(x):
    global COUNTER
    for _ in range(2):
        COUNTER = COUNTER + 1
    return x


def nonlocal_write_in_loop_factory():
    count = 0

    def inner(x):
        nonlocal count
        while x > 0:
            count = count + 1
            x = x - 1
        return x

    return inner


def walrus_in_while_test(x):
    while (y := x - 1) > 0:
        x = y
    return x


def walrus_after_and(x):
    return x > 0 and (y := x * 2) > 1


def walrus_in_ternary(x):
    return x if x > 0 else (y := -x)


def return_inside_with(x):
    with contextlib.nullcontext():
        if x > 0:
            return x
    return -x


def break_inside_try(x):
    for _ in range(3):
        try:
            break
        finally:
            pass
    return x


UNSUPPORTED = [
    (a_generator, "yield x", "a generator (`yield`) cannot be converted", "collect the values"),
    (a_delegating_generator, "yield from", "a generator (`yield`) cannot be converted", "collect the values"),
    (an_async_function, "async def", "'async def an_async_function' cannot be converted", "plain def"),
    (del_in_branch, "del y", "`del y` inside a branch or loop cannot be converted", "Assign y = None instead"),
    (del_in_loop, "del t", "`del t` inside a branch or loop cannot be converted", "Assign t = None instead"),
    (global_write_in_branch, "if x > 0:", "'COUNTER' is declared global or nonlocal and assigned inside this if statement",
     "Return the new value of 'COUNTER'"),
    (global_write_in_loop, "for _ in range(2):", "'COUNTER' is declared global or nonlocal and assigned inside this for statement",
     "Return the new value of 'COUNTER'"),
    (walrus_in_while_test, "while (y :=", "an assignment expression (`:=`) in the test of a `while` loop cannot be converted",
     "Assign y before the loop"),
    (walrus_after_and, "(y := x * 2)", "an assignment expression (`:=`) in an operand that Python evaluates lazily",
     "Assign y on its own line first"),
    (walrus_in_ternary, "(y := -x)", "an assignment expression (`:=`) in an operand that Python evaluates lazily",
     "Assign y on its own line first"),
    (return_inside_with, "with contextlib", "`return` / `break` / `continue` inside a `with` statement cannot be converted",
     "Move the exit out of the statement"),
    (break_inside_try, "try:", "`return` / `break` / `continue` inside a `try` statement cannot be converted",
     "Move the exit out of the statement"),
]


@pytest.mark.parametrize("fn, text, what, hint", UNSUPPORTED, ids=[case[0].__name__ for case in UNSUPPORTED])
def test_unsupported_syntax_is_rejected_at_conversion_with_its_line(fn, text, what, hint):
    with pytest.raises(UnsupportedSyntaxError) as excinfo:
        autograph_lite.convert(fn)
    message = message_of(excinfo)
    assert message.startswith(where(fn, text) + ": "), message
    assert what in message
    assert hint in message
    error = excinfo.value
    assert isinstance(error, SyntaxError) and isinstance(error, ConversionError)
    assert error.filename == fn.__code__.co_filename and error.lineno == line_of(fn, text)


def test_nonlocal_write_in_a_loop_is_rejected():
    inner = nonlocal_write_in_loop_factory()
    with pytest.raises(UnsupportedSyntaxError) as excinfo:
        autograph_lite.jit(inner)(F32(2.0))
    message = message_of(excinfo)
    assert "'count' is declared global or nonlocal" in message
    assert where(nonlocal_write_in_loop_factory, "while x > 0:") in message


def test_unsupported_syntax_is_reported_by_jit_too():
    with pytest.raises(UnsupportedSyntaxError, match=re.escape(where(a_generator, "yield x"))):
        autograph_lite.jit(a_generator)


# --- what is supported and must match eager Python ------------------------------------------------------


def walrus_in_if_test(x):
    if (y := x * 2) > 1:
        x = y + 1
    return x, y


@pytest.mark.parametrize("x", [2.0, 0.0])
def test_walrus_in_an_if_test_is_supported_and_matches_eager(x):
    # The test is evaluated in the function's own scope, so the name is bound as in Python.
    expected = walrus_in_if_test(F32(x))
    for got in (autograph_lite.convert(walrus_in_if_test)(F32(x)), autograph_lite.jit(walrus_in_if_test)(F32(x))):
        assert [float(v) for v in got] == [float(v) for v in expected]


def del_after_branch(x):
    y = x * 2
    if x > 0:
        x = x + y
    del y
    return x


@pytest.mark.parametrize("x", [2.0, -2.0])
def test_del_outside_control_flow_is_fine(x):
    assert float(autograph_lite.jit(del_after_branch)(F32(x))) == del_after_branch(x)


def global_read_in_branch(x):
    if x > 0:
        x = x + COUNTER
    return x


def test_reading_a_global_in_a_branch_is_fine():
    assert float(autograph_lite.jit(global_read_in_branch)(F32(1.0))) == 1.0 + COUNTER


def nested_generator_is_left_alone(x):
    gen = (i * 2 for i in range(3))
    return x + sum(gen)


def test_a_generator_expression_inside_is_fine():
    # JAX deprecates flattening a generator as a pytree leaf (a future error): sum(<generator>) in
    # converted code must not hand the generator to jax.tree_util.
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        assert float(autograph_lite.jit(nested_generator_is_left_alone)(F32(1.0))) == 7.0


# --- errors raised by user code keep their meaning ------------------------------------------------------


def raises_value_error(x, flag):
    if flag:
        raise ValueError("flag must be false")
    return x


def test_user_exceptions_in_a_concrete_branch_propagate_unchanged():
    with pytest.raises(ValueError, match="flag must be false"):
        autograph_lite.jit(raises_value_error, static_argnums=1)(F32(1.0), True)
    assert float(autograph_lite.jit(raises_value_error, static_argnums=1)(F32(1.0), False)) == 1.0


def raise_in_a_traced_branch(x):
    if x > 0:
        raise ValueError("positive")
    return x


def test_raise_in_a_traced_branch_surfaces_while_tracing():
    # A staged cond traces both branches: the raise happens at trace time, as it would for jax.lax.cond.
    with pytest.raises(ValueError, match="positive"):
        autograph_lite.jit(raise_in_a_traced_branch)(F32(-1.0))


def test_conversion_errors_are_not_silenced_by_jax():
    with pytest.raises(StagingTypeError):
        jax.make_jaxpr(autograph_lite.convert(assigned_in_true_branch_only))(F32(1.0))


def test_converting_library_code_names_the_inner_function_to_convert():
    # jax.vmap(f) is JAX's wrapper around f: converting it would rewrite JAX's own source.
    with pytest.raises(autograph_lite.ConversionError, match=r"(?s)library code.*jax.vmap\(autograph_lite.convert\(f\)\)"):
        autograph_lite.jit(jax.vmap(lambda x: x))

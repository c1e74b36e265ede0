"""raise / assert / warnings.warn under traced conditions: at run time, only when eager Python would,
with eager's exception type and message (issue #15). Every case runs eagerly and converted (jit, and
vmap / grad where it says), on inputs that take and that do not take the raising path.

PYTEST_DONT_REWRITE: the user functions here hold asserts, whose eager message must stay Python's."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import pytest

import autograph_lite
from tests.support import assert_same


def outcome(run, *args):
    """('value', result) or ('raised', what Python's traceback shows as its last line)."""
    try:
        result = run(*args)
        jax.block_until_ready(result)
    except Exception as error:
        return ("raised", f"{type(error).__name__}: {error}")
    return ("value", result)


def run_time_error(run, *args):
    """The text of JAX's runtime error that a failing check raises under jax.jit (the original at its end)."""
    with pytest.raises(jax.errors.JaxRuntimeError) as raised:
        jax.block_until_ready(run(*args))
    return str(raised.value)


def raised_by(run, *args):
    """The exception ``run(*args)`` raises (it must raise one)."""
    with pytest.raises(BaseException) as raised:
        jax.block_until_ready(run(*args))
    return raised.value


def last_frame(error):
    traceback = error.__traceback__
    while traceback.tb_next is not None:
        traceback = traceback.tb_next
    return traceback.tb_frame.f_code.co_filename, traceback.tb_lineno


def assert_raises_like_eager(error, expected):
    """``error`` is eager's exception: its type, message and args, its last frame at eager's line, and a
    note naming that line."""
    assert type(error) is type(expected), repr(error)
    assert (str(error), error.args) == (str(expected), expected.args)
    file, line = last_frame(expected)
    assert last_frame(error) == (file, line)
    assert error.__notes__ == [f"(raised when the compiled program ran, at {file}:{line})"]
    assert (error.__cause__, error.__context__) == (expected.__cause__, expected.__context__) == (None, None)


def assert_like_eager(fn, *args):
    """Eager's value, or eager's exception: ``autograph_lite.jit`` raises it as eager does, and under
    ``jax.jit`` JAX's runtime error ends with its type and message, its last frame the line eager
    Python raised from."""
    expected = outcome(fn, *args)
    if expected[0] == "raised":
        eager = raised_by(fn, *args)
        assert_raises_like_eager(raised_by(autograph_lite.jit(fn), *args), eager)
        text = run_time_error(jax.jit(autograph_lite.convert(fn)), *args)
        assert text.endswith("\n" + expected[1]), text
        file, line = last_frame(eager)
        assert f'{file}", line {line}' in text.splitlines()[-2]
    else:
        actual = outcome(autograph_lite.jit(fn), *args)
        assert actual[0] == "value", actual
        assert_same(actual[1], expected[1])


def raise_in_branch(x):
    if x < 0:
        raise ValueError("negative input")
    else:
        y = jnp.sqrt(x)
    return y


def raise_formatted(x):
    y = x
    if x < 0:
        y = -x
        raise ValueError(f"negative input {x:.2f}")
    return y * 2


def assert_traced(x):
    assert x > 0, f"x must be positive, got {x}"
    return x * 2


def raise_in_while(x, n):
    i = 0
    while i < n:
        if x[i] < 0:
            raise KeyError(f"negative at {i}")
        i += 1
    return i


def assert_in_for(x, n):
    total = 0.0
    for i in range(n):
        assert x[i] >= 0, f"negative at {i}"
        total += x[i]
    return total


def for_else_raise(xs):
    for i in range(xs.shape[0]):
        if xs[i] > 3:
            break
    else:
        raise LookupError("nothing above 3")
    return i


def checked(v):
    if v > 10:
        raise OverflowError(f"too big: {v}")
    return v


def raise_in_nested_helper(x):
    if x > 0:
        y = checked(x * 2)
    else:
        y = -x
    return y


@pytest.mark.parametrize("x", [4.0, -4.0, 0.0])
def test_raise_in_a_branch_only_when_taken(x):
    assert_like_eager(raise_in_branch, jnp.float32(x))


@pytest.mark.parametrize("x", [3.0, -1.5])
def test_raise_with_a_formatted_message(x):
    assert_like_eager(raise_formatted, jnp.float32(x))


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_assert_with_a_traced_condition(x):
    assert_like_eager(assert_traced, jnp.float32(x))


def test_assert_with_a_concrete_condition_stays_python():
    with pytest.raises(AssertionError, match="x must be positive, got -1"):
        autograph_lite.convert(assert_traced)(-1)
    assert "assert_" in autograph_lite.to_source(assert_traced)


@pytest.mark.parametrize("n", [2, 3])
def test_raise_in_a_while_loop(n):
    assert_like_eager(raise_in_while, jnp.array([1.0, 2.0, -1.0]), jnp.int32(n))


@pytest.mark.parametrize("n", [2, 3])
def test_assert_in_a_for_loop_with_a_traced_bound(n):
    assert_like_eager(assert_in_for, jnp.array([1.0, 2.0, -1.0]), jnp.int32(n))


@pytest.mark.parametrize("xs", [[0.0, 5.0, 1.0], [0.0, 1.0, 2.0]])
def test_for_else_raise(xs):
    assert_like_eager(for_else_raise, jnp.array(xs))


@pytest.mark.parametrize("x", [3.0, 6.0, -2.0])
def test_raise_in_a_helper_called_from_a_staged_branch(x):
    # The function given to jit holds no check of its own: autograph_lite.jit still raises eager's.
    assert_like_eager(raise_in_nested_helper, jnp.float32(x))


def test_the_exception_keeps_eagers_message_and_names_the_users_line():
    line = raise_in_branch.__code__.co_firstlineno + 2
    error = raised_by(autograph_lite.jit(raise_in_branch), jnp.float32(-1.0))
    assert type(error) is ValueError and error.args == ("negative input",)
    assert last_frame(error) == (__file__, line)
    text = run_time_error(jax.jit(autograph_lite.convert(raise_in_branch)), jnp.float32(-1.0))
    assert text.endswith(f'{__file__}", line {line}, in <module>\nValueError: negative input')


def test_a_concrete_raise_stays_python():
    with pytest.raises(ValueError, match="negative input"):
        autograph_lite.convert(raise_in_branch)(-1.0)
    assert autograph_lite.convert(raise_in_branch)(4.0) == 2.0


def test_vmap_raises_when_any_lane_would():
    batched = jax.jit(jax.vmap(autograph_lite.convert(raise_in_branch)))
    assert_same(batched(jnp.array([1.0, 4.0])), jnp.array([1.0, 2.0]))
    with pytest.raises(jax.errors.JaxRuntimeError, match="ValueError: negative input"):
        batched(jnp.array([1.0, -4.0]))


def test_vmap_of_loops_checks_only_the_iterations_each_lane_runs():
    x = jnp.array([[1.0, 2.0, -1.0], [1.0, 1.0, 1.0]])
    for fn, message in ((raise_in_while, "KeyError: 'negative at 2'"), (assert_in_for, "AssertionError: negative at 2")):
        batched = jax.jit(jax.vmap(autograph_lite.convert(fn)))
        jax.block_until_ready(batched(x, jnp.array([2, 3])))  # lane 0 stops before its negative element
        with pytest.raises(jax.errors.JaxRuntimeError, match=message):
            batched(x, jnp.array([3, 3]))


def test_vmap_of_a_branch_calling_a_checked_helper():
    batched = jax.jit(jax.vmap(autograph_lite.convert(raise_in_nested_helper)))
    assert_same(batched(jnp.array([3.0, -20.0])), jnp.array([6.0, 20.0]))


def test_grad_forward_values_decide():
    converted = autograph_lite.convert(raise_in_branch)
    assert_same(jax.grad(converted)(4.0), jax.grad(jnp.sqrt)(4.0))
    with pytest.raises(jax.errors.JaxRuntimeError, match="ValueError: negative input"):
        jax.block_until_ready(jax.jit(jax.grad(converted))(-4.0))


def catch_a_staged_raise(x):
    s = 0
    try:
        if x > 0.5:
            raise ValueError("big")
        s = 1
    except ValueError:
        s = 2
    return s


def catch_inside_the_branch(x):
    s = 0
    if x > 0.5:
        try:
            raise ValueError("big")
        except ValueError:
            s = 2
    return s


def test_a_handler_around_a_staged_raise_is_a_located_error():
    line = catch_a_staged_raise.__code__.co_firstlineno
    with pytest.raises(autograph_lite.ConversionError, match=f"the `try` at .*:{line + 2} would catch it") as raised:
        autograph_lite.jit(catch_a_staged_raise)(jnp.float32(0.0))
    assert f":{line + 4}:" in str(raised.value)


@pytest.mark.parametrize("x", [0.0, 1.0])
def test_a_handler_on_the_traced_path_catches_as_python(x):
    assert_like_eager(catch_inside_the_branch, jnp.float32(x))


def warn_when_negative(x):
    if x < 0:
        warnings.warn(f"negative: {x}", RuntimeWarning, stacklevel=1)
    return x * 2


@pytest.mark.parametrize("x", [-1.0, 1.0])
def test_warn_in_a_staged_branch(x):
    def caught(run):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            jax.block_until_ready(run(jnp.float32(x)))
        return [(w.category, str(w.message), w.filename, w.lineno) for w in seen]

    assert caught(autograph_lite.jit(warn_when_negative)) == caught(warn_when_negative)
    # called outside jit on a concrete value, it warns at once, at the user's line too (it named the
    # runtime's operator)
    assert caught(autograph_lite.convert(warn_when_negative)) == caught(warn_when_negative)


def both_branches_raise(x):
    if x > 0:
        raise ValueError("positive")
    else:
        raise ValueError("not positive")


def test_every_path_raising_under_a_traced_condition_is_a_located_error():
    with pytest.raises(autograph_lite.ConversionError, match="every path through this `if` raises"):
        autograph_lite.jit(both_branches_raise)(jnp.float32(1.0))


def concrete_assert_in_a_staged_branch(x):
    limit = 1
    if x > 0:
        assert limit > 2, "limit too small"
        x = x * 2
    return x


@pytest.mark.parametrize("x", [-1.0, 1.0])
def test_a_false_concrete_assert_in_a_staged_branch_is_a_check(x):
    # Found by the generator (tests/regressions/gen_b03698a244.py): Python's assert at trace time
    # raised on every input, as if the branch were always taken.
    assert_like_eager(concrete_assert_in_a_staged_branch, jnp.float32(x))


TABLE = (0.0, 1.0)


def assert_in_a_while_whose_test_is_checked(a):
    i = 0
    while i < 2 and TABLE[a % 2] < 0.5:  # a traced index: the test holds a check (index in range) too
        i = i + 1
        assert a > 0
    return i


@pytest.mark.parametrize("a", [0, 2, 1])
def test_a_check_in_a_while_whose_test_holds_a_check(a):
    # Found by the generator (tests/regressions/gen_9d0e8db694.py): the body's check evaluated the
    # loop's test for its path, whose own check evaluated the test again, without end.
    assert_like_eager(assert_in_a_while_whose_test_is_checked, jnp.int32(a))


def finally_that_may_return(x, y):
    try:
        if x > 0:
            raise ValueError("positive")
        x = x + 1
    finally:
        if y > 0:
            return 1.0  # noqa: B012 (the construct under test)
    return x


def test_a_finally_that_may_exit_around_a_staged_raise_is_a_located_error():
    # Eager Python drops the exception when the `finally` returns: a staged check cannot know that.
    line = finally_that_may_return.__code__.co_firstlineno
    with pytest.raises(autograph_lite.ConversionError, match=f"the `try` at .*:{line + 1} would catch it") as raised:
        autograph_lite.jit(finally_that_may_return)(jnp.float32(1.0), jnp.float32(1.0))
    assert f":{line + 3}:" in str(raised.value)
    assert autograph_lite.convert(finally_that_may_return)(1.0, 1.0) == 1.0

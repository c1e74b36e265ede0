"""``return`` / ``break`` / ``continue`` inside ``with`` and ``try`` statements, against eager Python.

The statement stays Python (run once, at trace time); only its exits become flags. Each function is
checked on inputs that take every path, concrete (``convert``), traced (``jit``) and with static
arguments; a recording context manager shows that ``__enter__`` / ``__exit__`` run exactly as eagerly,
and exceptions keep their type and message.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from golden.analysis.corpus import exit_in_try_then_name_read_after_it, traced_if_in_try_star
from support import assert_equivalent

import autograph_lite
from autograph_lite.errors import ConversionError

F32, I32 = jnp.float32, jnp.int32


class Recorder:
    """A context manager that logs each ``__enter__`` and ``__exit__`` (with the exception type)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __enter__(self) -> Recorder:
        self.calls.append("enter")
        return self

    def __exit__(self, kind: type | None, value: object, traceback: object) -> bool:
        self.calls.append(f"exit {kind.__name__ if kind else None}")
        return False


RECORDER = Recorder()


class Quiet:
    """A context manager of the user's with no effect: entered and exited as often as eagerly, staged."""

    def __enter__(self) -> Quiet:
        return self

    def __exit__(self, kind: type | None, value: object, traceback: object) -> bool:
        return False


QUIET = Quiet()


def return_in_named_scope(x):
    with jax.named_scope("block"):
        if x > 0:
            return x * 2
    return -x


def break_in_try_finally(x, n):
    i = 0
    count = 0
    while i < n:
        try:
            if x < i:
                break
            i += 1
        finally:
            count += 1
    return i + count * 10


def continue_in_recording_with(x, n):
    total = x
    for i in autograph_lite.unroll(range(n)):  # "auto" would trace the body once more, aside
        with RECORDER:
            if i > x:
                continue
            total = total + i
        total = total * 2
    return total


def return_in_try_finally_returns_default(x):
    try:
        if x > 1:
            return x * 2
    finally:
        if x < 5:
            return x - 100  # noqa: B012 (the point of the test)
    return x


def return_in_handler(x, n):
    scales = [1.0, 2.0]
    scale = 0.0  # a name assigned after a traced exit in a try, read after it, needs a value before
    try:
        scale = scales[n]
    except IndexError:
        if x > 0:
            return -x
        scale = 10.0
    return x * scale


def exit_in_else(x):
    y = x
    try:
        y = x + 1
    except ZeroDivisionError:
        y = y * 0
    else:
        if y > 2:
            return y
        y = y * 3
    return y - 1


def return_in_with_in_try_in_loop(xs, limit):
    found = -1.0
    for v in xs:
        try:
            with QUIET:
                if v > limit:
                    found = v
                    break
        finally:
            found = found + 1
    return found


def break_in_finally_discards_return(x, n):
    k = 0
    for k in range(n):
        try:
            if x > k:
                return x * 100
        finally:
            if k == 1:
                break  # noqa: B012 (the point of the test)
    return x + k


def return_in_with_once(x):
    with RECORDER:
        if x > 0:
            return x
    return -x


def raise_in_with(x, n):
    with RECORDER:
        if n > 1:
            raise ValueError(f"n is {n}")
        if x > 0:
            return x
    return -x


def return_in_finally_discards_exception(x, n):
    try:
        if n > 1:
            raise ValueError("discarded")
        x = x + 1
    finally:
        if n > 2:
            return x * 3  # noqa: B012 (the point of the test)
    return x


def returns_on_every_path_of_a_try(x):
    try:
        if x > 0:
            return x * 2
        else:
            return -x
    finally:
        x = 0  # no `return None` after the `try`: it could not take the structure of the other returns



def name_from_try_body_or_handler_read_in_traced_if(x, n):
    try:
        if n > 3:
            raise ValueError(n)
        z = x * 2
    except ValueError:
        z = -x
    if x > 0:
        w = z + 1
    else:
        w = z - 1
    return w


def return_in_try_star_body(x):
    try:
        if x > 0:
            return x * 2
    except* ValueError:
        pass
    return -x


CASES = [
    (return_in_named_scope, [(F32(3.0),), (F32(-3.0),)], ()),
    (break_in_try_finally, [(F32(1.5), I32(5)), (F32(10.0), I32(5)), (F32(-1.0), I32(0))], ()),
    (continue_in_recording_with, [(F32(1.5), 4), (F32(-1.0), 3), (F32(9.0), 2)], (1,)),
    (return_in_try_finally_returns_default, [(F32(3.0),), (F32(7.0),), (F32(0.5),)], ()),
    (return_in_handler, [(F32(2.0), 1), (F32(2.0), 5), (F32(-2.0), 5)], (1,)),
    (exit_in_else, [(F32(3.0),), (F32(0.5),)], ()),
    (return_in_with_in_try_in_loop, [(jnp.asarray([1.0, 4.0, 2.0]), F32(3.0)), (jnp.asarray([1.0, 2.0]), F32(3.0))], ()),
    (break_in_finally_discards_return, [(F32(0.5), 3), (F32(5.0), 3), (F32(5.0), 1), (F32(-1.0), 0)], (1,)),
    (raise_in_with, [(F32(2.0), 0), (F32(-2.0), 1)], (1,)),
    (return_in_with_once, [(F32(2.0),), (F32(-2.0),)], ()),
    (returns_on_every_path_of_a_try, [(F32(2.0),), (F32(-2.0),)], ()),
    (return_in_finally_discards_exception, [(F32(2.0), 3), (F32(2.0), 0)], (1,)),
    (exit_in_try_then_name_read_after_it, [(F32(2.0),), (F32(-2.0),)], ()),
    (name_from_try_body_or_handler_read_in_traced_if, [(F32(2.0), 1), (F32(-2.0), 1), (F32(2.0), 5)], (1,)),
    (traced_if_in_try_star, [(F32(2.0),), (F32(-2.0),)], ()),
    (return_in_try_star_body, [(F32(2.0),), (F32(-2.0),)], ()),
]


@pytest.mark.parametrize(
    "function, args, static",
    [(f, args, static) for f, examples, static in CASES for args in examples],
    ids=[f"{f.__name__}-{i}" for f, examples, _ in CASES for i in range(len(examples))],
)
def test_exits_in_with_and_try_match_eager(function, args, static):
    assert_equivalent(function, *args, static_argnums=static)


@pytest.mark.parametrize("function, args", [(return_in_named_scope, (3.0,)), (break_in_try_finally, (1.5, 5)),
                                            (return_in_handler, (2.0, 5)), (exit_in_else, (0.5,))])
def test_python_scalars_stay_python(function, args):
    assert_equivalent(function, *args, static_argnums=tuple(range(len(args))))


def calls_of(function, *args):
    RECORDER.calls.clear()
    function(*args)
    return list(RECORDER.calls)


@pytest.mark.parametrize("args", [(1.5, 4), (-1.0, 3)])
def test_a_with_enters_and_exits_as_eagerly_once_per_execution(args):
    eager = calls_of(continue_in_recording_with, *args)
    assert eager == ["enter", "exit None"] * args[1]
    assert calls_of(autograph_lite.convert(continue_in_recording_with), *args) == eager


@pytest.mark.parametrize("x, dtype", [(2.0, jnp.float16), (-2.0, jnp.bfloat16)])
def test_a_with_around_a_traced_exit_enters_once_per_trace(x, dtype):
    assert calls_of(return_in_with_once, x) == ["enter", "exit None"]
    assert calls_of(autograph_lite.convert(return_in_with_once), F32(x)) == ["enter", "exit None"]
    fresh_trace = jnp.asarray(x, dtype)  # a type no other test traces it with
    assert calls_of(autograph_lite.jit(return_in_with_once), fresh_trace) == ["enter", "exit None"]


@pytest.mark.parametrize("convert", [lambda f: f, autograph_lite.convert,
                                     lambda f: autograph_lite.jit(f, static_argnums=(1,))])
def test_an_exception_in_the_body_propagates_with_its_type_and_message(convert):
    RECORDER.calls.clear()
    with pytest.raises(ValueError) as excinfo:
        convert(raise_in_with)(F32(2.0), 3)
    assert type(excinfo.value) is ValueError and str(excinfo.value) == "n is 3"  # JAX may add a note, not text
    assert RECORDER.calls == ["enter", "exit ValueError"]


@pytest.mark.parametrize("convert", [lambda f: f, autograph_lite.convert,
                                     lambda f: autograph_lite.jit(f, static_argnums=(1,))])
def test_a_finally_that_does_not_exit_keeps_the_exception(convert):
    with pytest.raises(ValueError) as excinfo:
        convert(return_in_finally_discards_exception)(F32(2.0), 2)
    assert type(excinfo.value) is ValueError and str(excinfo.value) == "discarded"


def return_in_match(x):
    match 1:
        case 1:
            return x
    return -x


def test_an_exit_in_a_match_converts():
    """It was a located UnsupportedSyntaxError; a `match` is now an `if` chain (tests/test_match.py)."""
    assert_equivalent(return_in_match, F32(2.0))
    assert autograph_lite.convert(return_in_match)(F32(2.0)) == 2.0


def refusal_inside_a_try_with_a_broad_handler(x):
    try:
        if x > 0:
            y = x
        z = y * 2  # y is unbound when x <= 0: eager Python raises UnboundLocalError, caught below
    except Exception:
        z = x * 0 - 1.0
    return z


def test_the_converters_own_errors_pass_through_the_users_handlers():
    """A refusal raised while tracing (here: `y` assigned in one branch of a traced `if` and read
    after it) is no exception of the user's program: caught by `except Exception`, it silently ran the
    handler for every input (-1.0 where eager gives 4.0)."""
    assert refusal_inside_a_try_with_a_broad_handler(F32(2.0)) == 4.0
    assert refusal_inside_a_try_with_a_broad_handler(F32(-2.0)) == -1.0
    with pytest.raises(autograph_lite.StagingTypeError, match="'y'"):
        autograph_lite.jit(refusal_inside_a_try_with_a_broad_handler)(F32(2.0))


def recorded_in_a_staged_loop(xs, limit):
    found = -1.0
    for v in xs:
        with RECORDER:
            if v > limit:
                found = v
                break
    return found


def test_a_manager_that_logs_in_a_staged_loop_is_refused_where_it_logs():
    """Its ``__enter__`` runs converted: the append to the module-level log, which eager Python makes on
    every iteration and a staged loop once per trace, is refused at its line (it ran silently, once)."""
    with pytest.raises(ConversionError) as raised:
        autograph_lite.jit(recorded_in_a_staged_loop)(jnp.asarray([1.0, 4.0, 2.0]), F32(3.0))
    line = Recorder.__enter__.__code__.co_firstlineno + 1
    assert str(raised.value).startswith(f"{__file__}:{line}: this call of list.append()")


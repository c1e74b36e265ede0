"""``raise``, ``assert`` and ``warnings.warn`` in converted code: at run time, only when eager Python would.

Inside a staged branch or loop body (a ``lax.cond`` branch, a ``scan`` / ``while_loop`` body) the code
is traced whatever the run-time condition, so a Python ``raise`` there would raise on every input. The
rewriter writes ``raise E(...)`` as ``raise _ag.raise_(E(...))``: on the concrete path (no staged
statement encloses it) :func:`raise_` returns the exception and Python raises it, as written; inside
staged code it stages a run-time check (:mod:`.run_time_checks`) and ends the traced path with
:class:`PathRaises`, which the staged statement catches: a branch that raises returns placeholders of
the other branch's types, a loop body that raises leaves the carry as it was (the program never gets
past the check, so nobody sees them). ``assert c, msg`` with a traced ``c`` is the same check on
``not c``, and the code after it goes on. ``warnings.warn`` inside staged code warns at run time.

A name first assigned in a ``for`` loop over a range with a traced bound, and read after it, leaves
the loop as :class:`AssignedIfRan`: the value of the last iteration (zeros if none ran) and whether
one ran. A read of it (``_ag.ld``) is a check that raises eager's ``UnboundLocalError`` when the loop
ran zero times and the program reaches that read.

A ``try`` statement with handlers records them (:func:`.run_time_checks.handling`). A handler entered
inside the innermost staged statement catches a ``raise`` at trace time, on the traced path, as
Python would: that raise stays a Python raise. One entered outside it would have to catch a staged
check: a located error (:func:`.run_time_checks.stage_exception`).
"""

from __future__ import annotations

import contextlib
import sys
import types
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.numpy as jnp

from ..errors import ConversionError, Location, UnassignedReadError, unbound_message
from ..generated_names import PREFIX
from . import appends
from .jax_error_kinds import only_tracing_raises
from .locations import CONVERTED_CODES, caller_location, raised_at
from .paths import output_staged, path_predicate, skippable
from .printing import DeferredText, at_run_time
from .run_time_checks import caught_by, host_raiser, raised_as_eager_would, rebuilt, stage_exception, state_of
from .session import current
from .values import any_traced, is_traced, to_predicate
from .values import ld as checked_read

_NO_CAUSE = object()


class PathRaises(BaseException):
    """At trace time: every path from here raises at run time (a check is staged), so the staged
    statement being traced stops tracing this branch or body. A ``BaseException``, so that no
    ``except Exception`` of the user's takes it for an error. ``error``: the error of Python's that
    the path raises, where its trace raised one (:func:`python_errors_at_run_time`)."""

    def __init__(self, error: Exception | None = None) -> None:
        super().__init__()
        self.error = error


@contextlib.contextmanager
def python_errors_at_run_time(location: Location | None) -> Iterator[None]:
    """Around the trace of staged code that eager Python runs only where the path to it holds (a branch
    of a traced ``if``, an arm of a traced conditional expression, a switch's branch, a staged loop's
    body): an error of Python's or a library's that the trace raises (an index past a list's end, a
    closure over a deleted name) becomes a run-time check raising it on that path, as a ``raise``
    written there does, and the traced path ends with :class:`PathRaises`. Eager Python raises it
    only where it runs that code; traced, the code runs whatever the condition. What only tracing
    raises, and the converter's own errors, pass through
    (:func:`.run_time_checks.raised_as_eager_would`). ``location``: where to report it if no frame
    of the user's code is in its traceback."""
    try:
        yield
    except Exception as error:
        if not raised_as_eager_would(error):
            raise
        stage_exception(True, error, raised_at(error) or location)
        raise PathRaises(error) from error


def not_for_handlers(exception: BaseException) -> None:
    """The first statement of every ``except`` clause of converted code: the converter's own errors (a
    located refusal, a path that raises only at run time), and JAX's refusals of a traced value that
    eager Python's concrete value does not meet (``math.sqrt(x)``, ``x.item()``:
    :func:`.jax_error_kinds.only_tracing_raises`), pass through the user's handlers; the outermost
    converted call locates JAX's. Eager Python never raises them, so a handler that caught one, or a
    ``finally`` that exits, would run where eager does not: a silent wrong value instead of the error."""
    inner = exception.exceptions if isinstance(exception, BaseExceptionGroup) else (exception,)
    for one in inner:
        if isinstance(one, BaseExceptionGroup):
            not_for_handlers(one)
        elif isinstance(one, (ConversionError, UnassignedReadError, PathRaises)) or only_tracing_raises(one):
            raise one


def raise_(exception: Any, cause: Any = _NO_CAUSE) -> Any:
    """``raise exception [from cause]``: return the exception for Python to raise, or stage it."""
    if isinstance(exception, type) and issubclass(exception, BaseException):
        exception = exception()
    if cause is not _NO_CAUSE and isinstance(exception, BaseException):
        if isinstance(cause, type) and issubclass(cause, BaseException):
            cause = cause()
        exception.__cause__ = cause
    if not isinstance(exception, BaseException) or not _staged_here(exception):
        return _with_text(exception)
    stage_exception(True, exception, caller_location())
    raise PathRaises()


def assert_(condition: Any, message: Callable[[], Any] | None = None) -> Any:
    """The test of ``assert condition, message``: a traced one is checked at run time (``message()`` is
    evaluated now, its text formed when the check fails, and what it prints printed only then), and
    passes here. A concrete one is Python's,
    except a false one in staged code: that is a ``raise``, which must happen only when the program
    takes this path."""
    if not is_traced(condition):
        if condition or not _staged_here(AssertionError()):
            return condition
        stage_exception(True, AssertionError() if message is None else AssertionError(message()), caller_location())
        raise PathRaises()
    location = caller_location()
    holds = to_predicate(condition, "`assert`", location or Location("<unknown>", 0))
    fails = jnp.logical_not(holds)
    if message is None:
        exception = AssertionError()
    else:  # Python evaluates the message only when the test fails: a print in it waits for that, an
        # effect Python would make then (a helper bumping a counter) is refused, as in a staged branch
        context = appends.Forbidden("message of an `assert` whose test is traced", location)
        with skippable(lambda: fails), appends.inside(context):
            exception = AssertionError(message())
    stage_exception(fails, exception, location)
    return True


def warn(message: Any, category: Any = None, stacklevel: int = 1, source: Any = None) -> None:
    """``warnings.warn`` in converted code: with eager's category, message and location (so filters and
    once-per-location behave as eager); in staged code at run time, when the program takes this path,
    and a warning that the filters make an error is raised as a failing check's exception is."""
    staged = bool(current().staged) or any_traced(message)
    if staged and not output_staged():  # a condition of the path traced again: staged where it was evaluated
        return
    if isinstance(message, Warning):
        category = type(message)
    category = UserWarning if category is None else category
    frame = _user_frame(stacklevel)
    warn_there = _warns_from(frame)
    if not staged:
        warn_there(message, category, source)
        return
    if stacklevel > 1 and frame is not None and frame.f_code not in CONVERTED_CODES:
        raise _names_callers_line(stacklevel)
    raise_on_host = host_raiser(caller_location())

    def emit(state: Any) -> None:
        text = rebuilt(message, state) if isinstance(message, Warning) else state
        try:
            warn_there(text, category, source)
        except Warning as error:  # a filter "error": eager raises it at the `warnings.warn`
            raise_on_host(error)

    state = state_of(message) if isinstance(message, Warning) else message
    at_run_time(state, emit, when=jnp.asarray(path_predicate()))


def _warns_from(frame: types.FrameType | None) -> Callable[[Any, Any, Any], None]:
    """``warnings.warn`` as called from ``frame`` (the one its stacklevel names; ``None``: past the
    stack's end), whose file, line and module Python names, taken now (the frame runs on)."""
    where = frame.f_globals if frame is not None else sys.__dict__
    filename, line = (frame.f_code.co_filename, frame.f_lineno) if frame is not None else ("sys", 1)

    def warn_there(message: Any, category: Any, source: Any) -> None:
        registry = where.setdefault("__warningregistry__", {})
        warnings.warn_explicit(message, category, filename, line, where.get("__name__", "sys"), registry, where, source)

    return warn_there


def _names_callers_line(stacklevel: int) -> ConversionError:
    return ConversionError(
        f"warnings.warn(..., stacklevel={stacklevel}) in staged code names a line outside the converted "
        "code: a caller of the compiled function, whose program is reused by calls from any line, so "
        "the line a warning names when the program runs is not known while tracing",
        caller_location(),
        "Return whether to warn and warn in the caller, outside the compiled function "
        "(`x, slow = f(x)`, then `if slow: warnings.warn(...)`), or pass a stacklevel that stays "
        "inside the converted functions.",
    )


@jax.tree_util.register_pytree_node_class
class AssignedIfRan:
    """The value of ``name`` after a loop whose trip count is traced and whose body assigns it first:
    ``value`` (zeros of its type if no iteration ran) and the traced bool ``ran``. A pytree, so that
    staged statements after the loop carry it as it is, to the read that checks it."""

    __slots__ = ("name", "ran", "value")

    def __init__(self, name: str, value: Any, ran: Any) -> None:
        self.name, self.value, self.ran = name, value, ran

    def tree_flatten(self) -> tuple[tuple[Any, Any], str]:
        return (self.value, self.ran), self.name

    @classmethod
    def tree_unflatten(cls, name: str, children: tuple[Any, Any]) -> AssignedIfRan:
        return cls(name, *children)


def ld(value: Any) -> Any:
    """A read of a name that may be unbound: Python's ``UnboundLocalError`` now for the ``Undefined``
    stand-in, at run time for a name that a loop assigned only if it ran (when the program reaches
    this read and the loop ran zero times)."""
    if isinstance(value, AssignedIfRan):
        stage_exception(jnp.logical_not(value.ran), UnboundLocalError(unbound_message(value.name)), caller_location())
        return value.value
    return checked_read(value)


def _user_frame(stacklevel: int) -> types.FrameType | None:
    """The frame ``warnings.warn(..., stacklevel)`` names, skipping our frames and JAX's. One level of
    eager's stack is one user function: its frame and the generated helpers (``_ag_...``: a branch, a
    loop body) that run its code inside it, whose innermost frame holds the line being run. So a
    helper's frames count as one level, not as the helper's level and its caller's."""
    frame: types.FrameType | None = sys._getframe(1)
    innermost_of_level: types.FrameType | None = None
    remaining = stacklevel
    while frame is not None:
        if frame.f_globals.get("__name__", "").split(".")[0] not in ("autograph_lite", "jax", "jaxlib"):
            innermost_of_level = innermost_of_level or frame
            if not frame.f_code.co_name.startswith(PREFIX):  # the user function itself: its level ends
                remaining -= 1
                if remaining == 0:
                    return innermost_of_level
                innermost_of_level = None
        frame = frame.f_back
    return None


def _staged_here(exception: BaseException) -> bool:
    """Whether this raise must be staged: it sits in staged code, and no handler on its traced path
    (entered inside the innermost staged statement) catches it."""
    depth = len(current().staged)
    if depth == 0:
        return False
    handlers = caught_by(exception)
    return handlers is None or handlers.staged_depth < depth


def _with_text(exception: Any) -> Any:
    """A Python raise of an exception whose message was formatted from traced values: its text is
    needed now, which :meth:`.printing.DeferredText.text` refuses with a located error."""
    if isinstance(exception, BaseException):
        for argument in exception.args:
            if isinstance(argument, DeferredText):
                argument.text("is an exception message")
    return exception

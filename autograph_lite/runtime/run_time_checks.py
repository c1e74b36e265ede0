"""Exceptions that eager Python raises on values that are known only when the compiled program runs.

Python tests a condition and raises; a traced condition has no truth at trace time, so the test moves
to run time: the program calls the host when the condition holds, and the host raises the exception
eager Python would have raised, with the same type and message. This is the one place that
mechanism lives, so that every check (a ``raise`` or ``assert`` under a traced condition, a zero
``range`` step, an index out of range, ...) behaves the same way.

The mechanism, chosen by measurement (docs/semantics.md, "Run-time checks"): an ordered
``jax.debug.callback`` inside ``lax.cond(predicate, ...)``, so the host is reached only when the check
fails (calling it on every iteration of a loop cost 86 µs per iteration on CPU; behind the cond, the
non-failing path costs a predicate and a branch). Ordered, because eager Python stops at the first
exception: an earlier ``print`` has printed, a later one has not, and of two checks the first one
reached is the one raised.

What the predicate includes. A check inside a staged branch or loop body must fire only when eager
Python would reach it. Under ``jit`` the untaken branch and the iterations after the loop's end never
run, but under ``vmap`` with a batched condition a ``lax.cond`` runs both branches (as a select) and a
``while_loop`` runs its body for lanes that have finished. So the staged statements record, in the
trace session (:attr:`.session.TraceSession.path`, :mod:`.paths`), the condition under which the code
they trace runs; a check ANDs them all with its own condition.

How the caller sees the exception. JAX wraps it in its ``jax.errors.JaxRuntimeError``, whose message
ends with Python's traceback text of the original: its last frame is the user's line (the check
raises from code compiled at that line) and its last line eager's (``ValueError: negative input``).
The host keeps the exceptions it raised, so that :func:`failed_check` can find the one such an error
reports (by that text: JAX keeps no reference to it) and ``autograph_lite.jit`` raises it instead, as
eager Python would. JAX's own log of the failed callback is left out: Python does not log an
exception the caller receives.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import logging
import threading
import types
from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.numpy as jnp

from ..errors import ConversionError, Location
from . import cleanups
from .locations import caller_location
from .paths import path_predicate
from .printing import at_run_time
from .session import current

# The latest exceptions raised by failing checks (which JAX's log of failed callbacks leaves out), each
# with the end of the text JAX's runtime error reports it by: its last frame's line and its last line.
_raised: collections.deque[tuple[BaseException, str]] = collections.deque(maxlen=64)
_raised_lock = threading.Lock()
_PACKAGE = __name__.split(".")[0]  # autograph_lite: its exceptions are the converter's own
_TRACING_ONLY = (jax.errors.JAXTypeError, jax.errors.JAXIndexError, RecursionError)
# How many checks have been staged, by any trace in any thread: ``autograph_lite.jit`` compares it
# before and after a trace (a check staged by another thread meanwhile only costs a wrapper's frame).
_staged_count = [0]


def stage_exception(predicate: Any, template: BaseException, location: Location | None) -> None:
    """Raise (a copy of) ``template`` when the program runs, if ``predicate`` and the path to here hold.

    ``template`` may hold traced values in its ``args`` and attributes (an f-string message is a
    :class:`.printing.DeferredText`): they are passed to the host and the message is formatted there.
    ``location`` is the user's line, added to the exception as a note.
    """
    _refuse_if_caught(template, location)
    raising_here = _raise_at(location)
    count_staged()
    regions = cleanups.around_check(location)

    def fail(state: tuple[tuple[Any, ...], dict[str, Any]]) -> None:
        exception = _remembered(rebuilt(template, state), location, raising_here)
        for region in regions:  # what eager's `finally` blocks and `__exit__`s print on the way out
            region.replay()
        exec(raising_here, {"exception": exception})  # raises from code compiled at the user's line

    at_run_time(state_of(template), fail, when=jnp.logical_and(path_predicate(), predicate))


def host_raiser(location: Location | None) -> Callable[[BaseException], None]:
    """For a callback that may raise an exception of eager's on the host (a warning that the warnings
    filters make an error): raise it as a failing check is raised, so that ``autograph_lite.jit``
    raises it itself and JAX does not log it. Made while tracing; ``location``: the user's line."""
    raising_here = _raise_at(location)
    count_staged()

    def raise_(exception: BaseException) -> None:
        exception = exception.with_traceback(None)  # raised afresh at the user's line, as a check is
        exec(raising_here, {"exception": _remembered(exception, location, raising_here)})

    return raise_


def state_of(exception: BaseException) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """What travels to the host to make ``exception`` again there (:func:`rebuilt`): its args and
    attributes, which may hold traced values and deferred text; an exception among its args travels as
    :class:`_ExceptionParts`, so that its own deferred text is formatted there too."""
    args = tuple(_ExceptionParts(argument) if isinstance(argument, BaseException) else argument
                 for argument in exception.args)
    return args, dict(vars(exception))


def rebuilt(template: BaseException, state: tuple[tuple[Any, ...], dict[str, Any]]) -> BaseException:
    """On the host: ``template`` made again from its :func:`state_of`, its values filled in."""
    args, attributes = state
    args = tuple(argument.rebuilt() if isinstance(argument, _ExceptionParts) else argument for argument in args)
    return _rebuilt(template, args, attributes)


@jax.tree_util.register_pytree_node_class
class _ExceptionParts:
    """An exception among another's args on its way to the host (``RuntimeError(ValueError(f"{x}"))``):
    a pytree of its :func:`state_of`, so that its traced values are filled in and its text formatted."""

    def __init__(self, template: BaseException, state: tuple[tuple[Any, ...], dict[str, Any]] | None = None) -> None:
        self.template = template
        self.state = state_of(template) if state is None else state

    def tree_flatten(self) -> tuple[tuple[Any, ...], BaseException]:
        return (self.state,), self.template

    @classmethod
    def tree_unflatten(cls, template: BaseException, children: tuple[Any, ...]) -> _ExceptionParts:
        return cls(template, children[0])

    def rebuilt(self) -> BaseException:
        return rebuilt(self.template, self.state)


def raised_as_eager_would(error: Exception) -> bool:
    """Whether ``error``, raised while tracing code that eager Python may not run (an operand it skips),
    is one eager raises too where it runs that code: an error of Python's or a library's. Not one of
    the converter's (its refusals, and the signals by which a staged statement traces again, all
    defined in this package), nor one only tracing raises: JAX's tracer errors (a
    ``ConcretizationTypeError`` where eager has a concrete value), an error whose message names a
    tracer (JAX's "Shapes must be 1D sequences of concrete values ... got (JitTracer(...),)"), and a
    ``RecursionError`` (recursion on a traced condition never ends while tracing; the outermost
    call makes it a located error)."""
    if type(error).__module__.startswith(_PACKAGE) or isinstance(error, _TRACING_ONLY):
        return False
    return "Tracer" not in str(error)


def checks_staged() -> int:
    """How many checks have been staged so far (see ``autograph_lite.checked_jit``)."""
    return _staged_count[0]


def count_staged() -> None:
    """Count a check staged (or one reached through a jitted function whose trace JAX reuses from its
    cache). Without a lock: of two racing increments one may be lost, but the count still changes."""
    _staged_count[0] += 1


# --- handlers that would catch a check ------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Handlers:
    """The ``except`` clauses of one ``try`` statement running now, and how many staged statements
    enclosed it when it was entered."""

    types: Callable[[], Any]
    location: Location | None
    staged_depth: int


@contextlib.contextmanager
def handling(exception_types: Callable[[], Any]) -> Iterator[None]:
    """Around the body of a ``try`` with handlers: ``exception_types()`` is what its ``except`` clauses
    catch (evaluated only when a check needs it, as Python evaluates them only for an exception)."""
    session = current()
    code = exception_types.__code__  # the lambda is on the `try` line
    session.handlers.append(Handlers(exception_types, Location(code.co_filename, code.co_firstlineno),
                                     len(session.staged)))
    try:
        yield
    finally:
        session.handlers.pop()


def caught_by(exception: BaseException) -> Handlers | None:
    """The innermost ``try`` running now whose handlers catch ``exception``, if any."""
    for handlers in reversed(current().handlers):
        caught = handlers.types()
        if isinstance(exception, caught if isinstance(caught, tuple) else (caught,)):
            return handlers
    return None


def _refuse_if_caught(exception: BaseException, location: Location | None) -> None:
    """A check is raised when the program runs, after every handler has run (or not) while tracing
    (``location``: the check's line, where known)."""
    handlers = caught_by(exception)
    if handlers is None:
        return
    raise ConversionError(
        f"this {type(exception).__name__} is raised under a traced condition, so it is raised when the "
        f"compiled program runs; but the `try` at {handlers.location} would catch it (an `except`, or a "
        "`finally` that may exit), which happens (or not) while tracing, not when the program runs",
        location or caller_location(),
        "Compute the handler's result without raising: test the condition and choose the value with "
        "an `if` (or jnp.where); or make the condition static (static_argnums / static_argnames).",
    )


def _raise_at(location: Location | None) -> types.CodeType:
    """``raise exception``, compiled at the user's file and line: the last frame of the traceback that
    JAX's error prints is then the user's ``raise`` / ``assert``, not this module."""
    if location is None:
        return compile("raise exception", "<autograph_lite run-time check>", "exec")
    return compile("\n" * (location.lineno - 1) + "raise exception", location.filename, "exec")


# --- the exception on the host --------------------------------------------------------------------


def _rebuilt(template: BaseException, args: tuple[Any, ...], attributes: dict[str, Any]) -> BaseException:
    """A fresh exception like ``template`` with these args and attributes, without running its ``__init__``
    again (it ran once, at trace time, and what it stored is in the attributes)."""
    cls = type(template)
    exception = cls.__new__(cls, *args)
    exception.args = args
    vars(exception).update(attributes)
    if template.__cause__ is not None or template.__suppress_context__:
        exception.__cause__ = template.__cause__
    return exception


def _remembered(exception: BaseException, location: Location | None, raising: types.CodeType) -> BaseException:
    """Name the user's line in a note (the message stays eager's), and keep the exception for the log
    filter and for :func:`failed_check`, with the text that JAX's error ends with when it reports it."""
    if location is not None:
        exception.add_note(f"(raised when the compiled program ran, at {location})")
    reported = f"line {location.lineno if location else 1}, in {raising.co_name}\n{type(exception).__name__}: {exception}"
    with _raised_lock:
        _raised.append((exception, reported))
    return exception


def failed_check(error: Exception) -> BaseException | None:
    """The exception that a failing check raised on the host, which JAX's runtime ``error`` reports (the
    latest such, taken out of the record), with a traceback of its last frame alone, the user's
    ``raise`` / ``assert`` line; ``None`` when ``error`` reports no check of ours."""
    text = str(error)
    with _raised_lock:
        for kept in reversed(_raised):
            exception, reported = kept
            if text.endswith(reported):
                _raised.remove(kept)
                return exception.with_traceback(_last_entry(exception.__traceback__))
    return None


def _last_entry(traceback: types.TracebackType | None) -> types.TracebackType | None:
    """The innermost entry of ``traceback`` alone: the frames between it and the caller are JAX's
    callback machinery, which the caller of the compiled function does not need to see."""
    if traceback is None:
        return None
    while traceback.tb_next is not None:
        traceback = traceback.tb_next
    return types.TracebackType(None, traceback.tb_frame, traceback.tb_lasti, traceback.tb_lineno)


class _OwnFailures(logging.Filter):
    """JAX logs every exception raised in a debug callback; a failing check is an exception for the
    caller, which Python does not log."""

    def filter(self, record: logging.LogRecord) -> bool:
        failure = record.exc_info[1] if record.exc_info else None
        with _raised_lock:
            return not any(failure is kept for kept, _reported in _raised)


logging.getLogger("jax._src.debugging").addFilter(_OwnFailures())

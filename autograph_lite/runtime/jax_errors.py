"""JAX's errors about traced values, raised while tracing converted code, in the user's terms.

JAX refuses some operations on a traced value: its Python truth value, int or NumPy array
(``ConcretizationTypeError`` and its kin), a boolean mask as an index, a slice or a shape of traced
size, and ``lax`` control flow whose branches or carry disagree. Its message names the operation,
not the user's line, nor why the value is traced. Codegen wraps the body of every converted function
in a handler that asks this module (:func:`translates`); only the outermost converted call translates (a nested one lets
the error pass, so that the runtime code between them, which may catch JAX's error, sees it as it
is), and our own :class:`ConversionError` is never wrapped again. The translation is a
:class:`TracedValueError` that is also an instance of the exception JAX raised, located at the
innermost line of converted code in the traceback, naming the staged loop or branch being traced,
with a fix for its kind (:mod:`.jax_error_kinds`); JAX's error is its ``__cause__``. Both tracebacks keep the user's frames
only, as JAX's own filtering does (``JAX_TRACEBACK_FILTERING=off`` keeps them all).
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import types
from collections.abc import Iterable
from typing import Any

import jax

from ..errors import Location, TracedValueError
from . import conditionals, staged_loops
from .carry_errors import Site
from .code_sets import CodeSet
from .jax_error_kinds import CONCRETE, ROUNDING, STAGING_CODES, kind_in_context, math_kind
from .locations import CONVERTED_CODES, JAX_DIRECTORIES, PACKAGE_DIRECTORY

_TRACED_FOR = re.compile(r"while tracing the function \S+ at \S+ for (\w+)\.")
_ARGUMENT = re.compile(r"because it depends on the values? of the arguments? ([^\n]+?)\.(?:\n|$)")
STAGING_CODES.update(function.__code__ for function in (
    conditionals.staged_cond, staged_loops.staged_while, staged_loops.staged_range,
    staged_loops._staged_sequence, staged_loops._staged_counted_while))


# What the handler around a converted function's body reads, through this module (codegen binds it as
# a free variable): the exceptions it catches, whether it translates one, and the translation.
caught = Exception


def translates(error: BaseException) -> bool:
    """Whether the converted function that caught ``error`` should raise :func:`located` instead: a JAX
    error about a traced value, caught by the outermost converted call."""
    return kind_in_context(error) is not None and _outermost(sys._getframe(2))


_entry_codes = CodeSet()


def register(entry: types.CodeType, codes: Iterable[types.CodeType]) -> None:
    """Note a converted function's code (``entry``, whose body catches) and all its code objects."""
    _entry_codes.add(entry)
    CONVERTED_CODES.update(codes)


def _outermost(frame: types.FrameType | None) -> bool:
    """Whether no converted function's body runs above ``frame`` (the caller of the catching one)."""
    while frame is not None:
        if frame.f_code in _entry_codes:
            return False
        frame = frame.f_back
    return True


def located(error: BaseException) -> TracedValueError:
    """``error``, which :func:`translates` accepts, as a :class:`TracedValueError` that is also of
    ``error``'s type, located at the innermost converted line of its traceback."""
    kind = kind_in_context(error)
    frames = list(_frames(error.__traceback__))
    user = [entry for entry in frames if entry.frame.f_code in CONVERTED_CODES]
    # The catching function's own frame is converted code: there is always one.
    assert kind is not None and user, "only errors that translates() accepts are located"
    location = Location(user[-1].frame.f_code.co_filename, user[-1].line)
    if kind in (CONCRETE, ROUNDING):
        kind = math_kind(location) or kind
    message = f"{kind.what} ({kind.raised_by} {type(error).__name__}){_why(error, frames)}"
    translated = _located_class(type(error))(message, location, kind.hint)
    caught_at = error.__traceback__
    error.with_traceback(_user_traceback(caught_at))
    # Raising it adds the catching frame (at its `def` line, where the handler is): the rest follows.
    return translated.with_traceback(_user_traceback(caught_at.tb_next if caught_at else None))


@dataclasses.dataclass(frozen=True)
class _Frame:
    """One entry of a traceback: the frame, and where it was (its last instruction, and that line)."""

    frame: types.FrameType
    lasti: int
    line: int


def _frames(traceback: types.TracebackType | None) -> Iterable[_Frame]:
    while traceback is not None:
        yield _Frame(traceback.tb_frame, traceback.tb_lasti, traceback.tb_lineno)
        traceback = traceback.tb_next


def _why(error: BaseException, frames: list[_Frame]) -> str:
    """Why the value is traced, when known: JAX's word on the argument it depends on, and the staged
    loop or branch whose trace raised."""
    reasons = []
    traced_for = _TRACED_FOR.search(str(error))
    argument = _ARGUMENT.search(str(error))
    if argument and traced_for and traced_for.group(1) == "jit":  # else: an argument of a lax body function
        reasons.append(f"it depends on the argument {argument.group(1)}")
    staged = _innermost_staged(frames)
    if staged is not None and staged[1]:
        reasons.append(f"it was raised in a branch of the {staged[0].construct} at {staged[0].location}, "
                       "traced as a lax.cond because its condition is traced")
    elif staged is not None:
        reasons.append(f"it was raised in the body of the {staged[0].construct} at {staged[0].location}, "
                       "staged as a lax loop, where its carried variables and its index are traced")
    return "; " + "; ".join(reasons) if reasons else ""


def _innermost_staged(frames: list[_Frame]) -> tuple[Site, bool] | None:
    """The staged statement whose trace raised (the innermost staged lowering in the traceback), and
    whether it is a branch (``lax.cond``) rather than a loop."""
    for frame in (entry.frame for entry in reversed(frames)):
        if frame.f_code in STAGING_CODES:
            site = frame.f_locals.get("site")
            found = site if isinstance(site, Site) else getattr(frame.f_locals.get("loop"), "site", None)
            if isinstance(found, Site):
                return found, frame.f_code is conditionals.staged_cond.__code__
    return None


def _filtering() -> bool:
    return str(getattr(jax.config, "jax_traceback_filtering", None)) != "off"


def _user_traceback(traceback: types.TracebackType | None) -> types.TracebackType | None:
    """``traceback`` without JAX's and autograph_lite's frames, unless JAX's filtering is off."""
    entries = list(_frames(traceback))
    if _filtering():
        entries = [entry for entry in entries if not _hidden(entry.frame.f_code.co_filename)]
    rebuilt = None
    for entry in reversed(entries):
        rebuilt = types.TracebackType(rebuilt, entry.frame, entry.lasti, entry.line)
    return rebuilt


def _hidden(filename: str) -> bool:
    path = os.path.abspath(filename)
    return path.startswith((PACKAGE_DIRECTORY, *JAX_DIRECTORIES))


class _MessageOnly(Exception):
    """Between :class:`ConversionError` and JAX's class: JAX's ``__init__`` takes a tracer, not a text."""

    def __init__(self, text: str) -> None:
        Exception.__init__(self, text)


def _located_class(jax_class: type[BaseException]) -> type[TracedValueError]:
    """``TracedValueError`` and ``jax_class`` at once, so that ``except jax_class`` still catches it."""
    made = _located_classes.get(jax_class)
    if made is not None:
        return made
    name = "Traced" + jax_class.__name__
    namespace: dict[str, Any] = {"__module__": __name__, "__qualname__": name}
    made = types.new_class(name, (TracedValueError, _MessageOnly, jax_class), exec_body=lambda ns: ns.update(namespace))
    globals()[name] = made  # found by its qualified name, as pickle and tracebacks look for it
    _located_classes[jax_class] = made
    return made


_located_classes: dict[type[BaseException], type[TracedValueError]] = {}


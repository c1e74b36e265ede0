"""Errors raised by autograph_lite.

Every error names what was found, where (the user's ``file.py:line``), what differs and how to fix it.
Each class also subclasses the built-in exception a Python programmer would expect for the same
mistake, so existing ``except TypeError`` handlers keep working.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Location:
    """A place in the user's source: the file and line of the statement that is at fault."""

    filename: str
    lineno: int

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno}"


class ConversionError(Exception):
    """The function cannot be converted, or a converted statement cannot be staged as written."""

    def __init__(self, message: str, location: Location | None = None, hint: str | None = None):
        self.location = location
        self.hint = hint
        self.bare_message = message
        text = message if location is None else f"{location}: {message}"
        if hint:
            text = f"{text}\n{hint}"
        super().__init__(text)


class UnsupportedSyntaxError(ConversionError, SyntaxError):
    """A construct the rewriter does not handle (``yield``, ``async def``, ...), found before rewriting."""

    def __init__(self, message: str, location: Location | None = None, hint: str | None = None):
        ConversionError.__init__(self, message, location, hint)
        # SyntaxError keeps its own attributes; fill them so that tools that print them stay useful.
        if location is not None:
            self.filename = location.filename
            self.lineno = location.lineno
        self.msg = str(self)

    def __str__(self) -> str:
        return self.msg


class SourceUnavailableError(ConversionError, OSError):
    """The function's source cannot be read (defined in a REPL without history, built with ``exec``)."""


class StagingTypeError(ConversionError, TypeError):
    """A staged branch or loop would change a variable's type, shape or structure, or leave it undefined."""


def unbound_message(name: str) -> str:
    """Python's message for a read of the local variable ``name`` that holds no value."""
    return f"cannot access local variable {name!r} where it is not associated with a value"


class UnassignedReadError(UnboundLocalError):
    """A read of a local variable that holds no value, as Python raises it, with the variable's name."""

    def __init__(self, name: str):
        super().__init__(unbound_message(name))
        self.name = name


class TracedPredicateError(ConversionError, TypeError):
    """A traced value was used where one Python truth value is needed and cannot be staged."""


class TracedValueError(ConversionError):
    """JAX refused a traced value while tracing converted code (a concretization, a boolean mask, a
    slice or shape of traced size, lax control flow whose branches or carry disagree).

    JAX's message names the failing operation but not the user's line, nor why the value is traced.
    The error actually raised is a subclass of this class *and* of the exception JAX raised
    (``jax.errors.ConcretizationTypeError``, ``IndexError``, ...; built by
    ``runtime.jax_errors``), so handlers written for JAX's error keep catching it; JAX's error is
    its ``__cause__``.
    """

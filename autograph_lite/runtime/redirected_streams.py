"""``sys.stdout`` / ``sys.stderr`` swapped by a library context manager inside converted code.

A staged ``print`` writes when the compiled program runs, to the ``sys.stdout`` of that moment
(:func:`.printing.print_`): a redirection around the call of the compiled function captures it. A
``with contextlib.redirect_stdout(buf):`` inside the function is a library manager, entered once
while tracing: when the program runs it has been exited long ago, so the prints in its body escape
to the real stdout, and what the function reads back from ``buf`` (read while tracing) lacks them.
Eager Python prints nothing and reads the text. So each library manager entered while tracing is
watched: if its ``__enter__`` swaps a stream, a staged ``print`` to that stream in its body is a
located error. A ``print(..., file=buf)`` naming the object the manager swapped in writes to that
object, as eagerly.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from ..errors import ConversionError, Location
from .locations import caller_location
from .session import current

_STREAMS = ("stdout", "stderr")


class Watched:
    """A library manager, entered and exited as written, that notes in the trace session a stream
    its ``__enter__`` swapped, for the time its body is traced."""

    __slots__ = ("_location", "_manager", "_swapped")

    def __init__(self, manager: Any) -> None:
        self._manager = manager
        self._swapped: list[str] = []
        self._location: Location | None = None

    def __enter__(self) -> Any:
        before = [getattr(sys, name) for name in _STREAMS]
        entered = self._manager.__enter__()
        self._swapped = [name for name, stream in zip(_STREAMS, before) if getattr(sys, name) is not stream]
        self._location = caller_location()  # the `with` line
        current().redirected.extend((name, self._location) for name in self._swapped)
        return entered

    def __exit__(self, *raised: Any) -> Any:
        redirected = current().redirected
        del redirected[len(redirected) - len(self._swapped):]
        return self._manager.__exit__(*raised)


def print_stream(file: Any) -> Callable[[], Any]:
    """The file a staged ``print(..., file=file)`` writes to, looked up when the program runs:
    ``sys.stdout`` (or ``sys.stderr``) of that moment, as eager ``print`` sees it, unless a manager
    in the function swapped it; then an explicit ``file`` is the object it names, and a ``print``
    with no ``file`` is refused."""
    for name in _STREAMS:
        stream = getattr(sys, name)
        if not (file is stream or (file is None and name == "stdout")):
            continue
        swapped_at = [location for swapped, location in current().redirected if swapped == name]
        if not swapped_at:
            return lambda: getattr(sys, name)
        if file is None:
            raise _escapes_redirection(name, swapped_at[-1])
        return lambda: file
    return lambda: file


def _escapes_redirection(name: str, swapped_at: Location | None) -> ConversionError:
    return ConversionError(
        f"this print goes to sys.{name}, which the `with` at {swapped_at} swapped while tracing; a "
        f"staged print writes when the compiled program runs, to the sys.{name} of that moment, after "
        "the `with` has ended, so its text would escape the redirection (and what the function reads "
        "back from the buffer is read while tracing, without it)",
        caller_location(),
        f"Redirect around the call of the compiled function instead (`with contextlib.redirect_{name}(buf): "
        "f(x)`, then jax.effects_barrier() before reading buf), and return what the function computes "
        "from its own values rather than from the captured text.",
    )

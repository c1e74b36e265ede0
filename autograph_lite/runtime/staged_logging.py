"""A call of the ``logging`` module or of a logger's method from converted code runs when the program runs.

Eagerly ``log.info("loss %s", loss)`` logs on every call, with the value. Inside a trace it ran once,
while tracing, with the tracer's name for the value (``JitTracer(float32[])``), and never on a call
that reused the compiled program; with text formatted from a traced value (an f-string) the logger's
own formatting failed, and ``logging`` reported that on stderr and went on. Inside a staged branch or
loop such a call was refused. As ``print`` is (:mod:`.printing`), the call is now an ordered callback:
the logger, its level and its handlers are consulted when the program runs, with the values then known,
in program order, on every call, and only where eager Python makes the call.
"""

from __future__ import annotations

import logging
import types
from typing import Any

from .paths import output_staged, print_condition
from .printing import at_run_time
from .values import inside_a_trace

_LOGGER_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "critical", "exception", "log"})
# The module's functions live as long as the module: their ids stand for them (a callable may be unhashable).
_MODULE_FUNCTION_IDS = frozenset(id(getattr(logging, name)) for name in _LOGGER_METHODS if hasattr(logging, name))


def is_logging_call(function: Any) -> bool:
    """Whether ``function`` is a logger's logging method or the ``logging`` module's own function."""
    if type(function) is types.MethodType:
        return isinstance(function.__self__, logging.Logger) and function.__name__ in _LOGGER_METHODS
    return id(function) in _MODULE_FUNCTION_IDS


def staged(function: Any) -> bool:
    """Whether a call of ``function`` is made when the program runs (inside a trace, a logging call):
    asked of every call from converted code, so the cheap test comes first."""
    return is_logging_call(function) and inside_a_trace()


def log_at_run_time(function: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """``function(*args, **kwargs)`` when the program runs, its traced values (and text made from them)
    filled in; logging returns ``None``."""
    if output_staged():
        at_run_time((args, kwargs), lambda realized: function(*realized[0], **realized[1]), when=print_condition())

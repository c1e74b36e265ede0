"""The ``autograph_lite`` logger: what ``explain`` reports, and what conversion does, as log records.

``explain`` answers for one function traced on purpose; the log answers for the program as it runs
(which statement of a model became a ``lax.cond``, which function was converted, which came from the
cache). It is silent by default, as a library's logger should be: a ``NullHandler`` keeps Python's
last-resort handler from printing, and the records are ``INFO`` / ``DEBUG``, below the root logger's
default ``WARNING``. :func:`set_verbosity` or the ``AUTOGRAPH_LITE_VERBOSITY`` environment variable
turns it on, as AutoGraph's ``set_verbosity`` / ``AUTOGRAPH_VERBOSITY`` do.

Off, it costs one ``LOGGER.isEnabledFor`` test per decision or conversion (a cached dictionary
lookup), at trace or conversion time only: jitted code runs no Python.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings

LOGGER = logging.getLogger("autograph_lite")
LOGGER.addHandler(logging.NullHandler())

ENVIRONMENT_VARIABLE = "AUTOGRAPH_LITE_VERBOSITY"
_HANDLER_NAME = "autograph_lite.stderr"


class _CurrentStandardError(logging.StreamHandler):
    """Writes to ``sys.stderr`` as it is when a record is emitted (tools and tests replace it)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


def set_verbosity(level: int) -> None:
    """Log what autograph_lite decides, to the ``logging`` logger named ``autograph_lite``.

    ``0``: nothing below warnings (the logger's level is ``WARNING``). ``1`` (``INFO``): every decision
    that ``explain`` reports (``file:line: `if` -> lax.cond (the condition is traced)``, with what it
    carries), each time a statement is traced, and each function converted or left as written (marked
    ``do_not_convert``). ``2`` (``DEBUG``): also each conversion served from the cache. Setting the
    environment variable ``AUTOGRAPH_LITE_VERBOSITY`` to ``0``, ``1`` or ``2`` does the same at import.

    If no logging is configured (the root logger has no handler), a level above 0 also prints the
    records on stderr, as ``autograph_lite: <message>``; otherwise they go to the handlers you
    configured (``logging.basicConfig``, pytest's capture). Without a call, the logger follows the
    ``logging`` configuration like any other library's.
    """
    if isinstance(level, bool) or not isinstance(level, int) or level < 0:
        raise ValueError(f"verbosity must be 0, 1 or 2, not {level!r}")
    LOGGER.setLevel(logging.WARNING if level == 0 else logging.INFO if level == 1 else logging.DEBUG)
    own = [handler for handler in LOGGER.handlers if handler.name == _HANDLER_NAME]
    if level == 0:
        for handler in own:
            LOGGER.removeHandler(handler)
    elif not own and not logging.getLogger().handlers:
        handler = _CurrentStandardError()
        handler.name = _HANDLER_NAME
        handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        LOGGER.addHandler(handler)


def apply_environment() -> None:
    """Set the verbosity from ``AUTOGRAPH_LITE_VERBOSITY`` when it is set (a bad value is a warning,
    not an import error: a typo in the environment should not stop the program)."""
    value = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
    if not value:
        return
    try:
        set_verbosity(int(value))
    except ValueError:
        warnings.warn(f"{ENVIRONMENT_VARIABLE}={value!r} is not 0, 1 or 2: ignored", stacklevel=2)


apply_environment()

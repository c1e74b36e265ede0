"""A ``with`` statement's ``__enter__`` and ``__exit__`` of the user's run converted.

Python calls a context manager's ``__enter__`` and ``__exit__`` itself, so converted code never called
them through the runtime: they ran as written, while tracing. A ``print`` there came out once per
trace, before every staged ``print`` of the function (which print when the program runs), and not at
all on a call that reused the compiled program; an ``if`` on a traced value there failed. The rewrite
hands each ``with`` item's manager to :func:`managed` (``with _ag.context(m):``), which gives back a
stand-in whose ``__enter__`` / ``__exit__`` call the manager's through the runtime, converted and
with their effects checked, as any call from converted code. A manager whose class takes both from
a library (``jax.named_scope``, an open file, ``contextlib.contextmanager``'s wrapper, whose
generator cannot be converted) is handed back as it is, and so is one that lacks either (Python's
own ``TypeError`` names it).
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Callable
from typing import Any

from . import cleanups, redirected_streams
from .attribute_loads import class_attribute, users_function


def managed(manager: Any, call: Callable[..., Any]) -> Any:
    """``manager``, or a stand-in calling its ``__enter__`` / ``__exit__`` converted where they are the user's."""
    mro = type(manager).__mro__
    enter, exit_ = class_attribute(mro, "__enter__"), class_attribute(mro, "__exit__")
    if not (isinstance(enter, types.FunctionType) and isinstance(exit_, types.FunctionType)):
        return manager  # missing (Python raises), or a descriptor of its own (read as written)
    if users_function(enter) is None and users_function(exit_) is None:
        return redirected_streams.Watched(manager)  # a library's: as written, watching sys.stdout / stderr
    return _Converted(manager, enter, exit_, call)


class _Converted:
    """What the ``with`` statement enters: the manager's own methods, called through the runtime; the
    body and ``__exit__`` are a cleanup region (:mod:`.cleanups`), so that a check failing in the body
    shows what ``__exit__`` prints."""

    __slots__ = ("_call", "_enter", "_exit", "_manager", "_region")

    def __init__(self, manager: Any, enter: types.FunctionType, exit_: types.FunctionType,
                 call: Callable[..., Any]) -> None:
        self._manager, self._enter, self._exit, self._call = manager, enter, exit_, call
        self._region: contextlib.AbstractContextManager[cleanups.Cleanup] | None = None

    def __enter__(self) -> Any:
        entered = self._call(self._enter, self._manager)
        self._region = cleanups.cleanup_region()
        self._region.__enter__()
        return entered

    def __exit__(self, *raised: Any) -> Any:
        region, self._region = self._region, None
        assert region is not None
        try:
            with cleanups.cleaning_up() as cleanup:
                returned = self._call(self._exit, self._manager, *raised)
            cleanups.check_exit(self._exit, returned, cleanup)
            return returned
        finally:
            region.__exit__(None, None, None)

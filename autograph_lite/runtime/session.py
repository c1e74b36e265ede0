"""The state of the traces in progress: one :class:`TraceSession` per thread of execution.

The runtime operators are plain functions called from converted code, but some decisions need to
know what encloses them: an append inside a staged loop is collected, an effect inside a staged
branch is refused, a nested loop reuses its enclosing loop's trial decisions, ``explain`` records.
All of that state lives in one :class:`TraceSession`, and :func:`current` is the one place that
finds it; each module fetches the session once where it is entered and passes it to its helpers.

Why a context variable. JAX traces a function in the thread that calls it, so the session must
follow the caller: a context variable does, like a thread-local, and also keeps threads apart (each
thread starts with a context of its own). A copied context (``asyncio.to_thread``,
``contextvars.copy_context().run`` in a pool) would carry the creating thread's session into
another thread, so a session belongs to the thread that made it and any other thread gets its own.
Tasks of one event loop share their thread's session, which is safe: a trace never awaits, so no
task runs in the middle of another's trace, and between statements the session is empty.

When a session begins and ends. It is made lazily, on the first lookup in a context, so that the
operators stay callable directly (outside ``convert``) and nothing has to be set up around a call.
It then lives as long as that context. Every piece of state in it is pushed and popped by a context
manager (or a ``try``/``finally``) around the statement or call it describes, so the session is
empty again after every converted call, whether it returned or raised, and nothing leaks from one
trace into the next.
"""

from __future__ import annotations

import contextvars
import dataclasses
import threading
import types
import weakref
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..errors import Location
    from .appends import Staged
    from .calls import Calls
    from .cleanups import Cleanup
    from .report import Recorder
    from .run_time_checks import Handlers


@dataclasses.dataclass(eq=False)
class TraceSession:
    """What the statements and calls running now in one thread need to know about each other."""

    owner_thread: int = dataclasses.field(default_factory=threading.get_ident)
    """The thread that made the session; a copied context seen from another thread gets a new one."""

    staged: list[Staged] = dataclasses.field(default_factory=list)
    """The staged traces in progress, innermost last (:mod:`.appends`): staged lowerings and trials
    push one around the user code they trace; appends and the effect checks read it."""

    iterated_arrays: list[list[Any]] = dataclasses.field(default_factory=list)
    """Per ``for`` statement running now, the JAX arrays it iterates over (:mod:`.items`): an
    in-place update of one of them is refused."""

    recorder: Recorder | None = None
    """Where ``explain`` collects decisions (:mod:`.report`); ``None`` while nothing records."""

    python_numbers: weakref.WeakValueDictionary[int, Any] = dataclasses.field(default_factory=weakref.WeakValueDictionary)
    """The traced values that ``int()`` / ``float()`` made, by id (:mod:`.python_numbers`): printed as
    the Python numbers they stand for. Held weakly: a trace's values leave with it."""

    counter_bounds: dict[int, tuple[weakref.ref[Any], int, int]] = dataclasses.field(default_factory=dict)
    """The staged loop counters of a concrete ``range`` (or ``enumerate``), by id, with the least and
    the greatest value they take (:mod:`.array_stores`): an item store indexed by one within the
    array's bounds needs no run-time check. Held weakly: an entry leaves with its value."""

    trial_decisions: dict[Hashable, tuple[str, bool | None]] | None = None
    """The static-loop trial decisions made during the outermost ``for`` statement (the reason, and
    whether a loop with an exit masks it), by key (:mod:`.static_loop_policy`); ``None`` outside any
    ``for`` statement, when nothing is remembered."""

    trial_keys_alive: list[Any] = dataclasses.field(default_factory=list)
    """The objects whose ids appear in the keys of ``trial_decisions``, kept alive so that no id is
    reused by another object while the decisions last."""

    path: list[Callable[[], Any]] = dataclasses.field(default_factory=list)
    """Per staged branch or loop body being traced, outermost first, the condition under which its code
    runs (:mod:`.paths`): a run-time check there ANDs them, so that under ``vmap`` it fires
    only for the lanes that eager Python would take there."""

    skippable: int = 0
    """How many lazy operands of ``and`` / ``or`` evaluated after a traced one enclose the code being
    traced (:mod:`.paths`): a ``print`` there waits for the path's condition."""

    conditions_traced_again: int = 0
    """How many conditions of the path are being traced again now (:func:`.paths.path_predicate`): a
    ``print`` or a warning in one was staged where its statement evaluated it, and stages nothing
    this time."""

    callback_watchers: list[list[bool]] = dataclasses.field(default_factory=list)
    """Per trace that watches for a staged host callback (:func:`.paths.noticing_callbacks`), outermost
    first, a list that a staged ``print`` or run-time check appends to (a ``while`` test that stages
    one moves into the loop's body, for ``vmap``)."""

    handlers: list[Handlers] = dataclasses.field(default_factory=list)
    """The ``try`` statements with ``except`` clauses running now, innermost last (:mod:`.run_time_checks`):
    a check that one of them would catch cannot be staged."""

    cleanups: list[Cleanup] = dataclasses.field(default_factory=list)
    """The ``try`` bodies with a ``finally`` and the ``with`` bodies of converted managers being traced,
    with their cleanups, innermost last (:mod:`.cleanups`): a check staged inside one shows what they print."""

    redirected: list[tuple[str, Location | None]] = dataclasses.field(default_factory=list)
    """Per stream (``"stdout"`` / ``"stderr"``) that a library manager's ``__enter__`` swapped while
    its ``with`` body is traced, the ``with``'s line (:mod:`.redirected_streams`)."""

    call_depths: dict[tuple[Calls, types.CodeType], int] = dataclasses.field(default_factory=dict)
    """How many calls of each converted function are running now, per dispatcher (:mod:`.calls`):
    a depth past the limit means recursion on a traced condition. A finished call leaves no entry."""


_session: contextvars.ContextVar[TraceSession] = contextvars.ContextVar("autograph_lite_trace_session")


def current() -> TraceSession:
    """The session of the running thread and context, made on first use."""
    session = _session.get(None)
    if session is None or session.owner_thread != threading.get_ident():
        session = TraceSession()
        _session.set(session)
    return session

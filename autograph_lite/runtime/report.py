"""What each control-flow statement became during one trace, for ``autograph_lite.explain``.

The runtime operators report their decisions here. The recorder in use is the trace session's
(:attr:`.session.TraceSession.recorder`); with the verbosity on, each decision is also logged. Outside
``explain``, with logging off, a report costs one session lookup and one ``LOGGER.isEnabledFor`` test at
trace time (never at run time: jitted code has no Python).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Iterator, Sequence

from ..errors import Location
from ..generated_names import PREFIX, RETURN_VALUE, RETURNED
from ..logs import LOGGER
from .carry import Carried
from .carry_errors import Site, describe
from .session import TraceSession, current


@dataclasses.dataclass(frozen=True)
class Decision:
    """One statement execution at trace time: what it became, why, and what it carries."""

    construct: str
    location: Location
    outcome: str
    reason: str = ""
    carried: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        head = f"{self.location}: {self.construct} -> {self.outcome}"
        lines = [head + (f" ({self.reason})" if self.reason else "")]
        if self.carried:
            lines.append("    carries " + ", ".join(f"{name}: {kind}" for name, kind in self.carried))
        lines.extend(f"    {note}" for note in self.notes)
        return lines


class Recorder:
    """Collects decisions while active (``with Recorder() as recorder:``), in this thread only."""

    def __init__(self) -> None:
        self.decisions: list[Decision] = []
        self.session: TraceSession | None = None

    def __enter__(self) -> Recorder:
        self.session = current()
        self.session.recorder = self
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.session is not None:
            self.session.recorder = None


_TRIAL = Recorder()
"""The recorder of a paused trace while logging is on: what it is given is neither kept nor logged."""


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """``with paused():`` records and logs nothing: for traces that are not the program (a loop's trial trace)."""
    session = current()
    recorder, session.recorder = session.recorder, _TRIAL if LOGGER.isEnabledFor(logging.INFO) else None
    try:
        yield
    finally:
        session.recorder = recorder


class _Aside(Recorder):
    """The recorder of a trace that may be thrown away: its decisions wait for :func:`replay`."""


@contextlib.contextmanager
def collecting() -> Iterator[list[Decision]]:
    """``with collecting() as decisions:`` keeps the decisions made inside aside, neither recorded nor
    logged, so that :func:`replay` reports them if the trace is kept (a ``while`` loop's first
    iteration traced aside, then replayed) and nothing is reported if it is thrown away."""
    session = current()
    outer = session.recorder
    if _records_nothing(outer):
        yield []
        return
    aside = _Aside()
    session.recorder = aside
    try:
        yield aside.decisions
    finally:
        session.recorder = outer


def replay(decisions: Sequence[Decision]) -> None:
    """Report decisions that :func:`collecting` kept aside, as :func:`record` would have."""
    for decision in decisions:
        _deliver(decision)


def record(site: Site, outcome: str, reason: str = "", carried: Carried | None = None, notes: Sequence[str] = ()) -> None:
    """Note what the statement at ``site`` became (``outcome``), why, what it carries, and any adjustment:
    for ``explain``'s recorder, and as a log record when the verbosity asks for one (:mod:`..logs`)."""
    recorder = current().recorder
    if _records_nothing(recorder):
        return
    pairs = zip(carried.names, carried.values) if carried is not None else ()
    listed = tuple((readable(name), describe(value, article=False)) for name, value in pairs if not name.startswith("<"))
    _deliver(Decision(site.construct, site.location, outcome, reason, listed, tuple(notes)))


def _records_nothing(recorder: Recorder | None) -> bool:
    """A paused trace's recorder, or none while the log is off: a decision would go nowhere."""
    return recorder is _TRIAL or (recorder is None and not LOGGER.isEnabledFor(logging.INFO))


def _deliver(decision: Decision) -> None:
    """To the recorder in use (kept aside in a trace that may be thrown away), and to the log."""
    recorder = current().recorder
    if isinstance(recorder, _Aside):
        recorder.decisions.append(decision)
        return
    if _records_nothing(recorder):
        return
    if recorder is not None:
        recorder.decisions.append(decision)
    LOGGER.info("%s", "\n".join(decision.lines()))


def readable(name: str) -> str:
    """Generated names as a reader knows them: ``_ag_break_L12`` is the break flag of line 12's loop."""
    if name == RETURN_VALUE:
        return "<return value>"
    if name == RETURNED:
        return "<returned flag>"
    for kind in ("break", "continue"):
        if name.startswith(f"{PREFIX}{kind}_L"):
            return f"<{kind} flag>"
    return name


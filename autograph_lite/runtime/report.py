"""What each control-flow statement became during one trace, for ``autograph_lite.explain``.

The runtime operators report their decisions here. Outside ``explain`` nothing is recording, and a
report costs one attribute lookup at trace time (never at run time: jitted code has no Python).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from typing import Any

import jax

from ..errors import Location
from ..generated_names import PREFIX, RETURN_VALUE, RETURNED
from .values import type_string

_state = threading.local()


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
    """Collects decisions while active (``with Recorder() as recorder:``)."""

    def __init__(self) -> None:
        self.decisions: list[Decision] = []

    def __enter__(self) -> Recorder:
        _state.recorder = self
        return self

    def __exit__(self, *exc_info) -> bool:
        _state.recorder = None
        return False


class paused:
    """``with paused():`` records nothing: for traces that are not the program (a loop's trial trace)."""

    def __enter__(self) -> None:
        self.recorder = getattr(_state, "recorder", None)
        _state.recorder = None

    def __exit__(self, *exc_info) -> bool:
        _state.recorder = self.recorder
        return False


def record(
    construct: str,
    location: Location,
    outcome: str,
    reason: str = "",
    names: Sequence[str] = (),
    values: Sequence[Any] = (),
    notes: Sequence[str] = (),
) -> None:
    recorder = getattr(_state, "recorder", None)
    if recorder is None:
        return
    carried = tuple((readable(name), _describe(value)) for name, value in zip(names, values) if not name.startswith("<"))
    recorder.decisions.append(Decision(construct, location, outcome, reason, carried, tuple(notes)))


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


def _describe(value: Any) -> str:
    leaves = jax.tree_util.tree_leaves(value)
    if len(leaves) == 1 and leaves[0] is value:
        return type_string(value)
    return f"{type(value).__name__} of ({', '.join(type_string(leaf) for leaf in leaves)})"

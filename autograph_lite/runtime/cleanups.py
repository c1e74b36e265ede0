"""What a ``finally`` block or a context manager's ``__exit__`` prints when a run-time check fails inside.

Eager Python runs the ``finally`` (or ``__exit__``) on its way out of a ``try`` (or ``with``) body that
raised, and only then does the exception reach the caller: its ``print``s come out before it. A check
staged in the body fails when the compiled program runs, and its host callback raises there
(:mod:`.run_time_checks`): the program stops, so the ``print``s that the trace staged for the
``finally`` (after the body, or after the check on the raising path) never ran.

So the body and its cleanup are a :class:`Cleanup` region, kept in the trace session while they are
traced (``_ag.cleanup_region()`` around a ``try`` with a ``finally``, whose block runs in
``_ag.cleaning_up()``; a converted ``__exit__``, :mod:`.context_managers`). A check staged in the
body remembers the regions around it; each effect the cleanup stages afterwards is also noted there,
and the failing check runs the noted effects (innermost region first) before it raises. An effect can
be noted only if it needs nothing from the run: text made of values known while tracing, staged where
the region's code runs (not under a traced condition inside the cleanup). Any other effect of a
cleanup whose body staged a check is a located error, and so is an ``__exit__`` that reads the
exception it is given or may suppress it (what it prints or returns on the raising path is not what
the trace saw).
"""

from __future__ import annotations

import contextlib
import dataclasses
import dis
import types
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import ConversionError, Location
from .locations import caller_location
from .session import current


@dataclasses.dataclass(eq=False)
class Cleanup:
    """A ``try`` body or a ``with`` body, and the ``finally`` / ``__exit__`` that follows it."""

    staged_depth: int
    """How many staged traces enclose the region: an effect of the cleanup staged deeper waits for a
    traced condition, which the failing check cannot evaluate."""

    check: Location | None = None
    """Where the first check staged in the body is (``None``: none was)."""

    cleaning: bool = False
    replays: list[Callable[[], None]] = dataclasses.field(default_factory=list)

    def replay(self) -> None:
        for effect in self.replays:
            effect()


@contextlib.contextmanager
def cleanup_region() -> Iterator[Cleanup]:
    """Around a ``try`` statement with a ``finally`` (whose block runs in :func:`cleaning_up`), or a
    ``with`` body and its manager's ``__exit__``."""
    session = current()
    region = Cleanup(len(session.staged))
    session.cleanups.append(region)
    try:
        yield region
    finally:
        session.cleanups.remove(region)


@contextlib.contextmanager
def cleaning_up() -> Iterator[Cleanup]:
    """Around a ``finally`` block (an ``__exit__``): the effects of the innermost region's cleanup are
    noted for the checks of its body."""
    region = current().cleanups[-1]
    region.cleaning = True
    yield region


def around_check(location: Location | None) -> list[Cleanup]:
    """The regions whose body a check staged now sits in, innermost first; each notes the check."""
    found = [region for region in reversed(current().cleanups) if not region.cleaning]
    for region in found:
        region.check = region.check or location or Location("<unknown>", 0)
    return found


def note_effect(replay: Callable[[], None] | None) -> None:
    """An effect staged now (``replay``: how to run it with no value from the program, ``None`` if it
    needs one): noted by each region cleaning up after a check, or refused there."""
    session = current()
    for region in session.cleanups:
        if not (region.cleaning and region.check is not None):
            continue
        if replay is None or len(session.staged) != region.staged_depth:
            raise _unreplayable(region.check)
        region.replays.append(replay)


def check_exit(exit_: types.FunctionType, returned: Any, region: Cleanup) -> None:
    """A manager's ``__exit__`` after a check staged in the ``with`` body: it must neither read the
    exception it is given nor suppress it (what it does then is not what the trace saw it do)."""
    if region.check is None:
        return
    reads = _reads_its_exception(exit_.__code__)
    if reads or (returned is not None and returned is not False):
        what = "reads the exception it is given" if reads else f"returns {returned!r}, which would suppress it"
        raise ConversionError(
            f"this context manager's __exit__ {what}, and a run-time check staged in the `with` body "
            f"({region.check}) raises only when the program runs: __exit__ ran once, while tracing, without it",
            caller_location(),
            "Make the check's condition concrete (static_argnums / static_argnames), or move the check out of "
            "the `with` body.",
        )


def _reads_its_exception(code: types.CodeType) -> bool:
    """Whether ``__exit__``'s code loads a parameter after ``self`` (or asks ``sys.exc_info()``)."""
    count = code.co_argcount + bool(code.co_flags & 0x04)  # positional parameters, then *args
    parameters = set(code.co_varnames[1:count])
    loads = {"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF", "LOAD_CLOSURE", "LOAD_FAST_AND_CLEAR"}
    return "exc_info" in code.co_names or any(
        instruction.opname in loads and instruction.argval in parameters for instruction in dis.get_instructions(code))


def _unreplayable(check: Location) -> ConversionError:
    return ConversionError(
        f"this effect of a `finally` block or a context manager's __exit__ cannot come out when the run-time check "
        f"staged in its body ({check}) fails: the compiled program stops at the check, and what this effect shows "
        "is known only when the program runs (a traced value, or a traced condition inside the cleanup)",
        caller_location(),
        "Print only text known while tracing there (plain strings, Python values), printing the traced values "
        "before the `try` / `with` instead; or make the check's condition concrete (static_argnums / static_argnames).",
    )

"""The cases of a ``match`` that only Python's own ``match`` can test (class, sequence, mapping patterns).

The rewriter turns a ``match`` into an ``if`` chain; such a case is tested by a generated helper that
runs Python's ``match`` on the subject and returns the captured values, or ``None``. Python's pattern
tests need concrete values: a traced subject is not an instance of the class a pattern names (and a
traced scalar is never an ``int``), and comparing a traced part with a literal has no truth value at
trace time. So the helper runs only when no traced value meets a test: the subject itself must be
concrete, and so must every leaf of it when the pattern compares or classifies a part of it. Taking
a concrete container of traced arrays apart (``case (params, state):``, ``case {"w": w}:``) is fine:
the structure is concrete, and the parts are only captured.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import TracedPredicateError
from .locations import location_of
from .values import any_traced, is_traced, type_string

_FIX = ("Match on a concrete value (a Python value, or an argument made static with `static_argnames`), or "
        "use literal patterns (`case 0:`, `case 1 | 2:`, `case _:`), which stage as `lax.cond`.")
_GUARD_FIX = " For `case P as n if test`, test the subject itself in the guard and assign `n` in the case body."
_SEQUENCE_PARTS_FIX = ("Capture the part instead of testing it in the pattern (`case (kind, x):`), and test it in a "
                       "guard or an `if` (`case (kind, x) if kind == 0:`): that test stages as `lax.cond`.")
_MAPPING_PARTS_FIX = ('Capture the part instead of testing it in the pattern (`case {"kind": kind, "w": w}:`), and test '
                      'it in a guard or an `if` (`case {"kind": kind, "w": w} if kind == 0:`): that test stages as '
                      "`lax.cond`.")


def match_pattern(
    pattern_test: Callable[[Any], tuple[Any, ...] | None], subject: Any, pattern_kind: str, looks_at_parts: bool
) -> tuple[Any, ...] | None:
    """``pattern_test(subject)``: the values the case captures, or ``None`` when it does not match.

    ``pattern_kind`` says what needs Python's ``match`` (``"a class pattern"``); ``looks_at_parts``
    whether the pattern compares or classifies a part of the subject (a nested literal, class or
    ``None``), which then must be concrete too. ``pattern_test`` is the helper the rewriter made at
    the case's line: errors are located there.
    """
    if is_traced(subject):
        raise TracedPredicateError(
            f"this `case` uses {pattern_kind}, which needs a concrete subject, and the `match` subject is a "
            f"traced {type_string(subject)} array here (its value is known only when the compiled function runs)",
            location_of(pattern_test),
            _FIX + (_GUARD_FIX if "guard" in pattern_kind else ""),
        )
    if looks_at_parts and any_traced(subject):
        raise TracedPredicateError(
            f"this `case` uses {pattern_kind} that compares a part of the subject with a literal, a class "
            "or None, and a part of the `match` subject is a traced JAX value here: Python's test of it "
            "has no answer at trace time",
            location_of(pattern_test),
            _MAPPING_PARTS_FIX if pattern_kind.startswith("a mapping") else _SEQUENCE_PARTS_FIX,
        )
    return pattern_test(subject)

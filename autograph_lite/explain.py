"""``autograph_lite.explain``: trace a function once and say what each control-flow statement became.

For every ``if`` / ``while`` / ``for`` / conditional expression executed while tracing: the lax
primitive it was staged as, or that it ran as Python and why (a concrete condition, a static
argument, a loop kept unrolled), the carried variables with their types, and any promotion applied.

The runtime records a statement when it is done with it, so an ``if`` inside a staged loop is recorded
before the loop; the report lists the statements in source order instead, which is how a reader looks
for them.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax

from .api import convert
from .conversion import original_of, unwrap_for_source
from .errors import ConversionError
from .runtime.report import Decision, Recorder


@dataclasses.dataclass(frozen=True)
class Explanation:
    """The decisions taken while tracing ``function`` once, in source order: the explained function's
    file first, then any other file in the order its code was traced; by line within a file, and in
    the order they were taken on one line. A statement traced several times with the same outcome
    (an ``if`` in a Python loop) is printed once, with ``[xN]``."""

    function: str
    decisions: tuple[Decision, ...]

    def __str__(self) -> str:
        if not self.decisions:
            return f"{self.function}: no control flow converted (nothing to stage)"
        lines = [f"{self.function}:"]
        counts = collections.Counter(self.decisions)
        seen: set[Decision] = set()
        for decision in self.decisions:
            if decision in seen:
                continue
            seen.add(decision)
            decision_lines = decision.lines()
            if counts[decision] > 1:
                decision_lines[0] += f"  [x{counts[decision]}]"
            lines.extend("  " + line for line in decision_lines)
        return "\n".join(lines)


def explain(
    fn: Callable[..., Any],
    *example_args: Any,
    static_argnums: int | tuple[int, ...] | None = None,
    static_argnames: str | tuple[str, ...] | None = None,
    static_loops: str = "auto",
    **example_kwargs: Any,
) -> Explanation:
    """Trace ``convert(fn)`` on example arguments (arrays or ``jax.ShapeDtypeStruct``) and report,
    per control-flow statement with its ``file:line``, how it was converted and why.

    ``static_argnums`` / ``static_argnames`` mean what they mean to ``jax.jit`` (each is inferred
    from the other, from ``fn``'s signature). A function made by ``autograph_lite.jit`` is explained
    as the function it was made from.
    """
    converted = convert(original_of(fn), static_loops=static_loops)

    @functools.wraps(converted)
    def fresh(*args: Any, **kwargs: Any) -> Any:  # a new callable, so that no jit cache skips tracing
        return converted(*args, **kwargs)

    traced = jax.jit(fresh, static_argnums=static_argnums, static_argnames=static_argnames)
    with Recorder() as recorder:
        traced.trace(*example_args, **example_kwargs)
    return Explanation(getattr(fn, "__qualname__", repr(fn)), in_source_order(recorder.decisions, fn))


def in_source_order(decisions: Sequence[Decision], function: Callable[..., Any]) -> tuple[Decision, ...]:
    """``decisions`` sorted by file (``function``'s own first) and line; a stable sort, so that the
    decisions taken on one line keep the order they were taken in."""
    files: dict[str, int] = {}
    with contextlib.suppress(ConversionError):  # a callable object: the order of first appearance decides
        files[unwrap_for_source(function).__code__.co_filename] = 0
    for decision in decisions:
        files.setdefault(decision.location.filename, len(files))
    return tuple(sorted(decisions, key=lambda decision: (files[decision.location.filename], decision.location.lineno)))

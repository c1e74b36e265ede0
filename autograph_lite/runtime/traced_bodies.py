"""A loop body traced by the static-loop trial, replayed as the body of the staged ``lax.scan``.

Under ``static_loops="auto"`` the trial (:mod:`.static_loop_policy`) traces one iteration of the body
to decide whether to stage it; staging then traced it again. A loop nested in a staged loop is
reached in the outer loop's trial and again in its staging, so each level of nesting multiplied the
traces of the bodies inside it. When the trial's jaxpr is the very program that staging would trace,
the scan evaluates that jaxpr instead (binding its equations; no user code runs again), and every
body of a nest is traced once, as a hand-written ``lax`` nest is.

It is the same program when nothing in the trace depended on it being a trial or a staging:

- no run-time effect in it (a print, a check that raises at run time, a callback), whose path
  condition staging sets around the body;
- what the body appends to outer lists made of arrays only (as staging checks), which become the
  scan's per-iteration outputs, handed to the lists after the scan as staging hands them;
- every carried value an array or a Python number (``changed = False``: the scan gives it the type
  the trial traced it with) that keeps its shape, dtype and weak type through the iteration (nothing
  to fill or promote), and no weakly typed item (the trial reads items strongly typed); a Python
  number the body sets to a constant is traced again, where staging keeps the number it entered
  with if it is that constant;
- nothing recording decisions: ``explain`` and the decision log describe the statements a staging
  trace meets, so they get one.

A loop with an early exit (``break``, ``return``) replays the trace as the iteration that its exit
flag masks (:func:`.staged_loops.staged_static`), unless the body appends (which staging refuses
there). A body that never reads its index (``for _ in range(n)``) carries no counter.

The jaxpr's constants are the values the body closes over, from the trace that runs the loop
statement; the replay happens in that same statement, so they are still alive.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax
from jax.extend import core as jex_core
from jax.tree_util import PyTreeDef

from . import appends, report
from .kept_containers import Fate, kept_in_place
from .session import current
from .values import Split


@dataclasses.dataclass(frozen=True)
class TracedBody:
    """One iteration as the trial traced it: ``(index, *item leaves, *carried arrays) -> carried arrays
    + appended leaves``; ``appended`` says, per append, to which list (its value left out), and
    ``appended_tree`` the structure of the tuple of their values."""

    closed: jex_core.ClosedJaxpr
    split: Split
    appended: tuple[appends.Appended, ...]
    appended_tree: PyTreeDef
    fates: tuple[Fate, ...] = ()  # what the trial's run of the body did with the containers it was given

    @property
    def reads_index(self) -> bool:
        """Whether the iteration reads its index: a loop whose body ignores it (``for _ in range(n)``)
        carries no counter."""
        index = self.closed.jaxpr.invars[0]
        return any(index in equation.invars for equation in self.closed.jaxpr.eqns) or index in self.closed.jaxpr.outvars

    def entry(self) -> tuple:
        """The carried values the trial started from (a placeholder filled with zeros), as staging starts."""
        return self.split.rebuild(self.split.arrays)

    def iterate(self, index: Any, x: Any, values: tuple) -> tuple:
        """One iteration on the carried ``values``: the trial's equations bound again, no user code run.
        (A body that appends is replayed by :meth:`staged` only.)"""
        outputs = self._outputs(index, x, Split.of(values, self.split.names).arrays)
        return kept_in_place(values, self.split.rebuild(outputs[:len(self.split.arrays)]), self.fates, same_place=True)

    def _outputs(self, index: Any, x: Any, arrays: list[Any]) -> list[Any]:
        index = jnp.asarray(0) if index is None else index  # an index the iteration does not read
        return list(jex_core.jaxpr_as_fun(self.closed)(index, *jax.tree_util.tree_leaves(x), *arrays))

    def staged(self, length: int, xs: Any, uses_index: bool, first: int = 0) -> tuple:
        """The loop staged as one ``lax.scan`` whose body is this jaxpr (a counter from ``first`` carried
        if it reads one)."""
        carried = len(self.split.arrays)

        def step(counter_and_arrays: tuple[Any, list[Any]], x: Any) -> tuple[tuple[Any, list[Any]], tuple]:
            k, arrays = counter_and_arrays
            outputs = self._outputs(k, x, arrays)
            return (None if k is None else k + 1, outputs[:carried]), tuple(outputs[carried:])

        counter = jnp.asarray(first) if uses_index and self.reads_index else None  # weakly typed, as a Python int
        (_, arrays), stacked = lax.scan(step, (counter, self.split.arrays), xs, length=length)
        if self.appended:
            collector = appends.Collector()
            collector.appended = list(self.appended)
            collector.append_rows(jax.tree_util.tree_unflatten(self.appended_tree, list(stacked)), length)
        return self.split.rebuild(arrays)


def reusable(closed: jex_core.ClosedJaxpr, split: Split, state: tuple, xs: Any,
             collector: appends.Collector, fates: list[Fate]) -> TracedBody | None:
    """The trial's trace, when staging would trace the same program (see the module's conditions);
    ``collector`` holds what the trial's iteration appended, ``fates`` what it did with the containers."""
    appended_leaves, appended_tree = jax.tree_util.tree_flatten(tuple(entry.value for entry in collector.appended))
    if closed.effects or len(closed.out_avals) != len(split.arrays) + len(appended_leaves):
        return None
    if _recording():
        return None
    if len(jax.tree_util.tree_leaves(state)) != len(split.arrays):
        return None  # a leaf that is no array (a name not bound yet, a string): staging checks and fills those
    if any(jax.typeof(a).weak_type for a in jax.tree_util.tree_leaves(xs)):
        return None
    for before, after, outvar in zip(split.arrays, closed.out_avals, closed.jaxpr.outvars):
        entry = jax.typeof(before)
        if (entry.shape, entry.dtype, entry.weak_type) != (after.shape, after.dtype, after.weak_type):
            return None
        if isinstance(outvar, jex_core.Literal) and isinstance(before, (bool, int, float, complex)):
            return None  # a Python number set to a constant: staging keeps it the number (LoopCarry.arrays_after)
    appended = tuple(dataclasses.replace(entry, value=None) for entry in collector.appended)  # no tracer kept
    return TracedBody(closed, split, appended, appended_tree, tuple(fates))


def _recording() -> bool:
    """Whether some decision would be kept or logged now (a trial pauses both)."""
    return current().recorder is not None or report.LOGGER.isEnabledFor(logging.INFO)

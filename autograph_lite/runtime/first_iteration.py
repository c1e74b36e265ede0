"""The first iteration of a ``while`` loop whose test is concrete on entry, traced aside.

``done = False`` then ``while not done:`` has a concrete test on entry; the first iteration runs as
Python and only then is the test traced, so the rest becomes a ``lax.while_loop``: the body is traced
and compiled twice (that iteration, and the staged body). Under a staging trace (``jit``), that first
iteration is instead traced into a throwaway jaxpr, and then one of two things happens:

- its test came out traced, and every carried value keeps its structure, shape and dtype: the loop is
  staged from the start (the entry's Python numbers carried as weakly typed arrays, as in any staged
  loop's iteration);
- otherwise the loop goes on as before, with this iteration *replayed*: its jaxpr is evaluated into
  the caller's trace. The user's code ran once for that iteration, as in the Python loop, so what it
  did on the way (an iterator advanced, a helper's counter, a staged ``print``) happened once.

The trial is not made when the loop carries a mutable container (its in-place updates must reach the
caller's objects, and a discarded trial must not leave them changed), when the rewriter found a side
effect in the body, or outside a staging trace: under eager ``jax.grad`` or ``vmap`` a value that is
concrete to the caller would look traced inside the throwaway trace.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import types
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
from jax.extend import core as jex_core

from . import appends, paths, report
from .carry_errors import Site
from .raises import AssignedIfRan, PathRaises
from .values import OneBranchValue, Split, Undefined, cell_contents_or, is_traced

_IMMUTABLE_LEAVES = (jax.Array, bool, int, float, complex, str, bytes, type(None), np.generic, types.FunctionType,
                     Undefined, OneBranchValue)


@dataclasses.dataclass
class FirstIteration:
    """What the trial found: stage the whole loop (``stage_from_start``), or ``replay()`` the iteration."""

    stage_from_start: bool
    replay: Callable[[], tuple]


def traced_aside(test: Callable, body: Callable, state: tuple, names: tuple[str, ...], site: Site,
                 effect: str | None) -> FirstIteration | None:
    """The first iteration of ``while test: state = body(*state)`` traced aside, or ``None`` when it
    must run as Python (see the module's docstring): no trial, or a trial that failed."""
    if effect is not None or not jex_core.unsafe_am_i_under_a_jit_DO_NOT_USE() or not _immutable(state):
        return None
    if not sees_traced_values(state, test, body):
        return None
    found: dict[str, Any] = {}

    def first_iteration() -> list[Any]:
        with appends.inside(appends.Forbidden(site.construct, site.location, trial=True)), \
                report.collecting() as decisions:
            after = tuple(without_cell_writes(body)(*state))
            with paths.traced_again():  # the loop evaluates it again, prints and all, whatever it is
                found["traced"] = is_traced(without_cell_writes(test)(*after))
        leaves, found["treedef"] = jax.tree_util.tree_flatten(after)
        found["leaves"], found["after"], found["decisions"] = leaves, after, decisions
        return [leaf for leaf in leaves if is_traced(leaf)]

    try:
        closed = jax.make_jaxpr(first_iteration)()
    except (Exception, PathRaises):  # an effect refused, or what the iteration run as Python raises where it belongs
        return None
    stage = found["traced"] and _carried_alike(Split.of(state, names), Split.of(found["after"], names))
    return FirstIteration(stage, functools.partial(_replayed, closed, found))


def _replayed(closed: jex_core.ClosedJaxpr, found: dict[str, Any]) -> tuple:
    """The state after the first iteration, its traced values computed in the caller's trace."""
    outputs = iter(jex_core.jaxpr_as_fun(closed)())
    leaves = [next(outputs) if is_traced(leaf) else leaf for leaf in found["leaves"]]
    report.replay(found["decisions"])
    return tuple(jax.tree_util.tree_unflatten(found["treedef"], leaves))


def _immutable(value: Any) -> bool:
    """Whether ``value`` holds nothing that an iteration could change in place (tuples of arrays,
    numbers, strings, functions and the runtime's stand-ins)."""
    if isinstance(value, tuple):
        return all(_immutable(item) for item in value)
    if isinstance(value, AssignedIfRan):
        return _immutable(value.value)
    return isinstance(value, _IMMUTABLE_LEAVES)


def sees_traced_values(state: tuple, *functions: Callable) -> bool:
    """Whether ``functions`` called on ``state`` see a traced value, in it or in their closures (else
    a loop's test or first iteration cannot come out traced)."""
    return any(is_traced(leaf) for leaf in jax.tree_util.tree_leaves(state)) or any(
        is_traced(cell_contents_or(cell, None)) for function in functions
        for cell in getattr(function, "__closure__", None) or ())


def _carried_alike(entry: Split, after: Split) -> bool:
    """Whether a staged loop could carry ``entry`` where the first iteration leaves ``after``: the same
    structure and Python values (a name still unassigned on entry excepted: the staged loop learns its
    type), the same shapes and dtypes; a weakly typed entry may become strongly typed, not the reverse
    (``lax.while_loop`` promotes a weak entry to the body's type, and only to a type of the same dtype
    keeps eager's result type)."""
    entry_keys, after_keys = entry.per_name_keys(), after.per_name_keys()
    values = entry.rebuild(entry.arrays)
    unassigned = {index for index, value in enumerate(values) if isinstance(value, Undefined)}
    for index, (before_slots, after_slots) in enumerate(zip(entry.slots, after.slots)):
        if index in unassigned:
            continue
        if entry_keys[index] != after_keys[index]:
            return False
        for before_slot, after_slot in zip(before_slots, after_slots):
            if not isinstance(before_slot, int) or not isinstance(after_slot, int):
                continue  # a Python leaf, equal on both sides (the keys compared it)
            before, later = jax.typeof(entry.arrays[before_slot]), jax.typeof(after.arrays[after_slot])
            if before.shape != later.shape or before.dtype != later.dtype or (later.weak_type and not before.weak_type):
                return False
    return True


_EMPTY = object()


def without_cell_writes(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` evaluated without changing the variables it shares with the loop body.

    A generated test or body function first sets the cells of the carried names that closures read
    from its arguments (``nonlocal s; s = _ag_cell_s``). A staged loop's test is evaluated again in the
    middle of a body's trace (the predicate of a run-time check staged there:
    :func:`.paths.path_predicate`), where its writes would reset a closure's variable to the
    iteration's entry value while the body has moved it on; a body traced aside must not leave its
    trace's values in them.
    """
    cells = getattr(function, "__closure__", None) or ()
    if not cells:
        return function

    def evaluated(*values: Any) -> Any:
        saved = [cell_contents_or(cell, _EMPTY) for cell in cells]
        try:
            return function(*values)
        finally:
            for cell, contents in zip(cells, saved):
                if contents is _EMPTY:
                    with contextlib.suppress(ValueError):
                        del cell.cell_contents
                else:
                    cell.cell_contents = contents

    return functools.wraps(function)(evaluated)

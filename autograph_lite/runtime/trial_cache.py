"""Remembering the staging decision of a static loop while its enclosing loop is traced.

With ``static_loops="auto"`` a loop's body is traced once aside to decide whether to stage it. A
loop nested in another staged loop is reached twice per trace of the outer one: in the outer loop's
trial and in its real staging, and at every level of nesting again, so the innermost body would be
traced aside 2**depth times. The decision is a function of the body's code and of what it sees:
the shapes, dtypes and traced-ness of its carried values and of the arrays it closes over, and the
Python values among them (tuples and lists by their contents, concrete arrays and the runtime's own
objects by identity). Those are summarised in a key; a body that sees anything else (a dict, an
object of the user's) gets no key and is traced aside as before.

The memory, kept in the trace session (:attr:`.session.TraceSession.trial_decisions`), lasts while
the outermost ``for`` statement runs, so one trace never reuses another's decisions (a global
changed between calls is seen again).
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Hashable, Iterator
from typing import Any

import jax
import numpy as np

from .session import current
from .values import Undefined, is_traced

_DEPTH_LIMIT = 4  # closures of closures: deeper than this, give up (no key)
_PLAIN = (type(None), bool, int, float, complex, str, bytes)
_STABLE = (types.ModuleType, type, types.BuiltinFunctionType)
_RUNTIME = "autograph_lite.runtime"


class _NoKey(Exception):
    """The body sees something whose summary would not determine the decision."""


@contextlib.contextmanager
def remembering() -> Iterator[None]:
    """Keep decisions for the duration of the outermost loop statement (nested ones share it)."""
    session = current()
    if session.trial_decisions is not None:
        yield
        return
    session.trial_decisions, session.trial_keys_alive = {}, []
    try:
        yield
    finally:
        session.trial_decisions, session.trial_keys_alive = None, []


def recall(key: Hashable | None) -> str | None:
    """The decision made before for ``key`` in this statement, or ``None``."""
    decisions = current().trial_decisions
    if key is None or decisions is None:
        return None
    return decisions.get(key)


def remember(key: Hashable | None, decision: str) -> None:
    """Keep ``decision`` for ``key`` until the outermost loop statement ends (nothing without a key)."""
    decisions = current().trial_decisions
    if key is not None and decisions is not None:
        decisions[key] = decision


def key_of(body: Any, sequence: tuple[Any, ...], state: tuple[Any, ...]) -> Hashable | None:
    """A key that determines the trial's outcome, or ``None`` when there is none (or no memory).

    ``sequence`` describes what the loop iterates over (length, arrays, how items are made).
    """
    session = current()
    if session.trial_decisions is None:
        return None
    alive = session.trial_keys_alive
    try:
        return (_summary(body, 0, alive), _summary(sequence, 0, alive), _summary(state, 0, alive))
    except _NoKey:
        return None


def _summary(value: Any, depth: int, alive: list[Any]) -> Hashable:
    """``value`` as a key; ``alive`` keeps the objects whose ids the key holds while the key is in use."""
    if depth > _DEPTH_LIMIT:
        raise _NoKey
    if is_traced(value):  # only its type is known while tracing: the type is all the body can use
        aval = jax.typeof(value)
        return ("traced", aval.shape, aval.dtype, aval.weak_type)
    if isinstance(value, (jax.Array, np.ndarray)):  # a concrete array: its values may decide
        alive.append(value)  # kept alive while its id is in a key
        return ("concrete", id(value))
    if isinstance(value, np.generic):
        return (type(value), value.item())
    if isinstance(value, _PLAIN):
        return (type(value), value)
    if isinstance(value, (tuple, list)):
        return (type(value), tuple(_summary(v, depth + 1, alive) for v in value))
    if isinstance(value, Undefined):
        return ("undefined", value.name, value.placeholder)
    if isinstance(value, types.FunctionType):
        cells = tuple(_summary(_cell_contents(c), depth + 1, alive) for c in value.__closure__ or ())
        defaults = _summary(value.__defaults__ or (), depth + 1, alive)
        return ("function", value.__code__, value.__code__.co_filename, id(value.__globals__), cells, defaults)
    module = type(value).__module__
    if isinstance(value, _STABLE) or module == _RUNTIME or module.startswith(_RUNTIME + "."):
        alive.append(value)  # the runtime's own objects (the operators): the same object decides the same
        return ("object", id(value))
    raise _NoKey


def _cell_contents(cell: types.CellType) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell: a name not bound yet
        return Undefined("")

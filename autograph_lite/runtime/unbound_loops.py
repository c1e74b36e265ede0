"""A name that a staged loop's body assigns first, unbound before the loop: bound after it only if an
iteration assigned it, as in eager Python.

A ``while`` loop with a traced test, or a ``for`` loop with a ``break`` / ``return``, may end before
any iteration assigned the name (eager Python then raises ``UnboundLocalError`` where the name is
read), but a staged loop carries one value per name from its start. The name enters such a loop as
:class:`.raises.AssignedIfRan`: zeros of the type the body gives it (learned from the first trace of
the body, as for any placeholder) and a flag, false. An iteration that assigns the name sets the flag
(:func:`.carry.bound`, wherever a carry meets a plain value for it: the end of the body, the other
branch of a staged ``if``), so after the loop the flag says whether any iteration assigned it, and a
read (``_ag.ld``, in the body before its assignment, or after the loop) is a run-time check that
raises eager's ``UnboundLocalError`` exactly when none did.

A body that reads the name before assigning it, on a path that its first trace takes, gives no type
to learn: the loop is staged as before, with its located error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from ..errors import UnassignedReadError
from .carry import PlaceholderNeeded, with_placeholders_filled
from .raises import AssignedIfRan
from .values import Undefined
from .weak_types import zeros_of_type


class _TypesLearned(Exception):
    """The first trace of the body gave these names (index, abstract value) a type."""

    def __init__(self, fills: tuple[tuple[int, Any], ...]) -> None:
        super().__init__(fills)
        self.fills = fills


def with_assigned_if_ran(run: Callable[[tuple], Any], state: tuple) -> Any:
    """``run(state)`` (which stages the loop), the names nothing has assigned yet entering it as bound
    only if an iteration assigns them (see the module's docstring); placeholders filled as
    :func:`.carry.with_placeholders_filled` does."""
    unbound = {index for index, value in enumerate(state) if isinstance(value, Undefined) and not value.placeholder}
    if not unbound:
        return with_placeholders_filled(run, state)
    filled = [Undefined(value.name, placeholder=True) if index in unbound else value for index, value in enumerate(state)]
    waiting = set(unbound)

    def learning(values: tuple) -> Any:
        try:
            return run(values)
        except PlaceholderNeeded as needed:
            learned = tuple((index, value) for index, value in needed.fills if index in waiting)
            if learned:
                raise _TypesLearned(learned) from None
            raise

    for _ in range(len(unbound) + 1):
        try:
            result = with_placeholders_filled(learning, tuple(filled))
            # A name no path of the body assigns leaves the loop as unbound as it entered (not as a
            # placeholder, which a later staged statement could fill with zeros).
            return tuple(state[index] if index in waiting else value for index, value in enumerate(result))
        except _TypesLearned as learned:
            for index, value in learned.fills:
                if isinstance(value, AssignedIfRan):  # an inner loop's: one flag says whether any assigned it
                    value = value.value
                filled[index] = AssignedIfRan(state[index].name, zeros_of_type(value), jnp.zeros((), jnp.bool_))
                waiting.discard(index)
        except UnassignedReadError:
            break  # the body reads a name before assigning it: no type to learn
    return with_placeholders_filled(run, state)

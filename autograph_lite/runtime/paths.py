"""The conditions under which the code being traced runs, for what it stages to happen at run time.

A staged branch or loop body is traced once, whatever the run-time values; its code runs (per lane,
under ``vmap``) only when its condition holds. A run-time check (:mod:`.run_time_checks`) ANDs those
conditions with its own, so that it fires only where eager Python would reach it.

A lazy operand of ``and`` / ``or`` (or a later comparison of a chain) after a traced one is traced as
well, to select its value at run time, but no ``lax.cond`` keeps it from running: it is evaluated
whatever the earlier operand turns out to be. What it stages to happen at run time (a check, a
``print``) must then happen only when eager Python would have evaluated it, so it is *skippable*:
its condition joins the path, and a ``print`` inside one is staged behind the whole path
(:func:`print_condition`), where elsewhere the enclosing ``lax.cond`` / loop is enough.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import jax.numpy as jnp

from .session import current


@contextlib.contextmanager
def runs_when(predicate: Callable[[], Any]) -> Iterator[None]:
    """Around the trace of a staged branch or loop body: its code runs (per lane) when ``predicate()`` holds.

    A function, called only if a check is staged inside: a loop's test is evaluated again only then.
    """
    path = current().path
    path.append(predicate)
    try:
        yield
    finally:
        path.pop()


@contextlib.contextmanager
def skippable(predicate: Callable[[], Any]) -> Iterator[None]:
    """Around the trace of a lazy operand evaluated although eager Python evaluates it only when
    ``predicate()`` holds (see the module's docstring)."""
    session = current()
    session.skippable += 1
    try:
        with runs_when(predicate):
            yield
    finally:
        session.skippable -= 1


def path_predicate() -> Any:
    """The conjunction of the conditions under which the code being traced runs (True outside staged code).

    A condition is evaluated with the path cut before it: a check staged while evaluating it (an index
    in a ``while`` test) runs under the conditions outside, and does not evaluate this one again. A
    ``print`` or ``warnings.warn`` in it (a ``while`` test that prints) was staged where the statement
    itself evaluates it: traced again here, it stages nothing (:func:`output_staged`).
    """
    path = current().path
    holds: Any = True
    for depth in range(len(path)):
        inner = path[depth:]
        del path[depth:]
        try:
            with traced_again():
                holds = jnp.logical_and(holds, inner[0]())
        finally:
            path.extend(inner)
    return holds


@contextlib.contextmanager
def traced_again() -> Iterator[None]:
    """Around the trace of a condition that is evaluated where its output belongs too: a path's
    condition (:func:`path_predicate`), a ``while`` test traced after a trial of the first iteration
    (the loop evaluates it again). What it prints is not staged here (:func:`output_staged`)."""
    session = current()
    session.conditions_traced_again += 1
    try:
        yield
    finally:
        session.conditions_traced_again -= 1


@contextlib.contextmanager
def noticing_callbacks() -> Iterator[list[bool]]:
    """Around a trace that must know whether it staged a host callback (a ``print``, a run-time check):
    the list it gives is empty unless :func:`callback_staged` was called inside."""
    watchers = current().callback_watchers
    noticed: list[bool] = []
    watchers.append(noticed)
    try:
        yield noticed
    finally:
        watchers.pop()


def callback_staged() -> None:
    """Tell the traces that watch for it (:func:`noticing_callbacks`) that a host callback was staged."""
    for noticed in current().callback_watchers:
        noticed.append(True)


def print_condition() -> Any:
    """What a staged ``print`` must wait for: the whole path inside a skippable operand, else nothing
    (``None``: the enclosing staged statements run its callback only where eager Python prints)."""
    return jnp.asarray(path_predicate()) if current().skippable else None


def output_staged() -> bool:
    """Whether a ``print`` or a warning traced now is staged: not while a condition of the path is
    traced again."""
    return not current().conditions_traced_again

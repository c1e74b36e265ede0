"""Which generator expressions converted code may draw from in full, nobody else seeing the draws.

Staged code runs its Python once, while tracing: a generator expression drained there
(``sum(x * x for x in xs)`` in a traced branch or a staged loop body) is drained once, whether or not
the branch runs, however often the loop does. That is eager Python's meaning only when nothing else
holds the generator or its source: then no one can tell how far, or how often, it was drawn. A
generator expression held in a variable (``g = (x for x in xs)``, then ``if c: s = sum(g)``, then
``len(list(g))`` after the branch) is not: eager Python leaves it undrawn where the branch does not
run. Neither is one over an iterator someone holds (``sum(x for x in it)``).

So the calls pass marks the source of each generator expression written as the argument of a
builtin that draws it (``any`` / ``all``, ``sum``, ``list``, ``sorted``, ...) or as a ``for`` loop's
iterable: ``_ag.private_source(xs)``, with ``written_here`` when the source itself is made in that
place (a call such as ``zip(ws, vs)``, a display). The source is private when it is a new iterator
over items made already (a container, a string, an array), or, made in that place, an open
``zip`` / ``enumerate`` / ``reversed`` over such or an iterator the staged code itself made
(``map(f, xs)``: :func:`.ownership.note_made`). Only a generator expression over a private source,
not started, counts as drawn privately (:func:`generator_drawn_privately`).
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Iterator
from typing import Any

from . import appends
from .iteration import CONTAINERS, OpenIterator, draws_privately, made_already
from .ownership import made_by


class PrivateSource:
    """An iterator that :func:`private_source` found nobody else holds: drawing from it past where
    Python stops, or while tracing a branch that may not run, changes nothing anyone can see."""

    def __init__(self, iterator: Iterator[Any]) -> None:
        self.iterator = iterator

    def __iter__(self) -> PrivateSource:
        return self

    def __next__(self) -> Any:
        return next(self.iterator)


def private_source(source: Any, written_here: bool = False) -> Any:
    """``source``'s iterator for a generator expression that a builtin or a ``for`` loop draws from
    where it is written: marked private when nobody else holds it (see the module's docstring); an
    iterator someone holds (``it``, ``iter(it)``), or one whose iteration runs the user's code (a
    class's ``__iter__``), stays as it is."""
    iterator = iter(source)
    if iterator is not source and made_already(source):
        return PrivateSource(iterator)
    if written_here and (_private_open_iterator(source) or _made_by_staged_code(source)):
        return PrivateSource(iterator)
    return iterator


def _private_open_iterator(source: Any) -> bool:
    return isinstance(source, OpenIterator) and not source.started and draws_privately(source)


def _made_by_staged_code(source: Any) -> bool:
    context = appends.innermost()
    return context is not None and made_by(context, source)


def unstarted_generator_expression(value: Any) -> bool:
    """Whether ``value`` is a generator expression that nothing has drawn from yet."""
    return (isinstance(value, types.GeneratorType) and value.gi_code.co_name == "<genexpr>"
            and inspect.getgeneratorstate(value) == inspect.GEN_CREATED)


def generator_drawn_privately(value: Any) -> bool:
    """Whether ``value`` is a generator expression, not started, over a :class:`PrivateSource`: written
    where it is drawn, over items nobody else can draw."""
    return unstarted_generator_expression(value) and isinstance(inspect.getgeneratorlocals(value).get(".0"),
                                                                PrivateSource)


def drawn_privately(iterable: Any) -> bool:
    """Whether taking more elements of ``iterable`` than Python takes changes nothing anyone sees: a
    container, or a generator expression drawn privately. Any other iterator may be held elsewhere
    (``any(v > 0 for v in it)`` then ``next(it)``), run a generator function's code past Python's
    stop, or never end."""
    return type(iterable) in CONTAINERS or generator_drawn_privately(iterable)

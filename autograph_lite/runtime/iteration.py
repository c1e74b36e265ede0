"""What a ``for`` loop iterates over, seen before Python turns it into an iterator.

``range(n)`` with a traced ``n`` cannot be built at all, and ``enumerate(x)`` / ``zip(a, b)`` hide
their arguments once built, so calls to them from converted code get :func:`open_builtin`'s
versions. With concrete arguments it returns the builtin's own result; otherwise a small
description that the loop operator stages and that still iterates like the builtin. ``reversed`` of
a range with a traced bound is a range of its own; its ``len`` a located error (``len`` must give an
int, and the count is known at run time only).

A traced ``range`` bound follows Python's rule for ``range``: an integer, or a bool (``range(True)``
is ``range(1)``), which is counted as the int32 it stands for; a float bound is a located
``StagingTypeError``, as Python's ``TypeError`` for ``range(1.5)``.
"""

from __future__ import annotations

import builtins
import dataclasses
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import Location, StagingTypeError
from .locations import caller_location
from .run_time_checks import stage_exception
from .values import is_traced
from .weak_types import converted

# Containers whose iteration runs no code of the user's and advances no iterator anyone else holds.
CONTAINERS = frozenset({list, tuple, range, dict, set, frozenset, type({}.keys()), type({}.values()), type({}.items())})


def as_python_int(index: Any) -> Any:
    """A staged loop's index as eager Python has it: ``range`` and ``enumerate`` give Python ints, which
    are weakly typed under ``jit``, so ``i + v_int8`` computes in int8 as eagerly. ``lax`` loops count
    in strongly typed integers (int32 beside an int8: 150 where eager's int8 wraps to -106); this marks
    a traced count weakly typed (the same dtype and values)."""
    if not is_traced(index) or jax.typeof(index).weak_type:
        return index
    return converted(index, jax.typeof(index).dtype, weak=True)


def python_int_counter() -> jax.ShapeDtypeStruct:
    """The abstract type of a loop's counter, which stands for a Python int (see :func:`as_python_int`):
    a weakly typed int32, or int64 with ``jax_enable_x64`` (asked per trace, as the flag may change)."""
    return jax.ShapeDtypeStruct((), jnp.asarray(0).dtype, weak_type=True)


@dataclasses.dataclass(frozen=True)
class TracedRange:
    """``range(start, stop, step)`` where at least one bound is traced."""

    start: Any
    stop: Any
    step: Any

    def __len__(self) -> int:
        raise StagingTypeError(
            "len() of a range with a traced bound: len() must give a Python int, and the number of items "
            "is known only when the program runs",
            caller_location(),
            "Compute it from the bounds: max((stop - start + step - 1) // step, 0) for a positive step "
            "(jnp.maximum for traced bounds), or make the bound static (static_argnums / static_argnames).",
        )

    def __iter__(self) -> Iterator[Any]:
        raise StagingTypeError(
            "a range with a traced bound taken item by item outside a `for` loop's own header (enumerate, "
            "zip, list, sum, a comprehension, unpacking): its items must be Python values there, and how "
            "many there are is known only when the program runs",
            caller_location(),
            "Loop over the range itself, `for i in range(start, n):`, and compute the rest from `i` "
            "(`k = i - start` for enumerate's count, `xs[i]` for zip's item), or make the bound static "
            "(static_argnums / static_argnames).",
        )

    def trip_count(self) -> Any:
        """How many times Python's ``range`` runs. Its span ``stop - start`` may be past the bounds'
        dtype (``range(-2**31 + 1, 2**31 - 1, 2**30)`` runs 4 times, and int32's ``stop - start``
        wraps to -2), so span and stride are read as the unsigned integers of the same width, which
        hold them exactly (wrapped arithmetic is exact modulo 2**bits); a count past the signed
        dtype's largest value (a loop of 2**31 trips) is taken as that value."""
        dtype = jnp.result_type(self.start, self.stop, self.step)
        start, stop, step = (jnp.asarray(v, dtype) for v in (self.start, self.stop, self.step))
        forward = step > 0
        span = _as_unsigned(jnp.where(forward, stop - start, start - stop))
        stride = _as_unsigned(jnp.where(step == 0, 1, jnp.where(forward, step, -step)))  # -(-2**31) is 2**31 unsigned
        count = span // stride + (span % stride != 0).astype(span.dtype)
        runs = jnp.where(forward, stop > start, stop < start) & (step != 0)
        return jnp.where(runs, jnp.minimum(count, jnp.iinfo(dtype).max), 0).astype(dtype)


def _as_unsigned(value: jax.Array) -> jax.Array:
    """An integer array's bits read as the unsigned integer of its width (unsigned already: itself)."""
    if jnp.issubdtype(value.dtype, jnp.unsignedinteger):
        return value
    return lax.bitcast_convert_type(value, jnp.dtype(f"uint{value.dtype.itemsize * 8}"))


class OpenIterator:
    """What ``enumerate`` / ``zip`` / ``reversed`` make in converted code: kept open, so that a ``for``
    loop over it can scan the arrays inside, and an iterator like the builtin's everywhere else
    (``next(e)``, a second loop over the same ``e``), drawing from the builtin's own.

    Python leaves an iterator where the loop that drew from it stopped. A staged loop draws every
    item (a scan takes them all; after a traced ``break`` the iterations are masked), so afterwards
    the iterator is at its end, or, past a traced exit, where it stopped is known only at run time:
    a later draw from it is then a located error rather than items eager Python would not give.
    """

    __slots__ = ("_drawing", "_stopped_at")

    def __init__(self) -> None:
        self._drawing: Iterator[Any] | None = None
        self._stopped_at: Location | None = None

    def sources(self) -> tuple[Any, ...]:
        """What each draw draws from in turn."""
        raise NotImplementedError

    def _builtin(self) -> Iterator[Any]:
        raise NotImplementedError

    @property
    def started(self) -> bool:
        """Whether anything drew from it yet: a loop must then go on from there, as Python."""
        return self._drawing is not None or self._stopped_at is not None

    def __iter__(self) -> OpenIterator:
        return self

    def __next__(self) -> Any:
        if self._stopped_at is not None:
            raise StagingTypeError(
                f"this {type(self).__name__.lower()} was drawn from by the `for` loop at {self._stopped_at}, which "
                "stops at a `break` or `return` whose condition is traced: where it stopped, and so what is left of "
                "it, is known only when the program runs",
                caller_location(),
                "Keep the position where the loop stops (k = i before its break, looping over range(len(xs))) and "
                "read what follows from the array by that index (xs[k + 1], or jnp.where(jnp.arange(len(xs)) > k, "
                "xs, 0) for the rest) instead of from the iterator.",
            )
        if self._drawing is None:
            self._drawing = self._builtin()
        return next(self._drawing)

    def drawn_by_staged_loop(self, stopped_at: Location | None) -> None:
        """A staged loop took every item (``stopped_at`` None), or stopped at a traced exit there; so
        did it from the iterators this one draws from."""
        self._drawing, self._stopped_at = iter(()), stopped_at
        for source in self.sources():
            if isinstance(source, OpenIterator):
                source.drawn_by_staged_loop(stopped_at)


class Enumerate(OpenIterator):
    """``enumerate(iterable, start)``."""

    __slots__ = ("iterable", "start")

    def __init__(self, iterable: Any, start: Any = 0) -> None:
        super().__init__()
        self.iterable, self.start = iterable, start

    def sources(self) -> tuple[Any, ...]:
        return (self.iterable,)

    def _builtin(self) -> Iterator[Any]:
        return builtins.enumerate(self.iterable, self.start)


class Zip(OpenIterator):
    """``zip(*iterables)``."""

    __slots__ = ("iterables",)

    def __init__(self, iterables: tuple[Any, ...]) -> None:
        super().__init__()
        self.iterables = iterables

    def sources(self) -> tuple[Any, ...]:
        return self.iterables

    def _builtin(self) -> Iterator[Any]:
        return builtins.zip(*self.iterables)


class Reversed(OpenIterator):
    """``reversed(sequence)`` of a sequence (no traced range)."""

    __slots__ = ("sequence",)

    def __init__(self, sequence: Any) -> None:
        super().__init__()
        self.sequence = sequence

    def sources(self) -> tuple[Any, ...]:
        return (self.sequence,)

    def _builtin(self) -> Iterator[Any]:
        return builtins.reversed(self.sequence)


@dataclasses.dataclass(frozen=True)
class LoopChoice:
    """A user's explicit choice for one loop: ``unroll(...)`` keeps it Python, ``stage(...)`` stages it."""

    iterable: Any
    mode: str
    early_exit: bool = False

    def __iter__(self) -> Iterator[Any]:
        return iter(self.iterable)


def unroll(iterable: Iterable[Any]) -> LoopChoice:
    """Run this ``for`` loop as a Python loop, unrolled into the traced program.

    Use it when the body needs the index as a Python int (to pick a layer from a list, to build a
    shape) or when a value carried by the loop must stay a Python value.
    """
    return LoopChoice(iterable, "unroll")


def stage(iterable: Iterable[Any], *, early_exit: bool = False) -> LoopChoice:
    """Stage this ``for`` loop over a static range or array, whatever it carries.

    A loop with ``break`` or ``return`` is staged by default as ``lax.scan`` whose iterations after the
    exit leave the state unchanged: it runs every iteration, and reverse-mode ``jax.grad`` works.
    ``early_exit=True`` stages it as ``lax.while_loop`` instead, which stops at the exit but supports
    forward-mode differentiation only.
    """
    return LoopChoice(iterable, "stage", early_exit)


def open_builtin(function: Any) -> Callable[..., Any] | None:
    """The loop-aware version of ``range`` / ``enumerate`` / ``zip``, or ``None`` for other callables."""
    return _OPEN_BUILTINS.get(function)


def _range(*args: Any) -> Any:
    if not any(is_traced(a) for a in args):
        return builtins.range(*args)
    start, stop, step = (_integer_bound(bound) for bound in _range_bounds(*args))
    if not is_traced(step) and step == 0:
        raise ValueError("range() arg 3 must not be zero")  # as Python, before the loop
    if is_traced(step):
        _refuse_zero_step_at_run_time(step, caller_location())
    return TracedRange(start, stop, step)


def _refuse_zero_step_at_run_time(step: jax.Array, location: Location | None) -> None:
    """Python raises ``ValueError`` for a zero step; a traced step is known only at run time, so the
    check runs there instead of the loop silently running iterations."""
    stage_exception(jnp.asarray(step) == 0, ValueError("range() arg 3 must not be zero"), location)


def _enumerate(iterable: Any, start: Any = 0) -> Any:
    if _holds_array((iterable, start)):
        return Enumerate(iterable, start)
    if made_already(iterable):
        builtins.enumerate((), start)  # Python's TypeError for a start that is no integer, at once
        return Enumerate(iterable, start)
    return builtins.enumerate(iterable, start)


def _zip(*iterables: Any, **kwargs: Any) -> Any:
    if not kwargs and (_holds_array(iterables) or all(made_already(i) or isinstance(i, OpenIterator) for i in iterables)):
        return Zip(tuple(iterables))
    return builtins.zip(*iterables, **kwargs)


def _reversed(sequence: Any) -> Any:
    """``reversed(range(...))`` with a traced bound: the same numbers from the last one down, a range of
    its own (so that ``for i in reversed(range(n))`` is staged as the range is); of a list, tuple,
    range, string or array, an open iterator; else the builtin's (which raises for a 0-d array at once)."""
    if isinstance(sequence, TracedRange):
        last = sequence.start + (sequence.trip_count() - 1) * sequence.step  # start - step when it is empty
        return TracedRange(last, sequence.start - sequence.step, -sequence.step)
    if type(sequence) in _REVERSIBLE or (isinstance(sequence, (np.ndarray, jax.Array)) and np.ndim(sequence) > 0):
        return Reversed(sequence)
    return builtins.reversed(sequence)


def made_already(value: Any) -> bool:
    """Whether iterating ``value`` only reads items made already: a new iterator over a container, a
    string or an array, which runs no code of the user's and advances no iterator anyone else holds."""
    return type(value) in CONTAINERS or isinstance(value, (str, bytes, np.ndarray, jax.Array))


def draws_privately(iterable: Any) -> bool:
    """Whether a loop may draw items of ``iterable`` past where eager Python stops, nobody seeing it: one
    made already (:func:`made_already`), or an open iterator that draws only from such (itself marked
    when a staged loop drew from it, :meth:`OpenIterator.drawn_by_staged_loop`)."""
    if isinstance(iterable, OpenIterator):
        return all(draws_privately(source) and not (isinstance(source, OpenIterator) and source.started)
                   for source in iterable.sources())
    return made_already(iterable)


_REVERSIBLE = (list, tuple, range, str)
_OPEN_BUILTINS: dict[Any, Callable[..., Any]] = {builtins.range: _range, builtins.enumerate: _enumerate, builtins.zip: _zip,
                                                 builtins.reversed: _reversed}


def _range_bounds(*args: Any) -> tuple[Any, Any, Any]:
    if len(args) == 1:
        return 0, args[0], 1
    if len(args) == 2:
        return args[0], args[1], 1
    if len(args) == 3:
        return args
    raise TypeError(f"range expected at most 3 arguments, got {len(args)}")


def wide_python_int(integer: Any, made_by: str, advice: str = "") -> Any:
    """A traced integer as the Python int it stands for (``int(k)``, a range's bound): the weakly typed
    default int; one of an unsigned dtype past that int's range is a run-time ``OverflowError``, where
    eager Python's int holds it (``made_by`` names what made the int in the message, ``advice`` ends it)."""
    dtype, wide = jnp.dtype(jnp.result_type(integer)), jnp.dtype(jnp.result_type(int))
    if jnp.iinfo(dtype).max > jnp.iinfo(wide).max:
        stage_exception(integer > jnp.iinfo(wide).max, OverflowError(
            f"{made_by} of a {dtype.name} past {wide.name}'s range: under jit a Python int is {wide.name}{advice}"),
            caller_location())
    return converted(integer, wide, weak=True)


def _integer_bound(bound: Any) -> Any:
    """A bound of a range with a traced bound, as the integer Python's ``range`` would take it: a Python
    int, so a traced one of another integer dtype (an int8, a uint16) is the weakly typed default
    int, whose loop index then counts as eager's does; a uint32 past int32's range is a run-time
    ``OverflowError`` (eager would count past 2**31)."""
    dtype = jnp.result_type(bound)
    if jnp.issubdtype(dtype, jnp.integer):
        if not is_traced(bound) or dtype == jnp.result_type(int):
            return bound
        return wide_python_int(bound, "range()")
    if jnp.issubdtype(dtype, jnp.bool_):
        return jnp.asarray(bound, jnp.int32)
    found = f"a traced {dtype.name} value" if is_traced(bound) else f"{bound!r} ({type(bound).__name__})"
    raise StagingTypeError(
        f"range() takes integers (or bools), but a bound of this range is {found}; eager Python raises "
        "TypeError: 'float' object cannot be interpreted as an integer",
        caller_location(),
        "Convert the bound to an integer first: range(int(n)) truncates toward zero, "
        "range(jnp.round(n).astype(jnp.int32)) rounds.",
    )


def _holds_array(values: tuple[Any, ...]) -> bool:
    return any((hasattr(v, "shape") and hasattr(v, "dtype")) or isinstance(v, OpenIterator) for v in values)

"""Making a dataclass from converted code: its generated ``__init__``'s steps, with the user's code converted.

``@dataclass`` writes ``__init__`` with ``exec``, without source: converted code called the class as it
was, so ``__post_init__`` and a ``default_factory`` of the user's ran unconverted. In a loop that
``static_loops="auto"`` stages as a scan, a ``__post_init__`` appending to a module-level list ran once
while tracing (``jit`` 14.0 for eager's 16.0, silently), a print printed once, and an ``if`` on a
traced field failed. The runtime now takes the generated ``__init__``'s steps itself
(runtime/dataclass_init.py) and calls ``__post_init__`` and the factories through the runtime.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import pytest
from support import assert_equivalent, assert_summed_in_a_scan, conversion_error, primitives, where

import autograph_lite

LOG = []


@dataclasses.dataclass
class Posted:
    v: float

    def __post_init__(self):
        LOG.append("posted")


def sums_posted(xs):
    LOG.clear()
    t = 0.0
    for x in xs:
        t = t + Posted(x).v + len(LOG)
    return t


def test_a_post_init_with_an_effect_runs_once_per_iteration():
    assert assert_equivalent(sums_posted, jnp.arange(4.0)) == 16.0
    assert LOG == ["posted"] * 4  # as jit left it, the last run


def fresh_rows():
    LOG.append("factory")
    return [1.0]


@dataclasses.dataclass
class Rows:
    scale: float
    rows: list = dataclasses.field(default_factory=fresh_rows)


def sums_rows(xs):
    LOG.clear()
    t = 0.0
    for x in xs:
        t = t + Rows(x).scale * len(Rows(x, [1.0, 2.0]).rows) + len(Rows(x).rows) + len(LOG)
    return t


def test_a_default_factory_of_the_users_is_called_when_no_value_is_given():
    expected = assert_equivalent(sums_rows, jnp.arange(3.0))
    assert LOG == ["factory"] * 6
    assert float(expected) == 3.0 * 2 + 3 + sum(range(2, 7, 2))


@dataclasses.dataclass(frozen=True)
class Pinned:
    v: float
    twice: float = dataclasses.field(init=False, default=0.0)

    def __post_init__(self):
        LOG.append("pinned")
        object.__setattr__(self, "twice", 2.0 * self.v)


@dataclasses.dataclass(slots=True, kw_only=True)
class Scaled:
    v: float
    scale: dataclasses.InitVar[float] = 2.0
    out: float = dataclasses.field(init=False, default=5.0)  # with slots, __init__ stores the default
    rows: list = dataclasses.field(default_factory=fresh_rows)

    def __post_init__(self, scale):
        LOG.append("scaled")
        self.out = self.out + self.v * scale


@dataclasses.dataclass
class Base:
    v: float

    def __post_init__(self):
        LOG.append("base")


@dataclasses.dataclass
class Child(Base):
    u: float = 1.0


class Plain(Base):
    """Not a dataclass: its instances are made by Base's generated __init__."""


def makes_every_kind(xs):
    LOG.clear()
    t = 0.0
    for x in xs:
        t = t + Pinned(x).twice + Scaled(v=x).out + Scaled(v=x, scale=3.0, rows=[]).out + len(Scaled(v=1.0).rows)
        t = t + Child(x).u + Child(x, 2.0).u + Plain(x).v + len(LOG)
    return t


def test_frozen_slots_kw_only_init_vars_and_inheritance_are_made_as_python_makes_them():
    assert_equivalent(makes_every_kind, jnp.arange(3.0))
    eager_log = list(LOG)
    makes_every_kind(jnp.arange(3.0))
    assert eager_log == LOG
    assert Scaled(v=1.0, scale=3.0).out == 8.0 and not hasattr(Scaled(v=1.0), "__dict__")


@dataclasses.dataclass
class Loud:
    v: float

    def __post_init__(self):
        print("made", self.v)


def loud_loop(x, n):
    for i in range(n):
        x = x + Loud(x).v
    return x


def test_a_print_in_post_init_prints_once_per_iteration(capsys):
    eager = loud_loop(jnp.float32(1.0), 3)
    printed = capsys.readouterr().out
    assert printed.count("made") == 3
    assert float(autograph_lite.jit(loud_loop)(jnp.float32(1.0), jnp.int32(3))) == float(eager)
    assert capsys.readouterr().out == printed


@dataclasses.dataclass
class Signed:
    k: float

    def __post_init__(self):
        k = self.k
        if k < 0:
            k = -k
        self.k = k


def test_an_if_on_a_traced_field_in_post_init_is_staged():
    """Run unconverted, the ``if`` raised a TracerBoolConversionError."""
    assert_summed_in_a_scan(lambda x: Signed(x - 2.0).k, jnp.arange(4.0))


def traced_posted(x, n):
    LOG.clear()
    for i in range(n):
        x = x + Posted(x).v
    return x


def test_a_post_init_with_an_effect_in_a_staged_loop_is_refused_at_its_line():
    error = conversion_error(traced_posted, jnp.float32(1.0), jnp.int32(3))
    assert error.startswith(f"{where(Posted.__post_init__, 'LOG.append')}: ")


@dataclasses.dataclass
class Cell:
    v: float
    items: list = dataclasses.field(default_factory=list)


def grows_its_own(x):
    cell = Cell(x)
    cell.items.append(x)  # a new list from the library factory: the new object's own
    return cell.v + cell.items[0]


def test_a_dataclass_without_effects_stays_staged():
    assert_summed_in_a_scan(grows_its_own, jnp.arange(3.0))
    assert "while" in primitives(autograph_lite.convert(traced_cells), jnp.float32(1.0), jnp.int32(3))


def traced_cells(x, n):
    for i in range(n):
        x = grows_its_own(x)
    return x


@pytest.mark.parametrize("make", [lambda: Posted(), lambda: Posted(1.0, 2.0), lambda: Scaled(1.0),
                                  lambda: Pinned(1.0, twice=2.0), lambda: Posted(w=1.0)],
                         ids=["missing", "too many", "keyword only", "init=False", "unexpected"])
def test_a_call_that_does_not_fit_raises_what_python_raises(make):
    with pytest.raises(TypeError) as eager:
        make()
    with pytest.raises(TypeError) as converted:
        autograph_lite.convert(lambda x: make())(1.0)
    assert str(converted.value) == str(eager.value)


@dataclasses.dataclass
class Interned:
    """Made by a __new__ of its own: called as it is, so its __post_init__ runs unconverted."""

    v: float

    def __new__(cls, *args, **kwargs):
        return super().__new__(cls)

    def __post_init__(self):
        LOG.append("interned")


def sums_interned(xs):
    LOG.clear()
    t = 0.0
    for x in xs:
        t = t + Interned(x).v + len(LOG)
    return t


def test_a_dataclass_made_otherwise_with_a_post_init_is_refused_in_staged_code():
    """Its loop runs as Python (the trial is refused) rather than logging once while tracing."""
    assert_equivalent(sums_interned, jnp.arange(4.0))
    assert LOG == ["interned"] * 4
    error = conversion_error(interned_loop, jnp.float32(1.0), jnp.int32(3))
    assert "Interned" in error and "__post_init__" in error


def interned_loop(x, n):
    for i in range(n):
        x = x + Interned(x).v
    return x

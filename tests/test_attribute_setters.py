"""Storing into an attribute whose class runs the user's code for it: that code runs converted
(runtime/attribute_stores.py).

Converted code stored ``q.w = v`` as written, so a ``property``'s setter or deleter and a
``__setattr__`` / ``__delattr__`` of the user's ran unconverted, and a class with such a hook had its
``__init__`` run unconverted as well: in a loop that ``static_loops="auto"`` stages as a scan, a setter
appending to a module-level list ran once while tracing (``jit`` 14.0 for eager's 16.0, silently),
and an ``if`` on a traced value in it failed. The rewrite now stores through ``_ag.setattr(v, q, 'w')``
(``_ag.delattr`` deletes), which calls such hooks through the runtime.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import pytest
from support import assert_equivalent, assert_summed_in_a_scan, conversion_error, where

import autograph_lite

LOG = []


class Temp:
    def __init__(self, v):
        self.value = v

    @property
    def value(self):
        return self._v

    @value.setter
    def value(self, v):
        LOG.append("set")
        self._v = v

    @value.deleter
    def value(self):
        LOG.append("del")
        del self._v


def sets_in_init(xs):
    LOG.clear()
    t = 0.0
    for x in xs:
        t = t + Temp(x).value + len(LOG)
    return t


def test_a_setter_run_by_init_runs_once_per_object():
    """Before: jit gave 14.0 for eager's 16.0, the log 2 entries for 4."""
    assert assert_equivalent(sets_in_init, jnp.arange(4.0)) == 16.0
    assert LOG == ["set"] * 4


def sets_and_deletes(xs):
    LOG.clear()
    t = 0.0
    for x in xs:
        temp = Temp(x)
        temp.value += 1.0  # read through the getter, stored through the setter
        t = t + temp.value + len(LOG)
        del temp.value
    return t


def test_an_augmented_store_and_a_deletion_run_the_setter_and_the_deleter():
    """Before: the same value (the loop's stores run it as Python); the rewrite must keep it."""
    assert assert_equivalent(sets_and_deletes, jnp.arange(3.0)) == 21.0
    assert LOG == ["set", "set", "del"] * 3


class Watched:
    def __init__(self, k):
        self.k = k

    def __setattr__(self, name, value):
        LOG.append(name)
        super().__setattr__(name, value)

    def __delattr__(self, name):
        LOG.append(f"del {name}")
        object.__delattr__(self, name)


def watched(xs):
    LOG.clear()
    t = 0.0
    for x in xs:
        w = Watched(x)
        t = t + w.k + len(LOG)
    return t


def test_a_setattr_of_the_users_runs_converted():
    """Before: jit gave 14.0 for eager's 16.0, the log 2 entries for 4 (found by the generator:
    ``watched()``)."""
    assert assert_equivalent(watched, jnp.arange(4.0)) == 16.0
    assert LOG == ["k"] * 4


def test_a_delattr_of_the_users_runs_converted():
    """Before: the same (nothing staged); guards ``_ag.delattr``'s lookup of ``__delattr__``."""
    def deletes(x):
        LOG.clear()
        w = Watched(x)
        w.j = x + 1.0
        del w.j
        return w.k + len(LOG)

    assert assert_equivalent(deletes, jnp.float32(1.0)) == 4.0
    assert LOG == ["k", "j", "del j"]


class Magnitude:
    def __init__(self, v):
        self.size = v

    @property
    def size(self):
        return self._size

    @size.setter
    def size(self, v):
        if v < 0:
            v = -v
        self._size = v


def test_an_if_on_a_traced_value_in_a_setter_is_staged():
    """Before: the unconverted __init__ and setter raised a TracerBoolConversionError."""
    assert_summed_in_a_scan(lambda x: Magnitude(x - 2.0).size, jnp.arange(4.0))


def traced_sets(x, n):
    for i in range(n):
        x = x + Temp(x).value
    return x


def test_a_setter_with_an_effect_in_a_staged_loop_is_refused_at_its_line():
    """Before: no error; the log was appended to once while tracing."""
    error = conversion_error(traced_sets, jnp.float32(1.0), jnp.int32(3))
    assert error.startswith(f"{where(Temp.value.fset, 'LOG.append')}: ")


SHARED = Magnitude(1.0)


def put(x):
    SHARED.size = x
    return 1.0


def traced_puts(x, n):
    for i in range(n):
        x = x + put(x)
    return x


def test_a_store_into_an_object_from_outside_is_refused_at_the_store():
    """The owner's check comes first: the setter would store into an object the staged code did not make."""
    error = conversion_error(traced_puts, jnp.float32(1.0), jnp.int32(3))
    assert error.startswith(f"{where(put, 'SHARED.size')}: ")
    assert "this assignment to SHARED.size, which changes an object of class Magnitude" in error


def test_the_value_is_evaluated_before_the_owner():
    """As Python evaluates ``owner().value = value()``; the check written before the store read the
    owner first inside staged code, and ``_ag.setattr(q, 'w', v)`` would have everywhere."""
    def owner():
        LOG.append("owner")
        return Temp(0.0)

    def value():
        LOG.append("value")
        return 2.0

    def stores():
        LOG.clear()
        owner().value = value()
        return list(LOG)

    assert stores() == autograph_lite.convert(stores)() == ["value", "owner", "set", "set"]  # Temp(0.0), then the store


def sets_by_builtin(xs):
    LOG.clear()
    t = 0.0
    for x in xs:
        w = Watched(x)
        setattr(w, "j", x)  # noqa: B010
        t = t + w.j + len(LOG)
        delattr(w, "j")
    return t


def sets_magnitude_by_builtin(x):
    magnitude = Magnitude(1.0)
    setattr(magnitude, "size", x - 2.0)  # noqa: B010
    return magnitude.size


def test_setattr_and_delattr_run_the_users_hooks_converted():
    """Before: ``setattr(q, 'size', v)`` ran the setter unconverted, whose ``if`` on a traced value
    raised a TracerBoolConversionError under jit; the logging hooks gave eager's log (their loop ran
    as Python), as they must still."""
    assert assert_equivalent(sets_magnitude_by_builtin, jnp.float32(0.5)) == 1.5
    assert_equivalent(sets_by_builtin, jnp.arange(2.0))
    assert LOG == ["k", "j", "del j"] * 2
    with pytest.raises(TypeError, match="attribute name must be string"):
        autograph_lite.convert(lambda: setattr(Watched(1.0), 3, 4))()


@dataclasses.dataclass(frozen=True)
class Frozen:
    k: float


def test_a_store_into_a_frozen_dataclass_raises_as_python_does():
    """Before: the same (stored as written); now its ``__setattr__``, made without source, runs as it is."""
    def stores(x):
        f = Frozen(x)
        f.k = 2.0
        return f.k

    with pytest.raises(dataclasses.FrozenInstanceError) as eager:
        stores(1.0)
    with pytest.raises(dataclasses.FrozenInstanceError) as converted:
        autograph_lite.convert(stores)(1.0)
    assert str(converted.value) == str(eager.value)


class Private:
    def __init__(self, v):
        self.__v = v  # stored as _Private__v: left as written, which the code generator mangles

    def read(self):
        return self.__v


def test_a_private_name_is_stored_as_the_class_stores_it():
    """``_ag.setattr(v, self, '__v')`` would store an attribute the class never reads (AttributeError)."""
    assert assert_equivalent(lambda x: Private(x).read() + 1.0, jnp.float32(1.0)) == 2.0
    source = autograph_lite.to_source(Private.__init__)
    assert "self.__v = v" in source


def test_tuple_and_chained_targets_store_through_the_runtime_left_to_right():
    """Stored as written before (a setter there ran unconverted); passes/plain_targets.py makes each
    store an assignment of its own, in Python's order (tests/test_plain_targets.py checks the order)."""
    def stores(w, x):
        w.a, w.b = x, x
        w.c = w.d = x
        return w

    source = autograph_lite.to_source(stores)
    assert [line.split(", ")[2] for line in source.splitlines() if "_ag.setattr(" in line] == [
        "'a'", "'b'", "'c'", "'d'"]


class Counter:
    def __init__(self):
        self.n = 0


SWAPPED = Counter()


def swap():
    global SWAPPED
    SWAPPED = Counter()
    return 1


def adds_to_a_global_that_the_value_rebinds(x):
    global SWAPPED
    SWAPPED = Counter()
    first = SWAPPED
    SWAPPED.n += swap()
    return x + 2 * first.n + SWAPPED.n


def test_an_augmented_store_lands_on_the_owner_read_before_the_value():
    """Python reads SWAPPED before calling swap(), which rebinds it: the first Counter gets the 1.
    Found by review of the runtime store, which read the owner again after the value (1.0 for 2.0)."""
    assert assert_equivalent(adds_to_a_global_that_the_value_rebinds, 0.0) == 2.0
    assert "SWAPPED.n += _ag.call(swap)" in autograph_lite.to_source(adds_to_a_global_that_the_value_rebinds)


class Guarded:
    """The usual __setattr__: it hands the store on to object's, which runs the property's setter."""

    def __init__(self, k):
        self.k = k

    def __setattr__(self, name, v):
        super().__setattr__(name, v)

    @property
    def k(self):
        return self._k

    @k.setter
    def k(self, v):
        LOG.append("set")
        object.__setattr__(self, "_k", v)


def sets_through_super(xs):
    LOG.clear()
    t = 0.0
    for x in xs:
        t = t + Guarded(x).k + len(LOG)
    return t


def test_a_setter_that_super_setattr_runs_runs_converted():
    """super().__setattr__ ran the setter as written (found by review, present before): jit 14.0 for
    eager's 16.0, the log 2 entries for 4."""
    assert assert_equivalent(sets_through_super, jnp.arange(4.0)) == 16.0
    assert LOG == ["set"] * 4


def test_a_super_setattr_call_that_does_not_fit_raises_the_builtins_error():
    class Plain:
        def __setattr__(self, name, v):
            super().__setattr__(name)

    def stores(x):
        Plain().k = x
        return x

    with pytest.raises(TypeError) as eager:
        stores(1.0)
    with pytest.raises(TypeError) as converted:
        autograph_lite.convert(stores)(1.0)
    assert str(converted.value) == str(eager.value)

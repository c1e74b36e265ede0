"""Reading an attribute whose getter is the user's code: it runs converted (runtime/attribute_loads.py).

Converted code read ``Q(x).w`` as written, so a ``property``'s getter, a ``functools.cached_property``
and a ``__getattr__`` ran unconverted: in a loop that ``static_loops="auto"`` stages as a scan, a
getter appending to a module-level list ran once while tracing (``jit`` 20.0 for eager's 22.0,
silently), and an ``if`` on a traced value in it failed. The rewrite now reads attributes through
``_ag.getattr(q, 'w')``, which calls such getters through the runtime.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import pytest
from support import assert_equivalent, assert_summed_in_a_scan, conversion_error, where

import autograph_lite

LOG = []


class Gauge:
    def __init__(self, k):
        self.k = k

    @property
    def read(self):
        LOG.append("read")
        return 2.0 * self.k

    @property
    def size(self):
        if self.k < 0:
            return -self.k
        return self.k

    @functools.cached_property
    def doubled(self):
        LOG.append("doubled")
        return 2.0 * self.k


def reads_a_logging_property(xs):
    LOG.clear()
    t = 0.0
    for x in xs:
        t = t + Gauge(x).read + len(LOG)
    return t


def test_a_getter_with_an_effect_runs_once_per_read():
    assert assert_equivalent(reads_a_logging_property, jnp.arange(4.0)) == 22.0
    assert LOG == ["read"] * 4


def test_an_if_on_a_traced_value_in_a_getter_is_staged():
    """Run unconverted, the ``if`` raised a TracerBoolConversionError."""
    assert_summed_in_a_scan(lambda x: Gauge(x - 2.0).size, jnp.arange(4.0))


def reads_a_cached_property(xs):
    LOG.clear()
    t = 0.0
    for x in xs:
        gauge = Gauge(x)
        t = t + gauge.doubled + gauge.doubled + len(LOG)  # computed once per object, then read from its __dict__
    return t


def test_a_cached_property_of_a_new_object_is_computed_once_per_object():
    assert_equivalent(reads_a_cached_property, jnp.arange(4.0))
    assert LOG == ["doubled"] * 4


SHARED = Gauge(3.0)


def reads_a_shared_cached_property(xs):
    LOG.clear()
    SHARED.__dict__.pop("doubled", None)
    t = 0.0
    for x in xs:
        t = t + SHARED.doubled * x + len(LOG)
    return t


def traced_shared(x, n):
    for i in range(n):
        x = x + SHARED.doubled
    return x


def test_a_cached_property_of_an_object_from_outside_is_not_filled_while_tracing():
    """Its value would stay in the object: computed while tracing, a traced value."""
    assert_equivalent(reads_a_shared_cached_property, jnp.arange(4.0))
    assert LOG == ["doubled"]
    SHARED.__dict__.pop("doubled", None)
    error = conversion_error(traced_shared, jnp.float32(1.0), jnp.int32(3))
    assert error.startswith(f"{where(traced_shared, 'SHARED.doubled')}: ")
    assert "cached_property Gauge.doubled" in error


class Lookup:
    def __init__(self, k):
        self.k = k

    @property
    def missing(self):
        raise AttributeError("missing")  # Python then asks __getattr__

    def __getattr__(self, name):
        LOG.append(name)
        return self.k * len(name)


def reads_through_getattr(xs):
    LOG.clear()
    t = 0.0
    for x in xs:
        t = t + Lookup(x).abc + Lookup(x).missing + len(LOG)
    return t


def test_a_getattr_of_the_users_runs_converted_where_the_lookup_fails():
    assert_equivalent(reads_through_getattr, jnp.arange(3.0))
    assert LOG == ["abc", "missing"] * 3


def traced_reads(x, n):
    LOG.clear()
    for i in range(n):
        x = x + Gauge(x).read
    return x


def test_a_getter_with_an_effect_in_a_staged_loop_is_refused_at_its_line():
    error = conversion_error(traced_reads, jnp.float32(1.0), jnp.int32(3))
    assert error.startswith(f"{where(Gauge.read.fget, 'LOG.append')}: ")


def test_a_missing_attribute_raises_what_python_raises():
    def reads_nothing(x):
        return Gauge(x).nothing

    with pytest.raises(AttributeError) as eager:
        reads_nothing(1.0)
    with pytest.raises(AttributeError) as converted:
        autograph_lite.convert(reads_nothing)(1.0)
    assert str(converted.value) == str(eager.value)


def test_reads_through_library_modules_stay_as_written():
    def reads(x):
        return jnp.sin(x) * jnp.pi + Gauge(x).k

    source = autograph_lite.to_source(reads)
    assert "jnp.sin(x) * jnp.pi" in source and "_ag.getattr(_ag.call(Gauge, x), 'k')" in source


class Private:
    def __init__(self):
        self.__scale = 2.0  # stored as _Private__scale

    def scaled(self, x):
        if x > 0:
            return x * self.__scale  # read as written: the code generator mangles it as the class would
        return x


def test_a_private_name_is_read_as_the_class_reads_it():
    assert_equivalent(Private().scaled, jnp.float32(1.5))


class classproperty(property):
    """A property whose own ``__get__`` passes the class: what a read gives is its ``__get__``'s."""

    def __get__(self, owner, cls=None):
        return self.fget(type(owner) if cls is None else cls)


class Kinded:
    K = 3.0

    @classproperty
    def kind(cls):
        return cls.K if isinstance(cls, type) else -100.0


def test_a_property_subclass_with_its_own_get_is_read_as_written():
    """Found by review of the first version, which called the getter on the instance: -100.0 for 3.0."""
    assert assert_equivalent(lambda x: x + Kinded().kind, jnp.float32(1.0)) == 4.0


class Plus(Gauge):
    @property
    def read(self):
        return super().read + 1.0


def reads_through_super(xs):
    LOG.clear()
    t = 0.0
    for x in xs:
        t = t + Plus(x).read + len(LOG)
    return t


def test_a_base_classes_getter_read_through_super_runs_converted():
    """super().read ran the base's getter as written: under jit the log held 2 reads for eager's 3."""
    assert assert_equivalent(reads_through_super, jnp.arange(3.0)) == 15.0
    assert LOG == ["read"] * 3


def reads_by_name(xs):
    LOG.clear()
    t = 0.0
    for x in xs:
        t = t + getattr(Gauge(x), "read") + hasattr(Gauge(x), "read") + getattr(Gauge(x), "absent", 0.5) + len(LOG)  # noqa: B009
    return t


def test_getattr_and_hasattr_run_the_getter_converted():
    """getattr(q, 'read') / hasattr(q, 'read') ran the getter as written: under jit the log held 4 reads
    for eager's 6."""
    assert assert_equivalent(reads_by_name, jnp.arange(3.0)) == 22.5
    assert LOG == ["read", "read"] * 3


@pytest.mark.parametrize("arguments", [(Gauge(1.0), 3), (Gauge(1.0),), (Gauge(1.0), "k", 0.0, 1.0)])
def test_a_getattr_call_that_does_not_fit_raises_the_builtins_error(arguments):
    def reads(arguments):
        return getattr(*arguments)

    with pytest.raises(TypeError) as eager:
        reads(arguments)
    with pytest.raises(TypeError) as converted:
        autograph_lite.convert(reads)(arguments)
    assert str(converted.value) == str(eager.value)


class Dial:
    """A getter that gives the owner of a method call."""

    def __init__(self, k):
        self._gauge = Gauge(k)

    @property
    def gauge(self):
        LOG.append("gauge")
        return self._gauge

    def scaled(self, x):
        return self._gauge.k * x


def calls_a_method_of_a_getters_result(xs):
    LOG.clear()
    t = 0.0
    for x in xs:
        dial = Dial(x)
        t = t + dial.gauge.__class__.__name__.count("G") + dial.scaled(2.0) + len(LOG)
    return t


def test_the_owner_of_a_method_call_runs_its_getter_converted():
    """Before: ``dial.gauge.__class__...`` read ``dial.gauge`` as written: the getter's log grew once while
    tracing the scan (jit 24.0 for eager's 26.0)."""
    assert assert_equivalent(calls_a_method_of_a_getters_result, jnp.arange(4.0)) == 26.0
    assert LOG == ["gauge"] * 4
    source = autograph_lite.to_source(calls_a_method_of_a_getters_result)
    assert "_ag.getattr(_ag.getattr(_ag.getattr(dial, 'gauge'), '__class__'), '__name__').count" in source


class Holder:
    def __init__(self):
        self.value = 1.5


HELD = Holder()


def calls_a_builtin_through_an_attribute(x):
    if x > 0:
        HELD.value.hex()
    return x


def test_an_effect_message_names_the_call_as_written():
    """The owner is read through ``_ag.getattr`` now; the message still shows the user's text (as it did
    when the chain was read as written)."""
    error = conversion_error(calls_a_builtin_through_an_attribute, jnp.float32(1.0))
    assert "this call of HELD.value.hex(), made for its effect and not converted" in error

"""What making an object of the user's class runs: its ``__init__``, converted like any of its functions.

Before, converted code called the user's class as it was, so ``__init__`` ran unconverted: in a loop
that ``static_loops="auto"`` stages as a scan, an ``__init__`` that logs to a module-level list or
bumps a class attribute ran once while tracing, for eager's three times (``jit`` 6.0 for eager's
10.0, silently), and one that prints printed once, at trace time. ``__init__`` now runs converted on
an instance from ``object.__new__`` (what ``type.__call__`` does), so its effects are checked (the
static loop runs as Python; in a staged loop a located error) and its prints staged. Classes whose
instances are made otherwise (a metaclass ``__call__``, a ``__new__``, a library base, an
``__init__`` without source such as a dataclass's) are called as they are. Which containers an
``__init__`` stores are the new object's own: tests/test_init_effects_ownership.py.
"""

from __future__ import annotations

import abc
import dataclasses

import jax.numpy as jnp
import pytest
from support import assert_equivalent, conversion_error, primitives, where

import autograph_lite

LOG = [0]


class Logged:
    def __init__(self, k):
        LOG[0] += 1
        self.k = k


class Counted:
    made = 0

    def __init__(self, k):
        Counted.made += 1
        self.k = k


class CountedChild(Counted):
    def __init__(self, k):
        super().__init__(k * 2.0)  # the base's __init__, converted in turn, bumps the count


class Loud:
    def __init__(self, k):
        print("made", k)
        self.k = k


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y


def logged_loop(x):
    LOG[0] = 0
    for i in range(3):
        x = Logged(x).k + 1.0
    return x + LOG[0]


def counted_loop(x):
    Counted.made = 0
    for i in range(3):
        x = Counted(x).k + 1.0
    return x + Counted.made


def child_loop(x):
    Counted.made = 0
    for i in range(3):
        x = CountedChild(x).k + 1.0
    return x + Counted.made


@pytest.mark.parametrize("loop", [logged_loop, counted_loop, child_loop], ids=lambda f: f.__name__)
def test_an_init_with_an_effect_in_a_static_loop_runs_three_times(loop):
    assert_equivalent(loop, jnp.float32(1.0))


def test_the_log_is_as_eager_leaves_it():
    autograph_lite.jit(logged_loop)(jnp.float32(1.0))
    assert LOG == [3]


def traced_logged_loop(x, n):
    LOG[0] = 0
    for i in range(n):
        x = Logged(x).k + 1.0
    return x


def test_an_init_with_an_effect_in_a_staged_loop_is_refused_at_its_store():
    error = conversion_error(traced_logged_loop, jnp.float32(1.0), jnp.int32(3))
    assert error.startswith(f"{where(Logged.__init__, 'LOG[0] += 1')}: ")
    assert "LOG" in error


def loud_loop(x, n):
    for i in range(n):
        x = x + Loud(i).k
    return x


def test_a_print_in_init_prints_once_per_iteration(capsys):
    eager = loud_loop(jnp.float32(1.0), 3)
    printed = capsys.readouterr().out
    assert printed.count("made") == 3
    for _ in range(2):  # the second call runs the compiled program: it prints too
        assert float(autograph_lite.jit(loud_loop)(jnp.float32(1.0), jnp.int32(3))) == float(eager)
        assert capsys.readouterr().out == printed


def sums_points(xs):
    total = 0.0
    for x in xs:
        point = Point(x, 2.0 * x)
        total = total + point.x * point.y
    return total


def test_an_object_made_and_read_in_a_loop_body_stays_staged():
    assert_equivalent(sums_points, jnp.arange(4.0))
    assert "scan" in primitives(autograph_lite.convert(sums_points), jnp.arange(4.0))


class Abstract(abc.ABC):
    @abc.abstractmethod
    def value(self): ...


class ReturnsFromInit:
    def __init__(self):
        return 1


class ReturnsAnArray:
    def __init__(self):
        return jnp.zeros(())  # Python names an extension type by its dotted name: 'jaxlib._jax.ArrayImpl'


class NeedsArguments:
    def __init__(self, a, b):
        self.a = a


def _make(cls, *args):
    return lambda x: cls(*args)


@pytest.mark.parametrize("cls, args", [(Abstract, ()), (ReturnsFromInit, ()), (ReturnsAnArray, ()), (NeedsArguments, (1,))],
                         ids=["abstract", "init returns a value", "init returns an array", "missing argument"])
def test_making_an_object_raises_what_python_raises(cls, args):
    with pytest.raises(TypeError) as eager:
        cls(*args)
    with pytest.raises(TypeError) as converted:
        autograph_lite.convert(_make(cls, *args))(1.0)
    assert str(converted.value) == str(eager.value)


@dataclasses.dataclass
class Cell:
    v: float


class Singleton:
    instance = None

    def __new__(cls, k):
        if cls.instance is None:
            cls.instance = super().__new__(cls)
        return cls.instance

    def __init__(self, k):
        self.k = k


def test_classes_made_otherwise_are_called_as_they_are():
    def uses_both(x):
        total = 0.0
        for i in range(3):
            total = total + Cell(x).v + Singleton(x).k
        return total

    assert_equivalent(uses_both, jnp.float32(1.5))


class Base:
    def scale(self, x):
        if x > 0:
            return x * 2.0
        return -x


class Child(Base):
    def scale(self, x):
        return super().scale(x) + 1.0


def test_a_method_reached_through_super_is_converted():
    """``super().scale(x)`` ran the base's method unconverted: its ``if`` on a traced value failed."""
    for x in (jnp.float32(1.5), jnp.float32(-2.0)):
        assert_equivalent(lambda v: Child().scale(v), x)


class TrackedShape(abc.ABC):
    """abc.ABC takes no part in making an instance: its subclasses' __init__ is converted too."""

    def __init__(self, k):
        LOG[0] += 1
        self.k = k

    @abc.abstractmethod
    def area(self): ...


class Square(TrackedShape):
    def area(self):
        return self.k * self.k


def tracked_loop(x):
    LOG[0] = 0
    for i in range(3):
        x = Square(x).k + 1.0
    return x + LOG[0]


def local_class_loop(x):
    """The methods of a class defined inside a converted function are not part of its rewrite: they
    are converted when called, as any method is (they were taken as converted, and ran as written)."""
    class Local:
        def __init__(self, k):
            LOG[0] += 1
            self.k = k

    LOG[0] = 0
    for i in range(3):
        x = Local(x).k + 1.0
    return x + LOG[0]


@pytest.mark.parametrize("loop", [tracked_loop, local_class_loop], ids=lambda f: f.__name__)
def test_an_init_under_an_abc_base_or_in_a_local_class_is_converted(loop):
    assert_equivalent(loop, jnp.float32(1.0))


class Celsius:
    def __init__(self, v):
        self.value = v  # runs the property's setter

    @property
    def value(self):
        return self._v

    @value.setter
    def value(self, v):
        self._v = v * 1.0


def sums_celsius(x, n):
    for i in range(n):
        x = x + Celsius(x).value
    return x


def test_a_class_whose_stores_run_a_setter_is_made_as_it_was_in_staged_code():
    """Its __init__ runs as written: converted, the setter it runs would be refused in staged code."""
    assert float(autograph_lite.jit(sums_celsius)(jnp.float32(1.0), jnp.int32(3))) == sums_celsius(1.0, 3)


class CountedThroughType:
    made = 0

    def __init__(self, k):
        type(self).made += 1  # a class attribute bumped through the instance's class
        self.k = k


def counted_through_type_loop(x):
    CountedThroughType.made = 0
    for i in range(3):
        x = CountedThroughType(x).k + 1.0
    return x + CountedThroughType.made


def test_a_class_attribute_bumped_through_type_of_self_is_checked():
    assert_equivalent(counted_through_type_loop, jnp.float32(1.0))

"""Stores hidden one step further in a helper: nested item stores, ``setattr`` / ``delattr``, implicit user code.

A helper called from a loop that ``static_loops="auto"`` stages as a scan (or from a staged loop or
branch) runs once while tracing. Before these checks, each case below returned eager's value after
one iteration, silently: ``ROWS[0][1] += 1.0`` and ``del NESTED[0][-1]`` (the container is itself an
item), ``setattr(C, "n", ...)`` (a builtin left as written), a property setter or a ``__setitem__``
of the user's class on an object the staged code made (the store runs unconverted code that changes
a module-level log), and an instance a user ``__new__`` or metaclass ``__call__`` hands back shared.
Each is now exact in a static loop (the trial refuses it, so the loop runs as Python) and a located
``ConversionError`` in staged code; what the staged code owns (a local list of lists, an object it
made with plain attributes) keeps working staged. In-place operators on what a helper is handed:
tests/test_nested_effects_in_place.py.
"""

from __future__ import annotations

from typing import ClassVar

import jax.numpy as jnp
import pytest
from support import assert_equivalent, assert_summed_in_a_scan, conversion_error, where

import autograph_lite

ROWS = [[0.0, 0.0]]
NESTED = [[1.0, 2.0, 3.0, 4.0, 5.0]]
LOG = [0]
ATTRIBUTE = "n"  # setattr's usual use: a name held in a variable


class Counter:
    def __init__(self):
        self.n = 0


COUNTER = Counter()


class Holder:
    def __init__(self):
        self.rows = [[0.0, 0.0]]


HOLDER = Holder()
HOLDERS = [Holder()]


def bump_nested(v):
    ROWS[0][1] += 1.0
    return v + ROWS[0][1]


def bump_computed_index(v, k=0):
    ROWS[k + 0][1] += 1.0  # an index that is not read twice: checked through the root ROWS
    return v + ROWS[0][1]


def shrink_nested(v):
    del NESTED[0][-1]
    return v + len(NESTED[0])


def bump_through_attribute(v):
    HOLDER.rows[0][1] += 1.0  # the root is an attribute chain
    return v + HOLDER.rows[0][1]


def bump_through_item_attribute(v):
    HOLDERS[0].rows[0][1] += 1.0  # an attribute between the root and the container
    return v + HOLDERS[0].rows[0][1]


def bump_setattr(v):
    setattr(COUNTER, ATTRIBUTE, COUNTER.n + 1)
    return v + COUNTER.n


def drop_attribute(v):
    delattr(COUNTER, ATTRIBUTE)
    COUNTER.__dict__.setdefault("n", 5)
    return v + 1.0


def bump_copied_rows(v):
    rows = list(ROWS)  # a new list, but its rows are ROWS's own
    rows[0][1] += 1.0
    return v + rows[0][1]


def loop_of(helper, reset):
    def static_loop(x):
        reset()
        for i in range(3):
            x = helper(x)
        return x

    def traced_loop(x, n):
        reset()
        for i in range(n):
            x = helper(x)
        return x

    return static_loop, traced_loop


def reset_rows():
    ROWS[0][1] = 0.0


def reset_nested():
    NESTED[0] = [1.0, 2.0, 3.0, 4.0, 5.0]


def reset_holders():
    HOLDER.rows[0][1] = 0.0
    HOLDERS[0].rows[0][1] = 0.0


def reset_counter():
    COUNTER.n = 0


HELPERS = [
    (bump_nested, reset_rows, "ROWS[0][1] += 1.0", "this item assignment into ROWS[0], which mutates a list"),
    (bump_computed_index, reset_rows, "ROWS[k + 0][1] += 1.0", "this item assignment into ROWS[k + 0], which mutates a container"),
    (shrink_nested, reset_nested, "del NESTED[0][-1]", "this deletion of an item of NESTED[0], which mutates a list"),
    (bump_through_attribute, reset_holders, "HOLDER.rows[0][1] += 1.0", "this item assignment into HOLDER.rows[0], "
                                                                        "which mutates a list"),
    (bump_through_item_attribute, reset_holders, "HOLDERS[0].rows[0][1] += 1.0", "this item assignment into "
                                                                                 "HOLDERS[0].rows[0], which mutates a list"),
    (bump_setattr, reset_counter, "setattr(COUNTER", "this assignment to 'n' (setattr on a Counter), which changes "
                                                      "an object of class Counter that the staged code did not make"),
    (drop_attribute, reset_counter, "delattr(COUNTER", "this assignment to 'n' (delattr on a Counter)"),
    (bump_copied_rows, reset_rows, "rows[0][1] += 1.0", "this item assignment into rows[0], which mutates a list"),
]


@pytest.mark.parametrize("helper, reset, line, message", HELPERS, ids=[h[0].__name__ for h in HELPERS])
def test_a_static_loop_whose_helper_has_the_effect_runs_as_python(helper, reset, line, message):
    static_loop, _ = loop_of(helper, reset)
    assert_equivalent(static_loop, jnp.float32(1.0))


@pytest.mark.parametrize("helper, reset, line, message", HELPERS, ids=[h[0].__name__ for h in HELPERS])
def test_a_staged_loop_whose_helper_has_the_effect_is_refused_at_the_store(helper, reset, line, message):
    _, traced_loop = loop_of(helper, reset)
    error = conversion_error(traced_loop, jnp.float32(1.0), jnp.int32(3))
    assert error.startswith(f"{where(helper, line)}: {message}")


def test_nothing_is_deleted_before_the_refusal():
    NESTED[0] = [1.0, 2.0]
    with pytest.raises(autograph_lite.ConversionError):
        autograph_lite.jit(lambda x: shrink_nested(x) if x > 0 else x)(jnp.float32(1.0))
    assert NESTED[0] == [1.0, 2.0]


def test_a_deletion_in_a_static_loop_happens_once_per_iteration():
    """The trial traced the body once before running the loop as Python: a fourth deletion."""
    def deletes_local(x):
        rows = [[1.0, 2.0, 3.0, 4.0, 5.0]]
        for i in range(3):
            del rows[0][-1]
        return x + len(rows[0])

    assert assert_equivalent(deletes_local, jnp.float32(1.0)) == 3.0


def local_rows(x):
    rows = [[0.0, 1.0]]
    rows[0][0] = x
    del rows[0][-1]
    return rows[0][0] * 2.0 + len(rows[0])


def test_a_list_of_lists_built_inside_the_staged_code_may_be_changed():
    assert_summed_in_a_scan(local_rows, jnp.arange(4.0))


def test_setattr_on_an_object_the_staged_code_made_is_allowed():
    def build(x):
        counter = Counter()
        setattr(counter, ATTRIBUTE, x)
        return counter.n * 2.0

    assert_summed_in_a_scan(build, jnp.arange(4.0))


def test_setattr_with_a_name_that_is_not_a_string_raises_the_builtins_error():
    def bad(x):
        for i in range(2):
            setattr(COUNTER, 3, x)
        return x

    with pytest.raises(TypeError) as eager:
        bad(1.0)
    with pytest.raises(TypeError) as converted:
        autograph_lite.jit(bad)(jnp.float32(1.0))
    assert str(converted.value) == str(eager.value)


class Box:
    def __init__(self):
        self._v = 0.0

    @property
    def v(self):
        return self._v

    @v.setter
    def v(self, value):
        LOG[0] += 1
        self._v = value


class Logged:
    def __setitem__(self, key, value):
        LOG[0] += 1


class Collected:
    def __iadd__(self, other):
        LOG[0] += 1
        return self


class Single:
    shared = None

    def __new__(cls):
        if cls.shared is None:
            cls.shared = super().__new__(cls)
            cls.shared.n = 0
        return cls.shared


class OneOfEach(type):
    instances: ClassVar[dict] = {}

    def __call__(cls):
        return OneOfEach.instances.setdefault(cls, super().__call__())


class Registered(metaclass=OneOfEach):
    n = 0


class Plain:
    def __init__(self):
        self.n = 0

    @property
    def doubled(self):
        return self.n * 2


def sets_property(v):
    box = Box()
    box.v = v
    return box.v + LOG[0]


def sets_item(v):
    logged = Logged()
    logged[0] = v
    return v + LOG[0]


def adds_in_place(v):
    collected = Collected()
    collected += v
    return v + LOG[0]


def bumps_singleton(v):
    single = Single()
    single.n = single.n + 1
    return v + single.n


def bumps_registered(v):
    registered = Registered()
    registered.n = registered.n + 1
    return v + registered.n


def reset_log():
    LOG[0] = 0
    Single().n = 0
    Registered().n = 0


IMPLICIT = [
    (sets_property, "LOG[0] += 1", "this item assignment into LOG, which mutates a list from outside the staged code"),
    (sets_item, "logged[0] = v", "this store, which runs Logged.__setitem__() (the user's code, unconverted"),
    (adds_in_place, "collected += v", "this store, which runs Collected.__iadd__() (the user's code, unconverted"),
    (bumps_singleton, "single.n = single.n + 1", "this assignment to single.n, which changes an object of class "
                                                  "Single that the staged code did not make"),
    (bumps_registered, "registered.n = registered.n + 1", "this assignment to registered.n, which changes an "
                                                           "object of class Registered that the staged code did not make"),
]


@pytest.mark.parametrize("helper, line, message", IMPLICIT, ids=[h[0].__name__ for h in IMPLICIT])
def test_implicit_user_code_in_a_static_loop_runs_as_python(helper, line, message):
    static_loop, _ = loop_of(helper, reset_log)
    assert assert_equivalent(static_loop, jnp.float32(1.0)) == 7.0


@pytest.mark.parametrize("helper, line, message", IMPLICIT, ids=[h[0].__name__ for h in IMPLICIT])
def test_implicit_user_code_in_a_staged_loop_is_refused(helper, line, message):
    """A property's setter runs converted (runtime/attribute_stores.py): its effect is refused where it
    is written, in the setter; before, the store was refused for running the setter unconverted."""
    _, traced_loop = loop_of(helper, reset_log)
    error = conversion_error(traced_loop, jnp.float32(1.0), jnp.int32(3))
    assert error.startswith(f"{where(Box.v.fset if helper is sets_property else helper, line)}: {message}")


def test_an_object_made_with_plain_attributes_and_a_read_only_property_may_be_changed():
    def doubled(x):
        plain = Plain()
        plain.n = x
        return plain.doubled

    assert_summed_in_a_scan(doubled, jnp.arange(4.0))

"""Stores Python makes outside an assignment of one target: a ``for`` loop's target, a ``with`` item's,
each target of an unpacking or a chained assignment (passes/plain_targets.py).

Before, such a store into an attribute or an item ran as written: a property's setter with an effect,
in a loop that ``static_loops="auto"`` stages as a scan, ran once while tracing; ``for ys[0] in xs``
leaked a tracer out of the scan.
"""

from __future__ import annotations

import contextlib

import jax.numpy as jnp
from support import assert_equivalent, assert_same

import autograph_lite

LOG: list[str] = []


class Quiet:
    """A logging setter that ``__init__`` does not run (nothing else about making one is an effect)."""

    def __init__(self, k):
        self._k = k

    @property
    def k(self):
        return self._k

    @k.setter
    def k(self, value):
        LOG.append("set k")
        self._k = value


def loop_target():
    q = Quiet(0.0)
    for q.k in range(2):
        pass
    return q.k + len(LOG)


def with_target():
    q = Quiet(0.0)
    with contextlib.nullcontext(2.0) as q.k:
        pass
    return q.k + len(LOG)


def summed(helper):
    def run(xs):
        LOG.clear()
        t = 0.0
        for x in xs:
            t = t + x * helper()
        return t, len(LOG)

    run.__name__ = f"summed_{helper.__name__}"
    return run


def test_a_setter_run_by_a_loop_target_runs_once_per_store():
    """Before: jit 21.0 for eager's 19.0 (the inner loop's stores ran their setter while tracing only)."""
    run = summed(loop_target)
    expected = run(jnp.arange(3.0))
    assert_same(autograph_lite.jit(run)(jnp.arange(3.0)), expected)
    assert expected[1] == 6


def test_a_setter_run_by_a_with_target_runs_once_per_store():
    """Before: jit 12.0 for eager's 14.0."""
    run = summed(with_target)
    expected = run(jnp.arange(3.0))
    assert_same(autograph_lite.jit(run)(jnp.arange(3.0)), expected)
    assert expected[1] == 3


def item_loop_target(xs):
    ys = [0.0, 0.0]
    t = 0.0
    for ys[0] in xs:
        t = t + ys[0]
    return t, ys[0]


def test_an_item_as_a_loop_target_is_carried_out_of_the_scan():
    """Before: UnexpectedTracerError (the item store ran as written inside the scan body)."""
    assert_same(assert_equivalent(item_loop_target, jnp.arange(3.0)), (3.0, 2.0))
    assert "lax.scan" in str(autograph_lite.explain(item_loop_target, jnp.arange(3.0)))


def unpacked_in_order(x):
    rows = [0.0, 0.0, 0.0]
    i = 0
    rows[i], i = x, 2
    rows[i], *rest = x + 1.0, x, x
    return rows, i, rest


def test_an_unpacking_stores_into_its_targets_left_to_right():
    """``rows[i], i = v`` stores into the item of the old ``i``: every target takes a temporary."""
    rows, i, rest = assert_equivalent(unpacked_in_order, jnp.float32(5.0))
    assert_same((rows, i, rest), ([5.0, 0.0, 6.0], 2, [5.0, 5.0]))


class Recorded:
    """Logs its stores in order, and the contexts it opens."""

    def __setattr__(self, name, value):
        LOG.append(f"set {name}")
        super().__setattr__(name, value)

    @contextlib.contextmanager
    def opened(self, tag):
        LOG.append(f"enter {tag}")
        yield tag
        LOG.append(f"exit {tag}")


def stores_in_order(x):
    LOG.clear()
    r = Recorded()
    r.a = r.b = x
    r.c, (r.d, k) = x, (x, 1.0)
    with r.opened("first") as r.e, r.opened("second") as second:
        r.f = second
    return r.a + r.b + r.c + r.d + k


def test_chained_unpacked_and_with_stores_run_the_setters_in_python_order():
    """Pins the rewrite's order (this agreed before too: the stores ran as written, in Python's order)."""
    order = ["set a", "set b", "set c", "set d", "enter first", "set e", "enter second", "set f", "exit second",
             "exit first"]
    for run in (stores_in_order, autograph_lite.convert(stores_in_order), autograph_lite.jit(stores_in_order)):
        assert_same(run(jnp.float32(1.0)), 5.0)
        assert LOG == order


def annotated(x):
    q = Quiet(0.0)
    q.k: float = x
    return q.k


def test_an_annotated_store_runs_the_setter_converted():
    """Before: stored as written (a staged one refused, since its setter would have run unconverted)."""
    LOG.clear()
    assert_same(assert_equivalent(annotated, jnp.float32(3.0)), 3.0)
    assert "_ag.setattr(" in autograph_lite.to_source(annotated)

"""The trace session: empty after every converted call, whether it returned or raised, and per thread.

A probe called from inside the traced code (``look``) records what the session held at that moment,
so each test also shows that the state it expects to be gone was there during the trace.
"""

from __future__ import annotations

import contextvars
import dataclasses
import gc
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import jax
import jax.numpy as jnp
import pytest

import autograph_lite
from autograph_lite.runtime import appends, report, session

XS = jnp.arange(1.0, 4.0)
EMPTY: dict[str, Any] = {"staged": [], "iterated_arrays": [], "recorder": None, "trial_decisions": None,
                         "trial_keys_alive": [], "path": [], "skippable": 0, "conditions_traced_again": 0, "callback_watchers": [], "handlers": [], "cleanups": [],
                         "redirected": [], "call_depths": {}, "python_numbers": {}, "counter_bounds": {}}
seen: list[dict[str, Any]] = []
# The values of earlier tests' traces (int() / float() results, loop counters) that something outside
# the session still holds (JAX's own tracing state may keep a finished trace's tracers alive): not
# this test's to check. The session holds them weakly.
_held_from_earlier: set[int] = set()
_HELD_WEAKLY = ("python_numbers", "counter_bounds")
_meeting: list[threading.Barrier] = []  # the barrier the next call of `look` in a staged trace meets at


def state_of(trace_session: session.TraceSession) -> dict[str, Any]:
    """Every field of the session except its owner, as it is now (what it holds weakly, once the
    garbage collector has run: a finished trace's values are gone then)."""
    gc.collect()
    return {field.name: _not_from_earlier(value) if field.name in _HELD_WEAKLY else value
            for field in dataclasses.fields(trace_session) if field.name != "owner_thread"
            for value in [getattr(trace_session, field.name)]}


def _not_from_earlier(held: Any) -> dict[int, Any]:
    return {key: value for key, value in dict(held).items() if key not in _held_from_earlier}


def summary(trace_session: session.TraceSession) -> dict[str, Any]:
    """What the session holds, in comparable terms (no tracers)."""
    return {
        "staged": [type(context).__name__ for context in trace_session.staged],
        "iterated": len(trace_session.iterated_arrays),
        "remembering": trace_session.trial_decisions is not None,
        "recording": trace_session.recorder is not None,
        "calls": sorted(code.co_name for _, code in trace_session.call_depths),
    }


@autograph_lite.do_not_convert
def look() -> None:
    """Note what this thread's session holds; the first call inside a staged trace meets ``_meeting``."""
    seen.append(summary(session.current()))
    if _meeting and session.current().staged:
        barrier = _meeting.pop()
        barrier.wait()  # the other thread works now
        barrier.wait()  # it is done
        seen.append(summary(session.current()))


@pytest.fixture(autouse=True)
def fresh_probe() -> Iterator[None]:
    seen.clear()
    _meeting.clear()
    gc.collect()
    _held_from_earlier.clear()
    _held_from_earlier.update(key for name in _HELD_WEAKLY for key in getattr(session.current(), name).keys())
    yield
    assert state_of(session.current()) == EMPTY


def step(total: Any, x: Any) -> Any:
    look()
    return total + x


def loop_calling_a_converted_step(xs: Any) -> Any:
    total = 0.0
    for x in xs:
        for i in range(2):
            total = step(total, x * i)
    return total


@autograph_lite.do_not_convert
def raise_now() -> None:
    # Not converted: a Python exception while tracing (a `raise` in converted code under a staged
    # statement is a run-time check, tests/test_runtime_checks.py).
    raise ValueError("raised inside the trace")


def fails(value: Any) -> Any:
    look()
    raise_now()


def raises_in_a_loop_body(xs: Any) -> Any:
    total = 0.0
    for x in xs:
        total = fails(total + x)
    return total


def raises_in_a_branch_inside_a_loop(xs: Any) -> Any:
    total = 0.0
    for x in xs:
        if x > 0:
            total = fails(total)
        else:
            total = total + x
    return total


def raises_in_a_branch(x: Any) -> Any:
    if x > 0:
        y = fails(x)
    else:
        y = x
    return y


def appends_to(ys: Any, n: Any) -> Any:
    for i in range(n):
        ys.append(i)
    return ys


def traced_branch(x: Any) -> Any:
    if x > 0:
        y = x * 2
    else:
        y = -x
    return y


def factorial(n: Any) -> Any:
    look()
    if n <= 1:
        return 1
    return n * factorial(n - 1)


def test_session_is_empty_after_a_converted_call_that_used_every_piece_of_state() -> None:
    result = autograph_lite.jit(loop_calling_a_converted_step)(XS)
    assert float(result) == pytest.approx(6.0)
    # Both `for` statements run (the inner one over a range, with no array to watch), both staged.
    assert {"staged": ["Collector", "Collector"], "iterated": 2, "remembering": True, "recording": False,
            "calls": ["step"]} in seen
    assert state_of(session.current()) == EMPTY


@pytest.mark.parametrize("static_loops", ["auto", "stage"])
@pytest.mark.parametrize("function, staged_when_raised", [
    (raises_in_a_loop_body, ["Collector"]),
    (raises_in_a_branch_inside_a_loop, ["Collector", "Branch"]),
])
def test_session_is_empty_after_a_raise_inside_a_staged_loop(
    function: Callable[..., Any], staged_when_raised: list[str], static_loops: str,
) -> None:
    with pytest.raises(ValueError, match="raised inside the trace"):
        autograph_lite.jit(function, static_loops=static_loops)(XS)
    assert seen[0] == {"staged": staged_when_raised, "iterated": 1, "remembering": True, "recording": False,
                       "calls": ["fails"]}
    assert state_of(session.current()) == EMPTY
    # An append from outside staged code runs as Python again: no staged context was left behind.
    assert autograph_lite.convert(appends_to)([], 3) == [0, 1, 2]


def test_session_is_empty_after_a_raise_inside_a_traced_branch() -> None:
    with pytest.raises(ValueError, match="raised inside the trace"):
        autograph_lite.jit(raises_in_a_branch)(jnp.float32(1.0))
    assert seen[0] == {"staged": ["Branch"], "iterated": 0, "remembering": False, "recording": False,
                       "calls": ["fails"]}
    assert state_of(session.current()) == EMPTY
    assert autograph_lite.convert(appends_to)([], 2) == [0, 1]


def test_recursion_depths_are_counted_during_the_call_and_gone_after_it() -> None:
    assert autograph_lite.convert(factorial)(3) == 6
    assert [entry["calls"] for entry in seen] == [[], ["factorial"], ["factorial"]]  # the outermost is called directly
    seen.clear()
    with pytest.raises(autograph_lite.ConversionError, match="calls itself"):
        autograph_lite.jit(factorial)(jnp.int32(3))
    assert state_of(session.current()) == EMPTY


def test_explain_records_then_leaves_no_recorder() -> None:
    explanation = autograph_lite.explain(loop_calling_a_converted_step, XS)
    assert [decision.outcome for decision in explanation.decisions] == ["lax.scan", "lax.scan"]
    assert any(entry["recording"] for entry in seen)
    assert session.current().recorder is None


def test_paused_records_nothing_and_gives_the_recorder_back_even_after_a_raise() -> None:
    converted = autograph_lite.convert(traced_branch)

    def trace() -> None:  # a new function each time, so that no cache skips tracing
        jax.make_jaxpr(lambda x: converted(x))(jnp.float32(1.0))

    with report.Recorder() as recorder:
        with report.paused():
            trace()
            assert session.current().recorder is None
        with pytest.raises(ValueError), report.paused():
            raise ValueError
        assert session.current().recorder is recorder
        trace()
    assert [(decision.construct, decision.outcome) for decision in recorder.decisions] == [("`if`", "lax.select_n")]
    assert session.current().recorder is None


def test_two_threads_tracing_at_once_do_not_see_each_other() -> None:
    """Thread A stops inside its staged loop (and records for ``explain``) while B converts and traces."""
    _meeting.append(threading.Barrier(2, timeout=60))
    barrier = _meeting[0]

    def thread_a() -> autograph_lite.Explanation:
        return autograph_lite.explain(loop_calling_a_converted_step, XS, static_loops="stage")

    def thread_b() -> dict[str, Any]:
        barrier.wait()  # A is inside its staged loop body
        try:
            own = state_of(session.current())
            appended = autograph_lite.convert(appends_to)([], 3)
            traced = autograph_lite.jit(traced_branch)(jnp.float32(-2.0))
            jaxpr = jax.make_jaxpr(autograph_lite.convert(traced_branch))(jnp.float32(1.0))
            after = state_of(session.current())
        finally:
            barrier.wait()  # let A go on, even after a failure here
        return {"own": own, "appended": appended, "traced": float(traced), "select": "select_n" in str(jaxpr), "after": after}

    with ThreadPoolExecutor(max_workers=2) as pool:
        future_a, future_b = pool.submit(thread_a), pool.submit(thread_b)
        explanation, b = future_a.result(), future_b.result()

    assert b == {"own": EMPTY, "appended": [0, 1, 2], "traced": 2.0, "select": True, "after": EMPTY}
    inside_a = {"staged": ["Collector", "Collector"], "iterated": 2, "remembering": True, "recording": True,
                "calls": ["step"]}
    assert seen[:2] == [inside_a, inside_a]  # before and after B's work: A's session untouched
    # A's recorder got A's two loops and nothing of B's `if`.
    assert [(decision.construct, decision.outcome) for decision in explanation.decisions] == [
        ("`for` loop", "lax.scan"), ("`for` loop", "lax.scan")]


def test_a_context_copied_into_another_thread_gets_a_session_of_its_own() -> None:
    own = session.current()
    with appends.inside(appends.Forbidden("test context", None)):
        copied = contextvars.copy_context()
        assert copied.run(session.current) is own  # the same thread shares it
        with ThreadPoolExecutor(max_workers=1) as pool:
            other, innermost = pool.submit(copied.run, lambda: (session.current(), appends.innermost())).result()
        assert appends.innermost() is not None
    assert other is not own
    assert innermost is None


cleanups_seen: list[int] = []


@autograph_lite.do_not_convert
def look_at_cleanups() -> None:
    cleanups_seen.append(len(session.current().cleanups))


def raises_inside_try_with_finally(x: Any) -> Any:
    try:
        look_at_cleanups()
        y = fails(x)
    finally:
        look_at_cleanups()
    return y


def test_session_is_empty_after_a_raise_inside_a_try_with_a_finally() -> None:
    cleanups_seen.clear()
    with pytest.raises(ValueError, match="raised inside the trace"):
        autograph_lite.jit(raises_inside_try_with_finally)(jnp.float32(1.0))
    assert cleanups_seen == [1, 1]  # the `try` body and its `finally` are one cleanup region (runtime/cleanups.py)
    assert state_of(session.current()) == EMPTY

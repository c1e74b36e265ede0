"""Containers updated in place by a staged loop with an early exit, and by a loop nested in a traced
``if`` (runtime/staged_loops.py ``run_if``, runtime/appends.py ``copied_by``).

A ``for`` loop over a static range with a ``break`` or ``return`` on a traced value masks each
iteration with a ``lax.cond``. That cond ran the iteration on the loop's own values, so a dict it
updated in place came out of the cond as a new dict: the update looked lost, and the loop was refused
as "updated in place and then replaced" (with a fix, ``d = dict(d)``, refused the same way). A loop
inside a traced ``if`` took the branch's copy of a dict for its own, so its trial stored a tracer of
its own trace into the dict: JAX's ``UnexpectedTracerError`` at the call.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from support import assert_same

import autograph_lite

F32 = jnp.float32


def doubled_until_below(x):
    d = {"v": x}
    for _ in range(4):
        d["v"] = d["v"] * 2
        if d["v"] < -2:
            break
    return d["v"]


def best_until_sentinel(xs):
    state = {"best": xs[0], "index": 0}
    for i in range(xs.shape[0]):
        if xs[i] > state["best"]:
            state["best"] = xs[i]
            state["index"] = i
        if xs[i] < -100:
            return state["best"], -1
    return state["best"], state["index"]


def halve_until_small(values, limit):
    for k in range(3):
        values[0] = values[0] / 2
        if values[0] < limit:
            return k
    return -1


def caller_sees_the_update(x):
    values = [x, x + 1]
    steps = halve_until_small(values, 1.0)
    return values, steps


@pytest.mark.parametrize("function, args", [
    (doubled_until_below, (F32(1.5),)),
    (doubled_until_below, (F32(-1.5),)),
    (best_until_sentinel, (jnp.array([1.0, 5.0, -200.0, 7.0]),)),
    (best_until_sentinel, (jnp.array([1.0, 2.0, 3.0, 4.0]),)),
    (caller_sees_the_update, (F32(5.0),)),
    (caller_sees_the_update, (F32(1.5),)),
])
def test_an_update_in_place_in_a_loop_with_a_traced_exit_agrees_with_eager(function, args):
    expected = function(*args)
    assert_same(autograph_lite.jit(function)(*args), expected)
    assert_same(autograph_lite.convert(function)(*args), expected)


def test_vmap_of_the_loop_with_a_traced_exit_agrees_per_example():
    xs = jnp.array([[1.0, 5.0, -200.0, 7.0], [1.0, 2.0, 3.0, 4.0]])
    best, index = jax.vmap(autograph_lite.jit(best_until_sentinel))(xs)
    for row, (b, i) in enumerate(zip(best, index)):
        assert_same((b, i), jax.tree_util.tree_map(jnp.asarray, best_until_sentinel(xs[row])))


def alias_updated_in_a_loop_inside_a_traced_if(x, c):
    state = {"a": c, "b": x}
    if c[2] != 5:
        for r in c:
            alias = state
            alias["a"] = jnp.where(c == r, c * 2, state["a"])
        return state
    state["b"] = -1.0
    return state


@pytest.mark.parametrize("c", [jnp.array([-0.5, -3.0, -3.0]), jnp.array([1.0, 2.0, 5.0])])
def test_a_loop_in_a_traced_if_updating_the_branchs_dict_leaks_no_tracer(c):
    """The loop's trial refuses the store into a dict it does not carry, so the loop runs as Python in
    the branch (was: the trial's tracer stored into the branch's dict, JAX's UnexpectedTracerError)."""
    expected = alias_updated_in_a_loop_inside_a_traced_if(F32(-5.5), c)
    jitted = autograph_lite.jit(alias_updated_in_a_loop_inside_a_traced_if)
    assert_same(jitted(F32(-5.5), c), expected)
    assert_same(jitted(F32(-5.5), c), expected)  # the cached call


def magnitudes(xs):
    out = []
    for x in xs:
        if x > 0:
            out.append(x)
        else:
            out.append(-x)
    return out


def magnitudes_chosen_then_appended(xs):
    out = []
    for x in xs:
        v = x if x > 0 else -x
        out.append(v)
    return out


def test_an_append_in_each_branch_is_refused_with_a_fix_that_works():
    """Both branches append once: the refusal says why a staged branch cannot append (it did claim the
    number of appends depends on a traced value), and its fix, choosing the value and appending after
    the ``if``, gives eager's list."""
    xs = jnp.array([1.0, -2.0, 3.0])
    with pytest.raises(autograph_lite.ConversionError) as raised:
        autograph_lite.jit(magnitudes)(xs)
    assert "a list's length cannot depend on which one does" in str(raised.value)
    assert "append it once after the `if`" in raised.value.hint
    assert_same(autograph_lite.jit(magnitudes_chosen_then_appended)(xs), magnitudes(xs))

"""Lists and dicts updated in place inside staged statements stay the objects they were
(runtime/kept_containers.py): every other way to them sees the update, as eagerly.

Each program is run eagerly, converted on concrete values, and under ``autograph_lite.jit`` (where its
conditions and trip counts are traced); all three must agree. Before the write-back, the update
reached only the name the statement carries: the list holding a dict, a helper's caller and an
alias kept the old items, silently.
"""

from __future__ import annotations

import contextlib
import io

import jax
import jax.numpy as jnp
import pytest
from support import assert_same

import autograph_lite
from autograph_lite.errors import ConversionError

F32, I32 = jnp.float32, jnp.int32


def agrees(function, *args):
    """``function`` under ``autograph_lite.jit`` and converted gives eager's result and output."""
    expected, expected_out = _run(function, *args)
    for mode, converted in (("convert", autograph_lite.convert(function)), ("jit", autograph_lite.jit(function))):
        result, out = _run(converted, *args)
        assert_same(result, expected, what=mode)
        assert out == expected_out, (mode, out, expected_out)


def _run(function, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = function(*args)
        jax.effects_barrier()
    return result, out.getvalue()


def layers_clipped(ws, gs, limit):
    layers = [{"w": ws[0]}, {"w": ws[1]}]
    for layer, g in zip(layers, gs):
        if jnp.abs(g) < limit:
            layer["w"] = layer["w"] - 0.1 * g
    return layers[0]["w"], layers[1]["w"]


@pytest.mark.parametrize("limit", [10.0, 100.0, 0.1])
def test_a_list_of_dicts_updated_in_a_traced_if_inside_a_python_loop(limit):
    agrees(layers_clipped, jnp.array([1.0, 1.0]), jnp.array([0.5, 50.0]), F32(limit))


def bump(state, c):
    if c > 0:
        state["x"] = state["x"] + 1.0
    return state


def calls_bump_for_its_effect(x, c):
    state = {"x": x}
    bump(state, c)
    return state["x"]


def set_first(buffer, v):
    if v > 0:
        buffer[0] = v
    return buffer


def calls_set_first_for_its_effect(v):
    buffer = [v * 0.0, v * 0.0]
    set_first(buffer, v)
    return buffer[0]


@pytest.mark.parametrize("c", [1, -1])
def test_a_helper_updating_its_argument_in_a_traced_if_reaches_the_caller(c):
    agrees(calls_bump_for_its_effect, F32(1.5), I32(c))
    agrees(calls_set_first_for_its_effect, F32(3.0 * c))


def alias_in_if(w, c):
    layers = [{"w": w}]
    layer = layers[0]
    if c > 0:
        layer["w"] = layer["w"] * 2.0
    return layers[0]["w"], layer["w"]


def alias_in_while(w, n):
    box = {"v": w}
    boxes = [box]
    i = 0
    while i < n:
        box["v"] = box["v"] + 1.0
        i += 1
    return boxes[0]["v"]


def alias_in_traced_range(w, n):
    box = [w]
    boxes = (box,)
    for _ in range(n):
        box[0] = box[0] * 2.0
    return boxes[0][0]


@pytest.mark.parametrize("c", [3, 0])
def test_another_name_sees_an_update_made_in_a_staged_statement(c):
    agrees(alias_in_if, F32(1.5), I32(c))
    agrees(alias_in_while, F32(1.5), I32(c))
    agrees(alias_in_traced_range, F32(1.5), I32(c))


def switch_updates(x, k):
    totals = {"small": x * 0.0, "large": x * 0.0}
    seen = [totals]
    if k == 0:
        totals["small"] = totals["small"] + x
    elif k == 1:
        totals["large"] = totals["large"] + x
    elif k == 2:
        totals["small"] = totals["small"] - x
    return seen[0]["small"], seen[0]["large"]


@pytest.mark.parametrize("k", [0, 1, 2, 5])
def test_a_switch_updates_in_place(k):
    agrees(switch_updates, F32(2.0), I32(k))


def ordered(x):
    observation = {"velocity": x * 0.0, "position": x}
    if x > 0:
        observation["velocity"] = x * 2.0
    print(observation)
    print(f"{observation}")
    return jnp.stack(list(observation.values()))


def made_in_branches(x):
    if x > 0:
        d = {"z": x, "a": x * 2.0}
    else:
        d = {"z": -x, "a": x}
    return jnp.stack(list(d.values()))


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_a_dict_keeps_its_key_order(x):
    agrees(ordered, F32(x))
    agrees(made_in_branches, F32(x))  # sorted, the values would come out as [a, z]


def keeps_identity(x, c):
    d = {"a": x}
    original = d
    if c > 0:
        d["a"] = d["a"] + 1.0
    return d is original, original["a"]


def test_the_updated_container_is_the_original_object():
    for c in (1, -1):
        assert bool(autograph_lite.jit(keeps_identity)(F32(1.0), I32(c))[0])  # d is original: a Python bool, jit returns it as an array
        agrees(keeps_identity, F32(1.0), I32(c))


def rebinds_in_one_branch(x, c):
    d = {"a": x}
    if c > 0:
        d["a"] = d["a"] + 1.0
    else:
        d = {"a": x * 10.0}
    return d["a"]


def test_a_name_updated_in_one_branch_and_rebound_in_the_other_has_each_paths_value():
    for c in (1, -1):
        agrees(rebinds_in_one_branch, F32(1.0), I32(c))


def reads_stale_in_if(w, c):
    layers = [{"w": w}]
    layer = layers[0]
    if c > 0:
        layer["w"] = layer["w"] * 2.0
        seen = layers[0]["w"]
    else:
        seen = w
    return seen


def reads_stale_in_while(w, n):
    layers = [{"w": w}]
    layer = layers[0]
    total = w * 0.0
    i = 0
    while i < n:
        layer["w"] = layer["w"] * 2.0
        total = total + layers[0]["w"]
        i += 1
    return total


def shared_in_while(w, n):
    layers = [{"w": w}]
    layer = layers[0]
    total = w * 0.0
    i = 0
    while i < n:
        layer["w"] = layer["w"] * 2.0
        layers = layers
        total = total + layers[0]["w"]
        i += 1
    return total


def test_reading_the_original_inside_the_statement_is_refused():
    with pytest.raises(ConversionError, match="'layers' reaches a dict whose items this branch of the `if` updates"):
        autograph_lite.jit(reads_stale_in_if)(F32(1.5), I32(1))
    with pytest.raises(ConversionError, match="'layers' reaches a dict whose items this `while` loop updates"):
        autograph_lite.jit(reads_stale_in_while)(F32(1.5), I32(3))
    with pytest.raises(ConversionError, match="'layer' and 'layers\\[0\\]' are one dict"):
        autograph_lite.jit(shared_in_while)(F32(1.5), I32(3))


def carries_both_in_if(w, c):
    layers = [{"w": w}]
    layer = layers[0]
    if c > 0:
        layers = layers
        layer["w"] = layer["w"] * 2.0
        seen = layers[0]["w"]
    else:
        seen = w
    return seen, layers[0]["w"]


def test_a_branch_sees_its_update_through_every_carried_name():
    for c in (1, -1):
        agrees(carries_both_in_if, F32(1.5), I32(c))


def replaced_in_one_branch_held_elsewhere(x):
    d = {"a": x}
    held = [d]
    if x > 0:
        d = {"a": x * 5.0}
    else:
        d["a"] = x * 7.0
    return held[0]["a"], d["a"]


def test_the_original_sees_the_update_of_the_branch_that_keeps_it():
    # one branch updates d in place, the other binds a new dict: the list holding the original sees
    # the update on the first path only (it saw none: the write-back needs every branch to agree)
    for x in (1.0, -1.0):
        agrees(replaced_in_one_branch_held_elsewhere, F32(x))


def updated_then_replaced_in_a_loop(n):
    d = {"v": jnp.float32(0.0)}
    held = [d]
    i = 0
    while i < n:
        if i == 1:
            d = {"v": d["v"] + 100.0}
        else:
            d["v"] = d["v"] + 1.0
        i += 1
    return held[0]["v"], d["v"]


def test_a_container_updated_and_then_replaced_in_a_staged_loop_is_refused():
    # the first iteration updates the original, a later one replaces it: the loop hands back the new
    # one only, so the original's update would be lost for the list that holds it
    with pytest.raises(ConversionError, match="updated in place in this staged statement and then replaced"):
        autograph_lite.jit(updated_then_replaced_in_a_loop)(I32(3))


def step_weight(params, g):
    params["w"] = params["w"] - 0.5 * g


def steps_through_a_helper_in_a_traced_if(w, g):
    params = {"w": w}
    if g > 0:
        step_weight(params, g)
    elif g < -1:
        step_weight(params=params, g=-g)
    return params["w"]


def steps_the_callers_params(params, g):
    if g > 0:
        step_weight(params, g)
    return g * 2.0


def hands_its_params_to_a_stepping_helper(w, g):
    params = {"w": w}
    doubled = steps_the_callers_params(params, g)
    return params["w"], doubled


@pytest.mark.parametrize("g", [1.0, -0.5, -3.0])
def test_a_helper_called_in_a_traced_if_updates_the_callers_container(g):
    agrees(steps_through_a_helper_in_a_traced_if, F32(2.0), F32(g))
    agrees(hands_its_params_to_a_stepping_helper, F32(2.0), F32(g))


def steps_through_a_helper_in_a_loop(w, g, n):
    params = {"w": w, "calls": 3}
    for k in range(n):
        if g > k:
            step_weight(params, g)
    return params["w"], params["calls"] * 2**30 // 1024


@pytest.mark.parametrize("g", [2.5, -1.0])
def test_a_loop_around_a_traced_if_that_hands_a_dict_to_a_helper_carries_it(g):
    agrees(steps_through_a_helper_in_a_loop, F32(2.0), F32(g), I32(3))


SETTINGS = {"scale": 2.0}


def reads_its_arguments(settings, module, x):
    return module.abs(x) * settings["scale"]  # the result is dropped: a call made for its effect


def hands_globals_to_a_helper(x):
    if x > 0:
        reads_its_arguments(SETTINGS, jnp, x)
    return x * SETTINGS["scale"]


@pytest.mark.parametrize("x", [1.5, -1.5])
def test_globals_and_modules_handed_to_a_helper_in_a_traced_if_stay_globals(x):
    agrees(hands_globals_to_a_helper, F32(x))


def logs_in_a_static_loop(x):
    n = 0
    for i in range(3):
        if x > i:
            reads_its_arguments(SETTINGS, jnp, x)  # hands x to a helper: the loop carries x, unchanged
        n = n + 2
    return jnp.zeros(n) + x  # n must stay a Python int: the loop runs as Python


def test_a_loop_that_only_hands_a_traced_value_on_stays_python():
    agrees(logs_in_a_static_loop, F32(1.0))
    assert "Python loop" in str(autograph_lite.explain(logs_in_a_static_loop, F32(1.0)))

"""A name that a traced ``if`` binds to a list or dict that already exists stays that object
(runtime/kept_containers.py ``run_recording``'s ``originals``): eagerly ``best = params`` makes both
names one dict, on every path, and a later in-place update of ``params`` shows through ``best``. The
staged ``if`` handed back a new dict rebuilt from its outputs, so the update did not show, silently
(an early-stopping snapshot kept the old weights where eager Python keeps the same dict). A name bound
to it on one path only, and to another container on the other, is a new container after the ``if``
(docs/semantics.md)."""

from __future__ import annotations

import jax.numpy as jnp
import pytest
from support import assert_same

import autograph_lite

F32 = jnp.float32


def rebound_to_itself(params, loss, best):
    best_params = params
    if loss < best:
        best_params = params
    params["w"] = params["w"] * 3.0
    return best_params["w"]


def bound_on_every_path(params, loss, best):
    best_params = None
    if loss < best:
        best_params = params
    else:
        best_params = params
    params["w"] = params["w"] * 3.0
    return best_params["w"]


def list_snapshot(ws, loss, best):
    snap = ws
    if loss < best:
        snap = ws
    ws[0] = ws[0] * 3.0
    return snap[0]


@pytest.mark.parametrize("loss", [F32(0.5), F32(2.0)])
@pytest.mark.parametrize("function, make", [
    (rebound_to_itself, lambda: ({"w": jnp.array([1.0])},)),
    (bound_on_every_path, lambda: ({"w": jnp.array([1.0])},)),
    (list_snapshot, lambda: ([jnp.array([1.0])],)),
])
def test_a_name_bound_in_a_traced_if_to_an_existing_container_sees_its_updates(function, make, loss):
    expected = function(*make(), loss, F32(1.0))
    assert_same(autograph_lite.jit(function)(*make(), loss, F32(1.0)), expected)
    assert_same(autograph_lite.convert(function)(*make(), loss, F32(1.0)), expected)

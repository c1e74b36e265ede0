"""Converted functions on eight host CPU devices: ``NamedSharding`` inputs under jit, and ``shard_map``.

Run by tests/test_sharding.py in a subprocess, because the device count is fixed when JAX starts:
the test sets ``XLA_FLAGS=--xla_force_host_platform_device_count=8`` for this process only. Each
check compares with eager Python on host arrays; the last line says how many checks passed.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

import autograph_lite

DEVICES = 8


def clip_rows(xs, limit):
    """A traced `if` per row, inside a `for` over the rows (a scan)."""
    out = []
    for row in xs:
        if row.sum() > limit:
            row = row * (limit / row.sum())
        out.append(row)
    return jnp.stack(out)


def halvings(x):
    """A `while` whose trip count depends on the data."""
    count = 0
    while x.max() > 1.0:
        x = x / 2
        count += 1
    return x, count


def first_negative(xs):
    """A `break` in a loop over a sharded array's rows, carrying an index: a while_loop."""
    found = -1
    for i, x in enumerate(xs):
        if x.min() < 0:
            found = i
            break
    return found


def first_negative_minimum(xs):
    """The same search carrying the row's minimum, a float: a masked scan."""
    found = 0.0
    for x in xs:
        if x.min() < 0:
            found = x.min()
            break
    return found


def scaled(x, scale):
    """Elementwise work under a traced `if`: the output keeps the input's sharding."""
    if scale > 0:
        return x * scale
    return -x


def per_shard_steps(block):
    """Per-device data-dependent control flow: each shard runs its own number of iterations."""
    steps = 0
    total = block.sum()
    while total > 1.0 and steps < 50:
        total = total / 3
        steps += 1
    return jnp.full((1,), steps, jnp.int32), jnp.full((1,), total)


def eager(function, *args):
    """The function run as plain Python on NumPy-backed host values."""
    return jax.tree_util.tree_map(np.asarray, function(*args))


def assert_close(got, want):
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


def main() -> None:
    assert len(jax.devices()) == DEVICES, jax.devices()
    mesh = Mesh(np.array(jax.devices()), ("x",))
    rows = NamedSharding(mesh, P("x"))
    rng = np.random.default_rng(0)
    data = rng.uniform(-1.0, 4.0, size=(16, 4)).astype(np.float32)
    checks = 0

    sharded = jax.device_put(data, rows)
    assert len(sharded.sharding.device_set) == DEVICES

    # (a) jit with NamedSharding inputs: same values as eager, staged as the lax primitive.
    for limit in (2.0, 100.0):
        assert_close(autograph_lite.jit(clip_rows)(sharded, limit), eager(clip_rows, data, limit))
        checks += 1
    assert "scan" in str(jax.make_jaxpr(autograph_lite.convert(clip_rows))(sharded, 2.0))

    positive = np.abs(data) * 10
    halved, count = autograph_lite.jit(halvings)(jax.device_put(positive, rows))
    assert_close((halved, count), eager(halvings, positive))
    assert "while" in str(jax.make_jaxpr(autograph_lite.convert(halvings))(positive))
    # The loop's elementwise carry stays split over the rows; the scalar count is replicated.
    assert halved.sharding.is_equivalent_to(rows, halved.ndim), halved.sharding
    assert count.sharding.is_fully_replicated, count.sharding
    checks += 1

    assert "while" in str(jax.make_jaxpr(autograph_lite.convert(first_negative))(sharded))
    assert "scan" in str(jax.make_jaxpr(autograph_lite.convert(first_negative_minimum))(sharded))
    for table in (data, np.abs(data)):
        got = autograph_lite.jit(first_negative)(jax.device_put(table, rows))
        assert int(got) == first_negative(table), (int(got), first_negative(table))
        assert_close(autograph_lite.jit(first_negative_minimum)(jax.device_put(table, rows)),
                     eager(first_negative_minimum, table))
        checks += 1
    assert first_negative(data) >= 0 and first_negative(np.abs(data)) == -1  # both outcomes exercised

    assert "cond" in str(jax.make_jaxpr(autograph_lite.convert(scaled))(sharded, 3.0))
    for scale in (3.0, -2.0):
        result = autograph_lite.jit(scaled)(sharded, scale)
        assert_close(result, eager(scaled, data, scale))
        assert result.sharding.is_equivalent_to(rows, result.ndim), result.sharding
        assert {shard.data.shape for shard in result.addressable_shards} == {(16 // DEVICES, 4)}
    checks += 1

    # in_shardings / out_shardings pass through to jax.jit.
    replicated = NamedSharding(mesh, P())
    pinned = autograph_lite.jit(scaled, in_shardings=(rows, None), out_shardings=replicated)
    result = pinned(data, -1.0)
    assert_close(result, eager(scaled, data, -1.0))
    assert result.sharding.is_equivalent_to(replicated, result.ndim), result.sharding
    checks += 1

    # (b) shard_map: each device runs the converted while loop on its own block.
    blocks = rng.uniform(0.0, 1.0, size=(DEVICES, 4)).astype(np.float32) * np.arange(1, DEVICES + 1)[:, None] ** 3
    mapped = jax.jit(jax.shard_map(autograph_lite.convert(per_shard_steps), mesh=mesh, in_specs=P("x"),
                                   out_specs=(P("x"), P("x"))))
    steps, totals = mapped(jax.device_put(blocks, rows))
    want = [eager(per_shard_steps, blocks[i:i + 1]) for i in range(DEVICES)]
    np.testing.assert_array_equal(np.asarray(steps), np.concatenate([w[0] for w in want]))
    np.testing.assert_allclose(np.asarray(totals), np.concatenate([w[1] for w in want]), rtol=1e-6)
    assert len(set(np.asarray(steps).tolist())) > 1, "the shards should take different numbers of steps"
    checks += 1

    # A collective after the per-shard control flow: the total number of steps over all devices.
    def total_steps(block):
        steps, _ = autograph_lite.convert(per_shard_steps)(block)
        return jax.lax.psum(steps, "x")

    summed = jax.jit(jax.shard_map(total_steps, mesh=mesh, in_specs=P("x"), out_specs=P()))(blocks)
    assert int(np.asarray(summed)[0]) == int(np.asarray(steps).sum())
    checks += 1

    print(f"sharding checks passed: {checks} on {DEVICES} devices")


if __name__ == "__main__":
    main()

"""Dynamic programming written the textbook way: nested ``for`` loops filling ``table[i, j]``.

Edit distance (Levenshtein) and 0/1 knapsack, each a table filled cell by cell with an ``if`` or a
conditional expression on the data. Under ``jax.jit`` alone the comparisons of traced characters /
weights raise ``TracerBoolConversionError``, ``table[i, j] = v`` fails on an immutable JAX array, and
even with ``jnp.where`` and ``.at[i, j].set`` the Python loops unroll into ``n * m`` copies of the
body, so compile time grows with the input size. With ``autograph_lite.jit``:

- the loops become nested ``lax.scan``s (one body, compiled once, whatever ``n * m``);
- ``table[i, j] = v`` becomes ``table = table.at[i, j].set(v)``;
- the ``if`` / ``a if c else b`` on traced values become ``lax.cond``, or a select (as
  ``jnp.where``) where both branches are small and pure: the edit distance's ``cost`` is a select,
  the knapsack's ``if``, which writes into the whole table, a ``lax.cond``; ``min`` / ``max``
  become ``jnp.minimum`` / ``jnp.maximum``.

Both are checked against pure-Python reference implementations on lists.
Run ``python examples/dynamic_programming.py``.
"""

import re

import jax
import jax.numpy as jnp

import autograph_lite


def levenshtein(a, b):
    """Edit distance between two integer sequences (insertions, deletions, substitutions cost 1)."""
    n, m = a.shape[0], b.shape[0]
    table = jnp.zeros((n + 1, m + 1), jnp.int32)
    for i in range(n + 1):
        table[i, 0] = i
    for j in range(m + 1):
        table[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            table[i, j] = min(table[i - 1, j] + 1, table[i, j - 1] + 1, table[i - 1, j - 1] + cost)
    return table[n, m]


def knapsack(weights, values, capacity):
    """The best total value of items with total weight at most ``capacity`` (each item used once)."""
    n = weights.shape[0]
    table = jnp.zeros((n + 1, capacity + 1), values.dtype)
    for i in range(1, n + 1):
        for w in range(capacity + 1):
            table[i, w] = table[i - 1, w]
            if weights[i - 1] <= w:
                table[i, w] = max(table[i, w], table[i - 1, w - weights[i - 1]] + values[i - 1])
    return table[n, capacity]


levenshtein_jit = autograph_lite.jit(levenshtein)
knapsack_jit = autograph_lite.jit(knapsack, static_argnames="capacity")


def levenshtein_reference(a, b):
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def knapsack_reference(weights, values, capacity):
    best = [0] * (capacity + 1)
    for weight, value in zip(weights, values):
        for w in range(capacity, weight - 1, -1):
            best[w] = max(best[w], best[w - weight] + value)
    return best[capacity]


def encode(word):
    return jnp.asarray([ord(c) for c in word], jnp.int32)


def control_flow_primitives(function, *args):
    """The ``lax`` control-flow primitives in the jaxpr of ``function``, nested ones included."""
    return sorted(set(re.findall(r"\b(cond|while|scan)\[", str(jax.make_jaxpr(function)(*args)))))


WORD_PAIRS = [("kitten", "sitting"), ("flaw", "lawn"), ("jaxpr", "jaxpr"), ("scan", "while")]
ITEMS = {"weights": [3, 4, 2, 5, 1], "values": [4, 5, 3, 8, 1], "capacity": 9}


def main():
    for first, second in WORD_PAIRS:
        distance = int(levenshtein_jit(encode(first), encode(second)))
        expected = levenshtein_reference(first, second)
        assert distance == expected, (first, second, distance, expected)
        print(f"levenshtein({first!r}, {second!r}) = {distance}  (pure Python: {expected})")
    print("control flow in the jaxpr:",
          ", ".join(control_flow_primitives(autograph_lite.convert(levenshtein), encode("kitten"), encode("sitting"))))

    weights = jnp.asarray(ITEMS["weights"], jnp.int32)
    values = jnp.asarray(ITEMS["values"], jnp.int32)
    best = int(knapsack_jit(weights, values, capacity=ITEMS["capacity"]))
    expected = knapsack_reference(**ITEMS)
    assert best == expected, (best, expected)
    print(f"knapsack(capacity={ITEMS['capacity']}) = {best}  (pure Python: {expected})")
    converted = autograph_lite.convert(knapsack)
    print("control flow in the jaxpr:",
          ", ".join(control_flow_primitives(lambda w, v: converted(w, v, ITEMS["capacity"]), weights, values)))


if __name__ == "__main__":
    main()

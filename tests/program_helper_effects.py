"""Effects hidden in what an expression calls, in generated programs (feature ``helper_effects``).

A helper that bumps a module-level counter (``COUNTER[0] += 1``) or deletes an item of a module-level
list (``del POOL[-1]``), the same one level deeper in a module-level list of lists (``GRID[0][1] += 1``,
``del GRID[0][-1]``), a method or helper that changes an attribute of a module-level object
(``self.count += 1`` on ``TALLY``, ``TALLY.count += 2``, ``setattr(TALLY, 'count', ...)``), ``+=`` on
a module-level list passed to a helper (``grow(BAG)``) and on a module-level NumPy array
(``fill_up(TANK)``), the same through a local alias of the module-level container (``xs = BAG; xs += [0]``,
``tank = TANK; tank += 1``, ``xs = POOL; xs[0] += 1``, ``rows = [GRID[0]]; rows[0][1] += 1``), a library
function that mutates a module-level container (``heapq.heappush(HEAP, 1)``, ``bisect.insort(BAG, 2)``,
``operator.setitem(COUNTER, 0, ...)``, ``list.append(BAG, 0)``, an item store into a call's result
(``vars(TALLY)['count'] = ...``, ``grid_row()[2] = ...``, ``grid_row()[3] += 1``), ``np.copyto(TANK, ...)``,
``np.add(TANK, 1, out=TANK)``, ``np.multiply(TANK + 1, 2, TANK)``, ``(TANK + 1).clip(0, 100, out=TANK)``),
a property setter that logs to a module-level
list (on a new object: ``metered(3)``), ``next``
on an iterator from before the loop, a draw from a NumPy ``Generator``: each changes state that
outlives the statement, and
inside a staged branch or loop body it would happen once while tracing instead of once per
iteration, a silent wrong value. The converter must run such a statement as Python (a static loop's
trial sees the effect) or refuse it with a located error; the generator puts these calls everywhere
an int leaf can go: in loops over static and traced ranges, in ``while`` tests, in branches.

``f`` starts by resetting the state (``COUNTER[0] = 0``, a new iterator over :data:`STEPS`, a
Generator with a fixed seed), so every run of ``f`` (eager, converted, jitted) starts from the same
state. ``next`` takes a default (``next(steps, 0)``), so an exhausted iterator never raises.
"""

from __future__ import annotations

from hypothesis import strategies as st
from program_model import E, Scope, few_kinds

COUNTER_BOUND = 4  # tick() is COUNTER[0] % 5
STEPS = (3, -1, 4, 1, -5, 2, -6, 5)
MODULE_PARTS = {
    "COUNTER": "COUNTER = [0]",
    "tick": "def tick():\n    COUNTER[0] += 1\n    return COUNTER[0] % 5",
    "STEPS": f"STEPS = {STEPS!r}",
    "numpy": "import numpy as np",
    "Tally": "class Tally:\n    def __init__(self):\n        self.count = 0\n\n"
             "    def bump(self):\n        self.count += 1\n        return self.count % 5",
    "TALLY": "TALLY = Tally()",
    "TALLIES": "TALLIES = [Tally()]",
    "item_tick": "def item_tick():\n    TALLIES[0].count += 1\n    return TALLIES[0].count % 5",
    "tock": "def tock():\n    TALLY.count += 2\n    return TALLY.count % 5",
    "POOL": "POOL = list(range(64))",
    "shrink": "def shrink():\n    del POOL[-1]\n    return len(POOL) % 5",
    "GRID": "GRID = [[0] * 64]",
    "grid_tick": "def grid_tick():\n    GRID[0][1] += 1\n    return GRID[0][1] % 5",
    "grid_shrink": "def grid_shrink():\n    del GRID[0][-1]\n    return len(GRID[0]) % 5",
    "tally_up": "def tally_up():\n    setattr(TALLY, 'count', TALLY.count + 1)\n    return TALLY.count % 5",
    # An item store into what a call returns: the object's namespace, a module-level list.
    "tally_by_vars": "def tally_by_vars():\n    vars(TALLY)['count'] = TALLY.count + 1\n    return TALLY.count % 5",
    "grid_row": "def grid_row():\n    return GRID[0]",
    "grid_set": "def grid_set():\n    grid_row()[2] = grid_row()[2] + 1\n    return GRID[0][2] % 5",
    "grid_add": "def grid_add():\n    grid_row()[3] += 1\n    return GRID[0][3] % 5",
    "BAG": "BAG = []",
    # A dict the helper makes (the trace's own) holding a module-level list, extended in place.
    "Pools": "class Pools(dict):\n    pass",
    "bag_add": "def bag_add():\n    Pools(r=BAG)['r'] += [0]\n    return len(BAG) % 5",
    "grow": "def grow(xs):\n    xs += [0]\n    return len(xs) % 5",
    "TANK": "TANK = np.zeros(2, np.int64)",
    "fill_up": "def fill_up(tank):\n    tank += 1\n    return int(tank[0]) % 5",
    "METER_LOG": "METER_LOG = [0]",
    "Meter": "class Meter:\n    def __init__(self):\n        self._v = 0\n\n    @property\n    def v(self):\n"
             "        return self._v\n\n    @v.setter\n    def v(self, value):\n        METER_LOG[0] += 1\n"
             "        self._v = value",
    "metered": "def metered(k):\n    meter = Meter()\n    meter.v = k\n    return (meter.v + METER_LOG[0]) % 5",
    # Through a local alias of a module-level container (feature helper_effects, mutators through aliases).
    "alias_grow": "def alias_grow():\n    xs = BAG\n    xs += [0]\n    return len(xs) % 5",
    "alias_fill": "def alias_fill():\n    tank = TANK\n    tank += 1\n    return int(tank[0]) % 5",
    "alias_store": "def alias_store():\n    xs = POOL\n    xs[0] += 1\n    return xs[0] % 5",
    "alias_rows": "def alias_rows():\n    rows = [GRID[0]]\n    rows[0][1] += 1\n    return rows[0][1] % 5",
    "alias_item": "def alias_item():\n    held = {'r': BAG}\n    held['r'] += [0]\n    return len(BAG) % 5",
    # Through a library function that mutates its argument.
    "heapq": "import heapq",
    "bisect": "import bisect",
    "operator": "import operator",
    "HEAP": "HEAP = []",
    "heap_push": "def heap_push():\n    heapq.heappush(HEAP, 1)\n    return len(HEAP) % 5",
    "insort_bag": "def insort_bag():\n    bisect.insort(BAG, 2)\n    return len(BAG) % 5",
    "set_counter": "def set_counter():\n    operator.setitem(COUNTER, 0, COUNTER[0] + 1)\n    return COUNTER[0] % 5",
    "append_bag": "def append_bag():\n    list.append(BAG, 0)\n    return len(BAG) % 5",
    "copy_tank": "def copy_tank():\n    np.copyto(TANK, TANK + 1)\n    return int(TANK[0]) % 5",
    "add_tank": "def add_tank():\n    np.add(TANK, 1, out=TANK)\n    return int(TANK[0]) % 5",
    "double_tank": "def double_tank():\n    np.multiply(TANK + 1, 2, TANK)\n    return int(TANK[0]) % 5",
    "clip_tank": "def clip_tank():\n    (TANK + 1).clip(0, 100, out=TANK)\n    return int(TANK[0]) % 5",
}
# What f must run first for each kind of leaf, before any leaf can be drawn.
ENTRIES = {
    "counter": "COUNTER[0] = 0",
    "iterator": "steps = iter(STEPS)",
    "generator": "rng = np.random.default_rng(7)",
    "tally": "TALLY.count = 0",
    "tallies": "TALLIES[0].count = 0",
    "pool": "POOL[:] = range(64)",
    "grid": "GRID[0] = [0] * 64",
    "bag": "BAG[:] = []",
    "meter": "METER_LOG[0] = 0",
    "tank": "TANK[:] = 0",
    "heap": "HEAP[:] = []",
}


class HelperEffects:
    """Int leaves that change hidden state: ``tick()``, ``TALLY.bump()``, ``tock()``, ``shrink()``,
    ``grid_tick()``, ``grid_shrink()``, ``tally_up()``, ``grow(BAG)``, ``fill_up(TANK)``, ``metered(3)``,
    ``item_tick()`` (``TALLIES[0].count += 1``),
    ``next(steps, 0)``,
    ``int(rng.integers(0, 5))``."""

    entries: frozenset[str] = frozenset()  # the kinds of hidden state the program uses (see ENTRIES)

    def extra_leaves(self, t: str, scope: Scope) -> list:
        options = super().extra_leaves(t, scope)
        if self.has("helper_effects") and t == "i":
            options += few_kinds(self, "helper_effects", [
                self.tick_leaf, self.next_leaf, self.draw_leaf, self.bump_leaf, self.tock_leaf, self.shrink_leaf,
                self.grid_tick_leaf, self.grid_shrink_leaf, self.tally_up_leaf, self.grow_leaf, self.metered_leaf,
                self.fill_up_leaf, self.item_tick_leaf, self.call_store_leaf, self.alias_leaf,
                self.library_mutator_leaf,
            ])
        return options

    def hidden_state(self, kind: str, *parts: str) -> None:
        """Note that ``f`` uses hidden state of ``kind``: its module parts and its reset at entry."""
        self.used.add("helper_effects")
        for part in parts:
            self.module_parts[part] = MODULE_PARTS[part]
        self.entries = self.entries | {kind}

    def tick_leaf(self) -> E:
        self.hidden_state("counter", "COUNTER", "tick")
        return E("tick()", COUNTER_BOUND, False)

    def bump_leaf(self) -> E:
        self.hidden_state("tally", "Tally", "TALLY")
        return E("TALLY.bump()", COUNTER_BOUND, False)

    def tock_leaf(self) -> E:
        self.hidden_state("tally", "Tally", "TALLY", "tock")
        return E("tock()", COUNTER_BOUND, False)

    def shrink_leaf(self) -> E:
        self.hidden_state("pool", "POOL", "shrink")
        return E("shrink()", COUNTER_BOUND, False)

    def grid_tick_leaf(self) -> E:
        self.hidden_state("grid", "GRID", "grid_tick")
        return E("grid_tick()", COUNTER_BOUND, False)

    def grid_shrink_leaf(self) -> E:
        self.hidden_state("grid", "GRID", "grid_shrink")
        return E("grid_shrink()", COUNTER_BOUND, False)

    def tally_up_leaf(self) -> E:
        self.hidden_state("tally", "Tally", "TALLY", "tally_up")
        return E("tally_up()", COUNTER_BOUND, False)

    def call_store_leaf(self) -> E:
        """An item store into a call's result: ``vars(TALLY)['count'] = ...``, ``grid_row()[2] = ...``,
        ``grid_row()[3] += 1``, and an in-place ``+=`` on such an item that is a module-level list
        (``Pools(r=BAG)['r'] += [0]``)."""
        helper = self.draw(st.sampled_from(["tally_by_vars", "grid_set", "grid_add", "bag_add"]))
        if helper == "tally_by_vars":
            self.hidden_state("tally", "Tally", "TALLY", "tally_by_vars")
            return E("tally_by_vars()", COUNTER_BOUND, False)
        if helper == "bag_add":
            self.hidden_state("bag", "BAG", "Pools", helper)
            return E(f"{helper}()", COUNTER_BOUND, False)
        self.hidden_state("grid", "GRID", "grid_row", helper)
        return E(f"{helper}()", COUNTER_BOUND, False)

    def grow_leaf(self) -> E:
        self.hidden_state("bag", "BAG", "grow")
        return E("grow(BAG)", COUNTER_BOUND, False)

    def item_tick_leaf(self) -> E:
        self.hidden_state("tallies", "Tally", "TALLIES", "item_tick")
        return E("item_tick()", COUNTER_BOUND, False)

    def fill_up_leaf(self) -> E:
        self.hidden_state("tank", "numpy", "TANK", "fill_up")
        return E("fill_up(TANK)", COUNTER_BOUND, False)

    def metered_leaf(self) -> E:
        self.hidden_state("meter", "METER_LOG", "Meter", "metered")
        return E("metered(3)", COUNTER_BOUND, False)

    def alias_leaf(self) -> E:
        """A helper that mutates a module-level list, NumPy array or nested list through a local alias."""
        helper, kind, parts = self.draw(st.sampled_from([
            ("alias_grow", "bag", ("BAG",)), ("alias_fill", "tank", ("numpy", "TANK")),
            ("alias_store", "pool", ("POOL",)), ("alias_rows", "grid", ("GRID",)), ("alias_item", "bag", ("BAG",)),
        ]))
        self.hidden_state(kind, *parts, helper)
        return E(f"{helper}()", COUNTER_BOUND, False)

    def library_mutator_leaf(self) -> E:
        """A helper that mutates a module-level container through a library function (heapq, bisect,
        operator, an unbound list method, np.copyto, a ufunc's out=, by keyword or by position, an
        array method's out=)."""
        helper, kind, parts = self.draw(st.sampled_from([
            ("heap_push", "heap", ("heapq", "HEAP")), ("insort_bag", "bag", ("bisect", "BAG")),
            ("set_counter", "counter", ("operator", "COUNTER")), ("append_bag", "bag", ("BAG",)),
            ("copy_tank", "tank", ("numpy", "TANK")), ("add_tank", "tank", ("numpy", "TANK")),
            ("double_tank", "tank", ("numpy", "TANK")), ("clip_tank", "tank", ("numpy", "TANK")),
        ]))
        self.hidden_state(kind, *parts, helper)
        return E(f"{helper}()", COUNTER_BOUND, False)

    def next_leaf(self) -> E:
        self.hidden_state("iterator", "STEPS")
        return E("next(steps, 0)", max(abs(step) for step in STEPS), False)

    def draw_leaf(self) -> E:
        self.hidden_state("generator", "numpy")
        return E("int(rng.integers(0, 5))", 4, False)

    def entry_lines(self) -> list[str]:
        """The first statements of ``f``: the resets of the hidden state its leaves use."""
        return [line for kind, line in ENTRIES.items() if kind in self.entries]

"""Effects in what making an object runs, in generated programs (feature ``init_effects``).

``Made(1)`` runs ``Made.__init__``, the program's own code: a constructor that logs to a module-level
list (``MADE_LOG[0] += 1``), bumps a class attribute (``Counted.made += 1``, ``type(self).made += 1``)
or prints. Inside a
staged loop body or branch, an ``__init__`` run as it is (not converted) would happen once while
tracing instead of once per iteration: a silent wrong value, or one line printed where eager prints
three. The converter must convert ``__init__`` as it converts any of the program's functions, so that
its effects are checked (a static loop then runs as Python) or staged (a print): also under an
``abc.ABC`` base, and for a class defined inside a helper. A new container holding one from
outside vouches for nothing: ``held()`` (``self.items = [SHELF]``, then ``h.items[0] += [0]``) and
``kw_grow(rows=SHELF)`` (``kw['rows'] += [0]``) change ``SHELF``, and so does ``acc_grow()``
(``a = Acc(SHELF); a.xs += [0]``: the object is new, what its attribute holds is not). Constructors whose changes are the new
object's own (a list attribute built and appended to, ``**kw`` read, a property setter) must keep
working staged.

``f`` starts by resetting the logs, so every run of ``f`` (eager, converted, jitted) starts alike.
"""

from __future__ import annotations

from program_model import E

LOG_BOUND = 4  # every leaf is its count % 5
MODULE_PARTS = {
    "MADE_LOG": "MADE_LOG = [0]",
    "Made": "class Made:\n    def __init__(self, k):\n        MADE_LOG[0] += 1\n        self.k = k",
    "made": "def made():\n    return (Made(1).k + MADE_LOG[0]) % 5",
    "Counted": "class Counted:\n    made = 0\n\n    def __init__(self):\n        Counted.made += 1",
    "counted": "def counted():\n    return Counted().made % 5",
    "Loud": "class Loud:\n    def __init__(self, k):\n        print('made', k)\n        self.k = k",
    "loud": "def loud():\n    return Loud(2).k",
    "abc": "import abc",
    "Tracked": "class Tracked(abc.ABC):\n    def __init__(self, k):\n        MADE_LOG[0] += 1\n        self.k = k",
    "tracked": "def tracked():\n    return (Tracked(1).k + MADE_LOG[0]) % 5",
    "local_made": "def local_made():\n    class Local:\n        def __init__(self):\n            MADE_LOG[0] += 1\n\n"
                  "    Local()\n    return MADE_LOG[0] % 5",
    "Typed": "class Typed:\n    made = 0\n\n    def __init__(self):\n        type(self).made += 1",
    "typed": "def typed():\n    return Typed().made % 5",
    "SHELF": "SHELF = [0]",
    "Holder": "class Holder:\n    def __init__(self, first):\n        self.items = [first]",
    "held": "def held():\n    h = Holder(SHELF)\n    h.items[0] += [0]\n    return len(SHELF) % 5",
    "kw_grow": "def kw_grow(**kw):\n    kw['rows'] += [0]\n    return len(kw['rows']) % 5",
    "Acc": "class Acc:\n    def __init__(self, xs):\n        self.xs = xs",
    "acc_grow": "def acc_grow():\n    a = Acc(SHELF)\n    a.xs += [0]\n    return len(SHELF) % 5",
    # Constructors with nothing to refuse: what they change is the new object's own.
    "Bag": "class Bag:\n    def __init__(self, k):\n        self.items = []\n        self.items.append(k)\n"
           "        self.cache = {}\n        self.cache['k'] = k",
    "bagged": "def bagged():\n    return len(Bag(1).items) + Bag(2).cache['k']",
    "Opts": "class Opts:\n    def __init__(self, **kw):\n        self.k = kw.get('k', 0)\n        self.__dict__.update(kw)",
    "opts": "def opts():\n    return Opts(k=2, j=1).k + Opts(j=3).j",
    "Temp": "class Temp:\n    def __init__(self, v):\n        self.value = v\n\n    @property\n    def value(self):\n"
            "        return self._v\n\n    @value.setter\n    def value(self, v):\n        self._v = v",
    "temp": "def temp():\n    return Temp(2).value",
}
ENTRIES = {"made": "MADE_LOG[0] = 0", "counted": "Counted.made = 0", "typed": "Typed.made = 0", "shelf": "SHELF[:] = [0]"}


class InitEffects:
    """Int leaves that make an object whose ``__init__`` has an effect: ``made()``, ``counted()``,
    ``typed()``, ``loud()``, ``tracked()``, ``local_made()``; or changes only the new object: ``bagged()``,
    ``opts()``, ``temp()``."""

    init_entries: frozenset[str] = frozenset()  # the logs f must reset first (see ENTRIES)

    def extra_leaves(self, t: str, scope) -> list:
        options = super().extra_leaves(t, scope)
        if self.has("init_effects") and t == "i":
            options += [self.made_leaf, self.counted_leaf, self.typed_leaf, self.loud_leaf, self.tracked_leaf,
                        self.local_made_leaf, self.held_leaf, self.kw_grow_leaf, self.acc_grow_leaf,
                        self.bagged_leaf, self.opts_leaf, self.temp_leaf]
        return options

    def _made_with(self, *parts: str, entry: str | None = None) -> None:
        self.used.add("init_effects")
        for part in parts:
            self.module_parts[part] = MODULE_PARTS[part]
        if entry is not None:
            self.init_entries = self.init_entries | {entry}

    def made_leaf(self) -> E:
        self._made_with("MADE_LOG", "Made", "made", entry="made")
        return E("made()", LOG_BOUND, False)

    def counted_leaf(self) -> E:
        self._made_with("Counted", "counted", entry="counted")
        return E("counted()", LOG_BOUND, False)

    def typed_leaf(self) -> E:
        self._made_with("Typed", "typed", entry="typed")
        return E("typed()", LOG_BOUND, False)

    def held_leaf(self) -> E:
        self._made_with("SHELF", "Holder", "held", entry="shelf")
        return E("held()", LOG_BOUND, False)

    def kw_grow_leaf(self) -> E:
        self._made_with("SHELF", "kw_grow", entry="shelf")
        return E("kw_grow(rows=SHELF)", LOG_BOUND, False)

    def acc_grow_leaf(self) -> E:
        self._made_with("SHELF", "Acc", "acc_grow", entry="shelf")
        return E("acc_grow()", LOG_BOUND, False)

    def loud_leaf(self) -> E:
        self._made_with("Loud", "loud")
        return E("loud()", 2, False)

    def tracked_leaf(self) -> E:
        self._made_with("MADE_LOG", "abc", "Tracked", "tracked", entry="made")
        return E("tracked()", LOG_BOUND, False)

    def local_made_leaf(self) -> E:
        self._made_with("MADE_LOG", "local_made", entry="made")
        return E("local_made()", LOG_BOUND, False)

    def bagged_leaf(self) -> E:
        self._made_with("Bag", "bagged")
        return E("bagged()", 3, False)

    def opts_leaf(self) -> E:
        self._made_with("Opts", "opts")
        return E("opts()", 5, False)

    def temp_leaf(self) -> E:
        self._made_with("Temp", "temp")
        return E("temp()", 2, False)

    def entry_lines(self) -> list[str]:
        """The resets of the logs this program's leaves use, after those of the other features."""
        return super().entry_lines() + [line for kind, line in ENTRIES.items() if kind in self.init_entries]

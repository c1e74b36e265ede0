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

The same holds for the program's code that Python runs implicitly: a dataclass's ``__post_init__``
and ``default_factory`` (plain, frozen, slots with ``kw_only`` and an ``InitVar``, a
``field(init=False)``: ``posted()``, ``rowed()``, ``pinned()``, ``scaled()``; a print, ``LoudPost(2)``),
a property's getter (read as written, by ``getattr`` / ``hasattr``, through ``super()``, as the owner of a
method call: ``gauged()``, ``named()``, ``plussed()``, ``dialled()``; a subclass of ``property`` with a ``__get__`` of its own, ``Kinded().kind``),
a ``cached_property``, a ``__getattr__`` (``lazied()``, ``looked()``), a property's setter and a
``__setattr__`` (run by ``__init__``'s ``self.k = k`` and by a later store: ``set_in_init()``,
``set_again()``, ``watched()``; a store into a loop's, a ``with`` item's, an unpacking's, a chained or an
annotated target: ``set_by_loop()``, ``set_by_with()``, ``set_by_unpacking()``, ``set_by_chain()``,
``set_annotated()``),
an ``if`` on a maybe traced value in ``__post_init__`` or a getter (``Signed(v).k``, ``Magnitude(v).size``),
and an array method writing into an output passed by position (``clip_into()``).

``f`` starts by resetting the logs, so every run of ``f`` (eager, converted, jitted) starts alike.
"""

from __future__ import annotations

from hypothesis import strategies as st
from program_model import E, few_kinds

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
    # A dataclass's __init__ has no source: its __post_init__ and default_factory are the program's code.
    "dataclasses": "import dataclasses",
    "Posted": "@dataclasses.dataclass\nclass Posted:\n    k: int\n\n    def __post_init__(self):\n"
              "        MADE_LOG[0] += 1",
    "posted": "def posted():\n    return (Posted(1).k + MADE_LOG[0]) % 5",
    "LoudPost": "@dataclasses.dataclass\nclass LoudPost:\n    k: int\n\n    def __post_init__(self):\n"
                "        print('posted', self.k)",
    "fresh_row": "def fresh_row():\n    MADE_LOG[0] += 1\n    return [0]",
    "Rows": "@dataclasses.dataclass\nclass Rows:\n    rows: list = dataclasses.field(default_factory=fresh_row)",
    "rowed": "def rowed():\n    return (len(Rows().rows) + len(Rows([1, 2]).rows) + MADE_LOG[0]) % 5",
    "Pinned": "@dataclasses.dataclass(frozen=True)\nclass Pinned:\n    k: int\n"
              "    twice: int = dataclasses.field(init=False, default=0)\n\n    def __post_init__(self):\n"
              "        MADE_LOG[0] += 1\n        object.__setattr__(self, 'twice', 2 * self.k)",
    "pinned": "def pinned():\n    return (Pinned(1).twice + MADE_LOG[0]) % 5",
    "Scaled": "@dataclasses.dataclass(slots=True, kw_only=True)\nclass Scaled:\n    k: int\n"
              "    scale: dataclasses.InitVar[int] = 2\n    out: int = dataclasses.field(init=False, default=0)\n\n"
              "    def __post_init__(self, scale):\n        MADE_LOG[0] += 1\n        self.out = self.k * scale",
    "scaled": "def scaled():\n    return (Scaled(k=1).out + Scaled(k=1, scale=3).out + MADE_LOG[0]) % 5",
    "Signed": "@dataclasses.dataclass\nclass Signed:\n    k: int\n\n    def __post_init__(self):\n"
              "        k = self.k\n        if k < 0:\n            k = -k\n        self.k = k",
    # A property's getter, a cached_property: the program's code, run where the attribute is read.
    "functools": "import functools",
    "Gauge": "class Gauge:\n    def __init__(self, k):\n        self.k = k\n\n    @property\n    def read(self):\n"
             "        MADE_LOG[0] += 1\n        return self.k",
    "gauged": "def gauged():\n    return (Gauge(1).read + MADE_LOG[0]) % 5",
    # A getter that gives the owner of a method call (d.items.count(1) reads d.items first).
    "Dial": "class Dial:\n    def __init__(self, k):\n        self._items = [k]\n\n    @property\n    def items(self):\n"
            "        MADE_LOG[0] += 1\n        return self._items",
    "dialled": "def dialled():\n    d = Dial(1)\n    return (d.items.count(1) + MADE_LOG[0]) % 5",
    "named": "def named():\n    return (getattr(Gauge(1), 'read') + hasattr(Gauge(1), 'read') + MADE_LOG[0]) % 5",
    "Plus": "class Plus(Gauge):\n    @property\n    def read(self):\n        return super().read + 1",
    "plussed": "def plussed():\n    return (Plus(1).read + MADE_LOG[0]) % 5",
    # A property whose own __get__ decides what a read gives.
    "classproperty": "class classproperty(property):\n    def __get__(self, owner, cls=None):\n"
                     "        return self.fget(type(owner) if cls is None else cls)",
    "Kinded": "class Kinded:\n    K = 2\n\n    @classproperty\n    def kind(cls):\n"
              "        return cls.K if isinstance(cls, type) else 4",
    "Lazy": "class Lazy:\n    def __init__(self, k):\n        self.k = k\n\n    @functools.cached_property\n"
            "    def doubled(self):\n        MADE_LOG[0] += 1\n        return 2 * self.k",
    "lazied": "def lazied():\n    lazy = Lazy(1)\n    return (lazy.doubled + lazy.doubled + MADE_LOG[0]) % 5",
    "Lookup": "class Lookup:\n    def __getattr__(self, name):\n        MADE_LOG[0] += 1\n        return len(name)",
    "looked": "def looked():\n    return (Lookup().abc + MADE_LOG[0]) % 5",
    # A property's setter, a __setattr__: the program's code, run where the attribute is stored into.
    "Setting": "class Setting:\n    def __init__(self, k):\n        self.k = k\n\n    @property\n    def k(self):\n"
               "        return self._k\n\n    @k.setter\n    def k(self, v):\n        MADE_LOG[0] += 1\n"
               "        self._k = v",
    "set_in_init": "def set_in_init():\n    return (Setting(1).k + MADE_LOG[0]) % 5",
    "set_again": "def set_again():\n    s = Setting(1)\n    s.k += 1\n    return (s.k + MADE_LOG[0]) % 5",
    # The setter run by a store Python makes outside an assignment of one target: a loop's target, a
    # with item's, an unpacking's, a chained or an annotated assignment's; on an object whose __init__
    # runs no setter (Quiet), made by the helper: nothing else in the helper is an effect.
    "contextlib": "import contextlib",
    "Quiet": "class Quiet(Setting):\n    def __init__(self, k):\n        self._k = k",
    "set_by_loop": "def set_by_loop():\n    s = Quiet(1)\n    for s.k in range(2):\n        pass\n"
                   "    return (s.k + MADE_LOG[0]) % 5",
    "set_by_with": "def set_by_with():\n    s = Quiet(1)\n    with contextlib.nullcontext(2) as s.k:\n        pass\n"
                   "    return (s.k + MADE_LOG[0]) % 5",
    "set_by_unpacking": "def set_by_unpacking():\n    s = Quiet(1)\n    s.k, j = 2, 1\n"
                        "    return (s.k + j + MADE_LOG[0]) % 5",
    "set_by_chain": "def set_by_chain():\n    s = Quiet(1)\n    s.k = j = 2\n    return (s.k + j + MADE_LOG[0]) % 5",
    "set_annotated": "def set_annotated():\n    s = Quiet(1)\n    s.k: int = 2\n    return (s.k + MADE_LOG[0]) % 5",
    "Watched": "class Watched:\n    def __init__(self, k):\n        self.k = k\n\n    def __setattr__(self, name, v):\n"
               "        MADE_LOG[0] += 1\n        super().__setattr__(name, v)",
    "watched": "def watched():\n    w = Watched(1)\n    w.j = 2\n    return (w.k + w.j + MADE_LOG[0]) % 5",
    # A __setattr__ that hands the store to object's (super().__setattr__), which runs a logging setter.
    "Guarded": "class Guarded:\n    def __init__(self, k):\n        self.k = k\n\n    def __setattr__(self, name, v):\n"
               "        super().__setattr__(name, v)\n\n    @property\n    def k(self):\n        return self._k\n\n"
               "    @k.setter\n    def k(self, v):\n        MADE_LOG[0] += 1\n        object.__setattr__(self, '_k', v)",
    "guarded": "def guarded():\n    return (Guarded(1).k + MADE_LOG[0]) % 5",
    # An augmented store whose value rebinds the owner's name: Python stores into the first owner.
    "Counter": "class Counter:\n    def __init__(self):\n        self.n = 0",
    "swap": "def swap():\n    global SWAPPED\n    SWAPPED = Counter()\n    return 1",
    "swapped": "def swapped():\n    global SWAPPED\n    SWAPPED = Counter()\n    first = SWAPPED\n"
               "    SWAPPED.n += swap()\n    return 2 * first.n + SWAPPED.n",
    "Magnitude": "class Magnitude:\n    def __init__(self, k):\n        self.k = k\n\n    @property\n    def size(self):\n"
                 "        if self.k < 0:\n            return -self.k\n        return self.k",
    # An array method writing its result into an output passed by position.
    "numpy": "import numpy as np",
    "TANK": "TANK = np.zeros(2, np.int64)",
    "clip_into": "def clip_into():\n    (TANK + 1).clip(0, 100, TANK)\n    return int(TANK[0]) % 5",
}
ENTRIES = {"made": "MADE_LOG[0] = 0", "counted": "Counted.made = 0", "typed": "Typed.made = 0", "shelf": "SHELF[:] = [0]",
           "tank": "TANK[:] = 0"}


class InitEffects:
    """Int leaves that make an object whose ``__init__`` has an effect: ``made()``, ``counted()``,
    ``typed()``, ``loud()``, ``tracked()``, ``local_made()``; or changes only the new object: ``bagged()``,
    ``opts()``, ``temp()``; or run the program's code implicitly (see the module's docstring)."""

    init_entries: frozenset[str] = frozenset()  # the logs f must reset first (see ENTRIES)

    def extra_leaves(self, t: str, scope) -> list:
        options = super().extra_leaves(t, scope)
        if self.has("init_effects") and t == "i":
            options += few_kinds(self, "init_effects", [
                self.made_leaf, self.counted_leaf, self.typed_leaf, self.loud_leaf, self.tracked_leaf,
                self.local_made_leaf, self.held_leaf, self.kw_grow_leaf, self.acc_grow_leaf, self.bagged_leaf,
                self.opts_leaf, self.temp_leaf, self.dataclass_leaf, self.loud_post_leaf, self.getter_leaf,
                self.setter_leaf, self.class_property_leaf, self.clip_into_leaf,
            ])
            if self.defined_of(scope, "i"):
                options.append(lambda: self.traced_field_leaf(scope))
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

    def dataclass_leaf(self) -> E:
        """A dataclass whose __post_init__ or default_factory logs: plain, frozen, slots with kw_only and an
        InitVar, a field(init=False)."""
        helper, parts = self.draw(st.sampled_from([
            ("posted", ("Posted",)), ("rowed", ("fresh_row", "Rows")), ("pinned", ("Pinned",)), ("scaled", ("Scaled",)),
        ]))
        self._made_with("MADE_LOG", "dataclasses", *parts, helper, entry="made")
        return E(f"{helper}()", LOG_BOUND, False)

    def loud_post_leaf(self) -> E:
        self._made_with("dataclasses", "LoudPost")
        return E("LoudPost(2).k", 2, False)

    def traced_field_leaf(self, scope) -> E:
        """A field, maybe traced, tested in an ``if``: by a dataclass's __post_init__ or a property's getter."""
        var = self.pick(self.defined_of(scope, "i"))
        made, parts = self.pick([("Signed({}).k", ("dataclasses", "Signed")), ("Magnitude({}).size", ("Magnitude",))])
        self._made_with(*parts)
        return E(made.format(var.name), var.bound, False)

    def getter_leaf(self) -> E:
        """A property's getter (read as written, by getattr / hasattr, through super(), as the owner of a
        method call), a cached_property (the attribute read twice: computed once) or a __getattr__ that
        logs."""
        helper, parts = self.draw(st.sampled_from([
            ("gauged", ("Gauge",)), ("named", ("Gauge",)), ("plussed", ("Gauge", "Plus")),
            ("lazied", ("functools", "Lazy")), ("looked", ("Lookup",)), ("dialled", ("Dial",)),
        ]))
        self._made_with("MADE_LOG", *parts, helper, entry="made")
        return E(f"{helper}()", LOG_BOUND, False)

    def setter_leaf(self) -> E:
        """A property's setter (run by ``__init__``'s store, then by an augmented store) or a
        ``__setattr__`` that logs, or a setter that ``super().__setattr__`` runs, or one run by a loop's,
        a ``with`` item's, an unpacking's, a chained or an annotated assignment's target; an augmented
        store whose value rebinds its owner's global name."""
        helper, parts = self.draw(st.sampled_from([
            ("set_in_init", ("Setting",)), ("set_again", ("Setting",)), ("watched", ("Watched",)),
            ("guarded", ("Guarded",)), ("swapped", ("Counter", "swap")), ("set_by_loop", ("Setting", "Quiet")),
            ("set_by_with", ("contextlib", "Setting", "Quiet")), ("set_by_unpacking", ("Setting", "Quiet")),
            ("set_by_chain", ("Setting", "Quiet")), ("set_annotated", ("Setting", "Quiet")),
        ]))
        self._made_with("MADE_LOG", *parts, helper, entry="made")
        return E(f"{helper}()", LOG_BOUND, False)

    def class_property_leaf(self) -> E:
        """A subclass of property whose own ``__get__`` passes the class: 2, not the getter on the instance's 4."""
        self._made_with("classproperty", "Kinded")
        return E("Kinded().kind", 4, False)

    def clip_into_leaf(self) -> E:
        self._made_with("numpy", "TANK", "clip_into", entry="tank")
        return E("clip_into()", LOG_BOUND, False)

    def entry_lines(self) -> list[str]:
        """The resets of the logs this program's leaves use, after those of the other features."""
        return super().entry_lines() + [line for kind, line in ENTRIES.items() if kind in self.init_entries]

"""Iterators that the program holds in a variable and draws from in a loop (feature ``iterators``).

Python draws an iterator's items one at a time and stops at a loop's ``break``: whoever else holds
the iterator sees where the loop stopped, and a ``map``'s function or a generator runs only for the
items drawn. The statement drawn here loops over such an iterator with a ``break`` under a condition
(traced, mostly), then reads what is left of it::

    it3 = iter([<float>, <float>, <float>])     # or map(shown, [0, 1, 2]), enumerate([...]), enumerate(v),
                                                # a generator expression (x * 1.0 for x in [...])
    t4 = 0.0
    for v5 in it3:                              # (for k, v5 in it3: for an enumerate)
        t4 = jnp.clip(t4 + v5, -1000, 1000)
        if <condition>:
            break
    r6 = sum(it3, 0.0)                          # or next(it3, 0.0), float(len(list(it3)))
    t4 = jnp.clip(t4 + r6, -1000, 1000)

or, in place of the read after the loop, a read under a traced ``if`` (``if <condition>: r6 = sum(it3,
0.0)``), which eager Python makes only on the inputs that take the branch, followed by a read of what
the branch left; and ``next(zip(v, v))`` of a vector. The converted code must leave the iterator where eager Python leaves it, or refuse the loop
(a traced exit) or the read (in a traced branch) with a located error.
"""

from __future__ import annotations

from hypothesis import strategies as st
from program_model import VECTORS, Block, Ctx, Scope, Var, indent
from program_printing import SHOWN

# What is left of the iterator, read after the loop: of numbers, and of an enumerate's pairs.
_READS = ("sum({it}, 0.0)", "next({it}, 0.0)", "float(len(list({it})))")
_PAIR_READS = ("next({it}, (0, 0.0))[1]", "float(len(list({it})))")


class Iterators:
    """The ``held_iterator`` and ``branch_drawn_iterator`` statements; a mixin of the program builder."""

    def extra_statements(self, scope: Scope, ctx: Ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        if self.has("iterators") and self.budget > 0:
            kinds += ["held_iterator", "branch_drawn_iterator"] * (3 if ctx.depth == 0 else 1)
        return kinds

    def stmt_held_iterator(self, scope: Scope, ctx: Ctx) -> Block:
        self.used.add("iterators")
        self.budget -= 1
        it, total, item, read = self.fresh("it"), self.fresh("t"), self.fresh("v"), self.fresh("r")
        made, targets, bound = self.held_source(scope)
        inside = self.loop_scope(scope)
        inside.define(Var(item, "f", bound, "target"))
        body = [f"{total} = jnp.clip({total} + {item}, -1000, 1000)",
                f"if {self.condition(inside).text}:", "    break"]
        lines = [f"{it} = {made}", f"{total} = 0.0", f"for {targets.format(item)} in {it}:"] + indent(body)
        value = self.pick(_PAIR_READS if made.startswith("enumerate") else _READS).format(it=it)
        if self.chance(30):
            lines += self.read_in_branch(scope, it, read, value)
        else:
            lines.append(f"{read} = {value}")
        lines.append(f"{total} = jnp.clip({total} + {read}, -1000, 1000)")  # what is left shows in the result
        after = scope.copy()
        after.define(Var(total, "f", 1000.0))
        after.define(Var(read, "f", max(6 * bound, 6.0)))  # two reads: in the branch and after it
        return Block(lines, after)

    def stmt_branch_drawn_iterator(self, scope: Scope, ctx: Ctx) -> Block:
        """An iterator held, then drawn from under a traced ``if`` only (no loop before it)."""
        self.used.add("iterators")
        it, read = self.fresh("it"), self.fresh("r")
        made, _, bound = self.held_source(scope)
        value = self.pick(_PAIR_READS if made.startswith("enumerate") else _READS).format(it=it)
        lines = [f"{it} = {made}"] + self.read_in_branch(scope, it, read, value, traced=True)
        after = scope.copy()
        after.define(Var(read, "f", max(6 * bound, 6.0)))
        return Block(lines, after)

    def read_in_branch(self, scope: Scope, it: str, read: str, value: str, traced: bool = False) -> list[str]:
        """``read = value`` of the iterator ``it`` under an ``if`` (of an argument, where ``traced``), then
        what the branch left of it added: eager Python drew from it only where the branch ran."""
        arguments = [v for v in self.visible(scope, ("i", "f")) if v.kind == "arg"]
        condition = (f"({self.use(scope, self.pick(arguments))} > {self.pick(['0', '1'])})"
                     if traced and arguments else self.condition(scope).text)
        left = _READS[-1].format(it=it)  # how many items are left, of numbers or of pairs
        return [f"{read} = 0.0", f"if {condition}:", f"    {read} = {value}", f"{read} = ({read} + {left})"]

    def held_source(self, scope: Scope) -> tuple[str, str, float]:
        """The iterator's making, the loop's targets (``{}`` the item), and a bound of the items."""
        numbers = [self.clip(self.floated(self.expr("f", scope, self.draw(st.integers(0, 1))), "f"), 100.0)
                   for _ in range(3)]
        listed = "[" + ", ".join(n.text for n in numbers) + "]"
        bound = max(n.bound for n in numbers)
        vectors = [v for v in self.visible(scope, VECTORS) if v.type == "vf"]
        kinds = ["iter", "enumerate", "genexpr"] + (["map"] if self.has("print") else []) + (["vector"] if vectors else [])
        kind = self.pick(kinds)
        if kind == "genexpr":  # held, so not the drawing code's own (as one written where it is drawn is)
            return f"(x * 1.0 for x in {listed})", "{}", bound
        if kind == "map":  # shown(k) prints k: eagerly, only for the items the loop draws
            self.module_parts["shown"] = SHOWN
            return "map(shown, [0.0, 1.0, 2.0, 3.0])", "{}", 3.0
        if kind == "vector":
            vector = self.pick(vectors)
            return f"enumerate({self.use(scope, vector)})", "_, {}", vector.bound
        if kind == "enumerate":
            return f"enumerate({listed})", "_, {}", bound
        return f"iter({listed})", "{}", bound

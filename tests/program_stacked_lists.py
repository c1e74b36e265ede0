"""Lists built by appends in loops and read by stacking them (feature ``stacked_lists``).

A list the function builds (``ys = []`` in its body), appended to in loops and read only as
``jnp.stack(ys)`` / ``jnp.array(ys)`` / ``jnp.asarray(ys)`` / ``len(ys)``, stays stacked when a loop is
staged: the scan's output is the array those calls return (runtime/stacked_lists.py). The generator
draws such lists, appends of float32 scalars in loops (any loop, at any depth, in branches too) and
in the body, and reads of them anywhere an expression can go: mostly by stacking, sometimes as a
list (``sum(ys)``, ``ys[-1]``), which keeps the rows, and sometimes inside the very loop that appends
to the list, where each append must be seen as it happens. A read guards the empty list.
"""

from __future__ import annotations

from program_model import AUG_BUDGET, CLIP, Block, E, Scope, Var

ELEMENT = 100  # appended values are clipped to [-ELEMENT, ELEMENT]
STACKING = ("jnp.stack({}).sum()", "jnp.array({}).mean()", "jnp.asarray({})[-1]", "jnp.stack({})[0]")
AS_A_LIST = ("sum({})", "{}[-1]")


class StackedLists:
    """The list definitions, their appends as statements and their reads as float and int values."""

    def prelude_kinds(self) -> list[str]:
        return super().prelude_kinds() + (["stacked_list_new"] if self.has("stacked_lists") else [])

    def extra_statements(self, scope: Scope, ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        if self.has("stacked_lists") and self.stacked_lists(scope):
            kinds += ["stacked_append"] * (3 if ctx.loops else 1)
        return kinds

    def stacked_lists(self, scope: Scope) -> list[Var]:
        return [v for v in scope.defined.values() if v.kind == "stacked"]

    def extra_leaves(self, t: str, scope: Scope) -> list:
        options = super().extra_leaves(t, scope)
        for var in self.stacked_lists(scope):
            if t == "f":
                options.append(lambda name=var.name: self.using("stacked_lists", self.stacked_read(name)))
            elif t == "i":
                options.append(lambda name=var.name: self.using("stacked_lists", E(f"len({name})", AUG_BUDGET, False)))
        return options

    def stmt_stacked_list_new(self, scope: Scope, ctx) -> Block:
        name = self.fresh("ys")
        scope = scope.copy()
        scope.define(Var(name, "c:stacked", ELEMENT, "stacked"))
        return Block([f"{name} = {self.pick(['[]', '[jnp.float32(0.5)]'])}"], scope)

    def stmt_stacked_append(self, scope: Scope, ctx) -> Block:
        """``ys.append(v)``, ``v`` mostly a float32 array (a Python float appended keeps a loop Python)."""
        self.used.add("stacked_lists")
        name = self.pick(self.stacked_lists(scope)).name
        value = self.small(self.floated(self.expr("f", scope), "f"), ELEMENT).text
        return Block([f"{name}.append({value if self.chance(20) else f'jnp.float32({value})'})"], scope)

    def stacked_read(self, name: str) -> E:
        reads = STACKING + AS_A_LIST if self.chance(30) else STACKING
        text = self.pick(reads).format(name)
        return self.clip(E(f"({text} if len({name}) else 0.0)", ELEMENT * AUG_BUDGET, True), CLIP)

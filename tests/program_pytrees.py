"""Tuples and dicts of values in generated programs (feature ``pytrees``).

A staged branch or loop carries a pytree by its leaves and must rebuild it with the same structure:
``st = (a, b)`` updated in a loop, ``d = {"a": x, "b": v}`` reassigned in a branch or updated with
``d["a"] = ...`` (also in a loop that a traced condition may end with ``break``), rebuilt by a
comprehension over its items, read in its key order (written unsorted half the time), bound to a
second name in a traced ``if`` and read back through it after an update in place, unpacked with ``p, q = st``. Such values are types of their own (``"pt:f,vf"``: a
tuple of a float and a float vector; ``"pd:i,f"``: a dict with keys "a" and "b"), so that every
statement that assigns or returns a variable can draw them, and their parts are leaves of the part's
type. Every part is clipped to [-CLIP, CLIP] where it is assigned, so CLIP bounds it wherever it
is read (a loop body's larger bound of the whole pytree, ``Loops.loop_scope``, is only cautious).
"""

from __future__ import annotations

from program_model import CLIP, Block, E, Scope, Var

WITH_VECTORS = ("pt:f,vf", "pt:i,f", "pd:vf,i", "pd:f,f")
SCALARS_ONLY = ("pt:i,f", "pt:f,f", "pd:i,f", "pd:f,i")
KEYS = ('"a"', '"b"')


def parts(t: str) -> tuple[str, list[str]]:
    """``"pt:f,i"`` -> ``("pt", ["f", "i"])``."""
    kind, types = t.split(":")
    return kind, types.split(",")


class Pytrees:
    """Tuple and dict values, their parts, item stores and unpacking."""

    def extra_types(self) -> list[str]:
        types = super().extra_types()
        if self.has("pytrees"):
            types += WITH_VECTORS if self.has("vectors") else SCALARS_ONLY
        return types

    def pytrees(self, scope: Scope, kind: str) -> list[Var]:
        return [v for v in scope.defined.values() if v.kind == "local" and v.type.startswith(kind + ":")]

    def structured(self, t: str, scope: Scope) -> E:
        """A literal of type ``t``, a variable of it, or (a tuple of two of a kind) one swapped."""
        options = [lambda: self.literal(t, scope)]
        kind, types = parts(t)
        for var in self.visible(scope, (t,)):
            options += [lambda var=var: E(self.use(scope, var), CLIP, False)] * 2
            if kind == "pt" and types[0] == types[1]:
                options.append(lambda var=var: E(f"({self.use(scope, var)}[1], {var.name}[0])", CLIP, False))
        return self.pick(options)()

    def part(self, t: str, scope: Scope) -> E:
        return self.clip(self.floated(self.expr(t, scope), t))

    def literal(self, t: str, scope: Scope) -> E:
        self.used.add("pytrees")
        kind, types = parts(t)
        values = [self.part(part, scope) for part in types]
        bound = max(value.bound for value in values)
        if kind == "pt":
            return E(f"({values[0].text}, {values[1].text})", bound, False)
        items = [f"{key}: {value.text}" for key, value in zip(KEYS, values)]
        if self.chance(50):  # insertion order not sorted: JAX's pytree of a dict sorts its keys
            items.reverse()
        return E("{" + ", ".join(items) + "}", bound, False)

    def extra_leaves(self, t: str, scope: Scope) -> list:
        options = super().extra_leaves(t, scope)
        for var in self.visible(scope, WITH_VECTORS + SCALARS_ONLY):
            kind, types = parts(var.type)
            for index, part in enumerate(types):
                if part == t:
                    key = str(index) if kind == "pt" else KEYS[index]
                    options.append(lambda var=var, key=key: E(f"{self.use(scope, var)}[{key}]", CLIP, t in ("f", "vf")))
        return options

    def extra_statements(self, scope: Scope, ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        if self.has("pytrees"):
            kinds += ["pytree_store"] * 2 if self.pytrees(scope, "pd") else []
            kinds += ["pytree_store_until"] if self.pytrees(scope, "pd") and self.budget > 0 else []
            kinds += ["pytree_unpack"] if self.pytrees(scope, "pt") else []
            kinds += ["pytree_rebuild", "pytree_ordered_sum"] if self.pytrees(scope, "pd") else []
            kinds += ["pytree_ordered_loop"] * 2 if self.pytrees(scope, "pd") and self.budget > 0 else []
            kinds += ["pytree_alias_in_if"] * 2 if self.pytrees(scope, "pd") and self.budget > 0 else []
        return kinds

    def stmt_pytree_store(self, scope: Scope, ctx) -> Block:
        """``d["a"] = <expr>``: a dict updated in place."""
        var = self.pick(self.pytrees(scope, "pd"))
        index = self.pick([0, 1])
        value = self.part(parts(var.type)[1][index], scope)
        return Block([f"{var.name}[{KEYS[index]}] = {value.text}"], scope)  # the part is clipped: same bound

    def stmt_pytree_store_until(self, scope: Scope, ctx) -> Block:
        """``for j in range(3): d["a"] = <expr>; if <condition>: break``: a dict updated in place by a loop
        that a traced condition may end early (a masked scan: each iteration is a ``lax.cond``)."""
        self.budget -= 1
        var = self.pick(self.pytrees(scope, "pd"))
        index = self.pick([0, 1])
        value = self.part(parts(var.type)[1][index], scope)
        body = [f"{var.name}[{KEYS[index]}] = {value.text}", f"if {self.condition(scope).text}:", "    break"]
        return Block([f"for {self.fresh('j')} in range(3):"] + [f"    {line}" for line in body], self.loop_scope(scope))

    def stmt_pytree_rebuild(self, scope: Scope, ctx) -> Block:
        """``d = {k: v for k, v in d.items()}``: the same dict, rebuilt in its own key order (a model's
        update ``{k: p - lr * g[k] for k, p in params.items()}``)."""
        var = self.pick(self.pytrees(scope, "pd"))
        return Block([f"{var.name} = {{k: v for k, v in {var.name}.items()}}"], scope)

    def stmt_pytree_ordered_sum(self, scope: Scope, ctx) -> Block:
        """A number that depends on the dict's key order: its values' sums weighted by position."""
        self.used.add("pytrees")
        var = self.pick(self.pytrees(scope, "pd"))
        name = self.fresh("o")
        scope = scope.copy()
        scope.define(Var(name, "f", 2 * 4 * CLIP))
        weighted = f"jnp.stack([jnp.sum(v) * 1.0 for v in {var.name}.values()]) * jnp.arange(1, 3)"
        return Block([f"{name} = jnp.sum({weighted})"], scope)

    def stmt_pytree_ordered_loop(self, scope: Scope, ctx) -> Block:
        """A loop that rebuilds a dict from its items, scaling each by its position: a staged loop's
        body must see the dict in its own key order (JAX's pytree of a dict sorts the keys)."""
        self.budget -= 1
        self.used.add("pytrees")
        var = self.pick(self.pytrees(scope, "pd"))
        scaled = f"jnp.clip(v * (p + 1), -{CLIP}, {CLIP})"
        body = f"{var.name} = {{k: {scaled} for p, (k, v) in enumerate({var.name}.items())}}"
        header = f"for {self.fresh('j')} in {self.pick(['range(3)', 'range(2)'])}:"
        return Block([header, f"    {body}"], self.loop_scope(scope))

    def stmt_pytree_alias_in_if(self, scope: Scope, ctx) -> Block:
        """A second name bound to a dict in a traced ``if`` (``best = params``), then an in-place update
        of the dict read back through that name: eagerly both names are one dict on every path."""
        self.budget -= 1
        self.used.add("pytrees")
        var = self.pick(self.pytrees(scope, "pd"))
        index = self.pick([0, 1])
        key, value = KEYS[index], self.part(parts(var.type)[1][index], scope)
        alias = self.fresh("al")
        if self.chance(50):
            head = [f"{alias} = {var.name}", f"if {self.condition(scope).text}:", f"    {alias} = {var.name}"]
        else:
            head = [f"{alias} = None", f"if {self.condition(scope).text}:", f"    {alias} = {var.name}",
                    "else:", f"    {alias} = {var.name}"]
        return Block(head + [f"{var.name}[{key}] = {value.text}", f"{var.name}[{key}] = {alias}[{key}]"], scope)

    def stmt_pytree_unpack(self, scope: Scope, ctx) -> Block:
        """``p, q = st``: a tuple's parts as new variables."""
        var = self.pick(self.pytrees(scope, "pt"))
        names = [self.fresh("p"), self.fresh("q")]
        scope = scope.copy()
        for name, part in zip(names, parts(var.type)[1]):
            scope.define(Var(name, part, CLIP))
        return Block([f"{names[0]}, {names[1]} = {var.name}"], scope)

"""Python lists, dicts and sets in generated programs (feature ``containers``).

A container method that mutates is an effect even when its result is used: ``total += xs.pop()``,
``v = d.setdefault(k, 0)``. Run while tracing a staged branch or loop body, it happens once,
whatever the condition or the trip count (issue #13), so the generator puts such calls everywhere
an expression can go: in loops over static and traced ranges, in ``while`` tests, in branches.

Containers are built in ``f`` (a literal, or ``list(TABLE)``: a copy of a module-level constant)
before the control flow or inside a body (then used only there). Their elements are Python ints
0..3 for keys and set members (hashable, whatever is traced) and int values clipped to
[-ELEMENT, ELEMENT] otherwise; a pop is guarded (``xs.pop() if xs else 0``), so that eager Python
never pops an empty list.
"""

from __future__ import annotations

import dataclasses

from hypothesis import strategies as st
from program_model import AUG_BUDGET, NUMERIC, Block, E, Scope, Var

ELEMENT = 100  # values put into a container are clipped to [-ELEMENT, ELEMENT]
LENGTH = AUG_BUDGET  # a bound of a list's length: far more appends than any program makes
KEYS = 4  # dict keys and set members are 0 .. KEYS - 1
TABLE = "TABLE = [3, 1, 4, 1, 5, 9, 2, 6]"


class Containers:
    """Container definitions, method calls as statements and as values."""

    def extra_statements(self, scope: Scope, ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        if not self.has("containers"):
            return kinds
        kinds.append("container_new")
        if self.containers(scope):
            kinds += ["container_store"] * 2
            targets = [v for v in scope.defined.values() if v.kind == "local" and v.type in NUMERIC]
            if targets and (not ctx.loops or self.aug_left > 0):
                kinds += ["container_aug"] * 2
        return kinds

    def prelude_kinds(self) -> list[str]:
        return super().prelude_kinds() + (["container_new"] if self.has("containers") else [])

    def containers(self, scope: Scope) -> list[Var]:
        return [v for v in scope.defined.values() if v.kind == "container"]

    def key(self) -> int:
        return self.draw(st.integers(0, KEYS - 1))

    def element(self, scope: Scope) -> E:
        return self.small(self.expr("i", scope, self.draw(st.integers(0, 2))), ELEMENT)

    def extra_leaves(self, t: str, scope: Scope) -> list:
        options = super().extra_leaves(t, scope)
        for var in self.containers(scope):
            options += [lambda value=value: self.using("containers", value())
                        for value in self.container_values(t, var, scope)]
        return options

    def container_values(self, t: str, var: Var, scope: Scope) -> list:
        """Ways to draw a value of type ``t`` from the container ``var``: most of them mutate it."""
        name = var.name
        if t == "i" and var.type == "c:list":
            return [lambda: E(f"({name}.pop() if {name} else 0)", ELEMENT, False),
                    lambda: E(f"({name}.pop(0) if {name} else 0)", ELEMENT, False),
                    lambda: E(f"len({name})", LENGTH, False)]
        if t == "i" and var.type == "c:dict":
            return [lambda: E(f"{name}.setdefault({self.key()}, {self.element(scope).text})", ELEMENT, False),
                    lambda: E(f"{name}.pop({self.key()}, 0)", ELEMENT, False),
                    lambda: E(f"{name}.get({self.key()}, 0)", ELEMENT, False)]
        if t == "i" and var.type == "c:set":
            return [lambda: E(f"len({name})", KEYS, False)]
        if t == "b" and var.type in ("c:set", "c:dict"):
            return [lambda: E(f"({self.key()} in {name})", 1, False)]
        return []

    def stmt_container_new(self, scope: Scope, ctx) -> Block:
        """A list, dict or set, empty or not."""
        name, t = self.fresh("xs"), self.pick(["c:list", "c:dict", "c:set"])
        if t == "c:list":
            value = self.pick(["list(TABLE)", repr(list(range(1, self.draw(st.integers(2, 6))))), "[]"])
            if value == "list(TABLE)":
                self.module_parts["TABLE"] = TABLE
        elif t == "c:dict":
            value = self.pick(["{}", "{0: 2, 1: 5}", "{2: -3}"])
        else:
            value = self.pick(["set()", "{1, 2}", "{0}"])
        scope = scope.copy()
        scope.define(Var(name, t, ELEMENT, "container"))
        return Block([f"{name} = {value}"], scope)

    def stmt_container_store(self, scope: Scope, ctx) -> Block:
        """A mutating method called for its effect (or an item stored into a dict)."""
        self.used.add("containers")
        container = self.pick(self.containers(scope))
        name, t = container.name, container.type
        if t == "c:list":
            method = self.pick(["append(", "insert(0, "])
            line = f"{name}.{method}{self.element(scope).text})"
        elif t == "c:dict":
            line = self.pick([f"{name}[{self.key()}] = ", f"{name}.pop({self.key()}, None)"])
            line += self.element(scope).text if line.endswith("= ") else ""
        else:
            line = f"{name}.{self.pick(['add', 'discard'])}({self.key()})"
        return Block([line], scope)

    def stmt_container_aug(self, scope: Scope, ctx) -> Block:
        """``x += xs.pop() if xs else 0`` and the like: a mutating call whose value is used."""
        self.used.add("containers")
        target = self.returned_first([v for v in scope.defined.values() if v.kind == "local" and v.type in NUMERIC])
        container = self.pick(self.containers(scope))
        value = self.small(self.pick(self.container_values("i", container, scope))(), ELEMENT)
        value = self.floated(value, target.type)
        if ctx.loops:
            self.aug_left -= 1
        text = self.pick([f"{target.name} += {value.text}", f"{target.name} = {target.name} + {value.text}"])
        scope = scope.copy()
        scope.define(dataclasses.replace(target, bound=target.bound + value.bound, weak=False))
        return Block([text], scope)

"""Expressions of the generated programs: typed, with an upper bound of their magnitude.

:class:`Expressions` is the half of the program builder (program_generator.py) that draws
expressions; the statements half inherits it. An expression is an ``E``: its text, an upper bound of
its magnitude, and whether it is certainly a float (for "f" / "vf"). A float variable initialised
with an int literal (``acc = 0``, feature weak_init) holds a Python int until a float is assigned to
it, so it is no float witness: ``acc - n`` with an int32 ``n`` would be int32, a genuine change of
dtype. The optional features' constructs enter through the hooks below, defined by their modules.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import strategies as st
from program_any_all import ANY_ALL_KINDS, any_all_test
from program_membership import MEMBERSHIP_OPERATORS, membership_test
from program_model import CLIP, FLOAT_ARG, FLOAT_CONSTANTS, GUARD, INT_ARG, SCALARS, STABLE, VECTORS, E, Scope, Var


class Expressions:
    """Drawing helpers and expressions; expects ``draw``, ``features``, ``length``, ``counter``,
    ``maybe_used`` (set by the builder's ``__init__``). The hooks below: each optional feature's class
    extends them through super(), and adds nothing, so draws nothing, while its feature is off."""

    def extra_leaves(self, t: str, scope: Scope) -> list[Callable[[], E]]:
        """More ways to draw a leaf of type ``t`` (never a loop-invariant one)."""
        return []

    def structured(self, t: str, scope: Scope) -> E:
        """An expression of a type with parts (``"pt:f,i"``: a tuple of a float and an int)."""
        raise AssertionError(f"no feature draws values of type {t}")

    def extra_types(self) -> list[str]:
        """More types for new variables and returned values."""
        return []

    def extra_statements(self, scope: Scope, ctx: Any) -> list[str]:
        """More statement kinds (``stmt_<kind>`` methods) possible here."""
        return []

    def parameter_types(self, types: list[str]) -> list[str]:
        """The types of ``f``'s parameters, from those drawn."""
        return types

    def parameter(self, name: str, t: str) -> Var:
        """The variable of a parameter of ``f``."""
        return Var(name, t, INT_ARG if t in ("i", "vi") else FLOAT_ARG, "arg")

    def prelude_kinds(self) -> list[str]:
        """Statement kinds that may come first, before the control flow: definitions to use later."""
        return []

    # drawing: every choice shrinks towards its first option / towards "no"
    def has(self, feature: str) -> bool:
        return feature in self.features

    def pick(self, options: Sequence[Any]) -> Any:
        return options[self.draw(st.integers(0, len(options) - 1))]

    def chance(self, percent: int) -> bool:
        return self.draw(st.integers(0, 99)) >= 100 - percent

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self.counter)}"

    def visible(self, scope: Scope, types: Sequence[str], stable: bool = False) -> list[Var]:
        names = [v for v in scope.defined.values() if v.type in types]
        if self.has("maybe_undefined_use") and not stable:
            names += [v for v in scope.maybe.values() if v.type in types]
        if stable:
            names = [v for v in names if v.kind != "local" and v.bound <= STABLE]
        return names

    def using(self, feature: str, e: E) -> E:
        """``e``, which uses ``feature`` (recorded: the CI test checks every feature it enables is used)."""
        self.used.add(feature)
        return e

    def returned_first(self, candidates: list[Var]) -> Var:
        """One of ``candidates``, mostly a state variable (``s0``, ``s1``, ...: what ``f`` returns), so
        that what an effect computes reaches the result the check compares."""
        state = [var for var in candidates if var.name.startswith("s")]
        return self.pick(state if state and self.chance(75) else candidates)

    def defined_of(self, scope: Scope, t: str) -> list[Var]:
        """The variables of type ``t`` bound on every path (a function, a container: never read
        where it may be unbound, which would only make the eager run raise)."""
        return [v for v in scope.defined.values() if v.type == t]

    def use(self, scope: Scope, var: Var) -> str:
        if var.name not in scope.defined:
            self.maybe_used.add(var.name)
        return var.name

    def const(self, t: str) -> E:
        if t == "i":
            value = self.draw(st.integers(-3, 5))
            return E(str(value) if value >= 0 else f"({value})", abs(value), False)
        text = self.pick(FLOAT_CONSTANTS)
        return E(text if not text.startswith("-") else f"({text})", abs(float(text)), True)

    def clip(self, e: E, limit: float = CLIP) -> E:
        if e.bound <= limit:
            return e
        return E(f"jnp.clip({e.text}, -{CLIP}, {CLIP})", CLIP, e.flt)

    def small(self, e: E, limit: float) -> E:
        """``e`` clipped to [-limit, limit] (where its bound says it may exceed that)."""
        if e.bound <= limit:
            return e
        return E(f"jnp.clip({e.text}, -{limit}, {limit})", limit, e.flt)

    def fit(self, operands: list[E], combine: Callable[..., float]) -> list[E]:
        """Clip the largest operands until ``combine(*bounds)`` stays under GUARD."""
        operands = list(operands)
        while combine(*(e.bound for e in operands)) > GUARD:
            index = max(range(len(operands)), key=lambda k: operands[k].bound)
            if operands[index].bound <= CLIP:
                break
            operands[index] = self.clip(operands[index])
        return operands

    def variable(self, scope: Scope, var: Var) -> E:
        # an array that helpers update in place is read through a copy: a second name bound to it
        # (an alias, or a NumPy view such as x[::-1]) would see the updates, which no JAX array can
        text = self.use(scope, var) + (".copy()" if var.kind == "buffer" else "")
        return E(text, var.bound, var.type in ("f", "vf") and not var.weak)

    def leaf(self, t: str, scope: Scope, stable: bool = False) -> E:
        options: list[Callable[[], E]] = []
        if t in SCALARS:
            options.append(lambda: self.const(t))
        for var in self.visible(scope, (t,), stable):
            # variables more often than constants, locals (the state the program computes) most
            options += [lambda var=var: self.variable(scope, var)] * (3 if var.kind == "local" else 2)
        if not stable and self.has("vectors"):
            for var in self.visible(scope, ("v" + t,) if t in SCALARS else ()):
                options.append(lambda var=var: E(
                    f"{self.use(scope, var)}[{self.draw(st.integers(-1, self.length - 1))}]", var.bound, t == "f"))
                if self.has("jnp_calls"):
                    options.append(lambda var=var: self.reduce_vector(scope, var))
            vectors = self.visible(scope, VECTORS)
            if t == "i" and vectors:
                options.append(lambda: E(f"len({self.use(scope, self.pick(vectors))})", self.length, False))
        if t == "vi":
            options.append(lambda: E(self.pick([f"jnp.arange({self.length})", f"jnp.zeros({self.length}, jnp.int32)"]),
                                     self.length, False))
        if t == "vf":
            options.append(lambda: E(self.pick([f"jnp.zeros({self.length})", f"jnp.ones({self.length})",
                                                f"(jnp.arange({self.length}) * 0.5)"]), self.length, True))
        if t == "b":
            options.append(lambda: self.compare(scope, 0))
            for var in self.visible(scope, ("b",)):
                options.append(lambda var=var: self.variable(scope, var))
        if not stable:
            options += self.extra_leaves(t, scope)
        return self.pick(options)()

    def reduce_vector(self, scope: Scope, var: Var) -> E:
        name = self.use(scope, var)
        flt = var.type == "vf"
        kind = self.pick(["sum", "max", "min"])
        if kind == "sum":
            (inner,) = self.fit([E(name, var.bound, flt)], lambda b: b * self.length)
            return E(f"jnp.sum({inner.text})", inner.bound * self.length, flt)
        return E(f"jnp.{kind}({name})", var.bound, flt)

    def expr(self, t: str, scope: Scope, depth: int | None = None, stable: bool = False) -> E:
        """An expression of type ``t``; ``stable``: loop-invariant and small (|value| <= 100)."""
        if ":" in t:
            return self.structured(t, scope)
        if depth is None:
            depth = self.draw(st.integers(0, 1 if stable else 3))
        if depth <= 0 or self.draw(st.integers(0, 2)) == 0:
            return self.leaf(t, scope, stable)
        if t == "b":
            return self.condition_expr(scope, depth, pure=True)
        if stable:
            return self.stable_composite(t, scope, depth)
        if t in SCALARS:
            return self.scalar_composite(t, scope, depth)
        return self.vector_composite(t, scope, depth)

    def stable_composite(self, t: str, scope: Scope, depth: int) -> E:
        x = self.expr(t, scope, depth - 1, stable=True)
        op = self.pick(["+", "-", "*"])
        if op == "*":
            c = self.pick([E("2", 2, False), E("3", 3, False), E("(-1)", 1, False)] if t in ("i", "vi")
                          else [E("0.5", 0.5, True), E("2.0", 2.0, True)])
            return E(f"({x.text} * {c.text})", x.bound * c.bound, x.flt or c.flt)
        y = self.expr(t, scope, depth - 1, stable=True)
        return E(f"({x.text} {op} {y.text})", x.bound + y.bound, x.flt or y.flt)

    def operand_type(self, t: str) -> str:
        """The type of an operand of a binary operation whose result has type ``t``."""
        if t == "f":
            return self.pick(["f", "i"])
        if t == "vf":
            return self.pick(["vf", "f", "vi", "i"])
        if t == "vi":
            return self.pick(["vi", "i"])
        return t

    def scalar_composite(self, t: str, scope: Scope, depth: int) -> E:
        kinds = ["add", "sub", "mul_const", "mul", "neg", "floordiv", "mod"]
        if t == "f":
            kinds.append("div")
        if self.has("ternary"):
            kinds.append("ternary")
        if self.has("jnp_calls"):
            kinds += ["where", "clip"]
        if self.has("value_boolops"):
            kinds += ["or", "and"]
        if self.has("minmax_builtins"):
            kinds += ["min", "max", "abs"]
        return self.composite(self.pick(kinds), t, scope, depth)

    def vector_composite(self, t: str, scope: Scope, depth: int) -> E:
        kinds = ["add", "sub", "mul_const", "neg", "floordiv", "mod"]
        if self.has("ternary"):
            kinds.append("ternary")
        if self.has("jnp_calls"):
            kinds += ["where_elementwise", "clip", "reverse", "cumsum"]
        if t == "vf":
            kinds.append("div")
        return self.composite(self.pick(kinds), t, scope, depth)

    def composite(self, kind: str, t: str, scope: Scope, depth: int) -> E:
        if kind in ("add", "sub", "mul", "mul_const", "neg", "floordiv", "mod", "div"):
            return self.arithmetic(kind, t, scope, depth - 1)
        return self.selection(kind, t, scope, depth - 1)

    def arithmetic(self, kind: str, t: str, scope: Scope, sub: int) -> E:
        """An operator expression; ``sub``: the depth of its operands."""
        if kind in ("add", "sub", "mul"):
            first, second = t, self.operand_type(t)
            if self.draw(st.booleans()):
                first, second = second, first
            x, y = self.expr(first, scope, sub), self.expr(second, scope, sub)
            if kind == "mul":
                x, y = self.fit([x, y], lambda a, b: a * b)
                return E(f"({x.text} * {y.text})", x.bound * y.bound, x.flt or y.flt)
            x, y = self.fit([x, y], lambda a, b: a + b)
            return E(f"({x.text} {'+' if kind == 'add' else '-'} {y.text})", x.bound + y.bound, x.flt or y.flt)
        if kind == "mul_const":
            c = self.const("i" if t in ("i", "vi") else self.pick(["i", "f"]))
            (x,) = self.fit([self.expr(t, scope, sub)], lambda a: a * max(c.bound, 1))
            return E(f"({x.text} * {c.text})", x.bound * c.bound, x.flt or c.flt)
        if kind == "neg":
            x = self.expr(t, scope, sub)
            return E(f"(-{x.text})", x.bound, x.flt)
        if kind in ("floordiv", "mod"):
            x = self.expr(t, scope, sub)
            k = self.draw(st.integers(2, 5))
            if kind == "floordiv":
                return E(f"({x.text} // {k})", x.bound, x.flt)
            return E(f"({x.text} % {k})", k, x.flt)
        if kind == "div":
            x = self.expr(self.pick(["f", "i"] if t == "f" else ["vf", "vi"]), scope, sub)
            return E(f"({x.text} / {self.pick(['2', '4', '2.0'])})", x.bound, True)
        raise AssertionError(kind)

    def selection(self, kind: str, t: str, scope: Scope, sub: int) -> E:
        """A conditional expression or a call (jnp.where, jnp.clip, min, ...)."""
        if kind == "ternary":
            # arms of one element indexed back to the scalar, or a test of one element
            one_element_arms = t in SCALARS and self.one_element_here()
            arms = self.one_element if one_element_arms else self.expr
            x = arms(t, scope, sub)
            c = self.one_element_test(scope, sub, numbers=True) if self.one_element_here() else self.condition(scope, sub)
            y = arms(t, scope, sub)
            index = "[0]" if one_element_arms else ""
            return E(f"({x.text} if {c.text} else {y.text}){index}", max(x.bound, y.bound), x.flt and y.flt)
        if kind == "where":
            c = self.condition_expr(scope, sub)
            x, y = self.expr(t, scope, sub), self.expr(t, scope, sub)
            return E(f"jnp.where({c.text}, {x.text}, {y.text})", max(x.bound, y.bound), x.flt or y.flt)
        if kind == "where_elementwise":
            x = self.expr(t, scope, sub)
            s = self.expr(t[1:], scope, sub)
            y = self.expr(t, scope, sub)
            op = self.pick([">", "<=", "=="])
            return E(f"jnp.where({x.text} {op} {s.text}, {x.text}, {y.text})", max(x.bound, y.bound), x.flt or y.flt)
        if kind == "clip":
            x = self.expr(t, scope, sub)
            low = self.draw(st.integers(-5, 2))
            high = low + self.draw(st.integers(0, 8))
            return E(f"jnp.clip({x.text}, {low}, {high})", max(abs(low), abs(high)), x.flt)
        if kind == "reverse":
            x = self.expr(t, scope, sub)
            return E(f"{x.text}[::-1]", x.bound, x.flt)
        if kind == "cumsum":
            (x,) = self.fit([self.expr(t, scope, sub)], lambda a: a * self.length)
            return E(f"jnp.cumsum({x.text})", x.bound * self.length, x.flt)
        if kind in ("or", "and") and self.one_element_here():
            x, y = self.one_element(t, scope, sub), self.one_element(t, scope, sub)
            return E(f"({x.text} {kind} {y.text})[{self.pick(['0', '-1'])}]", max(x.bound, y.bound), x.flt and y.flt)
        if kind in ("or", "and", "min", "max"):
            x, y = self.expr(t, scope, sub), self.expr(t, scope, sub)
            text = f"({x.text} {kind} {y.text})" if kind in ("or", "and") else f"{kind}({x.text}, {y.text})"
            return E(text, max(x.bound, y.bound), x.flt and y.flt)
        if kind == "abs":
            x = self.expr(t, scope, sub)
            return E(f"abs({x.text})", x.bound, x.flt)
        raise AssertionError(kind)

    def compare(self, scope: Scope, depth: int) -> E:
        op = self.pick(["<", ">", "<=", ">=", "==", "!="] + (MEMBERSHIP_OPERATORS if self.has("chained_compare") else []))
        x = self.expr(self.pick(SCALARS), scope, depth)
        if op in MEMBERSHIP_OPERATORS:
            return membership_test(self, x, op)
        y = self.expr(self.pick(SCALARS), scope, depth)
        if self.has("chained_compare") and self.chance(20):
            z = self.expr(self.pick(SCALARS), scope, depth)
            return E(f"({x.text} {op} {y.text} {self.pick(['<', '<=', '!='])} {z.text})", 1, False)
        return E(f"({x.text} {op} {y.text})", 1, False)

    def condition_expr(self, scope: Scope, depth: int, pure: bool = False) -> E:
        """A boolean scalar expression; ``pure``: its value is a bool on every path (it may be stored)."""
        kinds = ["compare", "compare", "parity"]
        if self.has("boolops"):
            kinds += ["and", "or", "not"]
        if self.has("vectors") and self.has("jnp_calls") and self.visible(scope, VECTORS):
            kinds += ["any", "all"]
        kind = self.pick(kinds + (list(ANY_ALL_KINDS) if self.has("any_all") and depth > 0 else []))
        sub = max(depth - 1, 0)
        if kind in ANY_ALL_KINDS:
            return any_all_test(self, kind, scope, sub)
        if kind == "compare":
            return self.compare(scope, sub)
        if kind == "parity":
            x = self.expr(self.pick(SCALARS), scope, sub)
            return E(f"({x.text} % 2 {self.pick(['==', '!='])} 0)", 1, False)
        operand = (lambda: self.condition_expr(scope, sub, pure=True)) if pure else (lambda: self.condition(scope, sub))
        if kind in ("and", "or", "not") and self.one_element_here():
            operand = lambda: self.one_element_test(scope, sub, numbers=not pure)
            if kind != "not":  # a `[0]` keeps the condition a scalar, as the program model's are
                return E(f"({operand().text} {kind} {operand().text})[0]", 1, False)
        if kind in ("and", "or"):
            x, y = operand(), operand()
            return E(f"({x.text} {kind} {y.text})", 1, False)
        if kind == "not":
            return E(f"(not {operand().text})", 1, False)
        var = self.pick(self.visible(scope, VECTORS))
        s = self.expr(var.type[1:], scope, sub)
        return E(f"jnp.{kind}({self.use(scope, var)} {self.pick(['>', '<', '>=', '!='])} {s.text})", 1, False)

    def condition(self, scope: Scope, depth: int | None = None) -> E:
        """What an ``if`` / ``while`` / ternary tests: a boolean, or a number by its truth value."""
        if depth is None:
            depth = self.draw(st.integers(0, 2))
        if self.has("truthiness") and self.chance(15):
            return self.expr(self.pick(SCALARS), scope, depth)
        if depth == 0 and not self.visible(scope, ("b",)):
            return self.compare(scope, 0)
        return self.expr("b", scope, depth)

    # --- one-element arrays --------------------------------------------------------------------
    # `and` / `or` / `a if c else b` return an operand, whose shape the result keeps: `(a or b)[0]` on
    # arrays of shape (1,) fails if the result became a scalar. The model's values are scalars and
    # vectors of the program's length, so a one-element array stays inside its expression (indexed
    # back to a scalar, or tested for its truth); it meets a scalar only where that decides no shape
    # (arithmetic, comparisons), never as the other operand of `and` / `or` or the other arm of `if`.

    def one_element_here(self) -> bool:
        """Whether to draw the operands at hand as one-element arrays (sometimes, with vectors on)."""
        return self.has("vectors") and self.chance(25)

    def one_element(self, t: str, scope: Scope, depth: int) -> E:
        """An array of shape (1,) of element type ``t`` ("i" / "f"): a slice of a vector, a scalar
        reshaped, or either plus a scalar (which broadcasts to shape (1,))."""
        vectors = self.visible(scope, ("v" + t,))
        if vectors and self.draw(st.booleans()):
            var, start = self.pick(vectors), self.draw(st.integers(0, self.length - 1))
            x = E(f"{self.use(scope, var)}[{start}:{start + 1}]", var.bound, t == "f")
        else:
            inner = self.expr(t, scope, max(depth - 1, 0))
            x = E(f"jnp.reshape({inner.text}, (1,))", inner.bound, inner.flt)
        if depth <= 0 or not self.chance(30):
            return x
        x, y = self.fit([x, self.expr(t, scope, depth - 1)], lambda a, b: a + b)
        return E(f"({x.text} {self.pick(['+', '-'])} {y.text})", x.bound + y.bound, x.flt or y.flt)

    def one_element_test(self, scope: Scope, depth: int, numbers: bool) -> E:
        """A one-element array used for its truth: a comparison (the other side may be a scalar), a
        chain of them, or (``numbers``, with truthiness on) a number."""
        if numbers and self.has("truthiness") and self.chance(15):
            return self.one_element(self.pick(SCALARS), scope, depth)
        x = self.one_element(self.pick(SCALARS), scope, depth)
        y = self.one_element(self.pick(SCALARS), scope, depth) if self.draw(st.booleans()) else self.expr(
            self.pick(SCALARS), scope, depth)
        x, y = (y, x) if self.draw(st.booleans()) else (x, y)
        op = self.pick(["<", ">", "<=", ">=", "==", "!="])
        if self.has("chained_compare") and self.chance(20):  # each comparison of the chain has one element
            z = self.one_element(self.pick(SCALARS), scope, depth)
            return E(f"({x.text} {op} {y.text} {self.pick(['<', '<=', '!='])} {z.text})", 1, False)
        return E(f"({x.text} {op} {y.text})", 1, False)

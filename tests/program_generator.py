"""Random JAX programs, and the check that ``autograph_lite`` runs them as eager Python does.

``cases(features)`` is a hypothesis strategy for a :class:`Case`: the source text of a module that
defines one function ``f`` of one to three arguments (int32 / float32 scalars and 1-D arrays of one
shared length, 3 or 4), and one to three sets of concrete inputs for it. ``check_case`` writes the
module to a real file (the converter reads source files), runs ``f`` eagerly on each input set (the
reference; a set on which the eager run raises is discarded), then ``autograph_lite.convert(f)`` on
the same concrete inputs and ``autograph_lite.jit(f)`` with every argument traced, on every device
``jax.devices()`` reports, and says how they compare: an :class:`Outcome`.

The programs use what the converter rewrites: nested ``if`` / ``elif`` / ``else``, ternaries,
``and`` / ``or`` / ``not`` (value-returning too), chained comparisons, ``for`` over static ranges,
over ranges with a traced bound, over arrays and ``enumerate`` / ``zip`` of arrays, counter-bounded
``while`` loops, early ``return`` in branches, augmented assignments, variables defined on only some
paths where Python allows reading them. Each construct is a *feature* that can be switched on or off
(:data:`FEATURES`); the ones in :data:`OFF_BY_DEFAULT` are not generated unless asked for.

Values stay small enough that int32 arithmetic never overflows: int arguments lie in [-6, 6] (so a
traced ``range(n)`` runs at most 6 times), floats are multiples of 1/4 in [-8, 8], ``//`` and ``%``
only take positive constant divisors, and the generator tracks an upper bound of every value's
magnitude, wrapping an operand in ``jnp.clip`` where a product or sum could get too large. Inside
loops, an assignment to a variable from before the loop is clipped to [-1000, 1000], and augmented
assignments only add small loop-invariant values, so no value grows geometrically across iterations.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import importlib.util
import inspect
import itertools
import re
import sys
import traceback
from pathlib import Path
from typing import Any, Callable, NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import strategies as st

import autograph_lite
from support import assert_same, load_source

# --- features ------------------------------------------------------------------------------------

FEATURES: dict[str, str] = {
    "if": "if statements (with else)",
    "elif": "elif chains",
    "ternary": "conditional expressions `a if c else b`",
    "boolops": "and / or / not on conditions",
    "value_boolops": "value-returning `x or y` / `x and y` on numbers",
    "chained_compare": "chained comparisons `a < b <= c`",
    "truthiness": "a number used as a condition (`if x:`)",
    "static_range": "for over range(3), range(len(v)), ...",
    "traced_range": "for over range(n) with n an int32 argument",
    "array_loop": "for over the rows of an array",
    "enumerate": "for over enumerate(array)",
    "zip": "for over zip(array, array)",
    "while": "counter-bounded while loops",
    "early_return": "return at the end of an if branch (outside loops)",
    "augassign": "augmented assignments +=, -=, *=",
    "weak_init": "a float variable initialised with an int literal (acc = 0)",
    "shared_definition": "a new variable assigned in every branch of an if, used after it",
    "jnp_calls": "jnp.where / jnp.clip / jnp.sum / jnp.any ... in expressions",
    "vectors": "1-D array values",
    # Not supported by the converter when the generator was written; off unless asked for.
    "break_continue": "break / continue (at the end of if branches, or of a loop body) in loops",
    "loop_else": "for ... else / while ... else (only with break_continue)",
    "return_in_loop": "return at the end of an if branch inside a loop",
    "minmax_builtins": "min(a, b) / max(a, b) / abs(a) on traced values",
    "maybe_undefined_use": "reads of a variable assigned on only some paths (Python may raise "
    "UnboundLocalError; the converter may reject it as a documented limitation)",
}
OFF_BY_DEFAULT = frozenset({"break_continue", "loop_else", "return_in_loop", "minmax_builtins", "maybe_undefined_use"})
DEFAULT_FEATURES = frozenset(FEATURES) - OFF_BY_DEFAULT


def parse_features(spec: str | None) -> frozenset[str]:
    """Features from a spec such as ``"+break_continue,-while"``, ``"all"`` or ``""`` (the default).

    Items are applied in order to the default set: ``+name`` / ``name`` switches a feature on,
    ``-name`` off; ``all`` and ``none`` start over from every feature / no feature.
    """
    features = set(DEFAULT_FEATURES)
    for item in (spec or "").replace(" ", ",").split(","):
        if not item:
            continue
        if item in ("all", "none", "default"):
            features = {"all": set(FEATURES), "none": set(), "default": set(DEFAULT_FEATURES)}[item]
            continue
        on = not item.startswith("-")
        name = item.lstrip("+-")
        if name not in FEATURES:
            raise ValueError(f"unknown generator feature {name!r}; known: {', '.join(FEATURES)}")
        if on:
            features.add(name)
        else:
            features.discard(name)
    return frozenset(features)


# --- bounds --------------------------------------------------------------------------------------

INT_ARG = 6  # int scalar arguments and int array elements lie in [-INT_ARG, INT_ARG]
FLOAT_ARG = 8.0  # float arguments: multiples of 1/4 in [-FLOAT_ARG, FLOAT_ARG]
CLIP = 1000  # jnp.clip(x, -CLIP, CLIP) where a value could grow
CLIP_ABOVE = 100_000  # an assignment (outside loops) whose magnitude could exceed this is clipped
GUARD = 1 << 28  # no intermediate value may exceed this (int32 overflows at 2**31)
MAX_TRIPS = 6  # any one loop runs at most this many times
STABLE = 16  # loop-invariant leaves allowed on the right of an augmented assignment in a loop
AUG_PER_NEST = 4  # augmented assignments per outermost loop
AUG_BUDGET = AUG_PER_NEST * MAX_TRIPS**3 * 100  # what augmented assignments can add in one loop nest
MAX_DEPTH = 3  # nesting of compound statements

SCALARS = ("i", "f")
VECTORS = ("vi", "vf")
NUMERIC = SCALARS + VECTORS
FLOAT_CONSTANTS = ("1.0", "0.5", "2.0", "-1.5", "0.25", "3.0", "-0.5", "1.5")


@dataclasses.dataclass(frozen=True)
class Var:
    name: str
    type: str  # "i", "f", "vi", "vf" or "b"
    bound: float  # an upper bound of the magnitude of its value (of each element for arrays)
    kind: str = "local"  # "local" (assignable), "arg" or "target" (loop targets and counters: read-only)
    weak: bool = False  # a float variable that may still hold the Python int it was initialised with


class E(NamedTuple):
    """A generated expression."""

    text: str
    bound: float  # an upper bound of its magnitude
    flt: bool  # certainly a float (not a Python int or an int32 array): meaningful for "f" / "vf"


@dataclasses.dataclass
class Scope:
    defined: dict[str, Var]
    maybe: dict[str, Var]  # assigned on some paths only

    def copy(self) -> "Scope":
        return Scope(dict(self.defined), dict(self.maybe))

    def define(self, var: Var) -> None:
        self.defined[var.name] = var
        self.maybe.pop(var.name, None)


@dataclasses.dataclass(frozen=True)
class Ctx:
    depth: int = 0
    loops: tuple[str, ...] = ()  # enclosing loops, outermost first: "for" / "while"


@dataclasses.dataclass(frozen=True)
class Block:
    lines: list[str]
    scope: Scope
    exits: bool = False  # no path falls through to the next statement
    returns: bool = False  # every path returns


def _indent(lines: Sequence[str]) -> list[str]:
    return ["    " + line for line in lines]


class _Builder:
    """Draws one program, statement by statement, keeping track of names, types and bounds."""

    def __init__(self, draw: Callable, features: frozenset[str], length: int, max_statements: int):
        self.draw = draw
        self.features = features
        self.length = length
        self.counter = itertools.count()
        self.budget = draw(st.integers(2, max_statements))
        self.maybe_used: set[str] = set()
        self.aug_left = AUG_PER_NEST
        self.ret_types: tuple[str, ...] = ()

    # drawing: every choice shrinks towards its first option / towards "no"
    def has(self, feature: str) -> bool:
        return feature in self.features

    def pick(self, options: Sequence[Any]) -> Any:
        return options[self.draw(st.integers(0, len(options) - 1))]

    def chance(self, percent: int) -> bool:
        return self.draw(st.integers(0, 99)) >= 100 - percent

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self.counter)}"

    # --- expressions --------------------------------------------------------------------------
    #
    # An expression is an ``E``: its text, an upper bound of its magnitude, and whether it is
    # certainly a float (for "f" / "vf"). A float variable initialised with an int literal
    # (``acc = 0``, feature weak_init) holds a Python int until a float is assigned to it, so it is
    # no float witness: ``acc - n`` with an int32 ``n`` would be int32, a genuine change of dtype.

    def visible(self, scope: Scope, types: Sequence[str], stable: bool = False) -> list[Var]:
        names = [v for v in scope.defined.values() if v.type in types]
        if self.has("maybe_undefined_use") and not stable:
            names += [v for v in scope.maybe.values() if v.type in types]
        if stable:
            names = [v for v in names if v.kind != "local" and v.bound <= STABLE]
        return names

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
        return E(self.use(scope, var), var.bound, var.type in ("f", "vf") and not var.weak)

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
        sub = depth - 1
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
        if kind == "ternary":
            x = self.expr(t, scope, sub)
            c = self.condition(scope, sub)
            y = self.expr(t, scope, sub)
            return E(f"({x.text} if {c.text} else {y.text})", max(x.bound, y.bound), x.flt and y.flt)
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
        if kind in ("or", "and", "min", "max"):
            x, y = self.expr(t, scope, sub), self.expr(t, scope, sub)
            text = f"({x.text} {kind} {y.text})" if kind in ("or", "and") else f"{kind}({x.text}, {y.text})"
            return E(text, max(x.bound, y.bound), x.flt and y.flt)
        if kind == "abs":
            x = self.expr(t, scope, sub)
            return E(f"abs({x.text})", x.bound, x.flt)
        raise AssertionError(kind)

    def compare(self, scope: Scope, depth: int) -> E:
        op = self.pick(["<", ">", "<=", ">=", "==", "!="])
        x = self.expr(self.pick(SCALARS), scope, depth)
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
        kind = self.pick(kinds)
        sub = max(depth - 1, 0)
        if kind == "compare":
            return self.compare(scope, sub)
        if kind == "parity":
            x = self.expr(self.pick(SCALARS), scope, sub)
            return E(f"({x.text} % 2 {self.pick(['==', '!='])} 0)", 1, False)
        operand = (lambda: self.condition_expr(scope, sub, pure=True)) if pure else (lambda: self.condition(scope, sub))
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

    # --- statements ---------------------------------------------------------------------------

    def block(self, scope: Scope, ctx: Ctx, most: int, least: int = 1, control_first: bool = False) -> Block:
        """``least`` to ``most`` statements (fewer when the statement budget runs out).

        ``control_first``: the first one is an ``if`` or a loop (the top level of a program).
        """
        count = self.draw(st.integers(least, most))
        lines: list[str] = []
        scope = scope.copy()
        for index in range(count):
            if index and self.budget <= 0:
                break
            result = self.statement(scope, ctx, control_only=control_first and index == 0)
            lines += result.lines
            scope = result.scope
            if result.exits:
                return Block(lines, scope, True, result.returns)
        return Block(lines, scope)

    def statement(self, scope: Scope, ctx: Ctx, control_only: bool = False) -> Block:
        self.budget -= 1
        if control_only:
            self.budget = max(self.budget, 1)
        kinds = ["assign_new"]
        # in loops, mostly update the state carried from one iteration to the next (x = x * 2 + e)
        numeric_locals = any(v.kind == "local" and v.type in NUMERIC for v in scope.defined.values())
        if any(v.kind == "local" and v.type in NUMERIC + ("b",) for v in scope.defined.values()):
            kinds += ["assign"]
        if numeric_locals:
            kinds += ["update"] * (3 if ctx.loops else 2)
            if self.has("augassign") and (not ctx.loops or self.aug_left > 0):
                kinds += ["augassign"] * (3 if ctx.loops else 2)
        if ctx.depth < MAX_DEPTH and self.budget > 0:
            if self.has("if"):
                kinds += ["if", "if", "if"]
            if self.has("static_range"):
                kinds.append("for_static")
            if self.has("traced_range") and any(v.kind == "arg" for v in self.visible(scope, ("i",))):
                kinds += ["for_traced", "for_traced"]
            if self.has("vectors") and self.visible(scope, VECTORS):
                kinds += [k for k in ("array_loop", "enumerate", "zip") if self.has(k)]
            if self.has("while"):
                kinds += ["while", "while"]
        control = [k for k in kinds if not k.startswith("assign") and k != "augassign"]
        if control_only and control:
            kinds = control
        elif ctx.depth == 0:  # the top level mostly holds the control flow under test
            kinds += control
        kind = self.pick(kinds)
        return getattr(self, "stmt_" + kind)(scope, ctx)

    def floated(self, e: E, t: str) -> E:
        """``e`` made a float where a float is expected and ``e`` might be an int."""
        if t not in ("f", "vf") or e.flt:
            return e
        return E(f"({e.text} * 1.0)", e.bound, True)

    def assignment(self, name: str, t: str, scope: Scope, ctx: Ctx, fresh: bool) -> tuple[str, Var]:
        if t == "f" and fresh and self.has("weak_init") and self.chance(20):
            text = self.pick(["0", "1"])
            return f"{name} = {text}", Var(name, t, 1, weak=True)
        e = self.floated(self.expr(t, scope), t)
        if t != "b":
            e = self.clip(e, CLIP if (ctx.loops and not fresh) else CLIP_ABOVE)
        return f"{name} = {e.text}", Var(name, t, e.bound)

    def new_type(self) -> str:
        types = ["i", "f", "b"] + (list(VECTORS) if self.has("vectors") else [])
        return self.pick(types)

    def stmt_assign_new(self, scope: Scope, ctx: Ctx) -> Block:
        line, var = self.assignment(self.fresh("v"), self.new_type(), scope, ctx, fresh=True)
        scope = scope.copy()
        scope.define(var)
        return Block([line], scope)

    def stmt_assign(self, scope: Scope, ctx: Ctx) -> Block:
        target = self.pick([v for v in scope.defined.values() if v.kind == "local"])
        line, var = self.assignment(target.name, target.type, scope, ctx, fresh=False)
        scope = scope.copy()
        scope.define(dataclasses.replace(var, bound=max(var.bound, target.bound) if ctx.loops else var.bound))
        return Block([line], scope)

    def stmt_update(self, scope: Scope, ctx: Ctx) -> Block:
        """``x = x * c + e``: the new value depends on the old one (and on the order of iterations)."""
        target = self.pick([v for v in scope.defined.values() if v.kind == "local" and v.type in NUMERIC])
        integral = target.type in ("i", "vi")
        c = self.pick([E("2", 2, False), E("3", 3, False), E("(-1)", 1, False)] if integral
                      else [E("2.0", 2, True), E("0.5", 0.5, True), E("(-1.5)", 1.5, True)])
        x = self.variable(scope, target)
        e = self.expr(self.operand_type(target.type), scope, self.draw(st.integers(0, 2)))
        x, e = self.fit([x, e], lambda a, b: a * c.bound + b)
        op = self.pick(["+", "-"])
        value = E(f"(({x.text} * {c.text}) {op} {e.text})", x.bound * c.bound + e.bound, x.flt or c.flt or e.flt)
        value = self.clip(self.floated(value, target.type), CLIP if ctx.loops else CLIP_ABOVE)
        scope = scope.copy()
        bound = max(value.bound, target.bound) if ctx.loops else value.bound
        scope.define(dataclasses.replace(target, bound=bound, weak=False))
        return Block([f"{target.name} = {value.text}"], scope)

    def stmt_augassign(self, scope: Scope, ctx: Ctx) -> Block:
        targets = [v for v in scope.defined.values() if v.kind == "local" and v.type in NUMERIC]
        target = self.pick(targets)
        rhs_type = {"i": "i", "f": self.pick(["f", "i"]), "vi": self.pick(["i", "vi"]),
                    "vf": self.pick(["f", "i", "vf", "vi"])}[target.type]
        scope = scope.copy()
        if ctx.loops:
            self.aug_left -= 1
            op = self.pick(["+=", "-="])
            rhs = self.expr(rhs_type, scope, stable=True)
            if target.weak:
                rhs = self.floated(rhs, target.type)
            # outer variables' bounds already include AUG_BUDGET (see loop_scope): this covers a
            # variable first assigned in this iteration
            scope.define(dataclasses.replace(target, bound=target.bound + rhs.bound, weak=False))
            return Block([f"{target.name} {op} {rhs.text}"], scope)
        op = self.pick(["+=", "-=", "*="])
        rhs = self.expr(rhs_type, scope)
        if target.weak:
            rhs = self.floated(rhs, target.type)
        if op == "*=" and target.bound * rhs.bound > CLIP_ABOVE:
            rhs = self.clip(rhs, max(1, CLIP_ABOVE // max(target.bound, 1)))
            if target.bound * rhs.bound > CLIP_ABOVE:
                op = "+="
        if op == "*=":
            new_bound = target.bound * rhs.bound
        else:
            (rhs,) = self.fit([rhs], lambda b: b + target.bound)
            new_bound = target.bound + rhs.bound
        scope.define(dataclasses.replace(target, bound=new_bound, weak=False))
        return Block([f"{target.name} {op} {rhs.text}"], scope)

    def exit_statement(self, ctx: Ctx, scope: Scope) -> str | None:
        """An early exit to end a branch with, or None."""
        exits = []
        if self.has("early_return") and (not ctx.loops or self.has("return_in_loop")):
            exits.append("return")
        if ctx.loops and self.has("break_continue"):
            exits += ["break", "continue"]
        if not exits or not self.chance(25):
            return None
        kind = self.pick(exits)
        return self.return_statement(scope) if kind == "return" else kind

    def return_statement(self, scope: Scope) -> str:
        values = []
        for t in self.ret_types:
            state = [v for v in scope.defined.values() if v.kind == "local" and v.type == t]
            if state and not self.chance(30):
                values.append(self.pick(state).name)
            else:
                values.append(self.floated(self.expr(t, scope), t).text)
        return "return " + ", ".join(values)

    def stmt_if(self, scope: Scope, ctx: Ctx) -> Block:
        inner = dataclasses.replace(ctx, depth=ctx.depth + 1)
        shared = None
        if self.has("shared_definition") and self.chance(25):
            shared = (self.fresh("v"), self.new_type())
        arms: list[tuple[str, Block]] = []
        tests = [self.condition(scope).text]
        if self.has("elif") and self.chance(20):
            tests.append(self.condition(scope).text)
        has_else = shared is not None or self.draw(st.booleans())
        for test in tests + ([None] if has_else else []):
            body = self.block(scope, inner, 3)
            lines, arm_scope, exits, returns = body.lines, body.scope, body.exits, body.returns
            if not exits and shared is not None:
                line, var = self.assignment(shared[0], shared[1], arm_scope, ctx, fresh=True)
                lines = lines + [line]
                arm_scope = arm_scope.copy()
                arm_scope.define(var)
            if not exits:
                exit_line = self.exit_statement(ctx, arm_scope)
                if exit_line is not None:
                    lines = lines + [exit_line]
                    exits, returns = True, exit_line.startswith("return")
            arms.append((test, Block(lines, arm_scope, exits, returns)))
        text: list[str] = []
        for index, (test, body) in enumerate(arms):
            header = "if" if index == 0 else "elif"
            text.append(f"{header} {test}:" if test is not None else "else:")
            text += _indent(body.lines)
        falling = [body.scope for _, body in arms if not body.exits]
        if not has_else:
            falling.append(scope)
        if not falling:
            return Block(text, scope, True, all(body.returns for _, body in arms))
        return Block(text, _merge(scope, falling))

    def loop_scope(self, scope: Scope) -> Scope:
        """The scope inside a loop body: outer assignable values may have grown by AUG_BUDGET."""
        inside = scope.copy()
        for name, var in list(inside.defined.items()):
            if var.kind == "local" and var.type != "b":
                inside.defined[name] = dataclasses.replace(var, bound=max(var.bound, CLIP) + AUG_BUDGET)
        return inside

    def loop(self, header: list[str], targets: list[Var], scope: Scope, ctx: Ctx, kind: str,
             first_lines: Sequence[str] = ()) -> Block:
        outermost = not ctx.loops
        if outermost:
            self.aug_left = AUG_PER_NEST
        inside = self.loop_scope(scope)
        for var in targets:
            inside.define(var)
        inner = Ctx(ctx.depth + 1, ctx.loops + (kind,))
        body = self.block(inside, inner, 3)
        lines = list(first_lines) + body.lines
        if not body.exits and self.has("break_continue") and self.chance(10):
            lines.append(self.pick(["break", "continue"]))
        text = header + _indent(lines)
        after = self.loop_scope(scope)
        if self.has("loop_else") and self.has("break_continue") and self.chance(20):
            orelse = self.block(after, dataclasses.replace(ctx, depth=ctx.depth + 1), 2)
            text += ["else:"] + _indent(orelse.lines)
            if orelse.exits:
                return Block(text, after, True, orelse.returns)
            after = _merge(after, [orelse.scope])
        # names first assigned in the body, and the loop targets, are bound only if it ran at least once
        for name, var in {**body.scope.defined, **body.scope.maybe}.items():
            if name not in after.defined:
                after.maybe[name] = var
        return Block(text, after)

    def stmt_for_static(self, scope: Scope, ctx: Ctx) -> Block:
        index = self.fresh("i")
        options = [("range(3)", 3), ("range(1, 4)", 4), ("range(4, 0, -1)", 4)]
        vectors = self.visible(scope, VECTORS)
        if vectors:
            options.append((f"range(len({self.use(scope, self.pick(vectors))}))", self.length))
        iterable, bound = self.pick(options)
        return self.loop([f"for {index} in {iterable}:"], [Var(index, "i", bound, "target")], scope, ctx, "for")

    def stmt_for_traced(self, scope: Scope, ctx: Ctx) -> Block:
        index = self.fresh("i")
        n = self.pick([v for v in self.visible(scope, ("i",)) if v.kind == "arg"]).name
        iterable = self.pick([f"range({n})", f"range(1, {n})", f"range(0, {n}, 2)"])
        return self.loop([f"for {index} in {iterable}:"], [Var(index, "i", INT_ARG, "target")], scope, ctx, "for")

    def stmt_array_loop(self, scope: Scope, ctx: Ctx) -> Block:
        vector = self.pick(self.visible(scope, VECTORS))
        row = self.fresh("r")
        return self.loop([f"for {row} in {self.use(scope, vector)}:"],
                         [Var(row, vector.type[1:], vector.bound, "target")], scope, ctx, "for")

    def stmt_enumerate(self, scope: Scope, ctx: Ctx) -> Block:
        vector = self.pick(self.visible(scope, VECTORS))
        index, row = self.fresh("k"), self.fresh("r")
        targets = [Var(index, "i", self.length, "target"), Var(row, vector.type[1:], vector.bound, "target")]
        return self.loop([f"for {index}, {row} in enumerate({self.use(scope, vector)}):"], targets, scope, ctx, "for")

    def stmt_zip(self, scope: Scope, ctx: Ctx) -> Block:
        first = self.pick(self.visible(scope, VECTORS))
        second = self.pick(self.visible(scope, VECTORS))
        p, q = self.fresh("r"), self.fresh("r")
        targets = [Var(p, first.type[1:], first.bound, "target"), Var(q, second.type[1:], second.bound, "target")]
        header = f"for {p}, {q} in zip({self.use(scope, first)}, {self.use(scope, second)}):"
        return self.loop([header], targets, scope, ctx, "for")

    def stmt_while(self, scope: Scope, ctx: Ctx) -> Block:
        counter = self.fresh("w")
        limits = [str(self.draw(st.integers(2, 5)))]
        limits += [v.name for v in self.visible(scope, ("i",)) if v.kind == "arg"]
        limit = self.pick(limits)
        counter_var = Var(counter, "i", MAX_TRIPS, "target")
        inside = self.loop_scope(scope)
        inside.define(counter_var)
        test = f"{counter} < {limit}"
        if self.chance(60):
            test += f" and {self.condition(inside).text}"
        before = scope.copy()
        before.define(counter_var)
        # the counter goes up first, so that a `continue` cannot skip it
        block = self.loop([f"{counter} = 0", f"while {test}:"], [], before, ctx, "while",
                          first_lines=[f"{counter} = {counter} + 1"])
        return block


def _merge(before: Scope, falling: list[Scope]) -> Scope:
    """The scope after a statement whose paths end with the scopes in ``falling``."""
    names = set(falling[0].defined)
    for scope in falling[1:]:
        names &= set(scope.defined)
    merged = Scope({}, dict(before.maybe))
    for name in names:
        versions = [s.defined[name] for s in falling]
        merged.defined[name] = dataclasses.replace(
            versions[0], bound=max(v.bound for v in versions), weak=any(v.weak for v in versions))
    for scope in falling:
        for name, var in {**scope.defined, **scope.maybe}.items():
            if name not in merged.defined:
                merged.maybe[name] = var
    for name in merged.defined:
        merged.maybe.pop(name, None)
    return merged


# --- programs and cases --------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Program:
    source: str
    params: tuple[tuple[str, str], ...]  # (name, type)
    length: int
    features: frozenset[str]
    maybe_used: frozenset[str]  # names read where they may be unassigned


@dataclasses.dataclass(frozen=True)
class Case:
    program: Program
    inputs: tuple[tuple[Any, ...], ...]

    def __repr__(self) -> str:  # what hypothesis prints for a falsifying example
        return "\n" + regression_text(self, header="") + "\n"


HEADER = "import jax.numpy as jnp\n\n\n"


@st.composite
def programs(draw, features: frozenset[str] = DEFAULT_FEATURES, max_statements: int = 16) -> Program:
    length = draw(st.sampled_from([3, 4]))
    builder = _Builder(draw, frozenset(features), length, max_statements)
    arg_types = NUMERIC if "vectors" in features else SCALARS
    # int scalars twice as often: they are the bounds of traced ranges and while loops
    param_types = draw(st.lists(st.sampled_from(arg_types + ("i",)), min_size=1, max_size=3))
    params = tuple((name, t) for name, t in zip("abc", param_types))
    builder.ret_types = tuple(draw(st.lists(st.sampled_from(arg_types), min_size=1, max_size=2)))
    scope = Scope({}, {})
    for name, t in params:
        scope.define(Var(name, t, INT_ARG if t in ("i", "vi") else FLOAT_ARG, "arg"))
    # the state the body computes on and the function returns: one variable per returned value
    lines = []
    for t in builder.ret_types:
        line, var = builder.assignment(builder.fresh("s"), t, scope, Ctx(), fresh=True)
        lines.append(line)
        scope.define(var)
    body = builder.block(scope, Ctx(), 6, least=2, control_first=True)
    lines += body.lines
    if not body.returns:
        lines = lines + [builder.return_statement(body.scope)]
    source = HEADER + f"def f({', '.join(name for name, _ in params)}):\n" + "\n".join(_indent(lines)) + "\n"
    return Program(source, params, length, frozenset(features), frozenset(builder.maybe_used))


def values(t: str, length: int) -> st.SearchStrategy:
    ints = st.integers(-3, INT_ARG)  # mostly non-negative: a traced range(n) mostly runs
    floats = st.integers(int(-FLOAT_ARG * 4), int(FLOAT_ARG * 4)).map(lambda k: k / 4)
    if t == "i":
        return ints.map(np.int32)
    if t == "f":
        return floats.map(np.float32)
    element = ints if t == "vi" else floats
    dtype = np.int32 if t == "vi" else np.float32
    return st.lists(element, min_size=length, max_size=length).map(lambda xs: np.array(xs, dtype=dtype))


@st.composite
def cases(draw, features: frozenset[str] = DEFAULT_FEATURES, max_statements: int = 16) -> Case:
    program = draw(programs(features, max_statements))
    one_input = st.tuples(*(values(t, program.length) for _, t in program.params))
    inputs = draw(st.lists(one_input, min_size=1, max_size=3))
    return Case(program, tuple(inputs))


# --- checking ------------------------------------------------------------------------------------

# Errors that DESIGN.md / the error messages document as limitations of staging, with the kind of
# program they are acceptable for: the generator must have read the variable they name where it may
# be unassigned (the eager run may then still succeed on the inputs that assign it). The last one is
# not a ConversionError: runtime/values.py's ``Undefined`` raises "the UnboundLocalError that Python
# would have raised at the read", when a staged branch that eager Python never takes reads the name.
DOCUMENTED_LIMITATIONS = {
    "assigned in one branch only, used after a traced if": (autograph_lite.ConversionError, re.compile(
        r"'(?P<name>\w+)' is assigned only in the (true|false) branch")),
    "first assigned inside a staged loop, used after it": (autograph_lite.ConversionError, re.compile(
        r"'(?P<name>\w+)' is first assigned inside the staged loop")),
    "unassigned variable read in a staged branch": (UnboundLocalError, re.compile(
        r"cannot access local variable '(?P<name>\w+)' where it is not associated with a value")),
    "maybe-unassigned variable read in a branch of a traced if or ternary": (autograph_lite.ConversionError, re.compile(
        r"'(?P<name>\w+)' is read in the (true|false) branch of the .*, where it may be unassigned")),
}


@dataclasses.dataclass
class Outcome:
    kind: str  # "agree", "discarded", "limitation", "mismatch", "conversion_error", "exception"
    detail: str = ""  # signature detail: the limitation, or the normalised error
    mode: str = ""  # "convert" (concrete inputs) or "jit[<platform>]"
    message: str = ""  # full text for reports
    inputs: tuple = ()
    eager: Any = None
    converted: Any = None

    @property
    def is_bug(self) -> bool:
        return self.kind in ("mismatch", "conversion_error", "exception")

    @property
    def signature(self) -> str:
        if self.kind in ("agree", "discarded"):
            return self.kind
        if self.kind == "mismatch":
            return f"mismatch {self.mode}"
        return f"{self.kind}: {self.detail}"


def normalise_error(error: BaseException) -> str:
    """``Type: first line`` with locations, names and numbers abstracted, to group errors by kind."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    text = re.sub(r"\S+\.py:\d+(:\s*)?", "", text)
    text = re.sub(r"'[^']*'", "'_'", text)
    text = re.sub(r"\d+", "N", text)
    return f"{type(error).__name__}: {text[:150]}"


def _classify(error: BaseException, maybe_used: frozenset[str], mode: str) -> Outcome:
    message = "".join(traceback.format_exception(error))
    for limitation, (error_type, pattern) in DOCUMENTED_LIMITATIONS.items():
        match = pattern.search(str(error)) if isinstance(error, error_type) else None
        if match and match.group("name") in maybe_used:
            return Outcome("limitation", limitation, mode, message)
    if isinstance(error, autograph_lite.ConversionError):
        return Outcome("conversion_error", normalise_error(error), mode, message)
    return Outcome("exception", normalise_error(error), mode, message)


def _same(actual: Any, expected: Any) -> str | None:
    try:
        assert_same(actual, expected)
    except AssertionError as error:
        return str(error)
    return None


def check_function(fn: Callable, inputs: Sequence[tuple], maybe_used: frozenset[str] = frozenset()) -> Outcome:
    """Compare ``fn`` eagerly, ``convert(fn)`` on concrete inputs and ``jit(fn)`` traced, on every device.

    ``maybe_used``: the names ``fn`` reads where they may be unassigned (documented limitations apply).
    """
    valid = []
    for args in inputs:
        try:
            expected = fn(*(jnp.asarray(a) for a in args))
        except Exception:  # noqa: BLE001 - eager Python failed: nothing to compare with
            continue
        valid.append((args, jax.tree_util.tree_map(np.asarray, expected)))
    if not valid:
        return Outcome("discarded")
    for args, expected in valid:
        try:
            got = autograph_lite.convert(fn)(*(jnp.asarray(a) for a in args))
        except Exception as error:  # noqa: BLE001
            return dataclasses.replace(_classify(error, maybe_used, "convert"), inputs=args, eager=expected)
        difference = _same(got, expected)
        if difference is not None:
            return Outcome("mismatch", "", "convert", difference, args, expected, got)
    jitted = autograph_lite.jit(fn)
    for device in jax.devices():
        mode = f"jit[{device.platform}]"
        with jax.default_device(device):
            for args, expected in valid:
                try:
                    got = jitted(*args)
                except Exception as error:  # noqa: BLE001
                    return dataclasses.replace(_classify(error, maybe_used, mode), inputs=args, eager=expected)
                difference = _same(got, expected)
                if difference is not None:
                    return Outcome("mismatch", "", mode, difference, args, expected, got)
    return Outcome("agree")


def check_case(case: Case, directory: Path) -> Outcome:
    module = load_source(case.program.source, directory)
    try:
        return check_function(module.f, case.inputs, case.program.maybe_used)
    finally:
        sys.modules.pop(module.__name__, None)


# --- regression files ----------------------------------------------------------------------------

def _literal(value: Any) -> str:
    array = np.asarray(value)
    dtype = f"np.{array.dtype.name}"
    if array.ndim == 0:
        return f"{dtype}({array.item()!r})"
    return f"np.array({array.tolist()!r}, dtype={dtype})"


def _result_text(value: Any) -> str:
    return repr(jax.tree_util.tree_map(lambda leaf: np.asarray(leaf).tolist(), value))


def regression_text(case: Case, outcome: Outcome | None = None, header: str | None = None) -> str:
    """A module that replays ``case``: its function ``f``, ``INPUTS`` and ``STATUS``."""
    if header is None:
        header = '"""A program found by the generated-program fuzzer (tests/test_generated_programs.py).\n'
        if outcome is not None:
            header += f"\n{outcome.signature}\n"
            if outcome.inputs:
                header += f"on inputs {tuple(_literal(a) for a in outcome.inputs)}\n".replace("'", "")
                header += f"eager:     {_result_text(outcome.eager)}\n"
                if outcome.kind == "mismatch":
                    header += f"converted: {_result_text(outcome.converted)}\n"
        header += '"""\n\n'
    inputs = "".join(f"    ({''.join(_literal(a) + ', ' for a in args)}),\n" for args in case.inputs)
    return (
        header
        + "import numpy as np\n"
        + case.program.source
        + f"\n\nINPUTS = [\n{inputs}]\n"
        + (f"MAYBE_UNDEFINED = {tuple(sorted(case.program.maybe_used))!r}  # read where they may be unassigned\n"
           if case.program.maybe_used else "")
        + "STATUS = \"open\"  # \"fixed\" once tests/test_regressions.py passes on it (eager result, or a documented error)\n"
    )


def regression_name(case: Case) -> str:
    digest = hashlib.sha1(regression_text(case, header="").encode()).hexdigest()[:10]
    return f"gen_{digest}.py"


def save_regression(case: Case, outcome: Outcome, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / regression_name(case)
    path.write_text(regression_text(case, outcome))
    return path


_regression_counter = itertools.count()


def load_regression(path: Path):
    """Import a regression file as it is (the converter reads the function's source from it)."""
    name = f"_autograph_lite_regression_{path.stem}_{next(_regression_counter)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# --- reducing a failing program by hand ----------------------------------------------------------
# Hypothesis shrinks what a failing test run finds. A survey (AUTOGRAPH_LITE_FUZZ_SURVEY) does not
# fail, so its examples are reduced here instead: greedily delete statements, replace an if / loop by
# one of its bodies, drop input sets, for as long as the outcome still shows the same failure.

def _statement_lists(tree: ast.AST):
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            statements = getattr(node, field, None)
            if isinstance(statements, list) and statements and isinstance(statements[0], ast.stmt):
                yield statements


def _is_counter_increment(node: ast.stmt) -> bool:
    return (isinstance(node, ast.Assign) and isinstance(node.value, ast.BinOp)
            and isinstance(node.value.left, ast.Name) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name) and node.targets[0].id == node.value.left.id
            and node.targets[0].id.startswith("w") and isinstance(node.value.op, ast.Add))


def _candidates(source: str):
    """Sources one step simpler than ``source``."""
    tree = ast.parse(source)
    count = sum(len(statements) for statements in _statement_lists(tree))
    for index in range(count):
        for action in ("delete", "body", "orelse"):
            tree = ast.parse(source)
            position = index
            for statements in _statement_lists(tree):
                if position < len(statements):
                    break
                position -= len(statements)
            node = statements[position]
            if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef)):
                continue
            if action == "delete":
                if _is_counter_increment(node) or isinstance(node, ast.Return):
                    continue  # a while loop without it would not end; every path keeps its return
                replacement = []
            elif isinstance(node, (ast.If, ast.For, ast.While)):
                replacement = node.body if action == "body" else node.orelse
                if isinstance(node, ast.While) and action == "body":
                    replacement = node.body[1:]  # without the counter increment: run it once
            else:
                continue
            if action == "orelse" and not isinstance(node, (ast.If, ast.For, ast.While)):
                continue
            statements[position:position + 1] = replacement
            if not statements:
                statements.append(ast.Pass())
            yield ast.unparse(tree) + "\n"


def reduce_case(case: Case, still_fails: Callable[[Outcome], bool], directory: Path) -> tuple[Case, Outcome]:
    """A smaller case whose outcome ``still_fails``; ``case``'s own outcome must."""
    best = case
    outcome = check_case(case, directory)
    assert still_fails(outcome), f"the case does not fail as asked: {outcome.signature}"
    progress = True
    while progress:
        progress = False
        for index in range(len(best.inputs)):
            if len(best.inputs) > 1:
                smaller = dataclasses.replace(best, inputs=best.inputs[:index] + best.inputs[index + 1:])
                result = check_case(smaller, directory)
                if still_fails(result):
                    best, outcome, progress = smaller, result, True
                    break
        for source in _candidates(best.program.source):
            if source == best.program.source:
                continue
            try:
                compile(source, "<candidate>", "exec")
            except SyntaxError:
                continue
            smaller = dataclasses.replace(best, program=dataclasses.replace(best.program, source=source))
            result = check_case(smaller, directory)
            if still_fails(result):
                best, outcome, progress = smaller, result, True
                break
    return best, outcome


def case_from_regression(path: Path) -> Case:
    """The case a regression file holds (its source, inputs and maybe-unassigned names)."""
    module = load_regression(path)
    text = Path(path).read_text()
    source = text[text.index("import jax.numpy as jnp"):text.index("\n\nINPUTS = [")] + "\n"
    params = tuple((name, "") for name in inspect.signature(module.f).parameters)
    program = Program(source, params, 0, frozenset(), frozenset(getattr(module, "MAYBE_UNDEFINED", ())))
    return Case(program, tuple(tuple(args) for args in module.INPUTS))


def main(argv: Sequence[str]) -> None:
    """``python tests/program_generator.py reduce FILE TEXT [OUT]``: reduce the program in FILE (a
    regression module) while its outcome's signature or message contains TEXT; write it to OUT."""
    import tempfile

    command, path, text, *out = argv
    assert command == "reduce", main.__doc__
    case = case_from_regression(Path(path))
    small, outcome = reduce_case(case, lambda o: text in o.signature or text in o.message,
                                 Path(tempfile.mkdtemp()))
    result = regression_text(small, outcome)
    if out:
        Path(out[0]).write_text(result)
    print(result)
    print(outcome.message[-3000:])


if __name__ == "__main__":
    main(sys.argv[1:])

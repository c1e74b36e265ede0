"""Random JAX programs, and the check that ``autograph_lite`` runs them as eager Python does.

``cases(features)`` is a hypothesis strategy for a :class:`Case`: the source text of a module that
defines one function ``f`` of one to three arguments (int32 / float32 scalars and 1-D arrays of one
shared length, 3 or 4), and one to three sets of concrete inputs for it. ``check_case``
(program_check.py) writes the module to a real file (the converter reads source files), runs ``f``
eagerly on each input set (the reference; a set on which the eager run raises is discarded), then
``autograph_lite.convert(f)`` on the same concrete inputs and ``autograph_lite.jit(f)`` with every
argument traced, on every device ``jax.devices()`` reports, and says how they compare (results,
printed output, arguments updated in place): an :class:`Outcome`.

This module holds the features and the statements; the builder's other parts are mixins of their
own modules: expressions (program_expressions.py), loops (program_loops.py), ``del``
(program_deletes.py) and the effect features of issue #13 (:data:`EFFECT_FEATURES`:
program_closures.py, program_containers.py, program_arrays.py, program_printing.py,
program_pytrees.py). program_model.py holds the shared vocabulary, program_regressions.py the
regression files and the reduction of a failing program.

The programs use what the converter rewrites: nested ``if`` / ``elif`` / ``else``, ternaries,
``and`` / ``or`` / ``not`` (value-returning too), chained comparisons, ``for`` over static ranges,
over ranges with a traced bound, over arrays and ``enumerate`` / ``zip`` of arrays, counter-bounded
``while`` loops, early ``return`` in branches, augmented assignments, variables defined on only some
paths where Python allows reading them; with the effect features, closures, ``nonlocal`` writers,
container methods used as values, helpers updating arrays in place, ``print`` and tuple / dict
values. Each construct is a *feature* that can be switched on or off (:data:`FEATURES`); the ones in
:data:`OFF_BY_DEFAULT` are not generated unless asked for.

Values stay small enough that int32 arithmetic never overflows: int arguments lie in [-6, 6] (so a
traced ``range(n)`` runs at most 6 times), floats are multiples of 1/4 in [-8, 8], ``//`` and ``%``
only take positive constant divisors, and the generator tracks an upper bound of every value's
magnitude, wrapping an operand in ``jnp.clip`` where a product or sum could get too large. Inside
loops, an assignment to a variable from before the loop is clipped to [-1000, 1000], and augmented
assignments only add small loop-invariant values, so no value grows geometrically across iterations.
Feature ``big_ints`` adds int constants and an int argument past 2**24 and keeps values up to 2**26
outside loops; ``mixed_dtypes`` gives variables and operands two dtypes (program_mixed_dtypes.py);
``narrow_dtypes`` adds a float16 / bfloat16 / (u)int8 / (u)int16 argument chosen between with Python
numbers near and past its limits (program_narrow_dtypes.py).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import sys
from collections.abc import Callable

import numpy as np
from hypothesis import strategies as st
from program_aliases import Aliases
from program_any_all import AnyAll
from program_arrays import ArrayHelpers
from program_check import DOCUMENTED_LIMITATIONS, Outcome, check_case, check_function  # noqa: F401 - re-exported
from program_closures import Closures
from program_containers import Containers
from program_deletes import Deletes
from program_exit_nests import ExitNests
from program_expressions import Expressions
from program_features import (  # noqa: F401 - re-exported: tests name them through program_generator
    DEFAULT_FEATURES,
    EFFECT_FEATURES,
    FEATURES,
    OFF_BY_DEFAULT,
    parse_features,
)
from program_helper_effects import HelperEffects
from program_indexing import Indexing
from program_init_effects import InitEffects
from program_iterators import Iterators
from program_jax_refusals import JaxRefusals
from program_loop_carries import LoopCarries
from program_loops import Loops
from program_match import Matches
from program_mixed_dtypes import MixedDtypes, big_int_values
from program_model import (  # noqa: F401 - Case and regression_text re-exported
    AUG_BUDGET,
    AUG_PER_NEST,
    CLIP,
    CLIP_ABOVE,
    FLOAT_ARG,
    HEADER,
    INT_ARG,
    MAX_DEPTH,
    MAX_TRIPS,
    NUMERIC,
    SCALARS,
    VECTORS,
    Block,
    Case,
    Ctx,
    E,
    Program,
    Scope,
    Var,
    indent,
    merge_scopes,
    regression_text,
)
from program_narrow_dtypes import NARROW_DTYPES, NarrowDtypes, narrow_values
from program_printing import Printing
from program_pytrees import Pytrees
from program_raises import Raises
from program_regressions import load_regression, main, reduce_case, save_regression  # noqa: F401 - re-exported
from program_stacked_lists import StackedLists
from program_switch import Switches
from program_transforms import TransformArguments
from program_with_try import WithTry


class _Builder(Aliases, AnyAll, Iterators, LoopCarries, NarrowDtypes, InitEffects, HelperEffects, ExitNests, MixedDtypes, StackedLists, TransformArguments, JaxRefusals, Raises, Indexing, Switches, Matches, WithTry, Deletes, Closures, Containers, ArrayHelpers, Printing, Pytrees, Loops, Expressions):
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
        self.used: set[str] = set()  # the optional features the program uses
        self.deletions: list[Var] = []  # what `del` statements unbound, in order (program_deletes.py)
        self.module_parts: dict[str, str] = {}  # module-level definitions it needs, by name
        self.leaf_kinds: dict[str, list[int]] = {}  # the kinds of leaf a feature offers it (program_model.few_kinds)

    def prelude(self, scope: Scope) -> Block:
        """Definitions before the control flow (a closure, a container, ...) that later statements use."""
        lines = []
        for kind in self.prelude_kinds():
            if self.chance(60):
                result = getattr(self, "stmt_" + kind)(scope, Ctx())
                lines += result.lines
                scope = result.scope
        return Block(lines, scope)

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
            if self.has("flag_while"):
                kinds.append("flag_while")
        control = [k for k in kinds if not k.startswith("assign") and k != "augassign"]
        if control_only and control:
            kinds = control
        elif ctx.depth == 0:  # the top level mostly holds the control flow under test
            kinds += control
        if not (control_only and control):
            kinds += self.extra_statements(scope, ctx)
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
        if ctx.loops:
            e = e._replace(text=self.rebound_value(e.text, t))
        if t != "b":
            e = self.clip(e, CLIP if (ctx.loops and not fresh) else self.clip_above)
        return f"{name} = {e.text}", Var(name, t, e.bound)

    def new_type(self) -> str:
        types = ["i", "f", "b"] + (list(VECTORS) if self.has("vectors") else [])
        return self.pick(types + self.extra_types())

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
        value = self.clip(self.floated(value, target.type), CLIP if ctx.loops else self.clip_above)
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
            state += [v for v in self.maybe_deleted(scope) if v.type == t]  # feature del: may raise
            as_is = self.returned_as_is(t, scope)
            if as_is is not None:
                values.append(as_is)
            elif state and not self.chance(30):
                values.append(self.use(scope, self.pick(state)))
            else:
                values.append(self.rebound_value(self.floated(self.expr(t, scope), t).text, t))
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
            text += indent(body.lines)
        falling = [body.scope for _, body in arms if not body.exits]
        if not has_else:
            falling.append(scope)
        if not falling:
            return Block(text, scope, True, all(body.returns for _, body in arms))
        return Block(text, merge_scopes(scope, falling))


# --- programs and cases --------------------------------------------------------------------------

@st.composite
def programs(draw, features: frozenset[str] = DEFAULT_FEATURES, max_statements: int = 16) -> Program:
    length = draw(st.sampled_from([3, 4]))
    builder = _Builder(draw, frozenset(features), length, max_statements)
    arg_types = NUMERIC if "vectors" in features else SCALARS
    # int scalars twice as often: they are the bounds of traced ranges and while loops
    param_types = draw(st.lists(st.sampled_from(arg_types + ("i",)), min_size=1, max_size=3))
    params = tuple((name, t) for name, t in zip("abc", builder.parameter_types(param_types)))
    ret_types = arg_types + tuple(builder.extra_types())
    builder.ret_types = tuple(draw(st.lists(st.sampled_from(ret_types), min_size=1, max_size=2)))
    scope = Scope({}, {})
    for name, t in params:
        scope.define(builder.parameter(name, t))
    # the state the body computes on and the function returns: one variable per returned value
    lines = []
    for t in builder.ret_types:
        line, var = builder.assignment(builder.fresh("s"), t, scope, Ctx(), fresh=True)
        lines.append(line)
        scope.define(var)
    prelude = builder.prelude(scope)
    body = builder.block(prelude.scope, Ctx(), 6, least=2, control_first=True)
    lines += prelude.lines + body.lines
    if not body.returns:
        lines = lines + [builder.return_statement(body.scope)]
    lines = builder.entry_lines() + lines  # what the statements drawn above need first (helper_effects)
    module = "".join(part + "\n\n\n" for part in builder.module_parts.values())
    source = HEADER + module + f"def f({', '.join(name for name, _ in params)}):\n" + "\n".join(indent(lines)) + "\n"
    return Program(source, params, length, frozenset(features), frozenset(builder.maybe_used),
                   frozenset(builder.used))


def values(t: str, length: int, special_floats: bool = False) -> st.SearchStrategy:
    ints = st.integers(-3, INT_ARG)  # mostly non-negative: a traced range(n) mostly runs
    floats = st.integers(int(-FLOAT_ARG * 4), int(FLOAT_ARG * 4)).map(lambda k: k / 4)
    if special_floats:  # where NaN's comparisons (always false) and signed zeros decide Python's choice
        floats = st.one_of(floats, st.sampled_from([math.nan, math.inf, -math.inf, -0.0]))
    if t == "i":
        return ints.map(np.int32)
    if t == "I":
        return big_int_values()
    if t in NARROW_DTYPES:
        return narrow_values(t)
    if t == "f":
        return floats.map(np.float32)
    element = ints if t == "vi" else floats
    dtype = np.int32 if t == "vi" else np.float32
    return st.lists(element, min_size=length, max_size=length).map(lambda xs: np.array(xs, dtype=dtype))


@st.composite
def cases(draw, features: frozenset[str] = DEFAULT_FEATURES, max_statements: int = 16) -> Case:
    program = draw(programs(features, max_statements))
    special = "special_floats" in program.features
    one_input = st.tuples(*(values(t, program.length, special) for _, t in program.params))
    inputs = draw(st.lists(one_input, min_size=1, max_size=3))
    return Case(program, tuple(inputs))


if __name__ == "__main__":
    main(sys.argv[1:])

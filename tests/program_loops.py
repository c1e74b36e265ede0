"""Loops of the generated programs: ``for`` over static and traced ranges, arrays, ``enumerate`` /
``zip``, and counter-bounded ``while`` loops.

:class:`Loops` is the part of the program builder (program_generator.py) that draws loop statements;
it relies on the builder's ``block`` and ``exit_statement``, and on ``deletions`` /
``deleted_since`` (program_deletes.py) for the names a body may delete. No value may grow geometrically across
iterations: a loop body sees every assignable outer value with the bound it may reach after the
augmented assignments of the loop nest (:meth:`Loops.loop_scope`).
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Sequence

from hypothesis import strategies as st
from program_model import (
    AUG_BUDGET,
    AUG_PER_NEST,
    CLIP,
    INT_ARG,
    MAX_TRIPS,
    NUMERIC,
    VECTORS,
    Block,
    Ctx,
    Scope,
    Var,
    indent,
    merge_scopes,
)

# Traced ranges whose span (stop - start) is past int32's largest value and whose step is large: at most
# 5 trips, each index within int32 (big_ints). Python counts them exactly; an int32 span would wrap.
WIDE_RANGE_BOUND = 2**31 - 1
WIDE_RANGES = (
    "range(-2000000000 + {n}, 2000000000, 1000000000)",
    "range(2000000000 - {n}, -2000000000, -1000000000)",
    "range({n}, 2147483647, 1073741824)",
    "range(-2147483647 + {n}, {n} * 300000000, 900000000)",
)

# Static ranges and enumerate starts whose Python ints are past int32's (big_ints): eager counts them exactly.
WIDE_STATIC_RANGES = ("range(0, 4294967296, 1073741824)", "range(2147483646, 2147483649)",
                      "range(-2147483647, -2147483651, -1)", "range(4294967296, 4294967299)")
WIDE_STARTS = ("2147483646", "-2147483650", "4294967295")


class Loops:
    """Loop statements (``stmt_for_static``, ``stmt_for_traced``, ``stmt_array_loop``, ...)."""

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
        deletions_before = len(self.deletions)
        body = self.block(inside, inner, 3)
        lines = list(first_lines) + body.lines
        if not body.exits and self.has("break_continue") and self.chance(10):
            lines.append(self.pick(["break", "continue"]))
        text = header + indent(lines)
        after = self.loop_scope(scope)
        # names the body deletes are unbound after it if it ran (a later iteration may read them deleted)
        deleted = self.deleted_since(deletions_before)
        for name in [name for name in after.defined if name in deleted]:
            after.maybe[name] = after.defined.pop(name)
            self.maybe_used.add(name)
        if self.has("loop_else") and (self.has("break_continue") or self.has("return_in_loop")) and self.chance(20):
            orelse = self.loop_else(after, ctx)
            text += ["else:"] + indent(orelse.lines)
            breaks = _breaks_own_loop(lines)  # only a break skips the else
            if orelse.exits and not breaks:
                return Block(text, after, True, orelse.returns)
            if not orelse.exits:  # what the else assigns is bound after the loop only if nothing broke
                after = merge_scopes(after, [after, orelse.scope] if breaks else [orelse.scope])
        # names first assigned in the body, and the loop targets, are bound only if it ran at least once
        for name, var in {**body.scope.defined, **body.scope.maybe}.items():
            if name not in after.defined:
                after.maybe[name] = var
        return Block(text, after)

    def loop_else(self, after: Scope, ctx: Ctx) -> Block:
        """A loop's ``else``, ending with a ``return`` at times where the loop may return (a search's
        ``for ... else: return not_found``): with no ``break`` in the body, nothing follows the loop."""
        orelse = self.block(after, dataclasses.replace(ctx, depth=ctx.depth + 1), 2)
        may_return = self.has("early_return") and (not ctx.loops or self.has("return_in_loop"))
        if orelse.exits or not may_return or not self.chance(40):
            return orelse
        return Block(orelse.lines + [self.return_statement(orelse.scope)], orelse.scope, True, True)

    def stmt_for_static(self, scope: Scope, ctx: Ctx) -> Block:
        if self.has("big_ints") and self.chance(40):
            return self.wide_static_loop(scope, ctx)
        index = self.fresh("i")
        options = [("range(3)", 3), ("range(1, 4)", 4), ("range(4, 0, -1)", 4)]
        vectors = self.visible(scope, VECTORS)
        if vectors:
            options.append((f"range(len({self.use(scope, self.pick(vectors))}))", self.length))
        iterable, bound = self.pick(options)
        return self.loop([f"for {index} in {iterable}:"], [Var(index, "i", bound, "target")], scope, ctx, "for")

    def wide_static_loop(self, scope: Scope, ctx: Ctx) -> Block:
        """A static ``range`` / ``enumerate(start=)`` whose Python ints are past int32's, read reduced in
        Python (``i % 7``: an int32 index would wrap first), so that eager's arithmetic never meets int32."""
        self.used.add("big_ints")
        index, reduced = self.fresh("i"), self.fresh("k")
        vectors = self.visible(scope, VECTORS)
        header, targets = f"for {index} in {self.pick(WIDE_STATIC_RANGES)}:", []
        if vectors and self.chance(40):
            vector, row = self.pick(vectors), self.fresh("r")
            header = f"for {index}, {row} in enumerate({self.use(scope, vector)}, start={self.pick(WIDE_STARTS)}):"
            targets = [Var(row, vector.type[1:], vector.bound, "target")]
        modulus = self.pick([5, 7])
        first = [f"{reduced} = {index} % {modulus}"]
        if self.numeric_locals(scope):  # a carried value that the index decides
            first.append(self.loop_variable_read(self.numeric_locals(scope), reduced))
        return self.loop([header], targets + [Var(reduced, "i", modulus - 1, "target")], scope, ctx, "for",
                         first_lines=first)

    def stmt_for_traced(self, scope: Scope, ctx: Ctx) -> Block:
        index = self.fresh("i")
        n = self.pick([v for v in self.visible(scope, ("i",)) if v.kind == "arg"]).name
        iterable, bound = self.pick([f"range({n})", f"range(1, {n})", f"range(0, {n}, 2)"]), INT_ARG
        if self.has("big_ints") and self.chance(25):  # a span past int32's, a few trips: its count must not overflow
            self.used.add("big_ints")
            iterable, bound = self.pick(WIDE_RANGES).format(n=n), WIDE_RANGE_BOUND
        return self.loop([f"for {index} in {iterable}:"], [Var(index, "i", bound, "target")], scope, ctx, "for")

    def stmt_array_loop(self, scope: Scope, ctx: Ctx) -> Block:
        vector = self.pick(self.visible(scope, VECTORS))
        row = self.fresh("r")
        iterable = self.use(scope, vector)
        if self.chance(30):  # from the last row: an open iterator over an array, staged as its `rev`
            iterable = f"reversed({iterable})"
        return self.loop([f"for {row} in {iterable}:"],
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

    def rebound_value(self, text: str, t: str) -> str:
        """``text``, or (return_in_loop) ``((w := text) - w + w)`` for a number: a name bound by a walrus
        and read again later in the same expression, which reads no value from before it."""
        if not self.has("return_in_loop") or t not in NUMERIC or not self.chance(30):
            return text
        bound = self.fresh("w")
        return f"(({bound} := {text}) - {bound} + {bound})"

    def endless_while(self, scope: Scope, ctx: Ctx) -> Block:
        """``while True:`` left by a ``return`` only (a counter bounds it; no ``break`` is drawn), the
        function's last statement: Python's implicit ``return None`` after it is no path."""
        self.used.add("return_in_loop")
        counter = self.fresh("w")
        before = scope.copy()
        before.define(Var(counter, "i", MAX_TRIPS, "target"))
        inside = self.loop_scope(before)
        test = f"{counter} >= {self.draw(st.integers(1, 4))}"
        if self.chance(60):
            test += f" or {self.condition(inside).text}"
        first = [f"{counter} = {counter} + 1", f"if {test}:", f"    {self.return_statement(inside)}"]
        block = self.loop([f"{counter} = 0", "while True:"], [], before, ctx, "while", first_lines=first)
        return dataclasses.replace(block, exits=True, returns=True)  # nothing follows it

    def container_while(self, scope: Scope, ctx: Ctx) -> Block:
        """``while pending:`` over a non-empty Python list or tuple, left by a ``break`` on a (mostly traced)
        condition that a counter bounds: the test's truth is a concrete ``True`` beside a traced exit."""
        counter, pending = self.fresh("w"), self.fresh("p")
        before = scope.copy()
        before.define(Var(counter, "i", MAX_TRIPS, "target"))
        test = f"{counter} >= {self.draw(st.integers(1, 4))} or {self.condition(self.loop_scope(before)).text}"
        first = [f"{counter} = {counter} + 1", f"if {test}:", "    break"]
        container = self.pick([f"[{counter}]", "(0, 1)", "[0.5, 1.5]"])
        header = [f"{counter} = 0", f"{pending} = {container}", f"while {pending}:"]
        return self.loop(header, [], before, ctx, "while", first_lines=first)

    def stmt_flag_while(self, scope: Scope, ctx: Ctx) -> Block:
        """``d = False; while not d:`` whose first iteration sets ``d`` from a (mostly traced) condition:
        a test concrete on entry and traced after one iteration, with the body's Python numbers
        carried from the first iteration on (a gym-style ``while not done:`` episode)."""
        counter, flag = self.fresh("w"), self.fresh("d")
        limit = str(self.draw(st.integers(1, 4)))
        counter_var, flag_var = Var(counter, "i", MAX_TRIPS, "target"), Var(flag, "b", 1, "target")
        before = scope.copy()
        before.define(counter_var)
        before.define(flag_var)
        condition = self.condition_expr(self.loop_scope(before), self.draw(st.integers(0, 2)), pure=True)
        # both set first, so that a `continue` cannot skip them; the counter bounds the trip count
        first = [f"{counter} = {counter} + 1", f"{flag} = {condition.text} or {counter} >= {limit}"]
        return self.loop([f"{counter} = 0", f"{flag} = False", f"while not {flag}:"], [], before, ctx, "while",
                         first_lines=first)

    def stmt_while(self, scope: Scope, ctx: Ctx) -> Block:
        if self.has("return_in_loop") and not self.has("break_continue") and not ctx.loops and ctx.depth == 0 \
                and self.chance(20):
            return self.endless_while(scope, ctx)
        if self.has("break_continue") and self.chance(15):
            return self.container_while(scope, ctx)
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
        if self.has("indexing") and self.chance(30):
            test += f" and {self.lookup_test(counter, inside)}"
        before = scope.copy()
        before.define(counter_var)
        # the counter goes up first, so that a `continue` cannot skip it
        block = self.loop([f"{counter} = 0", f"while {test}:"], [], before, ctx, "while",
                          first_lines=[f"{counter} = {counter} + 1"])
        return block



def _breaks_own_loop(body: list[str]) -> bool:
    """Whether the loop body ``body`` (lines of source) holds a ``break`` of its own loop (one in a
    nested loop's body belongs to that loop; one in its ``else`` to the outer loop)."""
    pending: list[ast.AST] = list(ast.parse("\n".join(["while True:"] + indent(body))).body[0].body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Break):
            return True
        if isinstance(node, (ast.For, ast.While)):
            pending.extend(node.orelse)
        elif not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            pending.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, ast.expr))
    return False

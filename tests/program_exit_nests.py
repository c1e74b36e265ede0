"""Loops with an exit around a nest of static loops, as Bellman-Ford's rounds are (feature ``exit_nests``).

The shape of the benchmark program shortest_route::

    for i1 in range(3):
        c2 = False
        for i3 in range(2):
            for i4 in range(3):
                if <condition>:
                    <update of a numeric variable>
                    c2 = True
        x = x + i4            # sometimes: a loop variable read after its loop
        if not c2:            # or `if c2:`
            break
    v5 = i1                   # sometimes: the outer loop variable read after the loop with its exit

Under ``static_loops="auto"`` the outer loop is a scan whose iterations after the exit are masked, and
the trial that decides it traces one iteration, which staging may replay (runtime/traced_bodies.py);
the nest carries a flag that enters it as the Python ``False``. A loop variable read after its loop is
a name the body assigns first: every range here runs at least twice, so it is bound there, and a staged
loop starts it as a placeholder. Those reads are drawn inside other loops too: a range written out
non-empty binds its target on every path (analysis/nonempty_loops.py), so a traced `if` around the nest
inside another loop is not refused as assigning it in one branch only.
"""

from __future__ import annotations

from hypothesis import strategies as st
from program_model import CLIP, MAX_DEPTH, NUMERIC, VECTORS, Block, Ctx, Scope, Var, indent


class ExitNests:
    """The ``exit_nest`` statement."""

    def extra_statements(self, scope: Scope, ctx: Ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        if self.has("exit_nests") and ctx.depth < MAX_DEPTH and self.numeric_locals(scope):
            kinds += ["exit_nest"] * (6 if ctx.depth == 0 else 1)
        if self.has("break_continue") and ctx.depth < MAX_DEPTH and self.visible(scope, VECTORS):
            kinds.append("consuming_loop")
        return kinds

    def numeric_locals(self, scope: Scope) -> list[Var]:
        return [v for v in scope.defined.values() if v.kind == "local" and v.type in NUMERIC]

    def stmt_exit_nest(self, scope: Scope, ctx: Ctx) -> Block:
        self.used.add("exit_nests")
        self.budget -= 2
        rounds, flag = self.fresh("i"), self.fresh("c")
        inside = self.loop_scope(scope)
        inside.define(Var(rounds, "i", 4, "target"))
        loops = ctx.loops + ("for",)
        headers, last_index = [], ""
        for _ in range(self.draw(st.integers(1, 2))):
            last_index = self.fresh("i")
            headers.append(f"for {last_index} in range({self.pick(['2', '3'])}):")
            inside = self.loop_scope(inside)
            inside.define(Var(last_index, "i", 3, "target"))
            loops += ("for",)
        nest_ctx = Ctx(MAX_DEPTH, loops)  # no compound statement inside: the shape is the point
        test = self.condition(inside).text
        update = self.stmt_update(inside, nest_ctx)
        nest = update.lines + [f"{flag} = True"]
        for header in reversed(headers + [f"if {test}:"]):
            nest = [header] + indent(nest)
        body = [f"{flag} = False"] + nest
        reads_targets = self.chance(40)  # see the module's docstring
        if reads_targets:
            body.append(self.loop_variable_read(self.numeric_locals(scope), last_index))
        body += [f"if {self.pick(['not ', ''])}{flag}:", "    break"]
        lines = [f"for {rounds} in range({self.pick(['2', '3', '4'])}):"] + indent(body)
        after = self.loop_scope(scope)
        after.define(Var(flag, "b", 1))
        if reads_targets and self.chance(50):
            copy = self.fresh("v")
            lines.append(f"{copy} = {rounds}")
            after.define(Var(copy, "i", 4))
        return Block(lines, after)

    def stmt_consuming_loop(self, scope: Scope, ctx: Ctx) -> Block:
        """A copy of a vector consumed from the front (``s = s[1:]``) by a loop that a ``break`` on its
        first element may leave: Python runs it; staged, the loop cannot carry a shape that changes each
        iteration, a documented refusal that must name the user's ``break``, not a branch (the rest of
        the body is moved into the ``if``'s other branch) nor the loop's exit check."""
        self.used.add("break_continue")
        consumed = self.fresh("s")
        vector = self.pick(self.visible(scope, VECTORS))
        header = self.pick([f"for {self.fresh('i')} in range(len({consumed}) - 1):", f"while {consumed}.shape[0] > 1:"])
        lines = [f"{consumed} = {self.use(scope, vector)}", header,
                 f"    if {consumed}[0] > {self.draw(st.integers(-3, 3))}:", "        break", f"    {consumed} = {consumed}[1:]"]
        return Block(lines, scope)

    def loop_variable_read(self, targets: list[Var], index: str) -> str:
        """``x = clip(x + i)``: the inner loop's variable, read after its loop."""
        target = self.pick(targets).name
        return f"{target} = jnp.clip({target} + {index}, -{CLIP}, {CLIP})"

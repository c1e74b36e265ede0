"""``if`` / ``elif`` chains comparing one int with constants in generated programs (feature ``switch``).

The converter makes such a chain (three tests or more, each ``k == c`` or ``k == c or k == d`` with
distinct int constants) one ``_ag.switch_stmt``: one ``lax.switch`` when ``k`` is a traced int, the
nested conds otherwise (runtime/switches.py). The generator draws those chains, with or without an
``else``, with bodies that may exit, and some near misses that must stay nested ``if``s: a constant
repeated, or one test on another int expression.
"""

from __future__ import annotations

from hypothesis import strategies as st
from program_model import MAX_DEPTH, Block, Ctx, Scope, indent, merge_scopes


class Switches:
    """The ``switch`` statement kind; a mixin of the program builder (bodies from ``Matches.case_body``)."""

    def extra_statements(self, scope: Scope, ctx: Ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        if self.has("switch") and self.budget > 0 and ctx.depth < MAX_DEPTH and self.visible(scope, ("i",)):
            kinds += ["switch"] * (6 if ctx.depth == 0 else 2)
        return kinds

    def stmt_switch(self, scope: Scope, ctx: Ctx) -> Block:
        self.used.add("switch")
        subject = self.variable(scope, self.pick(self.visible(scope, ("i",)))).text
        count = self.draw(st.integers(3, 5))
        constants = self.draw(st.lists(st.integers(-3, 6), min_size=count + 2, max_size=count + 2, unique=True))
        if self.chance(10):
            constants[count - 1] = constants[0]  # a repeat: the chain stays nested from there
        tests = [f"{subject} == {value}" for value in constants[:count]]
        if self.chance(30):
            tests[1] = f"{tests[1]} or {subject} == {constants[count]}"  # as `case c | d` is
        if self.chance(10):
            tests[-1] = f"{self.expr('i', scope).text} == {constants[count + 1]}"  # another subject
        has_else = self.draw(st.booleans())
        lines: list[str] = []
        arms: list[Block] = []
        for index, test in enumerate(tests + ([None] if has_else else [])):
            body = self.case_body(scope, ctx)
            header = "else:" if test is None else f"{'if' if index == 0 else 'elif'} {test}:"
            lines += [header] + indent(body.lines)
            arms.append(body)
        falling = [body.scope for body in arms if not body.exits]
        if not has_else:
            falling.append(scope)
        if not falling:
            return Block(lines, scope, True, all(body.returns for body in arms))
        return Block(lines, merge_scopes(scope, falling))

"""``if`` / ``elif`` chains comparing one int with constants in generated programs (feature ``switch``).

The converter makes such a chain (three tests or more, each ``k == c`` or ``k == c or k == d`` with
distinct int constants) one ``_ag.switch_stmt``: one ``lax.switch`` when ``k`` is a traced int, the
nested conds otherwise (runtime/switches.py). The generator draws those chains, with or without an
``else``, with bodies that may exit, and some near misses that must stay nested ``if``s: a constant
repeated, or one test on another int expression. Two shapes that the switch once left to the nested
conds (issue #19) are drawn on purpose:

- an ``else`` that raises (``raise ValueError(<check message>)``, as program_raises.py writes them),
  taken at run time by every value of ``k`` outside the constants: eager's exception must come out of
  the switch exactly when the index selects it;
- a float variable that every branch first assigns, with a Python literal (``-10.0``, or an int such
  as ``0``: weakly typed) in some branches and an array expression in others, or literals only: the
  switch converts the weakly typed values as the nested conds would.
"""

from __future__ import annotations

import dataclasses

from hypothesis import strategies as st
from program_model import MAX_DEPTH, Block, Ctx, Scope, Var, indent, merge_scopes
from program_raises import RAISED

_FLOAT_LITERALS = ("-10.0", "10.0", "0.5", "2.5", "0.0")
_INT_LITERALS = ("0", "3", "-1")  # a float variable holding a Python int: Var.weak


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
        assigned = self.fresh("v") if self.chance(40) else None
        literals_only = self.chance(30)
        lines: list[str] = []
        arms: list[Block] = []
        for index, test in enumerate(tests + ([None] if has_else else [])):
            header = "else:" if test is None else f"{'if' if index == 0 else 'elif'} {test}:"
            if test is None and any(not arm.exits for arm in arms) and self.chance(30):
                body = self.raising_arm(scope, ctx)
            else:
                body = self.switch_arm(scope, ctx, assigned, literals_only)
            lines += [header] + indent(body.lines)
            arms.append(body)
        falling = [body.scope for body in arms if not body.exits]
        if not has_else:
            falling.append(scope)
        if not falling:
            return Block(lines, scope, True, all(body.returns for body in arms))
        return Block(lines, merge_scopes(scope, falling))

    def switch_arm(self, scope: Scope, ctx: Ctx, assigned: str | None, literals_only: bool) -> Block:
        """A case body, first assigning ``assigned`` (when given) a Python literal or a float array."""
        if assigned is None:
            return self.case_body(scope, ctx)
        if literals_only or self.chance(50):
            text = self.pick(_FLOAT_LITERALS + _INT_LITERALS)
            var = Var(assigned, "f", abs(float(text)), weak=text in _INT_LITERALS)
        else:
            value = self.clip(self.floated(self.expr("f", scope), "f"), self.clip_above)
            text, var = value.text, Var(assigned, "f", value.bound)
        inner = scope.copy()
        inner.define(var)
        body = self.case_body(inner, ctx)
        return Block([f"{assigned} = {text}"] + body.lines, body.scope, body.exits, body.returns)

    def raising_arm(self, scope: Scope, ctx: Ctx) -> Block:
        """An ``else`` that raises a generated check (program_raises.py) after a few statements."""
        self.used.add("raises")
        before = self.block(scope, dataclasses.replace(ctx, depth=ctx.depth + 1), 2, least=0)
        if before.exits:
            return before
        raise_line = f"raise {self.pick(RAISED)}({self.check_message(before.scope)})"
        return Block(before.lines + [raise_line], before.scope, True, False)

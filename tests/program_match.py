"""``match`` statements on an int scalar in generated programs (feature ``match``).

The converter turns a ``match`` into an ``if`` chain (literal and ``|`` patterns are ``==`` tests, a
wildcard or a capture the final ``else``), staged as ``lax.cond`` when the subject is traced. The
generator draws the patterns it stages: literals, or-patterns, ``P as name``, guards on a literal
or a wildcard, a capture with a guard (Python binds it before testing the guard, even when the
guard fails, so later cases and the code after the ``match`` may read it), and a final ``_`` or
capture, or none (then no case may match). Case bodies are ordinary blocks, which may exit.
"""

from __future__ import annotations

import dataclasses

from hypothesis import strategies as st
from program_model import MAX_DEPTH, Block, Ctx, Scope, Var, indent, merge_scopes

_REFUTABLE = ["value", "value", "or", "as", "value_guard", "wildcard_guard", "capture_guard"]


class Matches:
    """The ``match`` statement kind; a mixin of the program builder."""

    def extra_statements(self, scope: Scope, ctx: Ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        if self.has("match") and self.budget > 0 and ctx.depth < MAX_DEPTH:
            kinds += ["match"] * (6 if ctx.depth == 0 else 2)
        return kinds

    def stmt_match(self, scope: Scope, ctx: Ctx) -> Block:
        self.used.add("match")
        ints = self.visible(scope, ("i",))
        # Mostly a variable (an argument is traced), else any int expression (often concrete).
        subject = self.variable(scope, self.pick(ints)) if ints and self.chance(60) else self.expr("i", scope)
        count = self.draw(st.integers(1, 4))
        lines = [f"match {subject.text}:"]
        reaching = scope  # what the next case sees: captures bound by cases whose guard failed
        arms: list[Block] = []
        irrefutable = False
        for index in range(count):
            last = index == count - 1
            kind = self.pick(_REFUTABLE + (["wildcard", "capture"] * 2 if last else []))
            header, arm_scope, reaching = self.case_header(kind, subject.bound, reaching)
            body = self.case_body(arm_scope, ctx)
            lines += indent([header] + indent(body.lines))
            arms.append(body)
            irrefutable = kind in ("wildcard", "capture")
        falling = [body.scope for body in arms if not body.exits]
        if not irrefutable:
            falling.append(reaching)  # no case matched
        if not falling:
            return Block(lines, scope, True, all(body.returns for body in arms))
        return Block(lines, merge_scopes(scope, falling))

    def case_header(self, kind: str, bound: float, reaching: Scope) -> tuple[str, Scope, Scope]:
        """``case ...:`` of ``kind``, the scope its body starts with, and the scope the next case sees."""
        literal = self.match_literal()
        if kind == "value":
            return f"case {literal}:", reaching, reaching
        if kind == "or":
            alternatives = " | ".join([literal] + [self.match_literal() for _ in range(self.draw(st.integers(1, 2)))])
            return f"case {alternatives}:", reaching, reaching
        if kind in ("value_guard", "wildcard_guard"):
            pattern = literal if kind == "value_guard" else "_"
            return f"case {pattern} if {self.condition(reaching).text}:", reaching, reaching
        if kind == "wildcard":
            return "case _:", reaching, reaching
        name = self.fresh("m")
        bound_scope = reaching.copy()
        bound_scope.define(Var(name, "i", bound))
        if kind == "as":
            return f"case ({literal} | {self.match_literal()}) as {name}:", bound_scope, reaching
        if kind == "capture":
            return f"case {name}:", bound_scope, reaching
        # `case name if guard`: Python binds the name first, so the next cases see it too.
        return f"case {name} if {self.condition(bound_scope).text}:", bound_scope, bound_scope

    def match_literal(self) -> str:
        return str(self.draw(st.integers(-3, 4)))

    def case_body(self, scope: Scope, ctx: Ctx) -> Block:
        """A block, ending with an exit (``return`` / ``break`` / ``continue``) when the features allow."""
        body = self.block(scope, dataclasses.replace(ctx, depth=ctx.depth + 1), 3)
        if body.exits:
            return body
        exit_line = self.exit_statement(ctx, body.scope)
        if exit_line is None:
            return body
        return Block(body.lines + [exit_line], body.scope, True, exit_line.startswith("return"))

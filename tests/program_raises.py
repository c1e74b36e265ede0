"""``raise`` and ``assert`` on traced values in generated programs (feature ``raises``, issue #15).

Under a traced condition (a staged branch, a loop body) the converter turns a ``raise`` into a
run-time check: the compiled program must raise only on the inputs on which eager Python raises, with
eager's exception type and message (``autograph_lite.jit`` raises the exception itself), after
printing what eager Python printed before it. The generator draws, anywhere a statement can go:

- ``if <condition>: [statements]; raise E(<message>)`` (``ValueError``, ``KeyError``,
  ``OverflowError``, ``CheckFailed(N, value)``, the program's own class, whose ``__init__``
  formats the value, or ``RuntimeError(E(<message>))``, whose argument is an exception): the branch
  never falls through, so what it assigns is not read after it;
- ``assert <condition>, <message>`` and, sometimes, ``assert <condition>``;
- ``v = within_limit(<float expression>)``: a module-level helper whose own traced ``if`` raises, so
  that the check is staged in a called function (and, drawn inside a branch, under a staged branch of
  the caller); ``autograph_lite.jit`` of ``f``, which holds no check of its own then, must still raise
  eager's exception; and ``within_limit(x)`` as an expression, also as a lazy operand of ``and`` /
  ``or`` (evaluated while tracing whatever the traced operand before it: the check must wait for it).

Messages are ``"check N"`` or f-strings of a traced value (``f'check N: {x:.2f}'``), so that the
message is formed from run-time values. Conditions are the builder's own, so inputs take the raising
path on some sets and not on others. program_check.py keeps an input set on which the eager run raises
one of these exceptions (:func:`is_generated_check`) and requires every converted run to raise the
same type with the same message there.
"""

from __future__ import annotations

import dataclasses
import re

from hypothesis import strategies as st
from program_model import MAX_DEPTH, NUMERIC, SCALARS, Block, Ctx, E, Scope, indent

RAISED = ("ValueError", "KeyError", "OverflowError")
# An exception class of the program's own whose __init__ formats a traced value: it must run converted.
CHECK_FAILED = ("class CheckFailed(ValueError):\n    def __init__(self, number, value):\n"
                "        super().__init__(f'check {number}: {value:.2f}')\n        self.value = value")
EXCEPTIONS = (*RAISED, "CheckFailed", "RuntimeError")
_CHECK_MESSAGE = re.compile(r"'?check \d+")
_SPECS = ("", ".2f", "")  # format specs for scalars (a bool or an array has no .2f)
HELPER_LIMIT = 6.0  # within the range of generated floats, so that both paths are taken
HELPER = (f"def within_limit(v):\n    if v > {HELPER_LIMIT}:\n        raise OverflowError(f'check 900: {{v:.2f}}')\n"
          "    return v")


# What ``str.format`` raises for the templates program_printing.py draws that Python refuses.
TEMPLATE_ERRORS = {("ValueError", "cannot switch from automatic field numbering to manual field specification"),
                   ("IndexError", "Replacement index 1 out of range for positional args tuple")}


def is_generated_check(error: BaseException) -> bool:
    """Whether ``error`` is what a generated ``raise`` or ``assert`` raises (an ``assert`` may have
    no message; nothing else in a generated program raises ``AssertionError``), or what a generated
    ``str.format`` template that Python refuses raises (program_printing.py)."""
    if type(error) is AssertionError or (type(error).__name__, str(error)) in TEMPLATE_ERRORS:
        return True
    return type(error).__name__ in EXCEPTIONS and _CHECK_MESSAGE.match(str(error)) is not None


class Raises:
    """The ``raise`` (under a condition) and ``assert`` statements; a mixin of the program builder."""

    def extra_statements(self, scope: Scope, ctx: Ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        if not self.has("raises"):
            return kinds
        kinds += ["assert_check"] * 2 + ["helper_check"]
        if self.budget > 0 and ctx.depth < MAX_DEPTH:
            kinds += ["raise_check"] * (4 if ctx.depth == 0 else 2)
        return kinds

    def extra_leaves(self, t: str, scope: Scope) -> list:
        """``within_limit(x)`` on a float variable, as an expression: as a lazy operand of ``and`` /
        ``or`` after a traced one, its check must fire only where eager Python evaluates it."""
        options = super().extra_leaves(t, scope)
        if self.has("raises") and t == "f":
            options += [lambda var=var: self.limited_leaf(scope, var) for var in self.visible(scope, ("f",))]
        return options

    def limited_leaf(self, scope: Scope, var) -> E:
        self.used.add("raises")
        self.module_parts["within_limit"] = HELPER
        return E(f"within_limit({self.use(scope, var)})", var.bound, True)

    def check_message(self, scope: Scope) -> str:
        """``"check N"``, or an f-string with a value computed from the arguments."""
        number = next(self.counter)
        if not self.chance(60):
            return f'"check {number}"'
        t = self.pick(list(NUMERIC if self.has("vectors") else SCALARS) + ["b"])
        spec = self.pick(_SPECS) if t in SCALARS else ""
        text = self.expr(t, scope, self.draw(st.integers(0, 1))).text
        quote = '"' if "'" in text else "'"  # Python 3.11: no reuse of the f-string's quote inside it
        return f"f{quote}check {number}: {{{text}{':' + spec if spec else ''}}}{quote}"

    def stmt_raise_check(self, scope: Scope, ctx: Ctx) -> Block:
        self.used.add("raises")
        test = self.condition(scope).text
        inner = dataclasses.replace(ctx, depth=ctx.depth + 1)
        before = self.block(scope, inner, 2, least=0)
        lines = before.lines
        if not before.exits:
            lines = lines + [self.raise_line(before.scope)]
        # The branch never falls through: after the `if`, only what was bound before it is.
        return Block([f"if {test}:"] + indent(lines), scope)

    def raise_line(self, scope: Scope) -> str:
        """``raise E(message)``, or now and then ``raise CheckFailed(N, value)``, whose own ``__init__``
        formats the traced value, or ``raise RuntimeError(E(message))``, an exception whose argument is
        an exception (its message, formatted from run-time values, is the outer one's text)."""
        if self.chance(25):
            self.module_parts["CheckFailed"] = CHECK_FAILED
            value = self.expr(self.pick(["f", "i"]), scope, self.draw(st.integers(0, 1))).text
            return f"raise CheckFailed({next(self.counter)}, {value})"
        if self.chance(20):
            return f"raise RuntimeError({self.pick(RAISED)}({self.check_message(scope)}))"
        return f"raise {self.pick(RAISED)}({self.check_message(scope)})"

    def stmt_assert_check(self, scope: Scope, ctx: Ctx) -> Block:
        self.used.add("raises")
        test = self.condition(scope).text
        message = f", {self.check_message(scope)}" if self.chance(70) else ""
        return Block([f"assert {test}{message}"], scope)

    def stmt_helper_check(self, scope: Scope, ctx: Ctx) -> Block:
        self.used.add("raises")
        self.module_parts["within_limit"] = HELPER
        line, var = self.assignment(self.fresh("v"), "f", scope, ctx, fresh=True)
        name, expression = line.split(" = ", 1)
        scope = scope.copy()
        scope.define(var)
        return Block([f"{name} = within_limit({expression})"], scope)

"""F-strings become ``_ag.format_string(template, *values)``; ``'...' % values`` becomes
``_ag.percent_format('...', values)``.

An f-string is formatted before the call that receives it runs, so a traced value in it would be
formatted while tracing: a tracer's repr (``JitTracer(int32[])``), or a ``TypeError`` for a format
spec such as ``:.3f``. The runtime formats concrete values exactly as the f-string would and keeps
traced ones for run time, where ``print`` writes them. The template is the f-string's own text as a
``str.format`` template, so the generated code reads like the original:

    print(f"step {i}: loss {loss:.3f} {name!r}")
    print(_ag.format_string('step {}: loss {:.3f} {!r}', i, loss, name))

(and the calls pass then routes ``print``). A field of a format spec (``f"{x:{width}}"``) takes the
value after its field's own, as ``str.format`` numbers them. Values are evaluated first and formatted
afterwards, where an f-string interleaves the two; only a ``__format__`` with side effects on the
later values could tell. In a ``raise`` or ``assert`` message the call is ``_ag.format_message``:
an exception needs its text at once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import gast

from . import nodes
from .expressions import ExpressionTransformer
from .facts import ScopeFacts


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    """Skipped where the source text has no f-string prefix at all (``facts.may_format``)."""
    if not facts.may_format:
        return facts
    rewriter = _FStrings()
    rewriter.rewrite_scope(function)
    return facts


class _FStrings(ExpressionTransformer):
    def __init__(self) -> None:
        self.in_message = False

    # Nested functions were rewritten on their own already.
    def visit_FunctionDef(self, node: gast.AST) -> gast.AST:
        return node

    visit_Lambda = visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Raise(self, node: gast.Raise) -> gast.Raise:
        with self._message():
            return self.generic_visit(node)

    def visit_Assert(self, node: gast.Assert) -> gast.Assert:
        node.test = self.visit(node.test)
        if node.msg is not None:
            with self._message():
                node.msg = self.visit(node.msg)
        return node

    def visit_FormattedValue(self, node: gast.FormattedValue) -> gast.FormattedValue:
        # The spec stays a JoinedStr (it becomes part of the template); only its values are visited.
        node.value = self.visit(node.value)
        for part in node.format_spec.values if node.format_spec is not None else ():
            if isinstance(part, gast.FormattedValue):
                part.value = self.visit(part.value)
        return node

    def visit_JoinedStr(self, node: gast.JoinedStr) -> gast.expr:
        self.generic_visit(node)
        values: list[gast.expr] = []
        template = _template(node.values, values, in_spec=False)
        if template is None or not values:
            return node
        operator = "format_message" if self.in_message else "format_string"
        return nodes.runtime_call(operator, [nodes.constant(template, node.lineno), *values], node.lineno)

    def visit_BinOp(self, node: gast.BinOp) -> gast.expr:
        """``'...' % values`` of a string literal: ``_ag.percent_format('...', values)``."""
        self.generic_visit(node)
        if not (isinstance(node.op, gast.Mod) and isinstance(node.left, gast.Constant) and isinstance(node.left.value, str)):
            return node
        return nodes.runtime_call("percent_format", [node.left, node.right], node.lineno)

    @contextlib.contextmanager
    def _message(self) -> Iterator[None]:
        outer, self.in_message = self.in_message, True
        try:
            yield
        finally:
            self.in_message = outer


def _template(parts: list[gast.expr], values: list[gast.expr], in_spec: bool) -> str | None:
    """The ``str.format`` template of an f-string's parts, appending each field's value to ``values``.

    ``None`` for a literal brace inside a format spec, which a template cannot express (no built-in
    type accepts one in a spec, so such an f-string is left as written).
    """
    text = []
    for part in parts:
        if isinstance(part, gast.Constant):
            if in_spec and ("{" in part.value or "}" in part.value):
                return None
            text.append(part.value if in_spec else part.value.replace("{", "{{").replace("}", "}}"))
            continue
        values.append(part.value)
        conversion = "" if part.conversion == -1 else "!" + chr(part.conversion)
        spec = ""
        if part.format_spec is not None:
            inner = _template(part.format_spec.values, values, in_spec=True)
            if inner is None:
                return None
            spec = ":" + inner
        text.append("{" + conversion + spec + "}")
    return "".join(text)

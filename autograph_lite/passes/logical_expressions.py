"""``and`` / ``or`` / ``not``, chained comparisons and ``a if c else b``, rewritten to runtime calls.

Operands that Python evaluates lazily are wrapped in ``lambda:`` so that the runtime evaluates them
only when Python would (or, once an operand is traced, when the run-time choice needs them):

    a and b            ->  _ag.and_(a, lambda: b)
    not a              ->  _ag.not_(a)                             (`not not a`: _ag.truth(a))
    a < b <= c         ->  _ag.compare(a, '<', lambda: b, '<=', lambda: c)
    x in items         ->  _ag.compare(x, 'in', lambda: items)     (also `not in`; one `<` stays Python's)
    x if c else y      ->  _ag.if_exp(c, lambda: x, lambda: y)

An assignment expression (``:=``) inside a lazy operand would bind in the lambda instead of the
function, so it is rejected with its location. The stop tests of ``for`` loops, which the early-exit
pass built outside the tree, are rewritten too: they become helpers of the loop pass.
"""

from __future__ import annotations

from collections.abc import Callable

import gast

from ..errors import Location, UnsupportedSyntaxError
from . import nodes
from .expressions import ExpressionTransformer
from .facts import ScopeFacts

_COMPARE_SYMBOLS = {
    gast.Eq: "==", gast.NotEq: "!=", gast.Lt: "<", gast.LtE: "<=", gast.Gt: ">", gast.GtE: ">=",
    gast.Is: "is", gast.IsNot: "is not", gast.In: "in", gast.NotIn: "not in",
}


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    rewriter = _LogicalExpressions(facts.locate)
    rewriter.rewrite_scope(function)
    if isinstance(function, gast.Lambda):
        return facts
    if not facts.stop_tests:
        return facts
    return facts.with_stop_tests({loop: rewriter.visit(test) for loop, test in facts.stop_tests.items()})


def _is_membership_test(compare: gast.Compare) -> bool:
    """``x in items`` / ``x not in items``: Python calls ``bool`` of each ``item == x``, which a traced
    ``x`` has not, so the runtime decides it. A ``:=`` in the container stays Python's (it would bind
    in the lambda)."""
    return isinstance(compare.ops[0], (gast.In, gast.NotIn)) and not any(
        isinstance(inner, gast.NamedExpr) for inner in gast.walk(compare.comparators[0]))


class _LogicalExpressions(ExpressionTransformer):
    def __init__(self, locate: Callable[[gast.AST], Location]) -> None:
        self.locate = locate

    # The user's nested functions are converted on their own when called.
    def visit_FunctionDef(self, node: gast.AST) -> gast.AST:
        return node

    visit_Lambda = visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_BoolOp(self, node: gast.BoolOp) -> gast.expr:
        self.generic_visit(node)
        operator = "and_" if isinstance(node.op, gast.And) else "or_"
        first, *rest = node.values
        return self._call(operator, node, [first] + [self._lazy(v) for v in rest])

    def visit_UnaryOp(self, node: gast.UnaryOp) -> gast.expr:
        self.generic_visit(node)
        if not isinstance(node.op, gast.Not):
            return node
        if isinstance(node.operand, gast.Call) and nodes.runtime_operator(node.operand.func) == "not_":
            return self._call("truth", node, node.operand.args)  # `not not a`: one truth, not two negations
        return self._call("not_", node, [node.operand])

    def visit_Compare(self, node: gast.Compare) -> gast.expr:
        self.generic_visit(node)
        if len(node.ops) == 1 and not _is_membership_test(node):
            return node
        arguments = [node.left]
        for operator, operand in zip(node.ops, node.comparators):
            arguments.append(nodes.constant(_COMPARE_SYMBOLS[type(operator)], node.lineno))
            arguments.append(self._lazy(operand))
        return self._call("compare", node, arguments)

    def visit_IfExp(self, node: gast.IfExp) -> gast.expr:
        self.generic_visit(node)
        return self._call("if_exp", node, [node.test, self._lazy(node.body), self._lazy(node.orelse)])

    def _lazy(self, operand: gast.expr) -> gast.expr:
        for inner in gast.walk(operand):
            if isinstance(inner, gast.NamedExpr):
                raise UnsupportedSyntaxError(
                    "an assignment expression (`:=`) in an operand that Python evaluates lazily (after "
                    "`and` / `or`, in a chained comparison or a conditional expression) cannot be converted",
                    self.locate(inner),
                    f"Assign {inner.target.id} on its own line first.",
                )
        return nodes.lazy(operand)

    def _call(self, operator: str, node: gast.expr, arguments: list[gast.expr]) -> gast.expr:
        return nodes.runtime_call(operator, arguments, node.lineno)

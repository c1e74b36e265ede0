"""Reads ``v[i]`` whose index may be traced become ``_ag.getitem(v, i)``.

A Python list or tuple cannot take a traced index (``list.__getitem__`` asks it for ``__index__``),
and nothing in Python lets the runtime step in without a call, so every read that could meet one is
routed through the operator, which is the plain subscript unless the index is traced and the value a
Python sequence (``runtime.sequences``). Left as written, because no Python sequence accepts them or
because they are never traced: a constant index (``x[0]``, ``x[-1]``), a slice, a tuple of indices
(``x[1:]``, ``x[:, i]``, ``x[i, j]``), ``x.at[...]``, and stores and deletions (item assignments are
``_ag.setitem`` already). An annotation of a local variable is never evaluated: it stays as written.
"""

from __future__ import annotations

import gast

from . import nodes
from .expressions import ExpressionTransformer
from .facts import ScopeFacts

# Index expressions that no Python sequence accepts, or whose value is known when the code is written.
_NEVER_TRACED = (gast.Constant, gast.Slice, gast.Tuple)


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    rewriter = _Subscripts()
    rewriter.rewrite_scope(function)
    return facts


class _Subscripts(ExpressionTransformer):
    # Nested functions were rewritten on their own already.
    def visit_FunctionDef(self, node: gast.AST) -> gast.AST:
        return node

    visit_Lambda = visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_AnnAssign(self, node: gast.AnnAssign) -> gast.AST:
        node.target = self.visit(node.target)
        if node.value is not None:
            node.value = self.visit(node.value)
        return node

    def visit_Subscript(self, node: gast.Subscript) -> gast.expr:
        self.generic_visit(node)
        if not isinstance(node.ctx, gast.Load) or not _may_be_traced(node.slice) or _is_at(node.value):
            return node
        return nodes.runtime_call("getitem", [node.value, node.slice], node.lineno)


def _may_be_traced(index: gast.expr) -> bool:
    if isinstance(index, gast.UnaryOp) and isinstance(index.op, (gast.USub, gast.UAdd)):
        index = index.operand  # x[-1]
    return not isinstance(index, _NEVER_TRACED)


def _is_at(value: gast.expr) -> bool:
    """``x.at``: JAX's indexed-update helper, whose subscript is never a sequence lookup."""
    return isinstance(value, gast.Attribute) and value.attr == "at"

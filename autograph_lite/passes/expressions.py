"""A tree transformer for the expression passes that does not visit what it can never change.

``gast.NodeTransformer`` visits every node, contexts (``Load``), operators (``Add``), names and
constants included: for a name that is a dispatch to ``visit_Name``, one to ``generic_visit``, and
the same again for its ``ctx``. The expression passes rewrite calls, boolean operators, comparisons
and conditional expressions only; skipping the leaves halves the visits of a typical tree.
"""

from __future__ import annotations

import gast

# Never rewritten by the expression passes, and holding nothing that is.
_LEAVES = (gast.Name, gast.Constant, gast.expr_context, gast.operator, gast.unaryop, gast.cmpop, gast.boolop)


class ExpressionTransformer(gast.NodeTransformer):
    """Like ``gast.NodeTransformer``, with the same handling of ``None`` and list results."""

    def rewrite_scope(self, function: gast.AST) -> None:
        """Rewrite ``function``'s body in place: a def's statements, or a lambda's expression."""
        if isinstance(function, gast.Lambda):
            function.body = self.visit(function.body)
        else:
            function.body = [self.visit(statement) for statement in function.body]

    def generic_visit(self, node: gast.AST) -> gast.AST:
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                setattr(node, field, self._visit_list(value))
            elif isinstance(value, gast.AST) and not isinstance(value, _LEAVES):
                setattr(node, field, self.visit(value))
        return node

    def _visit_list(self, values: list) -> list:
        result = []
        for value in values:
            if isinstance(value, gast.AST) and not isinstance(value, _LEAVES):
                value = self.visit(value)
                if value is None:
                    continue
                if isinstance(value, list):
                    result.extend(value)
                    continue
            result.append(value)
        return result

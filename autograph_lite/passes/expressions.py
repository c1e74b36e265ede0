"""A tree transformer for the expression passes that does not visit what it can never change.

``gast.NodeTransformer`` visits every node, contexts (``Load``), operators (``Add``), names and
constants included: for a name that is a dispatch to ``visit_Name``, one to ``generic_visit``, and
the same again for its ``ctx``. The expression passes rewrite calls, boolean operators, comparisons
and conditional expressions only; skipping the leaves halves the visits of a typical tree.
"""

from __future__ import annotations

import gast

from ..analysis.blocks import GAST_CLASSES
from ..dispatch import DispatchByClass

# Never rewritten by the expression passes, and holding nothing that is.
_LEAVES = (gast.Name, gast.Constant, gast.expr_context, gast.operator, gast.unaryop, gast.cmpop, gast.boolop)
# Fields that only ever hold leaves (contexts, operators, an except clause's name), strings or numbers.
_INERT_FIELDS = frozenset({
    "ctx", "op", "ops", "name", "id", "attr", "arg", "kind", "type_comment", "conversion", "is_async", "level", "module",
})


def _fields_to_visit(kind: type[gast.AST]) -> tuple[str, ...]:
    return tuple(field for field in kind._fields if field not in _INERT_FIELDS)


# Per node class, the fields that may hold something to rewrite: looked up once, not on every node.
_VISITED_FIELDS: dict[type, tuple[str, ...]] = {kind: _fields_to_visit(kind) for kind in GAST_CLASSES}
# The leaves' classes, for a set lookup of a node's exact class (gast's classes have no subclasses)
# instead of an ``isinstance`` against seven classes, for every child of every expression.
_LEAF_CLASSES = frozenset(kind for kind in GAST_CLASSES if issubclass(kind, _LEAVES))


class ExpressionTransformer(DispatchByClass, gast.NodeTransformer):
    """Like ``gast.NodeTransformer``, with the same handling of ``None`` and list results."""

    def rewrite_scope(self, function: gast.AST) -> None:
        """Rewrite ``function``'s body in place: a def's statements, or a lambda's expression."""
        if isinstance(function, gast.Lambda):
            function.body = self.visit(function.body)
        else:
            function.body = [self.visit(statement) for statement in function.body]

    def generic_visit(self, node: gast.AST) -> gast.AST:
        fields = _VISITED_FIELDS.get(type(node))
        for field in fields if fields is not None else _fields_to_visit(type(node)):
            value = getattr(node, field, None)
            if isinstance(value, list):
                setattr(node, field, self._visit_list(value))
            elif isinstance(value, gast.AST) and type(value) not in _LEAF_CLASSES:
                setattr(node, field, self.visit(value))
        return node

    def _visit_list(self, values: list) -> list:
        result = []
        for value in values:
            if isinstance(value, gast.AST) and type(value) not in _LEAF_CLASSES:
                value = self.visit(value)
                if value is None:
                    continue
                if isinstance(value, list):
                    result.extend(value)
                    continue
            result.append(value)
        return result

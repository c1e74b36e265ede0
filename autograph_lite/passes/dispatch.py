"""The visitors' method lookup, done once per class of node instead of once per node.

``ast.NodeVisitor.visit`` builds the name ``visit_<class>`` and looks it up on the visitor for every
node it visits; the passes visit thousands of nodes per conversion, of a few dozen classes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import gast


class DispatchByClass(gast.NodeVisitor):
    """A base of a ``gast.NodeVisitor`` or (before it) ``NodeTransformer`` subclass: ``visit`` finds the
    same method ``NodeVisitor.visit`` would, ``visit_<class>`` or ``generic_visit``, from a table per
    visitor class. The table holds plain functions, so visitors must not set ``visit_*`` on instances."""

    _methods: ClassVar[dict[type, Callable[[Any, gast.AST], Any]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._methods = {}  # each visitor class its own: a subclass may define other visit_ methods

    def visit(self, node: gast.AST) -> Any:
        method = self._methods.get(type(node))
        if method is None:
            visitor_class = type(self)
            method = getattr(visitor_class, "visit_" + type(node).__name__, None) or visitor_class.generic_visit
            self._methods[type(node)] = method
        return method(self, node)

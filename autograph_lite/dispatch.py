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
            if method is _CONSTANT_SHIM and not any(hasattr(visitor_class, name) for name in _OLD_CONSTANT_METHODS):
                method = visitor_class.generic_visit  # where the shim would end, with no failed lookup on the way
            self._methods[type(node)] = method
        return method(self, node)


# ``ast.NodeVisitor.visit_Constant`` calls a ``visit_Num`` / ``visit_Str`` / ... method of the visitor (the
# node classes before Python 3.8) if it has one, else ``generic_visit``: a failed attribute lookup, an
# exception caught, on every constant of every tree that a visitor without its own ``visit_Constant``
# walks.
_CONSTANT_SHIM = getattr(gast.NodeVisitor, "visit_Constant", None)
_OLD_CONSTANT_METHODS = ("visit_Num", "visit_Str", "visit_Bytes", "visit_NameConstant", "visit_Ellipsis")

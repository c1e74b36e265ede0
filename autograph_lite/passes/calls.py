"""Calls become ``_ag.call(f, *args, **kwargs)``, except calls that need no conversion.

A call is left as written when its callee, looked up at conversion time, is library code reached
through a module attribute or a global name (``jnp.sin(x)``, ``lax.cond(...)``, ``math.sqrt(v)``) or a
class (constructors are not converted). The decision comes from the conversion layer as a predicate
over dotted names, so this pass stays pure AST work. Names bound in the function (or in an enclosing
converted function) are looked up at run time, since their values are unknown here.

A library call given ``out=`` (``np.add(a, 1, out=BUF)``) writes into that array: it goes through
``_ag.call`` too, whose effect checks see the array it would change (``runtime.library_mutators``).
The conversion layer's predicate sends the library functions that mutate an argument there already.
"""

from __future__ import annotations

from collections.abc import Callable

import gast

from ..generated_names import RUNTIME
from . import nodes
from .expressions import ExpressionTransformer
from .facts import ScopeFacts


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    rewriter = _Calls(facts.leave_call_as_is, facts.local_names)
    rewriter.rewrite_scope(function)
    return facts


def dotted_name(node: gast.expr) -> tuple[str, ...] | None:
    """``a.b.c`` as ``("a", "b", "c")``; ``None`` for anything that is not a chain of names."""
    parts: list[str] = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name):
        return None
    parts.append(node.id)
    return tuple(reversed(parts))


class _Calls(ExpressionTransformer):
    def __init__(self, leave_as_is: Callable[[tuple[str, ...]], bool], local_names: frozenset[str]) -> None:
        self.leave_as_is = leave_as_is
        self.local_names = local_names

    # Nested functions were rewritten on their own already.
    def visit_FunctionDef(self, node: gast.AST) -> gast.AST:
        return node

    visit_Lambda = visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Call(self, node: gast.Call) -> gast.expr:
        self.generic_visit(node)
        if self._keep(node.func) and not _writes_out(node):
            return node
        return nodes.runtime_call("call", [node.func] + node.args, node.lineno, node.keywords)

    def _keep(self, callee: gast.expr) -> bool:
        if isinstance(callee, gast.Name) and callee.id == "super":
            return True  # super() needs the frame it is called from; super().method(...) is converted
        path = dotted_name(callee)
        if path is None:
            return False
        if path[0] == RUNTIME:
            return True
        return path[0] not in self.local_names and self.leave_as_is(path)


def _writes_out(call: gast.Call) -> bool:
    """Whether ``call`` passes ``out=`` to a callee other than the runtime's (a NumPy ufunc writes it)."""
    path = dotted_name(call.func)
    return (path is None or path[0] != RUNTIME) and any(keyword.arg == "out" for keyword in call.keywords)

"""Item assignments become rebindings, so that they work on immutable JAX arrays:

    x[i] = v     ->  x = _ag.setitem(x, i, v)
    x[i] += v    ->  x = _ag.setitem(x, i, v, '+=')

On a JAX array the runtime uses ``x.at[i].set(v)`` / ``.add(v)`` / ...; on a list, dict or NumPy
array it assigns in place and returns the same object, so Python semantics are kept. As a
rebinding, ``x`` becomes a variable written by the statement, and a staged branch or loop carries it.
Only a local name as the container is rewritten (``self.w[i] = v`` and globals are left as written).
"""

from __future__ import annotations

import gast

from . import templates
from .statements import BlockTransformer

_AUGMENTED = {
    gast.Add: "+=", gast.Sub: "-=", gast.Mult: "*=", gast.Div: "/=", gast.FloorDiv: "//=", gast.Mod: "%=",
    gast.Pow: "**=", gast.MatMult: "@=", gast.BitAnd: "&=", gast.BitOr: "|=", gast.BitXor: "^=",
    gast.LShift: "<<=", gast.RShift: ">>=",
}


def transform(function: gast.AST, local_names: frozenset[str]) -> gast.AST:
    """``local_names``: the function's parameters and assigned names. A container from outside the
    function (a global, a closure variable) is updated in place as written: rebinding it would make
    it a local."""
    if isinstance(function, gast.FunctionDef):
        _ItemUpdates(local_names).visit(function)
    return function


class _ItemUpdates(BlockTransformer):
    def __init__(self, local_names: frozenset[str]) -> None:
        self.local_names = local_names
        self.depth = 0

    def visit_FunctionDef(self, node: gast.FunctionDef) -> gast.AST:
        if self.depth:  # nested functions were rewritten on their own already
            return node
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        return node

    def visit_Lambda(self, node: gast.AST) -> gast.AST:
        return node

    visit_ClassDef = visit_AsyncFunctionDef = visit_Lambda

    def visit_Assign(self, node: gast.Assign) -> gast.stmt:
        if len(node.targets) != 1 or not self._is_local_item(node.targets[0]):
            return node
        return self._rebind(node.targets[0], node.value, None, node.lineno)

    def visit_AugAssign(self, node: gast.AugAssign) -> gast.stmt:
        if not self._is_local_item(node.target):
            return node
        return self._rebind(node.target, node.value, _AUGMENTED[type(node.op)], node.lineno)

    def _rebind(self, target: gast.Subscript, value: gast.expr, operator: str | None, line: int) -> gast.stmt:
        name = target.value.id
        arguments = [templates.name(name, line), _index_expression(target.slice), value]
        if operator:
            arguments.append(templates.constant(operator, line))
        call = templates.runtime_call("setitem", arguments, line)
        return templates.assign(name, call, line)

    def _is_local_item(self, target: gast.expr) -> bool:
        return (
            isinstance(target, gast.Subscript)
            and isinstance(target.value, gast.Name)
            and target.value.id in self.local_names
        )


def _index_expression(index: gast.expr) -> gast.expr:
    """A subscript's index as an ordinary expression: slices ``a:b`` become ``slice(a, b)``."""
    if isinstance(index, gast.Slice):
        parts = [index.lower, index.upper, index.step]
        line = getattr(index, "lineno", 1) or 1
        arguments = [p if p is not None else templates.constant(None, line) for p in parts]
        return templates.call(templates.name("slice", line), arguments, line)
    if isinstance(index, gast.Tuple):
        index.elts = [_index_expression(e) for e in index.elts]
        index.ctx = gast.Load()
        return index
    return index

"""Reads of names that may still hold the ``Undefined`` stand-in check it: ``z`` -> ``_ag.ld(z)``.

A carried name that no path may have assigned yet is given an ``Undefined`` value before a staged
statement (helpers need a value to pass). Where the user's code reads such a name and Python itself
could find it unbound, the read goes through ``_ag.ld``, which raises the ``UnboundLocalError``
Python would have raised, instead of letting the stand-in flow on. This pass runs before the
statement passes, so only the user's own reads are checked, never the generated plumbing.
"""

from __future__ import annotations

import gast

from ..dispatch import DispatchByClass
from . import nodes
from .facts import ScopeFacts


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    may_hold_stand_in: set[str] = set()
    for statement_info in facts.info.values():
        may_hold_stand_in |= set(statement_info.unbound) | set(statement_info.maybe_unbound)
    checked = may_hold_stand_in - facts.placeholders
    if checked and isinstance(function, gast.FunctionDef):
        rewriter = _CheckedReads(checked)
        function.body = [rewriter.visit(statement) for statement in function.body]
    return facts


class _CheckedReads(DispatchByClass, gast.NodeTransformer):
    def __init__(self, names: set[str]) -> None:
        self.names = names

    def visit_FunctionDef(self, node: gast.AST) -> gast.AST:
        return node  # nested functions read the name when they are called, as cells

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Lambda(self, node: gast.Lambda) -> gast.AST:
        # A lambda without parameters cannot shadow the name: it reads the function's variable (the
        # lazy operands of `and` / `or` / ternaries are such lambdas).
        arguments = node.args
        if arguments.args or arguments.posonlyargs or arguments.kwonlyargs or arguments.vararg or arguments.kwarg:
            return node
        self.generic_visit(node)
        return node

    def visit_Delete(self, node: gast.Delete) -> gast.Delete | list[gast.stmt]:
        """``del z`` of a name that may hold the stand-in: Python raises if ``z`` is unbound, and deleting
        the stand-in would not, so the name is checked first (``_ag.ld(z)`` as a statement)."""
        self.generic_visit(node)
        line = node.lineno
        checks = [
            nodes.expression_statement(nodes.runtime_call("ld", [nodes.name(target.id, line)], line), line)
            for target in node.targets
            if isinstance(target, gast.Name) and target.id in self.names
        ]
        return [*checks, node] if checks else node

    def visit_Name(self, node: gast.Name) -> gast.expr:
        if isinstance(node.ctx, gast.Load) and node.id in self.names:
            return nodes.runtime_call("ld", [node], node.lineno)
        return node

"""What the statement passes (conditionals, loops) share: a post-order walk that stays in the user's
function, unique helper names, and the lines that bind carried names before a staged statement.
"""

from __future__ import annotations

import gast

from ..analysis import StatementInfo
from . import templates


class StatementPass(gast.NodeTransformer):
    """Rewrites statements post-order (inner statements first) inside one function's own scope.

    Generated helpers (named ``_ag_...``) are entered, since they hold the user's statements; the
    user's own nested functions are not: they are converted on their own when they are called.
    """

    def __init__(self, info: dict[gast.AST, StatementInfo]):
        self.info = info
        self.used_names: set[str] = set()

    def run(self, function: gast.AST) -> gast.AST:
        if isinstance(function, gast.FunctionDef):
            function.body = self._visit_block(function.body)
        return function

    def _visit_block(self, statements: list[gast.stmt]) -> list[gast.stmt]:
        result: list[gast.stmt] = []
        for statement in statements:
            new = self.visit(statement)
            result.extend(new if isinstance(new, list) else [new])
        return result

    def visit_FunctionDef(self, node: gast.FunctionDef) -> gast.AST:
        if node.name.startswith(templates.PREFIX):
            node.body = self._visit_block(node.body)
        return node

    def visit_Lambda(self, node: gast.Lambda) -> gast.AST:
        return node

    visit_ClassDef = visit_AsyncFunctionDef = visit_Lambda

    def unique(self, what: str, node: gast.AST) -> str:
        name = templates.helper_name(what, node)
        candidate, suffix = name, 2
        while candidate in self.used_names:
            candidate, suffix = f"{name}_{suffix}", suffix + 1
        self.used_names.add(candidate)
        return candidate


def bind_before(info: StatementInfo, names: tuple[str, ...], line: int) -> list[gast.stmt]:
    """Statements that give each of ``names`` a value if some path may have left it unbound."""
    lines = []
    for name in names:
        if name in info.unbound:
            lines.append(f"{name} = {templates.RUNTIME}.Undefined({name!r})")
        elif name in info.maybe_unbound:
            lines.append(f"{name} = {templates.RUNTIME}.maybe_undefined(locals(), {name!r})")
    return templates.statements("\n".join(lines), line) if lines else []


def assign_results(names: tuple[str, ...]) -> str:
    """The left side that receives a staged statement's carried names, or nothing if there are none."""
    return f"{templates.name_tuple(names)} = " if names else ""

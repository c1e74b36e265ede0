"""What the statement passes (conditionals, loops) share: a post-order walk that stays in the user's
function, unique helper names, and the lines that bind carried names before a staged statement.
"""

from __future__ import annotations

import gast

from ..analysis import StatementInfo
from ..analysis.blocks import blocks_of, child_statements, statements_within
from ..dispatch import DispatchByClass
from ..errors import UnsupportedSyntaxError
from ..generated_names import PREFIX
from . import nodes
from .facts import ScopeFacts


class BlockTransformer(DispatchByClass, gast.NodeTransformer):
    """A transformer of statements only: it enters a compound statement's blocks, never an
    expression, which is most of a tree. A ``visit_X`` may return a list of statements."""

    def generic_visit(self, node: gast.AST) -> gast.AST:
        for block in blocks_of(node):
            block[:] = self._visit_block(block)
        return node

    def _visit_block(self, statements: list[gast.stmt]) -> list[gast.stmt]:
        result: list[gast.stmt] = []
        for statement in statements:
            new = self.visit(statement)
            result.extend(new if isinstance(new, list) else [new])
        return result


class StatementPass(BlockTransformer):
    """Rewrites statements post-order (inner statements first) inside one function's own scope.

    Generated helpers (named ``_ag_...``) are entered, since they hold the user's statements; the
    user's own nested functions are not: they are converted on their own when they are called.
    """

    def __init__(self, facts: ScopeFacts) -> None:
        self.facts = facts
        self.info = facts.info
        self.placeholders = facts.placeholders
        self.cells = facts.cells
        self.used_names: set[str] = set()

    def run(self, function: gast.FunctionDef) -> None:
        function.body = self._visit_block(function.body)

    def visit_FunctionDef(self, node: gast.FunctionDef) -> gast.AST:
        if node.name.startswith(PREFIX):
            node.body = self._visit_block(node.body)
        return node

    def visit_Lambda(self, node: gast.Lambda) -> gast.AST:
        return node

    visit_ClassDef = visit_AsyncFunctionDef = visit_Lambda

    def ensure_no_exits(self, statements: list[gast.stmt]) -> None:
        """A ``return`` / ``break`` / ``continue`` must never reach a helper: there it would leave the
        helper instead of the user's function or loop. The early-exit pass removes them all; one that
        is left is a construct that pass does not handle, and it is reported here, never run."""
        for node in statements_within(statements):
            if isinstance(node, (gast.Return, gast.Break, gast.Continue)):
                raise UnsupportedSyntaxError(
                    f"this `{type(node).__name__.lower()}` sits where it cannot be converted",
                    self.facts.locate(node),
                    "Restructure the code so that the exit is directly inside `if` / `for` / `while` "
                    "statements (not inside `with` or `try`).",
                )

    def unique(self, what: str, node: gast.AST) -> str:
        name = nodes.helper_name(what, node)
        candidate, suffix = name, 2
        while candidate in self.used_names:
            candidate, suffix = f"{name}_{suffix}", suffix + 1
        self.used_names.add(candidate)
        return candidate


def bind_before(info: StatementInfo, names: tuple[str, ...], line: int, placeholders: frozenset[str]) -> list[gast.stmt]:
    """Statements that give each of ``names`` a value if some path may have left it unbound."""
    statements = []
    for name in names:
        option = [nodes.keyword("placeholder", nodes.constant(True, line))] if name in placeholders else []
        if name in info.unbound:
            call = nodes.runtime_call("Undefined", [nodes.constant(name, line)], line, option)
        elif name in info.maybe_unbound:
            local_names = nodes.call(nodes.name("locals", line), [], line)
            call = nodes.runtime_call("maybe_undefined", [local_names, nodes.constant(name, line)], line, option)
        else:
            continue
        statements.append(nodes.assign(name, call, line))
    return statements


def drop_redundant_binds(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    """Remove ``x = _ag.maybe_undefined(locals(), 'x')`` where ``x`` is a parameter of the helper holding it.

    The binding analysis runs on the user's function, before loop bodies become helpers; inside a
    helper, a carried name is a parameter and always bound.
    """
    if not isinstance(function, gast.FunctionDef):
        return facts  # a lambda holds no statement
    pending = list(child_statements(function))
    while pending:
        node = pending.pop()
        if isinstance(node, gast.FunctionDef) and node.name.startswith(PREFIX):
            parameters = nodes.helper_parameters(node)
            node.body = [s for s in node.body if not _binds_maybe_undefined(s, parameters)]
        pending.extend(child_statements(node))  # helpers are statements, nested in blocks and helpers
    return facts


def _binds_maybe_undefined(statement: gast.stmt, parameters: set[str]) -> bool:
    if not (isinstance(statement, gast.Assign) and isinstance(statement.value, gast.Call)):
        return False
    function = statement.value.func
    return (
        isinstance(function, gast.Attribute)
        and function.attr == "maybe_undefined"
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], gast.Name)
        and statement.targets[0].id in parameters
    )

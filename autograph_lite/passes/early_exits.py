"""Early ``return`` inside ``if`` branches, rewritten so that every path ends in one assignment.

A staged branch is a function that returns its carried names, so a ``return`` of the user's cannot
stay inside it. The code after an ``if`` whose one branch always returns belongs to the other branch
(Python runs it only there), so it is moved there: no flag, no extra ``lax.cond``. A final ``return``
statement is copied into branches that fall through, which is exact because only one copy runs. Then
every return sits at the end of a path and becomes an assignment to ``_ag_retval``, returned once at
the end of the function.
"""

from __future__ import annotations

import copy
from typing import Callable

import gast

from ..errors import Location, UnsupportedSyntaxError
from . import templates

RETVAL = templates.PREFIX + "retval"
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def transform(function: gast.AST, locate: Callable[[gast.AST], Location]) -> gast.AST:
    if isinstance(function, gast.Lambda):
        return function
    _reject_loop_exits(function.body, locate)
    if not any(_contains_return(s) for s in function.body if isinstance(s, gast.If)):
        return function
    body = list(function.body)
    if not _always_returns(body):
        body.append(templates.statements("return None", _last_line(body))[0])
    body = _lift(body, locate)
    function.body = _assign_returns(body)
    function.body.append(templates.statements(f"return {RETVAL}", _last_line(body))[0])
    return function


def _lift(statements: list[gast.stmt], locate) -> list[gast.stmt]:
    """Move the statements after a returning ``if`` into the branches that fall through."""
    result: list[gast.stmt] = []
    for index, statement in enumerate(statements):
        result.append(statement)
        if isinstance(statement, gast.Return):
            return result  # anything after it is unreachable
        if not (isinstance(statement, gast.If) and _contains_return(statement)):
            continue
        rest = statements[index + 1:]
        body_returns, orelse_returns = _always_returns(statement.body), _always_returns(statement.orelse)
        if rest and not body_returns and not orelse_returns:
            if not (len(rest) == 1 and isinstance(rest[0], gast.Return)):
                raise UnsupportedSyntaxError(
                    "code after this `if` runs only on the paths where it did not return, and those "
                    "paths are not all in one branch; this form needs the early-exit rewrite, not "
                    "supported yet",
                    locate(statement),
                    "Put the rest of the function into an `else:` of the `if` that returns.",
                )
            statement.body = statement.body + [copy.deepcopy(rest[0])]
            statement.orelse = statement.orelse + [copy.deepcopy(rest[0])]
        elif rest and body_returns and not orelse_returns:
            statement.orelse = statement.orelse + rest
        elif rest and orelse_returns and not body_returns:
            statement.body = statement.body + rest
        statement.body = _lift(statement.body, locate)
        statement.orelse = _lift(statement.orelse, locate)
        return result
    return result


def _assign_returns(statements: list[gast.stmt]) -> list[gast.stmt]:
    """Replace the return that ends each path with ``_ag_retval = value``."""
    if not statements:
        return statements
    last = statements[-1]
    if isinstance(last, gast.Return):
        value = last.value or gast.Constant(value=None, kind=None)
        assignment = templates.statements(f"{RETVAL} = __value__", last.lineno, __value__=value)
        return statements[:-1] + assignment
    if isinstance(last, gast.If):
        last.body = _assign_returns(last.body)
        last.orelse = _assign_returns(last.orelse)
    return statements


def _always_returns(statements: list[gast.stmt]) -> bool:
    for statement in statements:
        if isinstance(statement, (gast.Return, gast.Raise)):
            return True
        if isinstance(statement, gast.If) and _always_returns(statement.body) and _always_returns(statement.orelse):
            return True
    return False


def _contains_return(node: gast.AST) -> bool:
    return any(isinstance(n, gast.Return) for n in _walk_scope(node))


def _walk_scope(node: gast.AST):
    pending = [node]
    while pending:
        current = pending.pop()
        yield current
        pending.extend(c for c in gast.iter_child_nodes(current) if not isinstance(c, _SCOPES))


def _reject_loop_exits(statements: list[gast.stmt], locate) -> None:
    for statement in statements:
        for node in _walk_scope(statement):
            if isinstance(node, (gast.Break, gast.Continue)) or (
                isinstance(node, gast.Return) and _inside_loop(statement, node)
            ):
                keyword = {gast.Break: "break", gast.Continue: "continue"}.get(type(node), "return")
                raise UnsupportedSyntaxError(
                    f"`{keyword}` inside a loop cannot be converted yet",
                    locate(node),
                    "Use a flag in the loop condition (`while i < n and not done:`) instead.",
                )


def _inside_loop(root: gast.AST, target: gast.AST) -> bool:
    """Whether ``target`` lies in the body of a loop within ``root``."""
    for node in _walk_scope(root):
        if isinstance(node, (gast.While, gast.For)):
            if any(inner is target for inner in _walk_scope(node)):
                return True
    return False


def _last_line(statements: list[gast.stmt]) -> int:
    return getattr(statements[-1], "end_lineno", None) or statements[-1].lineno

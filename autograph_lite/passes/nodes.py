"""Building generated code: node builders for what the passes generate.

Nodes are built directly, not parsed from source templates: parsing a template cost more than the
rest of a statement's rewrite. Every generated node gets the line of the user statement it stands
for (scaffolding points at the statement's header); user subtrees are put in afterwards and keep
their own lines. Every node made here has a complete position, so the compiler needs no
``fix_missing_locations`` walk over the whole tree.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import TypeVar

import gast

from ..generated_names import PREFIX, RUNTIME


def helper_name(what: str, node: gast.AST) -> str:
    """A deterministic name that says what a helper is and where it comes from: ``_ag_if_true_L12``."""
    return f"{PREFIX}{what}_L{node.lineno}"


# A context holds nothing and is never changed in place: one of each serves every node made here,
# as ``ast.parse`` shares its own.
_LOAD, _STORE = gast.Load(), gast.Store()
_Node = TypeVar("_Node", bound=ast.AST)  # gast's node classes derive from ast's


def name(identifier: str, line: int, store: bool = False) -> gast.Name:
    return _made(gast.Name, {"id": identifier, "ctx": _STORE if store else _LOAD, "annotation": None,
                             "type_comment": None}, line)


def dotted_read(path: tuple[str, ...], line: int) -> gast.expr:
    """The name chain ``path`` (``("self", "state")``) as an expression that reads it: ``self.state``."""
    expression: gast.expr = name(path[0], line)
    for attribute in path[1:]:
        expression = _made(gast.Attribute, {"value": expression, "attr": attribute, "ctx": _LOAD}, line)
    return expression


def constant(value: object, line: int) -> gast.Constant:
    return _made(gast.Constant, {"value": value, "kind": None}, line)


def tuple_of(elements: list[gast.expr], line: int, store: bool = False) -> gast.Tuple:
    return _made(gast.Tuple, {"elts": elements, "ctx": _STORE if store else _LOAD}, line)


def names(identifiers: Iterable[str], line: int, store: bool = False) -> gast.Tuple:
    return tuple_of([name(i, line, store) for i in identifiers], line, store)


def strings(values: Iterable[str], line: int) -> gast.Tuple:
    return tuple_of([constant(v, line) for v in values], line)


def call(function: gast.expr, arguments: list[gast.expr], line: int, keywords: list | None = None) -> gast.Call:
    return _made(gast.Call, {"func": function, "args": arguments, "keywords": keywords or []}, line)


def runtime_operator(function: gast.expr) -> str | None:
    """The operator a call of ``function`` reaches when it is ``_ag.<operator>`` (generated code); else ``None``."""
    if isinstance(function, gast.Attribute) and isinstance(function.value, gast.Name) and function.value.id == RUNTIME:
        return function.attr
    return None


def users_call(call: gast.Call) -> tuple[gast.expr, list[gast.expr]]:
    """The user's callee and arguments of ``call``, which the calls pass may have routed through the
    runtime (``_ag.call(f, x)``, or ``_ag.call_for_effect('f', f, x)`` as a statement)."""
    operator = runtime_operator(call.func)
    if operator == "call" and call.args:
        return call.args[0], call.args[1:]
    if operator == "call_for_effect" and len(call.args) > 1:
        return call.args[1], call.args[2:]
    return call.func, call.args


def runtime_call(operator: str, arguments: list[gast.expr], line: int, keywords: list | None = None) -> gast.Call:
    """``_ag.<operator>(*arguments, **keywords)``."""
    function = _made(gast.Attribute, {"value": name(RUNTIME, line), "attr": operator, "ctx": _LOAD}, line)
    return call(function, arguments, line, keywords)


def keyword(argument: str, value: gast.expr) -> gast.keyword:
    return _at(gast.keyword(argument, value), value.lineno)


def assign_constant(identifier: str, value: object, line: int) -> list[gast.stmt]:
    """``identifier = value`` (flags: ``_ag_break_L7 = True``), as a one-statement list."""
    return [assign(identifier, constant(value, line), line)]


def assign(target: str | gast.expr, value: gast.expr, line: int) -> gast.Assign:
    """``target = value``; a string target is a name."""
    if isinstance(target, str):
        target = name(target, line, store=True)
    return _made(gast.Assign, {"targets": [target], "value": value, "type_comment": None}, line)


def expression_statement(value: gast.expr, line: int) -> gast.Expr:
    """``value`` evaluated for its effect (a check that raises)."""
    return _at(gast.Expr(value=value), line)


def return_statement(value: gast.expr | None, line: int) -> gast.Return:
    return _at(gast.Return(value=value), line)


def if_statement(test: gast.expr, body: list[gast.stmt], line: int) -> gast.If:
    return _at(gast.If(test=test, body=body, orelse=[]), line)


def none_of(flags: list[str], line: int) -> gast.expr:
    """``not (a or b ...)``: true while none of the flags is set."""
    if len(flags) == 1:
        inner = name(flags[0], line)
    else:
        inner = _at(gast.BoolOp(op=gast.Or(), values=[name(f, line) for f in flags]), line)
    return _at(gast.UnaryOp(op=gast.Not(), operand=inner), line)


def both(left: gast.expr, right: gast.expr, line: int) -> gast.BoolOp:
    """``left and right``."""
    return _at(gast.BoolOp(op=gast.And(), values=[left, right]), line)


def truth(value: gast.expr, line: int) -> gast.UnaryOp:
    """``not not value``: the truth of ``value``, which is all that a ``while`` or ``if`` takes of its test
    (``_ag.truth(value)`` once the logical-expression pass has rewritten it). Joined to a flag by ``and``,
    the truth is what may be chosen at run time, never the value: a list's or an array's value could
    not be (its shape is not the flag's)."""
    negated = _at(gast.UnaryOp(op=gast.Not(), operand=value), line)
    return _at(gast.UnaryOp(op=gast.Not(), operand=negated), line)


def pass_statement(line: int) -> gast.Pass:
    return _at(gast.Pass(), line)


def helper(
    function_name: str,
    parameters: Iterable[str],
    body: list[gast.stmt],
    result: gast.expr,
    line: int,
    cells: frozenset[str] = frozenset(),
) -> gast.FunctionDef:
    """``def function_name(*parameters): body; return result``.

    A parameter that is a cell variable of the user's function (``cells``: a closure reads it)
    must not shadow the cell: it arrives as ``_ag_cell_<name>`` and is stored into the cell, which
    the helper declares ``nonlocal``, so closures see every assignment the body makes.
    """
    parameters = tuple(parameters)
    in_cells = [p for p in parameters if p in cells]
    arguments = gast.arguments(
        args=[_at(gast.Name(id=cell_parameter(p) if p in cells else p, ctx=gast.Param(), annotation=None,
                            type_comment=None), line) for p in parameters],
        posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[],
    )
    prelude = [_at(gast.Nonlocal(names=in_cells), line)] if in_cells else []
    prelude += [assign(p, name(cell_parameter(p), line), line) for p in in_cells]
    returned = return_statement(result, line)
    return _at(
        gast.FunctionDef(name=function_name, args=arguments, body=prelude + body + [returned], decorator_list=[],
                         returns=None, type_comment=None, type_params=[]),
        line,
    )


def cell_parameter(identifier: str) -> str:
    """The parameter through which a helper receives the value of the cell variable ``identifier``."""
    return f"{PREFIX}cell_{identifier}"


def helper_parameters(function: gast.FunctionDef) -> set[str]:
    """The names a helper binds on entry: its parameters, cell variables by their own names."""
    prefix = cell_parameter("")
    return {a.id[len(prefix):] if a.id.startswith(prefix) else a.id for a in function.args.args}


def assign_results(targets: tuple[str, ...], value: gast.expr, line: int) -> gast.stmt:
    """``(a, b) = value``, or the bare expression statement when nothing is assigned."""
    if not targets:
        return _at(gast.Expr(value=value), line)
    return assign(names(targets, line, store=True), value, line)


def lazy(expression: gast.expr) -> gast.Lambda:
    """``lambda: expression``."""
    arguments = gast.arguments(args=[], posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return _at(gast.Lambda(args=arguments, body=expression), expression.lineno)


def _made(kind: type[_Node], fields: dict[str, object], line: int) -> _Node:
    """A node of ``kind`` with ``fields`` (all of them), at ``line``: its instance dict set at once,
    which costs half of gast's constructor and four ``setattr``. Most generated nodes are made so."""
    node = kind.__new__(kind)
    fields["lineno"] = fields["end_lineno"] = line
    fields["col_offset"] = fields["end_col_offset"] = 0
    node.__dict__ = fields
    return node


def _at(node: gast.AST, line: int) -> gast.AST:
    node.lineno = node.end_lineno = line
    node.col_offset = node.end_col_offset = 0
    return node

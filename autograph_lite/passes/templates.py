"""Building generated code: small source templates, and direct node builders for the hot paths.

Templates are parsed with gast, so they read like the code they make; the builders below make the
nodes that every statement needs (helper functions, runtime calls, lazy lambdas) without parsing,
because parsing a template costs more than all the rest of a statement's rewrite. Every generated
node gets the line of the user statement it stands for (scaffolding points at the statement's
header); user subtrees are put in afterwards and keep their own lines. Every node made here has a
complete position, so the compiler needs no ``fix_missing_locations`` walk over the whole tree.
"""

from __future__ import annotations

import textwrap
from typing import Iterable

import gast

from ..generated_names import PREFIX, RUNTIME


def helper_name(what: str, node: gast.AST) -> str:
    """A deterministic name that says what a helper is and where it comes from: ``_ag_if_true_L12``."""
    return f"{PREFIX}{what}_L{node.lineno}"


def statements(template: str, line: int, **replacements: gast.AST | list[gast.stmt]) -> list[gast.stmt]:
    """Parse ``template`` into statements located at ``line``, then substitute placeholders.

    A placeholder is a bare name in the template (``__test__``); it is replaced by an expression node,
    or, when it stands alone as a statement, by a list of statements.
    """
    body = gast.parse(textwrap.dedent(template)).body
    for node in body:
        locate(node, line)
    return _substitute(body, replacements)


def expression(template: str, line: int, **replacements: gast.AST) -> gast.expr:
    (statement,) = statements(template, line, **replacements)
    return statement.value


def name(identifier: str, line: int, store: bool = False) -> gast.Name:
    return _at(gast.Name(id=identifier, ctx=gast.Store() if store else gast.Load(), annotation=None, type_comment=None), line)


def constant(value: object, line: int) -> gast.Constant:
    return _at(gast.Constant(value=value, kind=None), line)


def tuple_of(elements: list[gast.expr], line: int, store: bool = False) -> gast.Tuple:
    return _at(gast.Tuple(elts=elements, ctx=gast.Store() if store else gast.Load()), line)


def names(identifiers: Iterable[str], line: int, store: bool = False) -> gast.Tuple:
    return tuple_of([name(i, line, store) for i in identifiers], line, store)


def strings(values: Iterable[str], line: int) -> gast.Tuple:
    return tuple_of([constant(v, line) for v in values], line)


def call(function: gast.expr, arguments: list[gast.expr], line: int, keywords: list | None = None) -> gast.Call:
    return _at(gast.Call(func=function, args=arguments, keywords=keywords or []), line)


def runtime_call(operator: str, arguments: list[gast.expr], line: int, keywords: list | None = None) -> gast.Call:
    """``_ag.<operator>(*arguments, **keywords)``."""
    function = _at(gast.Attribute(value=name(RUNTIME, line), attr=operator, ctx=gast.Load()), line)
    return call(function, arguments, line, keywords)


def keyword(argument: str, value: gast.expr) -> gast.keyword:
    return _at(gast.keyword(arg=argument, value=value), value.lineno)


def assign_constant(identifier: str, value: object, line: int) -> list[gast.stmt]:
    """``identifier = value`` (flags: ``_ag_break_L7 = True``), as a one-statement list."""
    return [_at(gast.Assign(targets=[name(identifier, line, store=True)], value=constant(value, line), type_comment=None), line)]


def pass_statement(line: int) -> gast.Pass:
    return _at(gast.Pass(), line)


def helper(function_name: str, parameters: Iterable[str], body: list[gast.stmt], result: gast.expr, line: int) -> gast.FunctionDef:
    """``def function_name(*parameters): body; return result``."""
    arguments = gast.arguments(
        args=[_at(gast.Name(id=p, ctx=gast.Param(), annotation=None, type_comment=None), line) for p in parameters],
        posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[],
    )
    returned = _at(gast.Return(value=result), line)
    return _at(
        gast.FunctionDef(name=function_name, args=arguments, body=body + [returned], decorator_list=[],
                         returns=None, type_comment=None, type_params=[]),
        line,
    )


def assign_results(targets: tuple[str, ...], value: gast.expr, line: int, unpack: bool = True) -> gast.stmt:
    """``(a, b) = value``, or the bare expression statement when nothing is assigned; with
    ``unpack=False`` and one target, ``a = value``."""
    if not targets:
        return _at(gast.Expr(value=value), line)
    if not unpack and len(targets) == 1:
        target = name(targets[0], line, store=True)
    else:
        target = names(targets, line, store=True)
    return _at(gast.Assign(targets=[target], value=value, type_comment=None), line)


def lazy(expression: gast.expr) -> gast.Lambda:
    """``lambda: expression``."""
    arguments = gast.arguments(args=[], posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return _at(gast.Lambda(args=arguments, body=expression), expression.lineno)


def _at(node: gast.AST, line: int) -> gast.AST:
    node.lineno = node.end_lineno = line
    node.col_offset = node.end_col_offset = 0
    return node


def locate(tree: gast.AST, line: int) -> gast.AST:
    """Give every node of ``tree`` the position of ``line`` (column 0)."""
    for node in gast.walk(tree):
        if "lineno" in node._attributes:
            node.lineno = node.end_lineno = line
            node.col_offset = node.end_col_offset = 0
    return tree


def _substitute(body: list[gast.stmt], replacements: dict) -> list[gast.stmt]:
    wrapper = gast.Module(body=body, type_ignores=[])
    # Collect the template's own nodes first: user subtrees put in below are not searched.
    for node in list(gast.walk(wrapper)):
        for field, value in gast.iter_fields(node):
            if isinstance(value, list):
                setattr(node, field, _expand(value, replacements))
            elif isinstance(value, gast.Name) and value.id in replacements:
                setattr(node, field, replacements[value.id])
    return wrapper.body


def _expand(values: list, replacements: dict) -> list:
    expanded = []
    for value in values:
        if isinstance(value, gast.Expr) and isinstance(value.value, gast.Name) and value.value.id in replacements:
            replacement = replacements[value.value.id]
            expanded.extend(replacement if isinstance(replacement, list) else [replacement])
        elif isinstance(value, gast.Name) and value.id in replacements:
            expanded.append(replacements[value.id])
        else:
            expanded.append(value)
    return expanded

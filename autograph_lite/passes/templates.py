"""Building generated code from small source templates.

Templates are parsed with gast, so the node classes always fit the running gast and Python. Every
node of a template gets the line of the user statement it stands for (scaffolding points at the
statement's header), and user subtrees are put in afterwards, so they keep their own lines.
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


def locate(tree: gast.AST, line: int) -> gast.AST:
    """Give every node of ``tree`` the position of ``line`` (column 0)."""
    for node in gast.walk(tree):
        if "lineno" in node._attributes:
            node.lineno = node.end_lineno = line
            node.col_offset = node.end_col_offset = 0
    return tree


def name_tuple(names: Iterable[str]) -> str:
    """Source text of a tuple of names: ``(a, b)``, ``(a,)`` or ``()``."""
    names = list(names)
    if not names:
        return "()"
    return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"


def string_tuple(names: Iterable[str]) -> str:
    names = list(names)
    return "(" + ", ".join(repr(n) for n in names) + ("," if len(names) == 1 else "") + ")"


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

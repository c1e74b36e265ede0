"""Python's ``ast`` to gast and back, giving what gast's own translators give, built more directly.

Every converted function crosses both translations (``source`` parses into gast, ``codegen`` compiles
from ``ast``), and gast's translators were a third of conversion's time: for each node a visitor
dispatch, a dict comprehension of ``hasattr`` / ``getattr`` per field, a keyword constructor and a
``setattr`` per position attribute. Here:

- ``to_gast`` takes the tree ``ast.parse`` has just made, which nothing else holds, and ``into_python``
  the rewritten tree, which nothing reads after it is compiled: they reuse its nodes and lists. A node of a
  class that gast translates generically (most of them) becomes its counterpart by a change of
  class, its fields and positions staying in its own instance dict; ``to_python`` (for ``to_source``,
  whose tree may be read again) copies each node instead, its dict in one update.
- The field-less nodes (contexts, operators) are never changed: CPython's parser shares one instance
  of each among all its trees. One instance of each counterpart serves every tree here (gast makes a
  new one per node), as the passes' one ``Load`` serves all the nodes they make.
- ``Name`` and ``arg`` (to gast) and ``Name`` and ``Assign`` (to ``ast``), met on almost every line,
  have hand-written versions of gast's methods, and so have ``FunctionDef`` (both ways) and
  ``arguments`` (to ``ast``), met in every function and every helper the rewrite makes; any other class
  gast has a method for (``ExceptHandler``, ``Call`` on old versions, ...) goes through that method,
  whose children come back here.

tests/test_fast_equivalents.py checks, node for node and field for field, that the result is gast's.
"""

from __future__ import annotations

import ast
import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import gast
from gast.ast3 import Ast3ToGAst, GAstToAst3

Translate = Callable[[Any], Any]
NodeClass = type[ast.AST]
_Node = TypeVar("_Node", bound=ast.AST)

_POSITIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


class _Classes:
    """How each node class of ``source`` translates: generically, to the class of the same name in
    ``target`` (``counterparts``; ``fields``: its ``_fields``), or by a function of its own
    (``special``: one of ``own``, given ``translate`` and the node, or else a method gast's translator
    has for it), or by gast's ``generic_visit`` (a class with no counterpart: gast gives ``None``)."""

    def __init__(self, translate: Translate, source: Any, target: Any, gasts_translator: type,
                 own: dict[str, Callable[..., Any]]):
        self.counterparts: dict[NodeClass, NodeClass] = {}
        self.fields: dict[NodeClass, tuple[str, ...]] = {}
        self.special: dict[NodeClass, Translate] = {}
        fallback = gasts_translator()
        fallback.visit = translate  # gast's methods reach the children through ``self.visit``
        self.otherwise: Translate = fallback.generic_visit
        for node_class in vars(source).values():
            if not (isinstance(node_class, type) and issubclass(node_class, ast.AST)):
                continue
            name = node_class.__name__
            counterpart = getattr(target, name, None)
            if name in own:
                self.special[node_class] = functools.partial(own[name], translate)
            elif _defines(gasts_translator, "visit_" + name):
                self.special[node_class] = getattr(fallback, "visit_" + name)
            elif isinstance(counterpart, type):
                self.counterparts[node_class] = counterpart
                self.fields[node_class] = tuple(node_class._fields)


def _in_place_translation(source: Any, target: Any, gasts_translator: type, own: dict[str, Callable[..., Any]]) -> Translate:
    """The translation of a tree that nothing else holds, reusing its nodes (see the module)."""

    def translate(node: Any) -> Any:
        node_class = type(node)
        counterpart = counterparts.get(node_class)
        if counterpart is None:
            return classes.special.get(node_class, classes.otherwise)(node)
        if node_class in shared:
            return shared[node_class]
        if node_class is not counterpart:  # else translated already: the tree holds it at two places
            node.__class__ = counterpart
            values = node.__dict__
            for field in fields[node_class]:
                value = values.get(field)
                if isinstance(value, ast.AST):
                    values[field] = translate(value)
                elif isinstance(value, list):  # translated where it is, as its nodes are: no call per list
                    for index, item in enumerate(value):
                        if isinstance(item, ast.AST):
                            value[index] = translate(item)
                        elif isinstance(item, list):
                            value[index] = _translated_list(translate, item)
        return node

    classes = _Classes(translate, source, target, gasts_translator, own)
    counterparts, fields = classes.counterparts, classes.fields
    # The classes without fields or positions: contexts and operators. CPython's parser makes one
    # instance of each for all its trees, which must never change class; one instance of each
    # counterpart serves every tree here, as the passes' one instance of each context serves all of
    # theirs (nothing changes such a node in place: it has nothing to change).
    shared = {c: counterparts[c]() for c in counterparts if not c._fields and not c._attributes}
    for node_class in vars(target).values():
        if isinstance(node_class, type) and issubclass(node_class, ast.AST):
            counterparts.setdefault(node_class, node_class)
    return translate


def _copying_translation(own: dict[str, Callable[..., Any]]) -> Translate:
    """The translation of a gast tree into new ``ast`` nodes, leaving it as it is."""

    def translate(node: Any) -> Any:
        node_class = type(node)
        counterpart = counterparts.get(node_class)
        if counterpart is None:
            return classes.special.get(node_class, classes.otherwise)(node)
        made = counterpart.__new__(counterpart)
        values = made.__dict__
        values.update(node.__dict__)  # its fields and positions: a gast node holds nothing else
        for field in fields[node_class]:
            value = values.get(field)
            if isinstance(value, ast.AST):
                values[field] = translate(value)
            elif isinstance(value, list):
                values[field] = _translated_list(translate, value)
        return made

    classes = _Classes(translate, gast, ast, GAstToAst3, own)
    counterparts, fields = classes.counterparts, classes.fields
    return translate


def _translated_list(translate: Translate, values: list) -> list:
    """gast's ``_visit`` of a list: nodes translated, nested lists too, anything else as it is."""
    return [
        translate(value) if isinstance(value, ast.AST)
        else _translated_list(translate, value) if isinstance(value, list) else value
        for value in values
    ]


def _translated(translate: Translate, value: Any) -> Any:
    """gast's ``_visit`` of any value."""
    if isinstance(value, ast.AST):
        return translate(value)
    if isinstance(value, list):
        return _translated_list(translate, value)
    return value


def _defines(translator: type, method_name: str) -> bool:
    """Whether gast's translator (not ``ast.NodeVisitor``, whose ``visit_Constant`` only leads to
    ``generic_visit`` for a translator without ``visit_Num`` and the like) has this method."""
    return any(method_name in vars(base) for base in translator.__mro__ if base.__module__.startswith("gast"))


def _copy_location(values: dict, node: Any) -> None:
    """``ast.copy_location`` into a node whose instance dict is ``values`` and whose class, like
    ``node``'s, has the four position attributes."""
    for attribute in _POSITIONS:
        value = getattr(node, attribute, None)
        if value is not None or (attribute.startswith("end_") and hasattr(node, attribute)):
            values[attribute] = value


def _made(node_class: type[_Node], **values: Any) -> _Node:
    made = node_class.__new__(node_class)
    made.__dict__.update(values)
    return made


def _name_to_python(translate: Translate, node: gast.Name) -> ast.Name:
    """``GAstToAst3.visit_Name``."""
    made = _made(ast.Name, id=_translated(translate, node.id), ctx=_translated(translate, node.ctx))
    _copy_location(made.__dict__, node)
    return made


def _assign_to_python(translate: Translate, node: gast.Assign) -> ast.Assign:
    """``GAstToAst3.visit_Assign``: no ``type_comment``."""
    made = _made(ast.Assign, targets=_translated(translate, node.targets), value=_translated(translate, node.value))
    _copy_location(made.__dict__, node)
    return made


def _name_into_gast(translate: Translate, node: ast.Name) -> gast.Name:
    """``Ast3ToGAst.visit_Name``, the parsed node reused (its positions are all set)."""
    node.__class__ = gast.Name
    values = node.__dict__
    values["ctx"] = translate(values["ctx"])
    values["annotation"] = values["type_comment"] = None
    return node


def _arg_into_gast(translate: Translate, node: ast.arg) -> gast.Name:
    """``Ast3ToGAst.visit_arg``, the parsed node reused: a parameter is a ``Name`` in the ``Param`` context."""
    node.__class__ = gast.Name
    values = node.__dict__
    values["id"] = values.pop("arg")
    values["ctx"] = gast.Param()
    values["annotation"] = _translated(translate, values.get("annotation"))
    values["type_comment"] = _translated(translate, values.get("type_comment"))
    return node


def _name_into_python(translate: Translate, node: gast.Name) -> ast.Name:
    """``GAstToAst3.visit_Name``, the node reused: no ``annotation`` or ``type_comment``."""
    node.__class__ = ast.Name
    values = node.__dict__
    values.pop("annotation", None)
    values.pop("type_comment", None)
    values["ctx"] = translate(values["ctx"])
    _keep_copied_location(values)
    return node


def _assign_into_python(translate: Translate, node: gast.Assign) -> ast.Assign:
    """``GAstToAst3.visit_Assign``, the node reused: no ``type_comment``."""
    node.__class__ = ast.Assign
    values = node.__dict__
    values.pop("type_comment", None)
    targets = values["targets"]
    for index, target in enumerate(targets):  # in place, as the generic translation does a list
        targets[index] = _translated(translate, target)
    values["value"] = _translated(translate, values["value"])
    _keep_copied_location(values)
    return node


def _function_into_gast(translate: Translate, node: ast.FunctionDef) -> gast.FunctionDef:
    """``Ast3ToGAst.visit_FunctionDef`` (Python 3.8 to 3.11), the parsed node reused: no type parameters
    in ``ast`` before 3.12, an empty list of them in gast."""
    node.__class__ = gast.FunctionDef
    values = node.__dict__
    values["args"] = translate(values["args"])
    values["body"] = _translated_list(translate, values["body"])
    values["decorator_list"] = _translated_list(translate, values["decorator_list"])
    values["returns"] = _translated(translate, values["returns"])
    values["type_comment"] = _translated(translate, values["type_comment"])
    values["type_params"] = []
    return node


def _function_into_python(translate: Translate, node: gast.FunctionDef) -> ast.FunctionDef:
    """``GAstToAst3.visit_FunctionDef`` (Python 3.8 to 3.11), the node reused: its type parameters dropped."""
    node.__class__ = ast.FunctionDef
    values = node.__dict__
    values.pop("type_params", None)
    values["args"] = _translated(translate, values["args"])
    values["body"] = _translated(translate, values["body"])
    values["decorator_list"] = _translated(translate, values["decorator_list"])
    values["returns"] = _translated(translate, values["returns"])
    values["type_comment"] = _translated(translate, values["type_comment"])
    _keep_copied_location(values)
    return node


def _arguments_into_python(translate: Translate, node: gast.arguments) -> ast.arguments:
    """``GAstToAst3.visit_arguments``, the node reused (it has no position); each parameter, a
    ``Name``, becomes a new ``arg``."""
    node.__class__ = ast.arguments
    values = node.__dict__
    for field in ("posonlyargs", "args", "kwonlyargs"):
        values[field] = [_parameter_to_python(translate, parameter) for parameter in values[field]]
    for field in ("vararg", "kwarg"):
        values[field] = _parameter_to_python(translate, values[field])
    values["kw_defaults"] = _translated(translate, values["kw_defaults"])
    values["defaults"] = _translated(translate, values["defaults"])
    return node


def _parameter_to_python(translate: Translate, node: gast.Name | None) -> ast.arg | None:
    """``GAstToAst3._make_arg``: a new node, since a rewrite may hold the parameter's ``Name`` elsewhere too."""
    if node is None:
        return None
    made = _made(ast.arg, arg=_translated(translate, node.id), annotation=_translated(translate, node.annotation),
                 type_comment=_translated(translate, node.type_comment))
    _copy_location(made.__dict__, node)
    return made


def _keep_copied_location(values: dict) -> None:
    """What ``ast.copy_location`` would have copied of a node's own positions, and no more: a start
    that is ``None`` is not copied."""
    if values.get("lineno", 0) is None:
        del values["lineno"]
    if values.get("col_offset", 0) is None:
        del values["col_offset"]


# Where gast's translators have the ``FunctionDef`` methods written here (3.12 gave ``ast`` the type
# parameters that gast's ``FunctionDef`` has, and the translation became gast's generic one).
_OWN_FUNCTIONS_INTO_GAST: dict[str, Callable[..., Any]] = (
    {"FunctionDef": _function_into_gast} if sys.version_info < (3, 12) else {}
)
_OWN_FUNCTIONS_INTO_PYTHON: dict[str, Callable[..., Any]] = (
    {"FunctionDef": _function_into_python} if sys.version_info < (3, 12) else {}
)
# gast's translation of a tree ``ast.parse`` made, which it consumes.
to_gast: Translate = _in_place_translation(
    ast, gast, Ast3ToGAst, {"Name": _name_into_gast, "arg": _arg_into_gast, **_OWN_FUNCTIONS_INTO_GAST}
)
# gast's translation of a gast tree, as new nodes.
to_python: Translate = _copying_translation({"Name": _name_to_python, "Assign": _assign_to_python})
# gast's translation of a gast tree that nothing reads after, which it consumes.
into_python: Translate = _in_place_translation(
    gast, ast, GAstToAst3,
    {"Name": _name_into_python, "Assign": _assign_into_python, "arguments": _arguments_into_python,
     **_OWN_FUNCTIONS_INTO_PYTHON},
)

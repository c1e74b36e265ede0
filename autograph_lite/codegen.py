"""Compile a rewritten function and rebuild it around the original's globals and closure cells.

The rewritten ``def`` is compiled inside a factory whose parameters are the original's free
variables and ``_ag``, so that the new code object refers to them as free variables too. The factory
is never run: its inner code object is taken from its constants and given the original cells, so a
later rebinding of a captured variable is seen, and the runtime name ``_ag`` reaches generated code
without touching the user's module globals. Every node keeps the user's line numbers and file name,
so tracebacks, pdb and JAX's own messages point at the user's source.
"""

from __future__ import annotations
import __future__

import ast
import dataclasses
import functools
import keyword
import types
from typing import Any, TypeVar, cast

import gast

from .dispatch import DispatchByClass
from .gast_translation import into_python, to_python
from .generated_names import PREFIX, RUNTIME
from .runtime import jax_errors
from .source import ParsedFunction

_FACTORY = "_ag_factory"
_CONVERTED = "_ag_converted"
# The free variable through which a converted function's body reports JAX's errors (runtime.jax_errors).
_ENTRY = PREFIX + "jax_errors"
_CAUGHT = PREFIX + "error"
_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag
# Python 3.12 added type parameters to a def; 3.11 has no such field.
_NO_TYPE_PARAMETERS: dict[str, Any] = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}
# One instance of each context serves every node made here, as ``ast.parse`` shares its own.
_LOAD = ast.Load()
# The position of a node that has none (CPython's compiler accepts -1 for a line and column range).
_NOWHERE = -1


@dataclasses.dataclass(frozen=True)
class CompiledCode:
    """A converted function's code object, ready to be bound to any closure of the original."""

    code: types.CodeType


def to_python_ast(node: gast.AST) -> ast.AST:
    """``gast.gast_to_ast(node)`` (``gast_translation``)."""
    return to_python(node)


def source_of(rewritten: gast.AST) -> str:
    """The rewritten function as source text, in the user's spelling (before name mangling)."""
    return ast.unparse(to_python_ast(rewritten))


def compile_rewritten(parsed: ParsedFunction, rewritten: gast.AST, original: types.FunctionType) -> CompiledCode:
    """The code of ``rewritten``, which becomes the compiled ``ast``: its nodes are reused, not copied
    (``gast_translation.into_python``), so nothing may read it after."""
    function = into_python(rewritten)
    if "." in original.__qualname__ or "__class__" in original.__code__.co_freevars:  # else nothing to mangle
        class_context = _ClassContext(original)
        if class_context.needed():
            class_context.visit(function)
    freevars = original.__code__.co_freevars
    factory_args = [RUNTIME, _ENTRY] + [name for name in freevars if name not in (RUNTIME, _ENTRY)]
    # The scaffolding's nodes are placed at the function's first line as they are made; the
    # rewritten function's nodes all have their own lines.
    line = getattr(rewritten, "lineno", 1)
    body, inner_name = _factory_body(cast(ast.FunctionDef | ast.Lambda, function), original.__code__, line)
    factory_parameters = [_node(ast.arg, line, arg=a, annotation=None, type_comment=None) for a in factory_args]
    factory = _node(
        ast.FunctionDef, line, name=_FACTORY,
        args=_made(ast.arguments, posonlyargs=[], args=factory_parameters, vararg=None, kwonlyargs=[], kw_defaults=[],
                   kwarg=None, defaults=[]),
        body=body, decorator_list=[], returns=None, type_comment=None, **_NO_TYPE_PARAMETERS,
    )
    module = _made(ast.Module, body=[factory], type_ignores=[])
    flags = original.__code__.co_flags & _FUTURE_FLAGS
    module_code = compile(module, parsed.filename, "exec", flags=flags, dont_inherit=True)
    factory_code = _only_code(module_code, _FACTORY)
    inner = _only_code(factory_code, inner_name)
    if (inner.co_name, inner.co_qualname) != (original.__code__.co_name, original.__code__.co_qualname):
        inner = _renamed(inner, original.__code__.co_name, original.__code__.co_qualname, inner.co_qualname)
    if isinstance(function, ast.FunctionDef):
        jax_errors.register(inner, all_code_objects(inner))
    return CompiledCode(inner)


def _factory_body(function: ast.FunctionDef | ast.Lambda, code: types.CodeType, line: int) -> tuple[list[ast.stmt], str]:
    """The factory's body, and the name of the code object in it that is the converted function.

    In ``return <the user's lambda>`` the lambda has its lines. A def under its own name would be a
    local of the factory, and a function that calls itself by name would find that local instead of
    its global. A module-level function's name is therefore declared global in the factory (which is
    never run): its code then comes out named and qualified as the user's, its helpers as
    ``f.<locals>._ag_if_true_L9``, with no renaming. Any other def is compiled under a neutral name
    and renamed after (``_renamed``).
    """
    if isinstance(function, ast.Lambda):
        return [_node(ast.Return, line, value=function)], "<lambda>"
    function.body = [_reporting_jax_errors(function.body, line)]
    name = code.co_name
    module_level = code.co_qualname == name and not code.co_freevars and not name.startswith(RUNTIME)
    if module_level and name.isidentifier() and not keyword.iskeyword(name):
        function.name = name
        return [_node(ast.Global, line, names=[name]), function], name
    function.name = _CONVERTED
    return [function, _node(ast.Return, line, value=_node(ast.Name, line, id=_CONVERTED, ctx=_LOAD))], _CONVERTED


def _reporting_jax_errors(body: list[ast.stmt], line: int) -> ast.Try:
    """``try: <body>`` with a handler that raises JAX's error about a traced value located
    (:mod:`.runtime.jax_errors`), and re-raises anything else as it is (a bare ``raise``, so that
    its traceback is untouched). A ``try`` costs nothing until something is raised.

    The ``try`` and the raise of the located error (whose traceback entry needs a line) are placed at
    ``line``; the rest of the handler nowhere (``_NOWHERE``). Running the handler moves the frame's
    last instruction into it, and JAX's traceback filter rebuilds each kept frame from that
    instruction (``frame.f_lasti``), whose position ``traceback.extract_tb``, IPython and pdb show:
    placed at the ``def`` line, a JAX error re-raised as it is showed the ``def`` where the user's
    statement raised; with no position, they show the line the traceback recorded, the statement's."""

    def entry_call(function: str, position: int) -> ast.Call:
        entry = _node(ast.Name, position, id=_ENTRY, ctx=_LOAD)
        return _node(ast.Call, position, func=_node(ast.Attribute, position, value=entry, attr=function, ctx=_LOAD),
                     args=[_node(ast.Name, position, id=_CAUGHT, ctx=_LOAD)], keywords=[])

    located = _node(ast.Raise, line, exc=entry_call("located", line), cause=_node(ast.Name, line, id=_CAUGHT, ctx=_LOAD))
    handler = _node(
        ast.ExceptHandler, _NOWHERE,
        type=_node(ast.Attribute, _NOWHERE, value=_node(ast.Name, _NOWHERE, id=_ENTRY, ctx=_LOAD), attr="caught",
                   ctx=_LOAD),
        name=_CAUGHT,
        body=[_node(ast.If, _NOWHERE, test=entry_call("translates", _NOWHERE), body=[located], orelse=[]),
              _node(ast.Raise, _NOWHERE, exc=None, cause=None)],
    )
    return _node(ast.Try, line, body=body, handlers=[handler], orelse=[], finalbody=[])


def _renamed(code: types.CodeType, name: str, qualname: str, scaffold_qualname: str) -> types.CodeType:
    """``code`` named as the user's function, and the functions nested in it (branch and loop bodies
    the rewriter made, the user's own) qualified by it, as JAX's messages and tracebacks show them:
    ``f.<locals>._ag_if_true_L9``, not ``_ag_factory.<locals>._ag_converted.<locals>._ag_if_true_L9``."""
    constants = tuple(
        _renamed(c, c.co_name, qualname + c.co_qualname[len(scaffold_qualname):], c.co_qualname)
        if isinstance(c, types.CodeType) and c.co_qualname.startswith(scaffold_qualname + ".") else c
        for c in code.co_consts
    )
    return code.replace(co_name=name, co_qualname=qualname, co_consts=constants)


_Node = TypeVar("_Node", bound=ast.AST)


def _node(kind: type[_Node], line: int, **fields: Any) -> _Node:
    """A node of the factory scaffolding with all its ``fields``, positioned at ``line`` (the nodes
    with a position: statements, expressions, arguments and handlers). Its instance dict is set at
    once, as ``passes.nodes`` makes the passes' nodes: ``ast``'s keyword constructor and four
    ``setattr`` per node cost more, and every conversion makes a dozen of them."""
    fields["lineno"] = fields["end_lineno"] = line
    fields["col_offset"] = fields["end_col_offset"] = 0 if line != _NOWHERE else _NOWHERE
    return _made(kind, **fields)


def _made(kind: type[_Node], **fields: Any) -> _Node:
    """A node of ``kind`` with ``fields`` (all of them, positions included where it has any)."""
    node = kind.__new__(kind)
    node.__dict__ = fields
    return node


def bind(compiled: CompiledCode, original: types.FunctionType, operators: object) -> types.FunctionType:
    """A new function running ``compiled`` with the original's globals, cells, defaults and metadata."""
    cells = dict(zip(original.__code__.co_freevars, original.__closure__ or ()))
    cells[RUNTIME] = types.CellType(operators)
    cells[_ENTRY] = types.CellType(jax_errors)
    closure = tuple(cells[name] for name in compiled.code.co_freevars)
    function = types.FunctionType(compiled.code, original.__globals__, original.__name__, original.__defaults__, closure)
    function.__kwdefaults__ = original.__kwdefaults__
    functools.update_wrapper(function, original)
    return function


class _ClassContext(DispatchByClass, ast.NodeTransformer):
    """What compiling inside the method's class would have done: private-name mangling, and the
    ``__class__`` cell that a zero-argument ``super()`` reads (made explicit: ``super(__class__, self)``).
    """

    def __init__(self, original: types.FunctionType):
        parts = original.__qualname__.split(".")
        owner = parts[-2] if len(parts) >= 2 and parts[-2] != "<locals>" else ""
        self.prefix = "_" + owner.lstrip("_") if owner.strip("_") else ""
        self.has_class_cell = "__class__" in original.__code__.co_freevars
        arguments = original.__code__.co_varnames[: original.__code__.co_argcount]
        self.first_argument = self._mangle(arguments[0]) if arguments else None

    def needed(self) -> bool:
        return bool(self.prefix) or self.has_class_cell

    def _mangle(self, name: str) -> str:
        if self.prefix and name.startswith("__") and not name.endswith("__") and "." not in name:
            return self.prefix + name
        return name

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self._mangle(node.id)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        node.attr = self._mangle(node.attr)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self._mangle(node.arg)
        return node

    def visit_keyword(self, node: ast.keyword) -> ast.AST:
        self.generic_visit(node)
        if node.arg:
            node.arg = self._mangle(node.arg)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        is_bare_super = isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args and not node.keywords
        if is_bare_super and self.has_class_cell and self.first_argument:
            node.args = [ast.Name("__class__", ast.Load()), ast.Name(self.first_argument, ast.Load())]
            ast.copy_location(node.args[0], node)
            ast.copy_location(node.args[1], node)
        return node


def all_code_objects(code: types.CodeType) -> list[types.CodeType]:
    """``code`` and every code object nested in it (helpers, nested functions, lambdas)."""
    found, pending = [], [code]
    while pending:
        current = pending.pop()
        found.append(current)
        pending.extend(c for c in current.co_consts if isinstance(c, types.CodeType))
    return found


def _only_code(code: types.CodeType, name: str) -> types.CodeType:
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType) and constant.co_name == name:
            return constant
    raise AssertionError(f"compiled code has no function {name!r}")  # the factory always defines it

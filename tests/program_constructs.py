"""What a program contains that decides how it is checked: read from its module's source.

The check (program_check.py) needs to know whether a program updates arrays in place (then the
eager reference runs on NumPy arrays, and a documented refusal of the in-place update is acceptable
under ``jit``), which names nested functions write as ``nonlocal`` / ``global``, whether a
container is mutated where a traced condition or trip count may stage it, and which names a ``del``
inside a branch or loop unbinds (a construct the converter refuses). The answers come from
the source, not from the generator, so that a regression file or a program shrunk by deleting
statements is judged by what it still contains.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path

# Methods that mutate the list, dict, set (or deque, bytearray) they are called on.
MUTATING_METHODS = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "reverse", "sort", "popitem", "setdefault",
    "update", "add", "discard", "appendleft", "popleft",
})
_NESTED = (ast.FunctionDef, ast.Lambda)


@dataclasses.dataclass(frozen=True)
class Constructs:
    maybe_used: frozenset[str] = frozenset()  # names read where they may be unassigned (the generator says)
    outer_writes: frozenset[str] = frozenset()  # names a nested function declares nonlocal / global
    staged_mutation: bool = False  # a mutating method call or item assignment where staging may reach it
    staged_effects: frozenset[str] = frozenset()  # callees of calls made for their effect there (not print)
    in_place: frozenset[str] = frozenset()  # arrays helpers update in place: names they store into, arguments
    numpy_inputs: bool = False  # a helper stores into a subscript: the reference needs NumPy arrays
    deleted_in_control_flow: frozenset[str] = frozenset()  # names a `del` inside an if / for / while / match of f unbinds
    reads_the_frame: bool = False  # f's own code calls locals() / vars() / eval() / exec() (refused)
    shrinking: frozenset[str] = frozenset()  # names f consumes from the front: s = s[1:]


def analyse(fn: Callable, maybe_used: frozenset[str] = frozenset()) -> Constructs:
    """The constructs of ``fn`` and of the helper functions its module defines."""
    tree = ast.parse(Path(fn.__code__.co_filename).read_text())
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    main = functions.get(fn.__name__)
    helpers = {name: _stored_names(node) for name, node in functions.items() if name != fn.__name__}
    helpers = {name: stored for name, stored in helpers.items() if stored is not None}
    outer = {name for node in ast.walk(tree) if isinstance(node, (ast.Nonlocal, ast.Global)) for name in node.names}
    in_place = set().union(*helpers.values()) if helpers else set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers:
            in_place |= {arg.id for arg in node.args if isinstance(arg, ast.Name)}
    return Constructs(
        maybe_used=frozenset(maybe_used),
        outer_writes=frozenset(outer),
        staged_mutation=main is not None and _mutates_where_staged(main),
        staged_effects=frozenset() if main is None else _effects_where_staged(main),
        in_place=frozenset(in_place),
        numpy_inputs=bool(helpers),
        deleted_in_control_flow=frozenset() if main is None else _deleted_in_control_flow(main),
        reads_the_frame=main is not None and _reads_the_frame(main),
        shrinking=frozenset() if main is None else _shrinking(main),
    )


def _shrinking(function: ast.FunctionDef) -> frozenset[str]:
    """The names ``function`` assigns a slice of themselves from the front (``s = s[1:]``): a staged loop
    carrying one cannot keep its shape."""
    return frozenset(
        node.targets[0].id for node in ast.walk(function)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        and ast.unparse(node.value) == f"{node.targets[0].id}[1:]"
    )


def _reads_the_frame(function: ast.FunctionDef) -> bool:
    """Whether ``function``'s own code (not a nested function's) reads its locals through the frame:
    ``locals()``, ``vars()``, ``eval(text)`` or ``exec(text)``, which the converter refuses."""
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
               and node.func.id in ("locals", "vars", "eval", "exec") and len(node.args) < 2
               and not any(isinstance(outer, _NESTED) for outer in ancestors)
               for node, ancestors in _nodes(function, []))


def _deleted_in_control_flow(function: ast.FunctionDef) -> frozenset[str]:
    """The names that a ``del`` inside an ``if``, ``for``, ``while`` or ``match`` of ``function`` (not of a
    nested function), or after a statement of its body that may ``return``, unbinds: the converter
    refuses such a ``del`` before converting anything (the early-exit rewrite would move it into a branch)."""
    found = set()
    for node, ancestors in _nodes(function, []):
        if isinstance(node, ast.Delete) and not any(isinstance(outer, _NESTED) for outer in ancestors) and any(
                isinstance(outer, (ast.If, ast.For, ast.While, ast.Match)) for outer in ancestors):
            found |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    may_have_returned = False
    for statement in function.body:
        if may_have_returned and isinstance(statement, ast.Delete):
            found |= {target.id for target in statement.targets if isinstance(target, ast.Name)}
        may_have_returned = may_have_returned or (not isinstance(statement, _NESTED) and any(
            isinstance(node, ast.Return) and not any(isinstance(outer, _NESTED) for outer in ancestors)
            for node, ancestors in _nodes(statement, [])))
    return frozenset(found)


def _stored_names(function: ast.FunctionDef) -> set[str] | None:
    """The names ``function`` updates in place (``a[i] = v``): its parameters, or the local names of a
    view or an alias of one (``v = a[::-1]; v[k] = x``), which the converter's refusal names; None if it
    stores into no subscript."""
    targets = []
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            targets += node.targets
        elif isinstance(node, ast.AugAssign):
            targets.append(node.target)
    stores = [node.value for target in targets for node in ast.walk(target)  # a[:1], a[-1:] = ... too
              if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store)]
    if not stores:
        return None
    return {store.id for store in stores if isinstance(store, ast.Name)}


def _mutates_where_staged(function: ast.FunctionDef) -> bool:
    """A mutating method call or an item assignment (``d[k] = v``) where staging may reach it (see
    :func:`_staged_nodes`), or in a nested function (it may be called from there)."""
    for node, _ in _staged_nodes(function, nested=True):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING_METHODS:
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            return True
    return False


def _effects_where_staged(function: ast.FunctionDef) -> frozenset[str]:
    """The callees (``bump``, ``xs.add``) of calls made for their effect (expression statements)
    under a construct a traced value may stage; ``print`` stages faithfully and does not count."""
    callees = {ast.unparse(node.func) for node, ancestors in _staged_nodes(function, nested=False)
               if isinstance(node, ast.Call) and ancestors and isinstance(ancestors[-1], ast.Expr)}
    return frozenset(callees - {"print"})


def _staged_nodes(function: ast.FunctionDef, nested: bool) -> Iterator[tuple[ast.AST, list[ast.AST]]]:
    """The nodes in ``function`` under a construct a traced value may stage (:func:`_may_stage`),
    or in a nested function if ``nested``. After an ``if`` that may return early, every statement
    counts: the converter moves the rest of the function into that ``if``'s other branch."""
    parameters = {arg.arg for arg in function.args.args}
    early_return = any(_returns(statement) for statement in function.body if not isinstance(statement, ast.Return))
    for node, ancestors in _nodes(function, []):
        if early_return or any((nested and isinstance(outer, _NESTED)) or _may_stage(outer, parameters)
                               for outer in ancestors):
            yield node, ancestors


def _returns(node: ast.AST) -> bool:
    """Whether ``node`` contains a ``return`` of its own function (nested functions' do not count)."""
    if isinstance(node, ast.Return):
        return True
    return any(_returns(child) for child in ast.iter_child_nodes(node) if not isinstance(child, _NESTED))


def _nodes(node: ast.AST, ancestors: list[ast.AST]) -> Iterator[tuple[ast.AST, list[ast.AST]]]:
    """Every node below ``node``, with the nodes between them (``node`` itself excluded)."""
    for child in ast.iter_child_nodes(node):
        yield child, ancestors
        yield from _nodes(child, ancestors + [child])


def _may_stage(node: ast.AST, parameters: set[str]) -> bool:
    """An ``if`` / ``while`` / ``match`` / ternary / ``and`` / ``or`` (its condition may be traced), or a ``for``
    over a range whose bound reads an argument. A ternary that tests a bare name (``xs.pop() if xs
    else 0``, the generator's guard of a pop) tests a container, which is never traced."""
    if isinstance(node, ast.IfExp):
        return not isinstance(node.test, ast.Name)
    if isinstance(node, (ast.If, ast.While, ast.BoolOp, ast.Match)):
        return True
    if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and getattr(node.iter.func, "id", "") == "range":
        read = {name.id for arg in node.iter.args for name in ast.walk(arg) if isinstance(name, ast.Name)}
        return bool(read & parameters)
    return False

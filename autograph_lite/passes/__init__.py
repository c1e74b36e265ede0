"""The rewrite, one concern per pass, in the order they must run.

Nested functions and lambdas are rewritten first, each as a scope of its own, so that they work
whoever calls them (``jax.vmap(lambda x: x if x > 0 else -x)`` included). Then, per scope: early
exits go first, because they change which names a statement carries; item updates and calls follow;
the expression pass runs before the analysis so that the lazy operands it wraps in lambdas are seen
as reads; conditionals run before loops so that a loop body's ``if`` is already a call when the loop
becomes helpers.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import gast

from ..analysis import analyze, reads, writes
from ..analysis.assigned_before_read import assigned_before_every_read
from ..analysis.cells import cell_names
from ..analysis.names import unchanging_tree, without_walrus
from ..generated_names import RETURN_VALUE
from ..source import ParsedFunction
from . import (
    calls,
    conditionals,
    early_exits,
    fstrings,
    item_updates,
    list_appends,
    logical_expressions,
    loops,
    outer_writes,
    unbound_reads,
    validate,
)
from .statements import drop_redundant_binds

_SCOPES = (gast.FunctionDef, gast.Lambda)


def rewrite(parsed: ParsedFunction, leave_call_as_is: Callable[[tuple[str, ...]], bool]) -> gast.AST:
    """Rewrite the parsed function (and the functions nested in it) in place; return its node."""
    with without_walrus(not parsed.may_have_walrus):
        _rewrite_scope(
            parsed.node, parsed.location, leave_call_as_is, frozenset(), parsed.is_generator, parsed.may_nest,
            parsed.may_format,
        )
    return parsed.node


def _rewrite_scope(
    function: gast.AST, locate, leave_call_as_is, enclosing_names: frozenset[str],
    is_generator: bool = False, may_nest: bool = True, may_format: bool = True,
) -> None:
    """``is_generator`` and ``may_nest`` come from the compiled code when it is at hand, ``may_format``
    from the source text: they spare walks over every expression looking for a ``yield``, a nested
    function or an f-string. A nested scope's text is part of its parent's: it inherits ``may_format``."""
    assigned = frozenset(writes(function.body)) if isinstance(function, gast.FunctionDef) else frozenset()
    own_names = _parameters(function) | assigned  # the names later passes generate are never item targets
    local_names = enclosing_names | own_names
    cells = cell_names(function, own_names) if may_nest else frozenset()
    for nested in _nested_scopes(function) if may_nest else ():
        _rewrite_nested(nested, locate, leave_call_as_is, local_names, may_format)
    placeholders = frozenset({RETURN_VALUE})
    with unchanging_tree():  # until the early-exit pass, nothing changes this scope: one memo for both
        validate.transform(function, locate, is_generator)
        if isinstance(function, gast.FunctionDef):
            placeholders |= assigned_before_every_read(function)
    outer_writes.transform(function)  # before any pass generates helpers with `nonlocal` of their own
    stop_tests = early_exits.transform(function, locate)
    item_updates.transform(function, own_names, _parameters(function))
    list_appends.transform(function, assigned)
    if may_format:
        fstrings.transform(function)
    calls.transform(function, leave_call_as_is, local_names)
    logical_expressions.transform(function, locate)
    for node, test in stop_tests.items():
        stop_tests[node] = logical_expressions.transform_expression(test, locate)
    if isinstance(function, gast.FunctionDef):
        info = analyze(function, {node: reads(test) for node, test in stop_tests.items()}, cells)
        unbound_reads.transform(function, info, placeholders)
        conditionals.transform(function, info, placeholders, locate, cells)
        loops.transform(function, info, placeholders, stop_tests, locate, cells)
        drop_redundant_binds(function)


def _rewrite_nested(
    node: gast.AST, locate, leave_call_as_is, enclosing_names: frozenset[str], may_format: bool
) -> None:
    """Rewrite a nested scope; a nested generator stays as written (it is a Python iterator)."""
    if _is_generator(node):
        return
    rewritten = copy.deepcopy(node)
    _rewrite_scope(rewritten, locate, leave_call_as_is, enclosing_names, may_format=may_format)
    for field in node._fields:
        setattr(node, field, getattr(rewritten, field))


def _nested_scopes(function: gast.AST):
    """The functions and lambdas directly inside ``function``'s own scope (not inside classes)."""
    pending = list(gast.iter_child_nodes(function))
    while pending:
        node = pending.pop()
        if isinstance(node, _SCOPES):
            yield node
        elif not isinstance(node, (gast.ClassDef, gast.AsyncFunctionDef)):
            pending.extend(gast.iter_child_nodes(node))


def _parameters(function: gast.AST) -> frozenset[str]:
    arguments = function.args
    names = {a.id for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    names |= {a.id for a in (arguments.vararg, arguments.kwarg) if a is not None}
    return frozenset(names)


def _is_generator(node: gast.AST) -> bool:
    pending = list(gast.iter_child_nodes(node))
    while pending:
        current = pending.pop()
        if isinstance(current, (gast.Yield, gast.YieldFrom)):
            return True
        if not isinstance(current, (*_SCOPES, gast.ClassDef, gast.AsyncFunctionDef)):
            pending.extend(gast.iter_child_nodes(current))
    return False

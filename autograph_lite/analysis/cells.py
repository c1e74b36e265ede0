"""Cell variables: the locals of a function that code run later than where it stands reads or assigns.

Python binds such a name late: a nested ``def`` or ``lambda``, a method of a class defined in the
function, and a generator expression's elements see the name's latest binding whenever they run
(a generator expression runs when it is drawn). The rewrite moves a converted statement's body into
helpers that receive the carried names as parameters; a parameter would shadow the cell, and a
closure defined before the statement (or called after it) would read a stale value. So the passes
keep cell variables in their cells: a helper declares them ``nonlocal`` and every assignment goes
through the cell.

List, set and dict comprehensions are not counted: they run where they stand, so a parameter holds
the value they must see. Neither are a generator expression's first iterable (evaluated where the
expression stands) and a class body's own statements (run where the class is defined). A generator
expression drawn at once by the builtin it is given to (``sum(x * s for x in xs)``) or by a string's
``join`` runs where it stands too; one held (``terms = (...)``) or given to any other callee may run later.
"""

from __future__ import annotations

from collections.abc import Iterator

import gast

from .blocks import child_nodes
from .names import ANY_SOURCE, NameScanner

_NESTED = (gast.FunctionDef, gast.Lambda)
_OPAQUE = (gast.AsyncFunctionDef,)
# Builtins that take every item of the iterable given as their first argument (passes.calls marks a
# generator expression given to one; the runtime checks the same builtins: call_effects.DRAINING_BUILTINS).
DRAINING_NAMES = frozenset({"sum", "list", "tuple", "set", "frozenset", "sorted", "min", "max", "dict"})
# Builtins that draw the generator expression given as their first argument before they return (all of
# it, or until they stop, leaving the rest unreachable): nothing can draw it later.
_DRAWN_AT_ONCE = DRAINING_NAMES | {"any", "all", "next"}


def cell_names(function: gast.AST, local_names: frozenset[str], names: NameScanner = ANY_SOURCE) -> frozenset[str]:
    """The names in ``local_names`` that code nested in ``function`` may read or assign after the
    statement that made it: a function or lambda, a method of a local class, a held generator expression."""
    referenced: set[str] = set()
    for nested in _nested_scopes(function, local_names):
        if isinstance(nested, gast.GeneratorExp):
            referenced |= _drawn_names(nested, names)
        else:
            referenced |= names.free_names(nested)
    return frozenset(referenced & local_names)


def _nested_scopes(function: gast.AST, local_names: frozenset[str]) -> Iterator[gast.AST]:
    """The ``def`` and ``lambda`` nodes directly inside ``function``'s scope (inside comprehensions and
    local classes too), and the generator expressions that may be drawn later; each one's own nested
    scopes are part of its free names. A generator expression's first iterable is searched on."""
    pending = child_nodes(function)
    while pending:
        node = pending.pop()
        if isinstance(node, _NESTED):
            yield node
        elif isinstance(node, gast.Call) and _draws_at_once(node, local_names):
            pending.extend(child_nodes(node.args[0]) + node.args[1:] + node.keywords)
        elif isinstance(node, gast.GeneratorExp):
            yield node
            pending.append(node.generators[0].iter)
        elif not isinstance(node, _OPAQUE):
            pending.extend(child_nodes(node))


def _draws_at_once(call: gast.Call, local_names: frozenset[str]) -> bool:
    """``sum(x * s for x in xs)``, ``", ".join(...)``: a generator expression given to a builtin (not
    one of the function's own names, which may be anything) or a string's ``join``, which draw it
    before they return."""
    if not (call.args and isinstance(call.args[0], gast.GeneratorExp)):
        return False
    callee = call.func
    if isinstance(callee, gast.Attribute):
        return callee.attr == "join" and isinstance(callee.value, gast.Constant) and isinstance(callee.value.value, str)
    return isinstance(callee, gast.Name) and callee.id in _DRAWN_AT_ONCE and callee.id not in local_names


def _drawn_names(generator: gast.GeneratorExp, names: NameScanner) -> set[str]:
    """The outer names a generator expression reads or binds (a walrus) while it is drawn: those of its
    element, its conditions and its inner iterables, less its own targets."""
    first, *inner = generator.generators
    drawn: list[gast.AST] = [generator.elt, *first.ifs]
    for loop in inner:
        drawn += [loop.iter, *loop.ifs]
    targets = set().union(*(names.target_names(loop.target) for loop in generator.generators))
    walrus_targets = {node.target.id for part in drawn for node in gast.walk(part) if isinstance(node, gast.NamedExpr)}
    return (names.reads(drawn) - targets) | walrus_targets

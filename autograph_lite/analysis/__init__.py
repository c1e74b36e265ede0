"""Static analysis of a function before rewriting: what each control-flow statement carries.

One rule decides what a statement carries: the names written in it that are live after it, and, in a
loop, those read in its body before the body has surely written them (the value from the previous
iteration); and the names whose container (from before the statement) it updates through an item,
which others may see after it. An ``if`` branch that reads a name before writing it needs its value, but returns it only if
it is live after the ``if``: such a name is an input only. Temporaries local to a branch or a body are
neither.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import NamedTuple

import gast

from ..generated_names import RUNTIME
from .blocks import statements_within
from .definitions import Bound, Definitions, surely_assigned
from .liveness import Liveness
from .names import ANY_SOURCE, NameScanner, parameter_names
from .nonempty_loops import nonempty_loops

__all__ = ["NameScanner", "StatementInfo", "analyze", "declared_outer", "surely_assigned"]


@dataclasses.dataclass(frozen=True)
class StatementInfo:
    """What one ``if`` / ``while`` / ``for`` needs from the rewriter."""

    carried: tuple[str, ...]
    # Carried names that no path has bound before the statement: they start as ``Undefined``.
    unbound: tuple[str, ...]
    # Carried names bound on some paths only: looked up at run time.
    maybe_unbound: tuple[str, ...]
    live_after: frozenset[str]
    # Names read in the body (either branch) before the body has surely written them.
    live_into_body: frozenset[str]
    # ``if`` only: names a branch reads before writing them that are not carried (not live after it):
    # the branches take them as inputs and do not return them.
    inputs_only: tuple[str, ...] = ()


def analyze(
    function: gast.FunctionDef,
    loop_test_reads: Mapping[gast.AST, set[str]] | None = None,
    cells: frozenset[str] = frozenset(),
    names: NameScanner = ANY_SOURCE,
) -> dict[gast.AST, StatementInfo]:
    """Side table from each compound statement of ``function`` to its ``StatementInfo``.

    ``loop_test_reads`` names what a ``for`` loop's stop test (from ``break`` / ``return``) reads:
    like a ``while`` test, it runs again after every iteration. ``cells`` are the names nested
    functions refer to: a statement that writes one carries it whatever the liveness says, since a
    closure may read it at any later time. ``names`` is the converted function's scanner; the tree
    does not change during the analysis, so it remembers what each statement reads and writes.
    """
    names = names.remembering()
    loop_test_reads = loop_test_reads or {}
    nonempty = nonempty_loops(function, names)
    definitions = Definitions(names)
    definitions.analyze_function(function, parameter_names(function.args), nonempty)
    surely_bound = {loop: definitions.before[loop].surely for loop in nonempty if loop in definitions.before}
    liveness = Liveness(names, loop_test_reads, surely_bound)
    liveness.analyze_function(function, nonempty)
    outer_scope = declared_outer(function.body)

    # Per `if`, the names it carries because it hands them to a call made for its effect: the `if`
    # statement then assigns them, and so does every statement around it. Only the function's own
    # variables: assigning a global or a module it reads (`log(CONFIG)`, `helper(np, x)`) would make
    # the name a local of the function, unbound where it is read.
    own = (set(parameter_names(function.args)) | names.writes(function.body)) - outer_scope
    inside = {node: _inside(node) for node in liveness.live_after}
    handed = {node: found.handed & liveness.live_into_body[node] & own
              for node, found in inside.items() if isinstance(node, gast.If)}
    table: dict[gast.AST, StatementInfo] = {}
    for node, live_after in liveness.live_after.items():
        found = inside[node]
        handed_inside = set().union(*(handed.get(inner, set()) for inner in found.ifs))
        written = (_written_by(node, names) | handed_inside) - outer_scope
        read_first = liveness.live_into_body[node]
        needed = live_after | loop_test_reads.get(node, set()) | cells | (found.updated & read_first)
        if not isinstance(node, gast.If):
            needed |= read_first  # the next iteration reads what this one wrote
        if isinstance(node, gast.While):
            needed |= names.reads(node.test)  # the test runs again after every iteration
        carried_names = (written & needed) | handed.get(node, set())
        carried = tuple(sorted(carried_names))
        inputs_only = tuple(sorted((written & read_first) - carried_names)) if isinstance(node, gast.If) else ()
        bound = definitions.before.get(node, Bound(frozenset(), frozenset()))
        passed = carried + inputs_only
        table[node] = _statement_info(
            carried=carried,
            unbound=tuple(n for n in passed if n not in bound.possibly),
            maybe_unbound=tuple(n for n in passed if n in bound.possibly and n not in bound.surely),
            live_after=live_after,
            live_into_body=read_first,
            inputs_only=inputs_only,
        )
    return table


def _statement_info(**fields: object) -> StatementInfo:
    """``StatementInfo(**fields)`` (every field given), its instance dict set at once: the frozen
    dataclass's ``__init__`` sets each field through ``object.__setattr__``, for every statement."""
    info = object.__new__(StatementInfo)
    info.__dict__.update(fields)
    return info


class _Inside(NamedTuple):
    """What one walk of the statements nested in a compound statement finds.

    ``updated``: the names whose container is updated through an item (``x = _ag.setitem(x, ...)``,
    the item-update pass's form of ``x[i] = v``). One that holds its value from before the statement
    (read there before written) is carried whatever the liveness says: a list that holds the
    container, another name or the caller may see it after the statement, which the runtime updates
    in place (``runtime.kept_containers``).

    ``handed``: the names handed, as arguments, to calls whose results are dropped
    (``_ag.call_for_effect``, the calls pass's form of ``step(params, g)`` as a statement). Such a
    call is made for what it changes, often a container its argument holds: an ``if`` carries such a
    name that holds its value from before it (read there before written), so that it enters each
    branch as that branch's copy, which the helper may update, and the runtime updates the original
    in place. ``ifs``: the ``if`` statements among them, whose carried names the statement assigns.
    """

    updated: set[str]
    handed: set[str]
    ifs: list[gast.If]


def _inside(node: gast.AST) -> _Inside:
    blocks = node.body + node.orelse if isinstance(node, (gast.If, gast.For, gast.While)) else node.body
    found = _Inside(set(), set(), [])
    for statement in statements_within(blocks):
        if isinstance(statement, gast.Assign) and _runtime_call(statement.value, "setitem") \
                and len(statement.targets) == 1 and isinstance(statement.targets[0], gast.Name):
            found.updated.add(statement.targets[0].id)
        elif isinstance(statement, gast.Expr) and _runtime_call(statement.value, "call_for_effect"):
            call = statement.value
            arguments = call.args[2:] + [keyword.value for keyword in call.keywords]
            found.handed.update(argument.id for argument in arguments if isinstance(argument, gast.Name))
        elif isinstance(statement, gast.If):
            found.ifs.append(statement)
    return found


def _runtime_call(node: gast.AST, operator: str) -> bool:
    """Whether ``node`` is a call of the runtime's ``operator`` (``_ag.<operator>(...)``)."""
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and node.func.attr == operator
            and isinstance(node.func.value, gast.Name) and node.func.value.id == RUNTIME)


def _written_by(node: gast.AST, names: NameScanner) -> set[str]:
    if isinstance(node, gast.If):
        return names.writes(node.body) | names.writes(node.orelse)
    if isinstance(node, gast.For):
        return names.writes(node.body) | names.target_names(node.target)
    return names.writes(node.body)


def declared_outer(body: list[gast.AST]) -> set[str]:
    """Names a function body declares ``global`` or ``nonlocal``: they are not its locals."""
    declared: set[str] = set()
    for node in statements_within(body):
        if isinstance(node, (gast.Global, gast.Nonlocal)):
            declared.update(node.names)
    return declared

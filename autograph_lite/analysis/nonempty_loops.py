"""The ``for`` loops that surely run at least once, so that their target is bound after them.

Python binds a ``for`` loop's target before the first iteration's body runs, so after a loop over a
sequence the source writes out non-empty (``range(3)``, ``(a, b)``, ``"xy"``) the target is bound
on every path: the ``break`` of the first iteration comes after it too. The analyses otherwise
treat every loop as one that may run zero times, which left ``i`` maybe unbound after ``for i in
range(3): ...``: a later read of it made every enclosing loop carry it from one iteration to the
next, and a traced ``if`` around the inner loop (``if a > 0: for i in range(3): ...; s = s + i``)
then had to return ``i`` from both branches, a false ``StagingTypeError``. The liveness analysis
takes one step more: such a loop is never skipped, so what is live before it is what its first
iteration reads; a name its body surely binds first (the target ``j`` of ``for j in range(2)``
nested in it) is not, where the first version still carried it through an enclosing loop. Except a
name surely bound before the loop: the loop carries it, and the rewrite reads the carry's start there.

``range`` counts as the builtin unless the function binds that name itself; a module that rebinds
the builtin ``range`` to something else is not seen (as nowhere else in the rewrite).
"""

from __future__ import annotations

import gast

from ..generated_names import RUNTIME
from .blocks import statements_within
from .names import NameScanner, parameter_names


def nonempty_loops(function: gast.FunctionDef, names: NameScanner) -> frozenset[gast.AST]:
    """The ``for`` statements of ``function``'s own scope whose iterable is written out non-empty."""
    range_is_builtin = "range" not in names.writes(function.body) | parameter_names(function.args)
    return frozenset(node for node in statements_within(function.body)
                     if isinstance(node, gast.For) and _written_nonempty(node.iter, range_is_builtin))


def _written_nonempty(iterable: gast.expr, range_is_builtin: bool) -> bool:
    if isinstance(iterable, (gast.Tuple, gast.List)):
        return bool(iterable.elts) and not any(isinstance(item, gast.Starred) for item in iterable.elts)
    if isinstance(iterable, gast.Constant):
        return isinstance(iterable.value, (str, bytes)) and len(iterable.value) > 0
    if not (isinstance(iterable, gast.Call) and range_is_builtin and not iterable.keywords):
        return False
    callee, arguments = iterable.func, iterable.args
    if _is_runtime_call(callee):  # the calls pass made ``range(3)`` ``_ag.call(range, 3)``
        callee, arguments = arguments[0] if arguments else None, arguments[1:]
    if not (isinstance(callee, gast.Name) and callee.id == "range") or not 1 <= len(arguments) <= 3:
        return False
    bounds = [bound for bound in map(_int_literal, arguments) if bound is not None]
    if len(bounds) != len(arguments) or (len(bounds) == 3 and bounds[2] == 0):
        return False
    return len(range(*bounds)) > 0


def _is_runtime_call(callee: gast.expr) -> bool:
    return (isinstance(callee, gast.Attribute) and callee.attr == "call" and isinstance(callee.value, gast.Name)
            and callee.value.id == RUNTIME)


def _int_literal(node: gast.expr) -> int | None:
    """The value of an int literal (``3``, ``-1``), else None (a bool is no bound the source writes)."""
    negative = isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub)
    operand = node.operand if negative else node
    if not isinstance(operand, gast.Constant) or type(operand.value) is not int:
        return None
    return -operand.value if negative else operand.value

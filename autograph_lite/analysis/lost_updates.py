"""Item updates that a JAX array would hide from another reference to the same value.

``x[i] = v`` is rewritten to ``x = setitem(x, i, v)``: NumPy arrays, lists and dicts change in place,
but a JAX array cannot, so the update makes a new array bound to ``x`` alone. Where Python's update
would be seen through another reference, the rewrite silently differs:

- the caller's reference, when ``x`` may hold an argument (a parameter, or a name that plain
  ``w = v`` assignments made refer to one) and the function never hands ``x`` itself back: it is
  returned nowhere (alone or in a tuple, list or dict display) nor stored into an object. Reading
  ``x`` afterwards (``return x[k]``) does not help the caller, whose array keeps the old values;
- another name of this function that ``w = v`` assignments (or ``a, b = x, x``, or a ``for`` target
  over a display of names, ``for w in (x, z)``) may have made refer to the same value, live after the
  update;
- another name that may show the same memory without being the same object (a NumPy view, a traced
  choice): found on the text by :mod:`.shared_memory`.

This module finds, before the rewrite, the updates where that may happen; the runtime decides, since
only it sees whether the container is a JAX array and which candidate names hold that very array.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import gast

from ..generated_names import PREFIX, RETURN_VALUE
from .blocks import TRY_STATEMENTS, blocks_of, statements_within
from .liveness import Liveness
from .names import NameScanner
from .shared_memory import Memories, SharedView, shared_views

_ENTERED = (gast.If, gast.While, gast.For, gast.With, *TRY_STATEMENTS)  # the statements both analyses enter
_LOOPS = (gast.While, gast.For)


@dataclasses.dataclass(frozen=True)
class UpdateFacts:
    """What the runtime checks at one item update when its container is a JAX array."""

    # The container may hold the caller's value, which the function never hands back: the caller loses it.
    from_caller: bool
    # Other names that may refer to the container's value and are read after the update.
    aliases: tuple[str, ...]
    # Other names that may show the container's memory (a view) and are read after it, or the caller's.
    views: tuple[SharedView, ...] = ()


def updated_name(statement: gast.AST) -> str | None:
    """``x`` for ``x[...] = v`` and ``x[...] op= v``; ``None`` for any other statement."""
    if isinstance(statement, gast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, gast.AugAssign):
        target = statement.target
    else:
        return None
    if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
        return target.value.id
    return None


def lost_update_candidates(
    function: gast.FunctionDef, parameters: frozenset[str], names: NameScanner
) -> dict[gast.AST, UpdateFacts]:
    """The item updates of ``function``'s own scope (not nested functions) that need a run-time
    check, keyed by their statement nodes. Cheap when the function has no item update. ``names`` is
    the converted function's scanner; the tree does not change here, so it remembers."""
    updates = list(_updates(function.body, None))
    if not updates:
        return {}
    names = names.remembering()
    liveness = Liveness(names)
    liveness.analyze_function(function)
    held = _CallerValues(names)
    held.block(function.body, parameters)
    classes = _alias_classes(function.body)
    handed_back = _handed_back(function.body)
    memories = Memories(names, parameters)
    memories.analyze(function.body)
    facts = {}
    for node, name, outermost_loop in updates:
        live = liveness.live_after_statement[node]
        unread = name not in liveness.live_after_statement[outermost_loop or node]
        copies = classes.get(name, frozenset({name}))  # `v = w; return v` hands w's value back
        from_caller = (unread or not copies & handed_back) and name in held.before[node]
        aliases = tuple(sorted((classes.get(name, frozenset()) - {name}) & live))
        views = shared_views(memories, node, name, live, function.name)
        if from_caller or aliases or views:
            facts[node] = UpdateFacts(from_caller, aliases, views)
    return facts


def _updates(
    statements: list[gast.stmt], outermost_loop: gast.AST | None
) -> Iterator[tuple[gast.AST, str, gast.AST | None]]:
    """Each item update, its container's name and the outermost loop around it in this scope
    (``None`` outside loops)."""
    for statement in statements:
        name = updated_name(statement)
        if name is not None:
            yield statement, name, outermost_loop
        elif isinstance(statement, _ENTERED):
            loop = outermost_loop or (statement if isinstance(statement, _LOOPS) else None)
            for block in blocks_of(statement):
                yield from _updates(block, loop)


def _handed_back(statements: list[gast.stmt]) -> frozenset[str]:
    """Names whose value the function may give back to its caller as it is: returned (alone or in a
    display), or stored into an object (``self.w = w``, ``d[k] = w``). A ``return`` inside a loop is
    already the early-exit pass's assignment to the return-value variable."""
    found: set[str] = set()
    for statement in statements_within(statements):
        if isinstance(statement, gast.Return) and statement.value is not None:
            found |= _bare_names(statement.value)
        elif isinstance(statement, gast.Assign):
            stores_outside = any(not isinstance(t, gast.Name) or t.id == RETURN_VALUE for t in statement.targets)
            if stores_outside:
                found |= _bare_names(statement.value)
    return frozenset(found)


def _bare_names(expression: gast.expr) -> set[str]:
    """The names an expression evaluates to as they are, through displays and conditional arms."""
    if isinstance(expression, gast.Name):
        return {expression.id}
    if isinstance(expression, (gast.Tuple, gast.List, gast.Set)):
        return set().union(*(_bare_names(e) for e in expression.elts))
    if isinstance(expression, gast.Starred):
        return _bare_names(expression.value)
    if isinstance(expression, gast.Dict):
        return set().union(*(_bare_names(e) for e in expression.values))
    if isinstance(expression, gast.IfExp):
        return _bare_names(expression.body) | _bare_names(expression.orelse)
    return set()


def _plain_copies(statement: gast.AST) -> list[tuple[list[str], str]]:
    """``(targets, source)`` for each copy of a name the user wrote into others: ``w = v`` (or ``w = u
    = v``), each pair of ``a, b = x, y``, and a ``for`` target over a display (``for w in (x, z)``)."""
    if isinstance(statement, gast.For) and isinstance(statement.iter, gast.Tuple | gast.List):
        return _user_copies([(statement.target, element) for element in statement.iter.elts])
    if not isinstance(statement, gast.Assign):
        return []
    if isinstance(statement.value, gast.Name) and all(isinstance(t, gast.Name) for t in statement.targets):
        targets = [t.id for t in statement.targets if not t.id.startswith(PREFIX)]
        return [(targets, statement.value.id)] if targets and not statement.value.id.startswith(PREFIX) else []
    target, value = statement.targets[0], statement.value
    if len(statement.targets) == 1 and isinstance(target, gast.Tuple | gast.List) and isinstance(
            value, gast.Tuple | gast.List) and len(target.elts) == len(value.elts):
        return _user_copies(list(zip(target.elts, value.elts)))
    return []


def _user_copies(pairs: list[tuple[gast.expr, gast.expr]]) -> list[tuple[list[str], str]]:
    """The pairs of names the user wrote among ``(target, value)`` pairs."""
    return [([target.id], value.id) for target, value in pairs
            if isinstance(target, gast.Name) and isinstance(value, gast.Name)
            and not target.id.startswith(PREFIX) and not value.id.startswith(PREFIX)]


def _alias_classes(statements: list[gast.stmt]) -> dict[str, frozenset[str]]:
    """Names joined by plain copies anywhere in the scope, whatever the order: a superset of the names
    that may share a value at any point (the runtime compares identities)."""
    classes: dict[str, frozenset[str]] = {}
    for statement in statements_within(statements):
        for targets, source in _plain_copies(statement):
            joined = frozenset().union(*(classes.get(n, frozenset({n})) for n in [*targets, source]))
            classes.update(dict.fromkeys(joined, joined))
    return classes


def _copied_from(statement: gast.AST, held: frozenset[str]) -> frozenset[str]:
    """The names ``statement`` makes copies of names in ``held``."""
    return frozenset(name for targets, source in _plain_copies(statement) if source in held for name in targets)


class _CallerValues:
    """Forward analysis: the names that may hold a value from the caller before each statement.

    A parameter holds one until it is rebound; ``w = v`` passes ``v``'s state to ``w``, as do the other
    copies of :func:`_plain_copies` (``a, b = x, x``, ``for w in (x, z)``); any other binding ends it.
    An item update binds nothing (in place, the container stays the caller's).
    """

    def __init__(self, names: NameScanner) -> None:
        self.names = names
        self.before: dict[gast.AST, frozenset[str]] = {}

    def block(self, statements: list[gast.stmt], held: frozenset[str]) -> frozenset[str]:
        for statement in statements:
            held = self.statement(statement, held)
        return held

    def statement(self, node: gast.stmt, held: frozenset[str]) -> frozenset[str]:
        self.before[node] = held
        if isinstance(node, gast.If):
            return self.block(node.body, held) | self.block(node.orelse, held)
        if isinstance(node, _LOOPS):
            return self._loop(node, held)
        if isinstance(node, gast.With):
            return self.block(node.body, held - self.names.writes(node.items))
        if isinstance(node, TRY_STATEMENTS):
            body_end = self.block(node.body, held)
            # A handler may start anywhere in the body: approximated by the states between its statements.
            raised = held.union(body_end, *(self.before[s] for s in node.body))
            ends = [self.block(node.orelse, body_end)] + [self.block(h.body, raised) for h in node.handlers]
            return self.block(node.finalbody, frozenset().union(*ends))
        return (held - self.names.writes(node)) | _copied_from(node, held)

    def _loop(self, node: gast.While | gast.For, held: frozenset[str]) -> frozenset[str]:
        """Iterate to the fixpoint: what the body leaves flows back to its top."""
        bound = self.names.target_names(node.target) if isinstance(node, gast.For) else set()
        head = held
        while True:
            widened = head | self.block(node.body, (head - bound) | _copied_from(node, head))
            if widened == head:
                break
            head = widened
        return self.block(node.orelse, head)

"""Which local names are surely assigned wherever they are read, in the original program.

Computed before any rewriting, with Python's own meaning of ``break``, ``continue``, ``return`` and
loop ``else`` clauses. For such a name, a staged branch or loop that has not assigned it yet may give
it a placeholder value (zeros of the type the other path produces): no read can ever see it. This is
what lets ``for ... else`` search loops stage (``found`` is set before ``break`` or in ``else``).
A name read where it may be unbound keeps the strict rule: a located error asking to assign it first.
``del`` unbinds: after ``del y`` a read of ``y`` needs a new assignment first, and the ``del`` itself
reads ``y`` (deleting an unbound name raises as reading it does).
"""

from __future__ import annotations

import gast

from .blocks import SCOPES, TRY_STATEMENTS
from .names import NameScanner, parameter_names
from .nonempty_loops import nonempty_loops

_LEFT = None  # the state after a statement that never completes normally


def assigned_before_every_read(function: gast.FunctionDef, names: NameScanner) -> frozenset[str]:
    """Locals of ``function`` that every read of theirs finds surely assigned.

    ``names`` is the converted function's scanner; the tree does not change during the analysis, so
    it remembers what each statement reads and writes.
    """
    names = names.remembering()
    checker = _Checker(names, nonempty_loops(function, names))
    checker.block(function.body, frozenset(parameter_names(function.args)))
    return frozenset(names.writes(function.body) - checker.unsafe)


class _Checker:
    def __init__(self, names: NameScanner, nonempty: frozenset[gast.AST]) -> None:
        self.names = names
        self.nonempty = nonempty  # the `for` loops that surely run once, binding their target
        self.unsafe: set[str] = set()
        self.breaks: list[list[frozenset[str]]] = []

    def read(self, node: gast.AST | list | None, assigned: frozenset[str]) -> None:
        self.unsafe |= self.names.reads(node) - assigned

    def block(self, statements: list[gast.stmt], assigned: frozenset[str] | None) -> frozenset[str] | None:
        for statement in statements:
            if assigned is _LEFT:
                return _LEFT
            assigned = self.statement(statement, assigned)
        return assigned

    def statement(self, node: gast.stmt, assigned: frozenset[str]) -> frozenset[str] | None:
        writes = self.names.writes
        if isinstance(node, gast.If):
            self.read(node.test, assigned)
            assigned = assigned | writes(node.test)
            return _merge(self.block(node.body, assigned), self.block(node.orelse, assigned))
        if isinstance(node, gast.While):
            self.read(node.test, assigned)
            return self._loop(node, assigned | writes(node.test), assigned | writes(node.test))
        if isinstance(node, gast.For):
            self.read(node.iter, assigned)
            entered = assigned | self.names.target_names(node.target)
            return self._loop(node, entered, entered if node in self.nonempty else assigned)
        if isinstance(node, gast.Break):
            self.breaks[-1].append(assigned)
            return _LEFT
        if isinstance(node, gast.Continue):
            return _LEFT
        if isinstance(node, (gast.Return, gast.Raise)):
            self.read(node, assigned)
            return _LEFT
        if isinstance(node, TRY_STATEMENTS):
            return self._try(node, assigned)
        if isinstance(node, gast.With):
            # Conservative: every read is checked against what was assigned before the statement.
            self.read(node, assigned)
            inner = self.block(node.body, assigned)
            # A context manager that suppresses an error resumes after the statement from anywhere.
            return inner if inner is not _LEFT else assigned - self.names.deletes([node])
        if isinstance(node, SCOPES):
            return assigned | writes(node)  # reads inside run later, when it is called
        if isinstance(node, gast.AugAssign):
            self.read(node, assigned)
            return assigned
        if isinstance(node, gast.Delete):
            self.read(node, assigned)  # the names it deletes, and any container it deletes an item of
            return assigned - writes(node)
        self.read(node, assigned)
        return assigned | writes(node)

    def _try(self, node: gast.Try | gast.TryStar, assigned: frozenset[str]) -> frozenset[str] | None:
        """A handler may start after any statement of the body, so it sees only what was assigned before
        the ``try`` and deleted nowhere in the body; ``else`` continues the body; ``finally`` runs on
        every path, so its reads see only what every path assigned. After the statement: what every
        path that completes normally assigned (a handler's ``as`` name is unbound again)."""
        body_end = self.block(node.body, assigned)
        raised = assigned - self.names.deletes(node.body)
        ends = [self.block(node.orelse, body_end) if body_end is not _LEFT else _LEFT]
        for handler in node.handlers:
            caught = frozenset(self.names.writes(handler.name))
            self.read(handler.type, raised)
            end = self.block(handler.body, raised | caught)
            ends.append(end if end is _LEFT else end - caught)
        completed = _merge(*ends)
        on_every_path = assigned - self.names.deletes([node])
        final_end = self.block(node.finalbody, on_every_path)
        if completed is _LEFT or final_end is _LEFT:
            return _LEFT
        return (completed | final_end) - self.names.deletes(node.finalbody)

    def _loop(
        self, node: gast.While | gast.For, entered: frozenset[str], normal_exit: frozenset[str]
    ) -> frozenset[str] | None:
        # A later iteration, and the code after the loop, may find deleted what the body deletes.
        deleted = self.names.deletes(node.body)
        self.breaks.append([])
        self.block(node.body, entered - deleted)
        breaks = self.breaks.pop()
        after_else = self.block(node.orelse, normal_exit - deleted)
        return _merge(after_else, *breaks) if breaks else after_else


def _merge(first: frozenset[str] | None, *others: frozenset[str] | None) -> frozenset[str] | None:
    states = [s for s in (first, *others) if s is not _LEFT]
    if not states:
        return _LEFT
    result = states[0]
    for state in states[1:]:
        result = result & state
    return result

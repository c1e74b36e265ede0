"""Backward liveness over structured statements.

Runs after the early-exit pass, so inside loops there is no ``break``, ``continue`` or ``return``
left; a ``return`` or ``raise`` elsewhere simply ends the path. For every compound statement it
records the names live right after it and, for loops, the names live at the top of the body; for
every statement of the blocks it enters, simple ones included, the names live right after it (an
item update whose container is dead afterwards is one nobody sees).
"""

from __future__ import annotations

from collections.abc import Mapping

import gast

from .blocks import TRY_STATEMENTS
from .evaluation_order import reads_from_before
from .names import NameScanner
from .nonempty_loops import nonempty_loops


class Liveness:
    """Live-variable sets keyed by the original statement nodes."""

    def __init__(self, names: NameScanner, loop_test_reads: Mapping[gast.AST, set[str]] | None = None,
                 surely_bound_before: Mapping[gast.AST, frozenset[str]] | None = None) -> None:
        self.names = names
        # For the rewrite's own reads (see ``_never_skipped``): the names bound on every path before each
        # `for` loop; None for Python's liveness alone.
        self.surely_bound_before = surely_bound_before
        # What a `for` loop's stop test reads: it runs at the loop head, like a `while` test.
        self.loop_test_reads = loop_test_reads or {}
        self.live_after: dict[gast.AST, frozenset[str]] = {}
        # Every statement's, simple ones included (a loop's body records its value at the fixpoint).
        self.live_after_statement: dict[gast.AST, frozenset[str]] = {}
        # Names read in a body (or branch) before the body is sure to have written them.
        self.live_into_body: dict[gast.AST, frozenset[str]] = {}
        # What each simple statement writes and reads: a loop body is analysed again at every step of
        # its fixpoint, and a nested loop's at every step of each enclosing loop's.
        self._transfers: dict[gast.AST, tuple[frozenset[str], frozenset[str]]] = {}
        # The `for` loops that surely run once: what their target, or a name their body surely assigns
        # before reading it, held before is never read.
        self.nonempty: frozenset[gast.AST] = frozenset()

    def analyze_function(self, node: gast.FunctionDef, nonempty: frozenset[gast.AST] | None = None) -> None:
        """Analyse ``node``'s body; ``nonempty`` is ``nonempty_loops(node)`` when the caller has it."""
        self.nonempty = nonempty_loops(node, self.names) if nonempty is None else nonempty
        self.block(node.body, frozenset())

    def block(self, statements: list[gast.stmt], live_out: frozenset[str]) -> frozenset[str]:
        live = live_out
        for statement in reversed(statements):
            self.live_after_statement[statement] = live
            live = self.statement(statement, live)
        return live

    def statement(self, node: gast.stmt, live_out: frozenset[str]) -> frozenset[str]:
        if isinstance(node, gast.If):
            return self._if(node, live_out)
        if isinstance(node, gast.While):
            return self._while(node, live_out)
        if isinstance(node, gast.For):
            return self._for(node, live_out)
        if isinstance(node, (gast.Return, gast.Raise)):
            return frozenset(reads_from_before(self.names, node))
        if isinstance(node, gast.With):
            live = self.block(node.body, live_out)
            for item in reversed(node.items):
                live = (live - self.names.writes(item.optional_vars)) | self.names.reads(item.context_expr)
            return live
        if isinstance(node, TRY_STATEMENTS):
            # Any statement of the body may raise into a handler: everything they read is live.
            after = self.block(node.finalbody, live_out)
            handlers = frozenset().union(*(self._handler(h, after) for h in node.handlers))
            body = self.block(node.body + node.orelse, after | handlers)
            return body | handlers
        if isinstance(node, (gast.FunctionDef, gast.ClassDef)):
            return (live_out - {node.name}) | self.names.reads(node)
        transfer = self._transfers.get(node)
        if transfer is None:
            transfer = self._transfers[node] = (frozenset(self.names.writes(node)),
                                                frozenset(reads_from_before(self.names, node)))
        written, read = transfer
        return (live_out - written) | read

    def _handler(self, handler: gast.ExceptHandler, live_out: frozenset[str]) -> frozenset[str]:
        """What an ``except`` clause needs: its exception type, and what its body reads but the ``as``
        name, which the clause itself binds (so it is never live before the ``try``)."""
        caught = self.names.writes(handler.name)
        return (self.block(handler.body, live_out) - caught) | self.names.reads(handler.type)

    def _if(self, node: gast.If, live_out: frozenset[str]) -> frozenset[str]:
        self.live_after[node] = live_out
        into_body = self.block(node.body, live_out)
        into_orelse = self.block(node.orelse, live_out)
        self.live_into_body[node] = into_body | into_orelse
        return frozenset(self.names.reads(node.test)) | into_body | into_orelse

    def _while(self, node: gast.While, live_out: frozenset[str]) -> frozenset[str]:
        self.live_after[node] = live_out
        exit_live = self.block(node.orelse, live_out)
        test_reads = frozenset(self.names.reads(node.test)) - self.names.writes(node.test)
        head = exit_live | test_reads
        while True:  # fixpoint: what the body needs at its top flows back to the loop head
            into_body = self.block(node.body, head)
            new_head = exit_live | test_reads | (into_body - self.names.writes(node.test))
            if new_head == head:
                break
            head = new_head
        self.live_into_body[node] = into_body
        return head

    def _for(self, node: gast.For, live_out: frozenset[str]) -> frozenset[str]:
        self.live_after[node] = live_out
        exit_live = self.block(node.orelse, live_out)
        bound = self.names.target_names(node.target)
        test_reads = frozenset(self.loop_test_reads.get(node, ()))
        head = exit_live | test_reads
        while True:
            into_body = self.block(node.body, head)
            new_head = exit_live | test_reads | (into_body - bound)
            if new_head == head:
                break
            head = new_head
        self.live_into_body[node] = into_body - bound
        if node in self.nonempty:
            head = self._never_skipped(node, head, test_reads | (into_body - bound))
        return head | self.names.reads(node.iter)

    def _never_skipped(self, node: gast.For, head: frozenset[str], first_iteration: frozenset[str]) -> frozenset[str]:
        """What is live before a loop that surely runs once: what its first iteration reads. A name live
        only on the path that skips it is written by its body before any read, so the loop carries it;
        where it is surely bound before the loop, the rewrite reads it there as the carry's start, and
        it stays live (a name maybe unbound there starts as a placeholder, which reads nothing)."""
        if self.surely_bound_before is None:
            return first_iteration
        return first_iteration | (head & self.surely_bound_before.get(node, frozenset()))

"""``del name`` in generated programs (feature ``del``).

``del v`` unbinds a local: a later read raises ``UnboundLocalError`` until ``v`` is assigned again, and
so does deleting it again. A converter that mistook the ``del`` for an assignment would let a staged
branch or loop stand zeros in for the deleted value where Python raises, so the generator draws:

- ``del v`` of a local, mostly at the top level of ``f`` (often before the control flow; inside a
  branch or loop the converter refuses it, a documented limitation), sometimes of a name that may
  already be unbound;
- re-assignments of a deleted name, mostly inside branches and loops, so that after them the name is
  bound on some paths only;
- reads of a deleted name where it may be unbound (``s0 = v``, or in a ``return``: the builder's
  ``return_statement`` asks :meth:`Deletes.maybe_deleted`), recorded in ``maybe_used``: the eager
  run raises on the inputs that skip the re-assignment, and program_check.py requires the converted
  runs to raise there too (or to refuse the program with a documented error).

The scope model follows Python: a deleted name leaves ``defined`` and ``maybe``; a name deleted in one
branch is ``maybe`` after the ``if`` (program_model.merge_scopes); a name a loop body deletes is
``maybe`` after the loop (program_loops.py, through :meth:`Deletes.deleted_since`).
"""

from __future__ import annotations

import dataclasses

from program_model import CLIP, CLIP_ABOVE, NUMERIC, Block, Ctx, Scope, Var

_DELETABLE_TYPES = NUMERIC + ("b",)


class Deletes:
    """The ``del`` statement, re-assignments of deleted names, and reads where they may be deleted.

    Expects ``deletions`` (set by the builder's ``__init__``): every variable a ``del`` unbound, in
    program order, with the type and bound a re-assignment gives it again.
    """

    deletions: list[Var]

    def extra_statements(self, scope: Scope, ctx: Ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        if not self.has("del"):
            return kinds
        # a del inside a branch or loop makes the converter refuse the whole program: rarer there
        if self.deletable(scope) and (ctx.depth == 0 or self.chance(15)):
            kinds += ["del"] * (3 if ctx.depth == 0 else 1)
        if self.restorable(scope):
            kinds += ["restore"] * (3 if ctx.depth else 1)
        if self.maybe_deleted(scope):
            kinds += ["read_deleted"] * 3
        return kinds

    def prelude_kinds(self) -> list[str]:
        """A ``del`` before the control flow, often of a state variable that a branch or loop may
        assign again and the ``return`` may read: the shape of a program that deletes and re-assigns."""
        return super().prelude_kinds() + (["del"] if self.has("del") else [])

    def deletable(self, scope: Scope) -> list[Var]:
        """Assignable locals (never parameters or loop targets, which the generator keeps read-only),
        bound on every path or on some paths only (then the ``del`` itself may raise)."""
        candidates = [*scope.defined.values(), *scope.maybe.values()]
        return [v for v in candidates if v.kind == "local" and v.type in _DELETABLE_TYPES]

    def restorable(self, scope: Scope) -> list[Var]:
        """Deleted variables not bound on every path here: an assignment binds them again."""
        latest = {var.name: var for var in self.deletions}
        return [var for name, var in latest.items() if name not in scope.defined]

    def maybe_deleted(self, scope: Scope) -> list[Var]:
        """Deleted variables that are bound on some paths only: reading them may raise."""
        names = {var.name for var in self.deletions}
        return [var for name, var in scope.maybe.items() if name in names]

    def deleted_since(self, count: int) -> set[str]:
        """The names deleted since ``len(self.deletions)`` was ``count``."""
        return {var.name for var in self.deletions[count:]}

    def stmt_del(self, scope: Scope, ctx: Ctx) -> Block:
        candidates = self.deletable(scope)
        if not candidates:  # in the prelude, where the returned values may all be tuples or dicts
            return Block([], scope)
        self.used.add("del")
        targets = [self.pick(candidates)]
        others = [v for v in candidates if v.name != targets[0].name]
        if others and self.chance(20):
            targets.append(self.pick(others))
        scope = scope.copy()
        for var in targets:
            if var.name not in scope.defined:
                self.maybe_used.add(var.name)  # `del` reads the name: it raises if the name is unbound
            scope.defined.pop(var.name, None)
            scope.maybe.pop(var.name, None)
            self.deletions.append(var)
        return Block([f"del {', '.join(var.name for var in targets)}"], scope)

    def stmt_restore(self, scope: Scope, ctx: Ctx) -> Block:
        """``v = e`` for a deleted ``v``: a new value of its type (clipped in a loop, where ``e`` may
        read ``v``'s value from an earlier iteration)."""
        var = self.pick(self.restorable(scope))
        line, restored = self.assignment(var.name, var.type, scope, ctx, fresh=not ctx.loops)
        scope = scope.copy()
        scope.define(restored)
        return Block([line], scope)

    def stmt_read_deleted(self, scope: Scope, ctx: Ctx) -> Block:
        """``x = v`` for a ``v`` that may be deleted here, into a state variable of its type when there
        is one (the value reaches the result), else into a new variable."""
        var = self.pick(self.maybe_deleted(scope))
        value = self.floated(self.variable(scope, var), var.type)  # the read is recorded in maybe_used
        targets = [v for v in scope.defined.values() if v.kind == "local" and v.type == var.type]
        if targets and self.chance(70):
            target, fresh = self.returned_first(targets), False
        else:
            target, fresh = Var(self.fresh("v"), var.type, 0), True
        if var.type != "b":
            value = self.clip(value, CLIP if (ctx.loops and not fresh) else CLIP_ABOVE)
        bound = max(value.bound, target.bound) if ctx.loops else value.bound
        scope = scope.copy()
        scope.define(dataclasses.replace(target, bound=bound, weak=False))  # floated: never a Python int
        return Block([f"{target.name} = {value.text}"], scope)

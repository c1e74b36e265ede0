"""``with`` and ``try`` statements around code that may exit, in generated programs (feature ``with_try``).

The converter keeps such a statement as Python (run once, at trace time) and turns only the exits in
its blocks into flags, so the generator puts statements that may ``return`` / ``break`` / ``continue``
(the exits that ``early_return``, ``return_in_loop`` and ``break_continue`` allow) inside:

- ``with jax.named_scope(...)`` or ``with Section(...)``, a context manager of the user's whose
  ``__enter__`` / ``__exit__`` print (one or two context managers);
- ``try`` / ``finally``, the ``finally`` assigning a new variable or exiting under a condition (an
  exit there replaces a pending one);
- ``try`` / ``except`` / ``else``, the ``else`` (run only when the body did not exit) with statements
  of its own that may exit.

A handler's body is an exit or ``pass``. The only generated statement that raises is an index one
past a list's end (feature ``indexing``, program_indexing.py), which eager Python evaluates only on
some paths: an ``except IndexError`` (or ``Exception``) around it runs where eager takes that path,
and must not run, under ``jit``, where it does not (a traced branch is traced whatever the
condition). With ``jax_refusals``, a ``try`` may start with a statement that JAX refuses when traced
(program_jax_refusals.py), its handler catching what JAX raises then (``except TypeError``,
``except Exception``, a bare ``except``): eager Python never raises there, so under ``jit`` the
handler must not run (a located error instead). The scope model allows for the paths Python has and the converter's analysis sees
(docs/semantics.md): a ``try`` whose handler does not exit may resume after it from any point of its
body, so what the body first assigns is bound on some paths only after it (and what a ``finally``
assigns, always so); a ``try`` without such a handler, and a ``with``, leave what their body
assigned bound (a ``with`` that returns on every path still counts as falling through: its context
manager could suppress an exception).
"""

from __future__ import annotations

import dataclasses

from program_model import CLIP, MAX_DEPTH, VECTORS, Block, Ctx, Scope, Var, indent

# What a generated handler catches: nothing a generated statement raises, or the IndexError of an index
# past a list's end.
# A context manager of the user's that prints on the way in and out: Python calls its methods itself,
# and the prints must come out where eager Python prints them, on every call.
SECTION = """class Section:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        print("enter", self.name)
        return self

    def __exit__(self, *raised):
        print("exit", self.name)
        return False"""
_WITH_HEADERS = ('with jax.named_scope("s"):', 'with jax.named_scope("s"), jax.named_scope("t"):',
                 'with Section("s"):', 'with Section("s") as section, jax.named_scope("t"):')

_HANDLED = ("except ZeroDivisionError:", "except IndexError:", "except (ZeroDivisionError, IndexError):",
            "except Exception:")
# What a handler around a statement JAX refuses when traced catches: JAX's errors are TypeErrors (an
# IndexError for a boolean mask), so each of these catches some of them.
_CATCHING_REFUSALS = ("except TypeError:", "except (TypeError, IndexError):", "except Exception:", "except:")


class WithTry:
    """The ``with`` and ``try`` statement kinds; a mixin of the program builder."""

    module_parts: dict[str, str]
    used: set[str]

    def extra_statements(self, scope: Scope, ctx: Ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        if self.has("with_try") and self.budget > 0 and ctx.depth < MAX_DEPTH:
            kinds += ["with", "try"] * (3 if ctx.depth == 0 else 1)
        return kinds

    def stmt_with(self, scope: Scope, ctx: Ctx) -> Block:
        self.used.add("with_try")
        self.module_parts["jax"] = "import jax"
        header = self.pick(list(_WITH_HEADERS))
        if "Section" in header:
            self.module_parts["Section"] = SECTION
        body = self.body_that_may_exit(scope, ctx)
        # No statement raises, so what the body assigns is bound after it. The converter still allows for
        # a context manager that suppresses an exception: a returning `with` at the end of a function
        # needs a `return` after it (the block never counts as exiting).
        return Block([header] + indent(body.lines), body.scope)

    def stmt_try(self, scope: Scope, ctx: Ctx) -> Block:
        self.used.add("with_try")
        baited = self.chance(30)  # a body with more indexes past the end, and a handler that catches them
        self.index_bait = getattr(self, "index_bait", 0) + baited
        guarded = baited and self.has("indexing") and self.chance(50)
        refused = not guarded and self.has("jax_refusals") and bool(self.visible(scope, VECTORS)) and self.chance(50)
        try:
            body = self.guarded_lookup(scope) if guarded else self.refused_first(scope, ctx) if refused \
                else self.body_that_may_exit(scope, ctx)
        finally:
            self.index_bait -= baited
        lines = ["try:"] + indent(body.lines)
        if not (body.exits or guarded or refused or self.chance(50)):
            return self.with_finally(lines, scope, body, ctx, required=True, handled=False)
        # A handler around a refusal exits where it can: the result then shows that it ran.
        handler = (self.allowed_exit(ctx, scope) if refused else self.exit_statement(ctx, scope)) or "pass"
        handlers = _CATCHING_REFUSALS if refused else _HANDLED[1:] if baited else _HANDLED
        lines += [self.pick(handlers)] + indent([handler])
        if not body.exits and self.chance(60):
            body = self.body_that_may_exit(body.scope, ctx)
            lines += ["else:"] + indent(body.lines)
        # The handler never runs, but the converter allows for it: the try exits (returns) on every
        # path only if the handler exits (returns) too.
        body = dataclasses.replace(body, exits=body.exits and handler != "pass",
                                   returns=body.returns and handler.startswith("return"))
        # A `finally` that exits would hide whether the handler around a refusal ran: it assigns then.
        return self.with_finally(lines, scope, body, ctx, required=False, handled=handler == "pass", may_exit=not refused)

    def refused_first(self, scope: Scope, ctx: Ctx) -> Block:
        """A statement JAX refuses when its value is traced, then statements that may exit: under ``jit``
        a handler that caught JAX's error would skip them, where eager Python runs them all."""
        refusal = self.stmt_jax_refusal(scope, ctx)
        rest = self.body_that_may_exit(refusal.scope, ctx)
        return dataclasses.replace(rest, lines=refusal.lines + rest.lines)

    def guarded_lookup(self, scope: Scope) -> Block:
        """``if c: v = TABLE[2] ... else: v = e``, the table two long (or a NumPy table indexed by a
        float, ``TABLE[e]``): the first branch raises ``IndexError`` wherever eager Python takes it, for the handler around it (a traced ``if`` traces
        it whatever ``c`` is, and its error must not reach the handler then)."""
        self.used.add("indexing")
        floats = [v.name for v in scope.defined.values() if v.kind == "local" and v.type == "f"]
        name = self.pick(floats) if floats else self.fresh("v")  # a variable read later, where one is at hand
        if self.chance(50):  # a NumPy table indexed by a float: NumPy's IndexError for any value
            self.module_parts.setdefault("numpy", "import numpy as np")
            table = self.module_constant("TABLE", "np.array([1.5, -2.0])")
            lookup = f"{table}[{self.small(self.floated(self.expr('f', scope), 'f'), CLIP).text}]"
        else:
            lookup = f"{self.module_constant('TABLE', '(1.5, -2.0)')}[2]"
        other = self.clip(self.floated(self.expr("f", scope), "f"), self.clip_above)
        lines = [f"if {self.condition(scope).text}:", f"    {name} = {lookup} * 1.0", "else:", f"    {name} = {other.text}"]
        after = scope.copy()
        after.define(Var(name, "f", max(other.bound, 2.0, scope.defined[name].bound if name in floats else 0.0)))
        return Block(lines, after)

    def with_finally(
        self, lines: list[str], before: Scope, last: Block, ctx: Ctx, required: bool, handled: bool,
        may_exit: bool = True,
    ) -> Block:
        """``lines`` (a ``try`` and its clauses) and a ``finally`` if ``required``, or by chance.

        ``last`` is the body or the ``else``, whichever ran last. ``handled``: a handler that does not
        exit may resume after the ``try`` from any point of the body, so what the body first assigned is
        bound on some paths only; otherwise every path past the ``try`` ran the whole body (Python's
        rule, which the converter's analysis follows). The ``finally`` reads only what was bound before
        the ``try`` (it also runs after an exit part way through the body): it assigns a new variable,
        or, if ``may_exit``, exits under a condition.
        """
        if handled:
            last = dataclasses.replace(last, scope=self.first_assigned_maybe(before, last.scope))
        if not required and not self.chance(40):
            return Block(lines, last.scope, last.exits, last.returns)
        exit_line = self.allowed_exit(ctx, before) if may_exit and self.chance(40) else None
        if exit_line is not None:
            final = [f"if {self.condition(before).text}:"] + indent([exit_line])
            returns = last.returns and exit_line.startswith("return")
            return Block(lines + ["finally:"] + indent(final), last.scope, last.exits, returns)
        assigned = self.stmt_assign_new(before, ctx)
        scope = last.scope.copy()  # the converter's analysis takes what a `finally` assigns for maybe assigned
        for name in set(assigned.scope.defined) - set(before.defined):
            scope.maybe[name] = assigned.scope.defined[name]
        return Block(lines + ["finally:"] + indent(assigned.lines), scope, last.exits, last.returns)

    @staticmethod
    def first_assigned_maybe(before: Scope, after: Scope) -> Scope:
        """``after`` with the names the statement first assigned bound on some paths only: an exception
        may skip their assignment in Python (a handler or a suppressing context manager resumes after
        the statement), which the converter's analysis allows for (docs/semantics.md)."""
        scope = after.copy()
        for name in set(scope.defined) - set(before.defined):
            scope.maybe[name] = scope.defined.pop(name)
        return scope

    def body_that_may_exit(self, scope: Scope, ctx: Ctx) -> Block:
        """Statements with, often, an exit among them: at the end, or under a condition with more
        statements after it (which the converter must guard); the block's own ``if`` arms may exit too."""
        inner = dataclasses.replace(ctx, depth=ctx.depth + 1)
        body = self.block(scope, inner, 2)
        exit_line = None if body.exits or not self.chance(70) else self.allowed_exit(ctx, body.scope)
        if exit_line is None:
            return body
        if self.chance(30):
            return Block(body.lines + [exit_line], body.scope, True, exit_line.startswith("return"))
        guarded = [f"if {self.condition(body.scope).text}:"] + indent([exit_line])
        rest = self.block(body.scope, inner, 2)
        returns = rest.returns and exit_line.startswith("return")
        return Block(body.lines + guarded + rest.lines, rest.scope, rest.exits, returns)

    def allowed_exit(self, ctx: Ctx, scope: Scope) -> str | None:
        """An exit the features allow here, or None: ``exit_statement`` drawn until it gives one."""
        for _ in range(4):
            exit_line = self.exit_statement(ctx, scope)
            if exit_line is not None:
                return exit_line
        return None

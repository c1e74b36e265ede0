"""The first pass: reject what cannot be converted, with the user's file and line, before rewriting."""

from __future__ import annotations

from collections.abc import Callable

import gast

from ..analysis import NameScanner, declared_outer
from ..analysis.blocks import child_nodes, child_statements, contains
from ..dispatch import DispatchByClass
from ..errors import Location, UnsupportedSyntaxError
from .facts import ScopeFacts

# Builtins that read the calling function's locals by their names: the most positional arguments with
# which they still do (eval / exec given a namespace of their own read that instead).
_FRAME_READERS = {"locals": 0, "vars": 0, "eval": 1, "exec": 1}
_OWN_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    """Raise ``UnsupportedSyntaxError`` for the first unsupported construct in ``function``.

    Expressions are searched only in a generator, for its ``yield``: elsewhere they can hold nothing
    this pass rejects (``await`` and ``async`` forms outside ``async def`` do not even compile), and
    the ``while`` tests that may hold a walrus are checked directly. Nothing changes the tree here,
    so the scanner remembers what each statement writes (enclosing statements ask again).
    """
    body = _own_body(function)
    if facts.may_read_frame:
        _refuse_frame_reads(body, facts)
    checker = _Checker(facts.locate, declared_outer(body), facts.is_generator, facts.names.remembering())
    for statement in body:
        checker.visit(statement)
        # The early-exit pass moves what follows a statement that may return into a branch.
        checker.after_early_return = checker.after_early_return or contains([statement], gast.Return)
    return facts


def _own_body(function: gast.AST) -> list[gast.AST]:
    return function.body if isinstance(function.body, list) else [function.body]


def _refuse_frame_reads(body: list[gast.AST], facts: ScopeFacts) -> None:
    """Refuse the first ``locals()``, ``vars()``, ``eval(text)`` or ``exec(text)`` of the scope's own code.

    They read the function's locals by their names, which no analysis sees: a name assigned in a
    branch or loop and read only through them stays in the helper that assigned it (``locals()['a']``
    gave the value from before the loop), inside a helper they see the helper's locals (a KeyError),
    and anywhere they would show the converter's own names. Nested scopes are checked on their own.
    """
    found = []
    pending = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, gast.Call) and _reads_the_frame(node, facts.local_names):
            found.append(node)
        if not isinstance(node, _OWN_SCOPES):
            pending.extend(child_nodes(node))
    if found:
        call = min(found, key=lambda node: (node.lineno, node.col_offset))
        name = call.func.id
        written = f"{name}()" if name in ("locals", "vars") else f"{name}(...)"
        hint = ("Write the values out by name instead: an f-string (f\"scale={scale}\") or a dict "
                "({\"scale\": scale}) in place of locals()." if name in ("locals", "vars") else
                f"Write the expression as code (x * scale), or give {name} the names it needs in a dict of its "
                f"own: {name}(text, {{\"scale\": scale}}).")
        raise UnsupportedSyntaxError(
            f"`{written}` reads the function's local variables by their names, which a converted function "
            "cannot give: its `if`, `for` and `while` statements run in generated helper functions, which "
            "pass on only the variables that the code reads by name, and whose locals are not the function's",
            facts.locate(call), hint,
        )


def _reads_the_frame(call: gast.Call, local_names: frozenset[str]) -> bool:
    """``locals()``, ``vars()``, ``eval(text)``, ``exec(text)``: a builtin (no local of that name) that
    reads the caller's locals, given no namespace of its own (or arguments unpacked, which may give none)."""
    if not isinstance(call.func, gast.Name) or call.func.id not in _FRAME_READERS or call.func.id in local_names:
        return False
    if any(isinstance(a, gast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return True
    namespaces = len(call.args) + sum(keyword.arg in ("globals", "locals") for keyword in call.keywords)
    return namespaces <= _FRAME_READERS[call.func.id]


class _Checker(DispatchByClass, gast.NodeVisitor):
    def __init__(
        self, locate: Callable[[gast.AST], Location], outer_names: set[str], search_expressions: bool, names: NameScanner
    ) -> None:
        self.locate = locate
        self.names = names
        self.outer_names = outer_names
        self.search_expressions = search_expressions
        self.control_depth = 0
        self.after_early_return = False  # a statement before this one in the function body may return

    def generic_visit(self, node: gast.AST) -> None:
        if self.search_expressions:
            super().generic_visit(node)
        else:
            for statement in child_statements(node):
                self.visit(statement)

    def fail(self, node: gast.AST, message: str, hint: str) -> None:
        raise UnsupportedSyntaxError(message, self.locate(node), hint)

    def visit_FunctionDef(self, node: gast.FunctionDef) -> None:
        return  # nested functions are converted on their own when called

    visit_Lambda = visit_ClassDef = visit_FunctionDef

    def visit_AsyncFunctionDef(self, node: gast.AsyncFunctionDef) -> None:
        self.fail(node, f"'async def {node.name}' cannot be converted", "jax.jit traces synchronous code only.")

    def visit_Yield(self, node: gast.Yield | gast.YieldFrom) -> None:
        self.fail(
            node, "a generator (`yield`) cannot be converted",
            "jax.jit needs a function that returns its result; collect the values in a list or an "
            "array and return it.",
        )

    visit_YieldFrom = visit_Yield

    def visit_Await(self, node: gast.Await) -> None:
        self.fail(node, "`await` cannot be converted", "jax.jit traces synchronous code only.")

    def visit_AsyncFor(self, node: gast.AsyncFor | gast.AsyncWith) -> None:
        self.fail(node, "`async for` cannot be converted", "Use a plain `for` loop.")

    visit_AsyncWith = visit_AsyncFor

    def visit_If(self, node: gast.If) -> None:
        # A walrus in an `if` test is fine: the test is evaluated in the function's own scope.
        self._control_flow(node)

    def visit_While(self, node: gast.While) -> None:
        if self.names.may_have_walrus:  # without `:=` in the source text, no test holds a walrus
            self._reject_walrus(node.test)
        self._control_flow(node)

    def visit_For(self, node: gast.For) -> None:
        self._control_flow(node)

    def _control_flow(self, node: gast.AST) -> None:
        for name in sorted(self._writes(node) & self.outer_names if self.outer_names else ()):
            self.fail(
                node,
                f"'{name}' is declared global or nonlocal and assigned inside this "
                f"{type(node).__name__.lower()} statement; a staged branch or loop cannot write "
                "variables outside the function",
                f"Return the new value of '{name}' from the function and assign it at the call site.",
            )
        self.control_depth += 1
        self.generic_visit(node)
        self.control_depth -= 1

    def _writes(self, node: gast.If | gast.While | gast.For) -> set[str]:
        """The names a branch or loop assigns (only looked for when the function declares names
        global or nonlocal, which few do)."""
        writes = self.names.writes(node.body) | self.names.writes(node.orelse)
        if isinstance(node, gast.For):
            writes |= self.names.writes(node.target)
        return writes

    def visit_Delete(self, node: gast.Delete) -> None:
        names = [t.id for t in node.targets if isinstance(t, gast.Name)]
        if self.control_depth and names:
            self.fail(
                node,
                f"`del {', '.join(names)}` inside a branch or loop cannot be converted: a staged "
                "statement must leave every carried variable bound",
                f"Assign {names[0]} = None instead, or move the `del` after the statement.",
            )
        if self.after_early_return and names:
            self.fail(
                node,
                f"`del {', '.join(names)}` after a statement that may `return` early cannot be converted: "
                "the code after an early return runs in a branch of a staged statement, which must "
                "leave every carried variable bound",
                f"Assign {names[0]} = None instead, or move the `del` before the statement that returns.",
            )

    def _reject_walrus(self, test: gast.AST) -> None:
        for inner in gast.walk(test):
            if isinstance(inner, gast.NamedExpr):
                self.fail(
                    inner,
                    "an assignment expression (`:=`) in the test of a `while` loop cannot be converted: "
                    "a staged loop evaluates its test in a function of its own, where the name would "
                    "not reach the loop body",
                    f"Assign {inner.target.id} before the loop and again at the end of its body, and "
                    f"test {inner.target.id} in the `while`.",
                )

"""``raise``, ``assert``, ``warnings.warn`` and ``try`` handlers, made ready for run-time checks.

Whether a ``raise`` sits in staged code is known only at trace time, so every one goes through the
runtime, which stages it as a check or hands the exception back for Python to raise as written
(``runtime.raises``):

    raise ValueError(f"bad {x}")       raise _ag.raise_(ValueError(_ag.format_string('bad {}', x)))
    assert x > 0, f"bad {x}"           assert _ag.assert_(x > 0, lambda: ...format_string...), <as before>
    warnings.warn(msg, Category)       _ag.warn(warnings.warn, msg, Category)
    try: body / except E: ...          try: with _ag.handling(lambda: (E,)): body / except E: ...

The statement stays a ``raise`` / ``assert``, so on the concrete path Python raises from the user's
line (and ``python -O`` still drops asserts). A message formatted from traced values is kept as
deferred text for the check (the assert's own message, raised by Python on a concrete failure, keeps
``format_message``, which needs its text at once). The ``with`` around a ``try`` body records what its
handlers catch, so that a staged check they would have to catch is refused with the user's line.
The early-exit pass's re-raise is left alone; its catch-all ``try`` around a ``try`` whose ``finally``
may exit (which drops a pending exception, as Python's does) records that it catches everything.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import gast

from ..analysis.blocks import SCOPES, TRY_STATEMENTS, blocks_of
from ..generated_names import PREFIX
from . import nodes
from .facts import ScopeFacts

# The operators that may stage a run-time check, whose exception ``autograph_lite.jit`` then raises
# as eager Python would (``conversion.stages_checks``): those this pass writes calls to, and the read
# of a name that may be unbound (the unbound-reads pass), which a loop with a traced trip count may
# leave unbound at run time.
CHECK_OPERATORS = frozenset({"raise_", "assert_", "warn", "ld"})

# The builtins that the calls pass routes through ``_ag.call`` and that stage no check; ``range`` only
# with two arguments at most (a traced step of zero is eager's ``ValueError`` at run time).
# ``int`` is not among them: of a traced float it checks for a NaN, an infinity or a number past the
# int's range (runtime.builtins).
_BUILTINS_WITHOUT_CHECKS = frozenset({"print", "min", "max", "sum", "any", "all", "bool",
                                      "enumerate", "zip", "range"})
# Methods of Python's containers, taken for them (``trace.append(x)``): a user's method of one of these
# names that raises under a traced condition reaches the caller as JAX's error (docs/semantics.md).
_CONTAINER_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "copy", "index",
                                "count", "get", "keys", "values", "items", "update", "setdefault", "add",
                                "discard"})


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    if isinstance(function, gast.FunctionDef):  # a lambda holds no statement
        function.body = _block(function.body)
    return facts


def _block(statements: list[gast.stmt]) -> list[gast.stmt]:
    result: list[gast.stmt] = []
    for statement in statements:
        if isinstance(statement, SCOPES):
            result.append(statement)  # nested functions were rewritten on their own
            continue
        for block in blocks_of(statement):
            block[:] = _block(block)
        result.append(_statement(statement))
    return result


def _statement(node: gast.stmt) -> gast.stmt:
    if isinstance(node, gast.Raise) and node.exc is not None and not _generated(node.exc):
        arguments = [_deferred(node.exc)] + ([node.cause] if node.cause is not None else [])
        node.exc, node.cause = nodes.runtime_call("raise_", arguments, node.lineno), None
    elif isinstance(node, gast.Assert):
        arguments = [node.test] + ([nodes.lazy(_deferred(copy.deepcopy(node.msg)))] if node.msg is not None else [])
        node.test = nodes.runtime_call("assert_", arguments, node.lineno)
    elif isinstance(node, gast.Expr) and isinstance(node.value, gast.Call) and _may_warn(node.value):
        call = node.value
        callee, arguments = nodes.users_call(call)
        node.value = nodes.runtime_call("warn", [callee, *arguments], call.lineno, call.keywords)
    elif isinstance(node, TRY_STATEMENTS) and node.handlers:
        caught = nodes.tuple_of([h.type or nodes.name("BaseException", h.lineno) for h in node.handlers], node.lineno)
        node.body = [_with(nodes.runtime_call("handling", [nodes.lazy(caught)], node.lineno), node.body, node)]
        for handler in node.handlers:
            _let_conversion_errors_through(handler)
    if isinstance(node, TRY_STATEMENTS) and node.finalbody:
        return _cleaned_up(node)
    return node


def _cleaned_up(node: gast.Try | gast.TryStar) -> gast.With:
    """``with _ag.cleanup_region(): try: ... finally: with _ag.cleaning_up(): <finally block>``: what the
    ``finally`` prints comes out when a check staged in the body fails (``runtime.cleanups``)."""
    line = node.lineno
    node.finalbody = [_with(nodes.runtime_call("cleaning_up", [], line), node.finalbody, node)]
    return _with(nodes.runtime_call("cleanup_region", [], line), [node], node)


def _with(context: gast.expr, body: list[gast.stmt], at: gast.stmt) -> gast.With:
    """``with <context>: <body>``, placed on the first line of the statement ``at``."""
    statement = gast.With(items=[gast.withitem(context_expr=context, optional_vars=None)], body=body, type_comment=None)
    statement.lineno, statement.col_offset = at.lineno, at.col_offset
    statement.end_lineno, statement.end_col_offset = at.lineno, at.col_offset
    return statement


def _let_conversion_errors_through(handler: gast.ExceptHandler) -> None:
    """Start the clause with ``_ag.not_for_handlers(<the exception>)`` (naming it if it had no name)."""
    line = handler.lineno
    if handler.name is None:
        handler.name = nodes.name(f"{PREFIX}handled_L{line}", line, store=True)
    check = nodes.runtime_call("not_for_handlers", [nodes.name(handler.name.id, line)], line)
    handler.body = [nodes.expression_statement(check, line)] + handler.body


def _deferred(expression: gast.expr) -> gast.expr:
    """``expression`` with its exception-message f-strings kept as deferred text for a run-time check."""
    for node in gast.walk(expression):
        if isinstance(node, gast.Call) and nodes.runtime_operator(node.func) == "format_message":
            node.func.attr = "format_string"
    return expression


def _may_warn(call: gast.Call) -> bool:
    """A call that may be ``warnings.warn`` (the runtime checks which function it is)."""
    callee, _ = nodes.users_call(call)
    return (isinstance(callee, gast.Attribute) and callee.attr == "warn") or (
        isinstance(callee, gast.Name) and callee.id == "warn")


def _generated(expression: gast.expr) -> bool:
    return isinstance(expression, gast.Name) and expression.id.startswith(PREFIX)



def may_reach_check(function: gast.AST, defined_outside: Callable[[str], bool]) -> bool:
    """Whether tracing the rewritten ``function`` may stage a run-time check that its own code does not
    hold: a call of another function (a user function is converted when the call is traced, after
    ``autograph_lite.jit`` returned, and may raise under a traced condition), an index into a Python
    list or a store into an array item (out of range: ``IndexError``), a ``range`` whose step may be a
    traced zero, ``int()`` (of a traced NaN, infinity or number past the int's range), ``int()`` / ``float()`` of a traced complex
    in a staged branch (Python's TypeError, where eager runs it), a lazy operand of ``and`` / ``or`` (an error
    of Python's it raises after a traced operand). A builtin's name
    stands for the builtin unless ``defined_outside(name)`` (a global or a cell of that name) or the
    function binds that name itself."""
    bound: set[str] = set()
    named_calls: list[gast.Call] = []  # decided once every binding is known
    for node in gast.walk(function):
        _note_binding(node, bound)
        if not isinstance(node, gast.Call) or not isinstance(node.func, gast.Attribute):
            continue
        if nodes.runtime_operator(node.func) in ("getitem", "setitem", "and_", "or_"):
            return True  # an index past the end, read or stored; a lazy operand's error (logic._evaluated_anyway)
        callee, _ = nodes.users_call(node)
        if callee is not node.func:  # _ag.call(f, ...), or _ag.call_for_effect(effect, f, ...)
            if isinstance(callee, gast.Name):
                named_calls.append(node)
            elif _call_may_check(node, None):
                return True
    for call in named_calls:
        name = nodes.users_call(call)[0].id
        if _call_may_check(call, None if name in bound or defined_outside(name) else name):
            return True
    return False


def _call_may_check(call: gast.Call, builtin: str | None) -> bool:
    """Whether ``_ag.call(callee, ...)`` may stage a check (``builtin``: the builtin the callee names)."""
    callee, arguments = nodes.users_call(call)
    if isinstance(callee, gast.Lambda):
        return False  # its body is part of the function's rewrite, walked with it
    if isinstance(callee, gast.Attribute) and callee.attr in _CONTAINER_METHODS:
        return False
    if builtin not in _BUILTINS_WITHOUT_CHECKS:
        return True
    if any(keyword.arg in ("key", None) for keyword in call.keywords):
        return True  # a key function is a call of another function
    return builtin == "range" and (len(arguments) > 2 or any(isinstance(a, gast.Starred) for a in arguments))


def _note_binding(node: gast.AST, bound: set[str]) -> None:
    """Add the name ``node`` binds, if any (an assignment target, a parameter, a def, an import), to ``bound``."""
    if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
        bound.add(node.id)
    elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
        bound.add(node.name)
    elif isinstance(node, gast.alias):
        bound.add((node.asname or node.name).split(".")[0])

"""``return``, ``break`` and ``continue`` rewritten into assignments, so that staged helpers can hold them.

A staged branch or loop body is a function that returns its carried names; a user's ``return`` or
``break`` cannot stay inside it. Two rewrites, the simplest that fits:

**Lifting** (``return`` inside ``if`` branches only). The code after an ``if`` whose one branch always
returns runs only in the other branch, so it is moved there; a final ``return`` is copied into
branches that fall through (only one copy runs). Every return then ends a path and becomes
``_ag_retval = value``, returned once at the end: one ``lax.cond``, no flag.

**Flags** (everything else). ``break`` / ``continue`` set a per-loop flag (``_ag_break_L12``,
``_ag_continue_L12``) and ``return`` sets ``_ag_returned``; the statements after one that may have
exited are guarded by ``if not flag:``; a ``while`` test becomes ``not flag and not not test`` (the
test's truth, which is all Python's ``while`` takes of it: a flag staged at run time could not choose
between itself and a list or an array), and a ``for`` loop gets a *stop test* (see below) that the
loop operator checks before each iteration.
A loop's ``else`` runs under ``if not break_flag:``. The flags are ordinary variables: concrete ones
keep Python's control flow, traced ones become ``lax.cond`` / loop-carried booleans.

**Exits in ``with`` and ``try``** always take flags (lifting would move code across the statement's
boundary). The statement itself stays Python, run once at trace time, so ``__enter__`` / ``__exit__``
run and exceptions propagate as in Python; only its blocks are rewritten, with Python's rules: what
follows an exit in its block and after the statement is guarded; a ``try``'s ``else`` runs only if
the body set no flag (it completed normally); ``finally`` runs on every path, unguarded. A
``finally`` that may exit becomes plain statements after a ``try`` that catches any exception: the
flags it may set start cleared (its own guards see its own exits only), and its exit replaces what
was pending, as in Python (a ``return`` there overrides a pending return, a ``break`` a pending
return, either discards a pending exception, which is raised again only if it did not exit).

The stop tests are not in the tree (a ``for`` statement has no place for one): they are a fact for
the later passes, ``ScopeFacts.stop_tests``. On its own, the rewritten tree runs as the original
where a loop honours its stop test, checking it after taking each item and stopping when it is false.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable

import gast

from ..analysis import blocks
from ..errors import Location, UnsupportedSyntaxError
from ..generated_names import PREFIX, RETURN_VALUE, RETURNED
from . import nodes
from .exit_paths import EXITS, LOOPS, always_exits, always_returns, contains, contains_own
from .facts import ExitBranch, ScopeFacts


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    """Rewrite ``function`` in place; the facts returned hold the stop test of each ``for`` loop that
    needs one."""
    if isinstance(function, gast.Lambda) or not _needs_rewrite(function.body):
        return facts
    stop_tests: dict[gast.For, gast.expr] = {}
    exit_branches: dict[gast.If, ExitBranch] = {}
    function.body = _rewrite_body(list(function.body), _Found(facts.locate, stop_tests, exit_branches))
    return facts.with_stop_tests(stop_tests).with_exit_branches(exit_branches)


@dataclasses.dataclass(frozen=True)
class _Found:
    """Where the rewrite reports: how to locate a node, and the facts it records for later passes."""

    locate: Callable[[gast.AST], Location]
    stop_tests: dict[gast.For, gast.expr]
    # Each `if` one of whose branches now holds the statements that followed an exit (see ExitBranch).
    exit_branches: dict[gast.If, ExitBranch]


def _rewrite_body(body: list[gast.stmt], found: _Found) -> list[gast.stmt]:
    """The function's new body: lifted returns where they suffice, flags otherwise."""
    if _has_nested_return(body) and not always_returns(body):
        line = _last_line(body)
        body.append(nodes.return_statement(nodes.constant(None, line), line))
    if not _has_nested_return(body):
        return _Flags(found, return_flag=False).block(body, None)
    lifted = _lift(copy.deepcopy(body))
    if not _any_loop_exit(lifted) and _returns_only_at_path_ends(lifted):
        body = _Flags(found, return_flag=False).block(_assign_returns(lifted), None)
        return body + [_return_statement(body)]
    flags = _Flags(found, return_flag=True)
    body = nodes.assign_constant(RETURNED, False, body[0].lineno) + flags.block(body, None)
    return body + [_return_statement(body)]


# --- lifting -------------------------------------------------------------------------------------


def _lift(statements: list[gast.stmt]) -> list[gast.stmt]:
    """Move the statements after a returning ``if`` into the branches that fall through."""
    result: list[gast.stmt] = []
    for index, statement in enumerate(statements):
        result.append(statement)
        if isinstance(statement, gast.Return):
            return result  # anything after it is unreachable
        if not (isinstance(statement, gast.If) and contains(statement, gast.Return)):
            continue
        rest = statements[index + 1:]
        body_returns, orelse_returns = always_returns(statement.body), always_returns(statement.orelse)
        if rest and not body_returns and not orelse_returns:
            if not (len(rest) == 1 and isinstance(rest[0], gast.Return)):
                result.extend(rest)  # not liftable: the flag rewrite will take it
                return result
            statement.body = statement.body + [copy.deepcopy(rest[0])]
            statement.orelse = statement.orelse + [copy.deepcopy(rest[0])]
        elif rest and body_returns and not orelse_returns:
            statement.orelse = statement.orelse + rest
        elif rest and orelse_returns and not body_returns:
            statement.body = statement.body + rest
        statement.body = _lift(statement.body)
        statement.orelse = _lift(statement.orelse)
        return result
    return result


def _returns_only_at_path_ends(statements: list[gast.stmt]) -> bool:
    for index, statement in enumerate(statements):
        last = index == len(statements) - 1
        if isinstance(statement, gast.If):
            if contains(statement, gast.Return) and not (
                last and _returns_only_at_path_ends(statement.body) and _returns_only_at_path_ends(statement.orelse)
            ):
                return False
        elif contains(statement, gast.Return) and not (last and isinstance(statement, gast.Return)):
            return False
    return True


def _assign_returns(statements: list[gast.stmt]) -> list[gast.stmt]:
    """Replace the return that ends each path with ``_ag_retval = value``."""
    if not statements:
        return statements
    last = statements[-1]
    if isinstance(last, gast.Return):
        return statements[:-1] + _store_return_value(last)
    if isinstance(last, gast.If):
        last.body = _assign_returns(last.body)
        last.orelse = _assign_returns(last.orelse)
    return statements


# --- flags ---------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _LoopFlags:
    break_flag: str | None
    continue_flag: str | None


class _Flags:
    """Rewrites exits into flag assignments and guards what follows them."""

    def __init__(self, found: _Found, return_flag: bool) -> None:
        self.locate = found.locate
        self.stop_tests = found.stop_tests
        self.exit_branches = found.exit_branches
        self.return_flag = return_flag

    def block(self, statements: list[gast.stmt], loop: _LoopFlags | None) -> list[gast.stmt]:
        result: list[gast.stmt] = []
        for index, statement in enumerate(statements):
            exits, always = self.flags_set_by(statement, loop), always_exits([statement])
            rest = statements[index + 1:]
            branch = _into_the_branch_that_falls_through(statement, rest) if exits and rest else None
            if branch is not None:
                self.exit_branches[statement] = ExitBranch(branch, _exit_words(exits))
                return result + self.statement(statement, loop)
            result.extend(self.statement(statement, loop))
            if always:
                return result  # anything after it is unreachable
            if exits and rest:
                guard = _guard(exits, rest[0].lineno, self.block(rest, loop))
                self.exit_branches[guard] = ExitBranch("true", _exit_words(exits))
                result.append(guard)
                return result
        return result

    def statement(self, node: gast.stmt, loop: _LoopFlags | None) -> list[gast.stmt]:
        if isinstance(node, gast.Return) and self.return_flag:
            return _store_return_value(node) + nodes.assign_constant(RETURNED, True, node.lineno)
        if isinstance(node, (gast.Break, gast.Continue)):
            # Reached only inside the loop the exit belongs to, which made a flag for it.
            assert loop is not None
            flag = loop.break_flag if isinstance(node, gast.Break) else loop.continue_flag
            assert flag is not None
            return nodes.assign_constant(flag, True, node.lineno)
        if isinstance(node, gast.If):
            node.body = self.block(node.body, loop) or [nodes.pass_statement(node.lineno)]
            node.orelse = self.block(node.orelse, loop)
            return [node]
        if isinstance(node, LOOPS):
            return self.loop(node, loop)
        if isinstance(node, gast.With):
            node.body = self.block(node.body, loop) or [nodes.pass_statement(node.lineno)]
            return [node]
        if isinstance(node, blocks.TRY_STATEMENTS):
            return self.try_statement(node, loop)
        if self.flags_set_by(node, loop):
            raise UnsupportedSyntaxError(
                f"`return` / `break` / `continue` inside a `{type(node).__name__.lower()}` statement "
                "cannot be converted",
                self.locate(node),
                "Move the exit out of the statement: set a flag inside it and act on the flag after it.",
            )
        return [node]

    def try_statement(self, node: gast.Try | gast.TryStar, loop: _LoopFlags | None) -> list[gast.stmt]:
        """Flags in every block of a Python ``try``; its ``else`` runs only if the body set none."""
        pending = set().union(*(self.flags_set_by(s, loop) for s in node.body + node.handlers + node.orelse))
        final_exits = set().union(*(self.flags_set_by(s, loop) for s in node.finalbody))
        body_exits = set().union(*(self.flags_set_by(s, loop) for s in node.body))
        node.body = self.block(node.body, loop) or [nodes.pass_statement(node.lineno)]
        for handler in node.handlers:
            handler.body = self.block(handler.body, loop) or [nodes.pass_statement(handler.lineno)]
        orelse = self.block(node.orelse, loop)
        if orelse and body_exits:
            orelse = [_guard(body_exits, node.orelse[0].lineno, orelse)]
        node.orelse = orelse
        finalbody = self.block(node.finalbody, loop)
        if not final_exits:
            node.finalbody = finalbody
            return [node]
        node.finalbody = []
        return _exiting_finally(node, finalbody, pending, final_exits)

    def loop(self, node: gast.For | gast.While, outer: _LoopFlags | None) -> list[gast.stmt]:
        line = node.lineno
        flags = _LoopFlags(
            break_flag=f"{PREFIX}break_L{line}" if contains_own(node.body, gast.Break) else None,
            continue_flag=f"{PREFIX}continue_L{line}" if contains_own(node.body, gast.Continue) else None,
        )
        stops = [flags.break_flag] if flags.break_flag else []
        if self.return_flag and contains(node, gast.Return):
            stops.append(RETURNED)
        node.body = self.block(node.body, flags)
        if flags.continue_flag:
            node.body = nodes.assign_constant(flags.continue_flag, False, line) + node.body
        if stops:
            keep_going = nodes.none_of(stops, line)
            if isinstance(node, gast.While):
                node.test = nodes.both(keep_going, nodes.truth(node.test, line), line)
            else:
                self.stop_tests[node] = keep_going
        after = self.block(node.orelse, outer)
        if after and stops:
            after = [_guard(set(stops), node.orelse[0].lineno, after)]
        node.orelse = []
        before = nodes.assign_constant(flags.break_flag, False, line) if flags.break_flag else []
        return before + [node] + after

    def flags_set_by(self, node: gast.AST, loop: _LoopFlags | None) -> set[str]:
        """The flags that ``node`` may set, seen from the block that holds it."""
        flags: set[str] = set()
        if self.return_flag and contains(node, gast.Return):
            flags.add(RETURNED)
        if loop is not None:
            if loop.break_flag and contains_own([node], gast.Break):
                flags.add(loop.break_flag)
            if loop.continue_flag and contains_own([node], gast.Continue):
                flags.add(loop.continue_flag)
        return flags


def _into_the_branch_that_falls_through(statement: gast.stmt, rest: list[gast.stmt]) -> str | None:
    """Move ``rest`` into the one branch of an ``if`` that may fall through, when the other always exits:
    only that branch reaches it. No flag guards it then, and what that branch assigns is bound there
    (a guard after the ``if`` would read it where the exiting branch left it unbound). The branch
    (``"true"`` / ``"false"``) it went to, or None."""
    if not isinstance(statement, gast.If):
        return None
    body_exits, orelse_exits = always_exits(statement.body), always_exits(statement.orelse)
    if body_exits and not orelse_exits:
        statement.orelse = statement.orelse + rest
        return "false"
    if orelse_exits and not body_exits and statement.orelse:
        statement.body = statement.body + rest
        return "true"
    return None


def _exit_words(flags: set[str]) -> str:
    """The exits that ``flags`` stand for, as the user wrote them: "`break`", "`break` / `return`"."""
    kinds = {"`return`" if flag == RETURNED else "`break`" if flag.startswith(f"{PREFIX}break") else "`continue`"
             for flag in flags}
    return " / ".join(sorted(kinds))


def _guard(flags: set[str], line: int, body: list[gast.stmt]) -> gast.If:
    return nodes.if_statement(nodes.none_of(sorted(flags), line), body or [nodes.pass_statement(line)], line)


def _exiting_finally(
    node: gast.Try | gast.TryStar, finalbody: list[gast.stmt], pending: set[str], final_exits: set[str]
) -> list[gast.stmt]:
    """A ``finally`` that may exit, as plain statements after the ``try``.

    Its exit replaces whatever was pending, as in Python: the exits the other blocks set (their flags
    are cleared) and an exception, which is caught here and raised again only if the block did not
    exit. The flags it may set start cleared, so that its own guards see its own exits only.
    """
    line = node.lineno
    caught, exception = f"{PREFIX}caught_L{line}", f"{PREFIX}exception_L{line}"
    exited = f"{PREFIX}finally_exited_L{line}"
    inner = [node] if node.handlers else node.body
    handler = _placed(gast.ExceptHandler(type=nodes.name("BaseException", line), name=nodes.name(caught, line, store=True),
                                         body=[nodes.assign(exception, nodes.name(caught, line), line)]), line)
    result = nodes.assign_constant(exception, None, line)
    result.append(_placed(gast.Try(body=inner, handlers=[handler], orelse=[], finalbody=[]), line))
    overridden = sorted(pending & final_exits)
    for flag in overridden:
        result.append(nodes.assign(_before(flag, line), nodes.name(flag, line), line))
        result.extend(nodes.assign_constant(flag, False, line))
    result.extend(finalbody)
    any_final_exit = nodes.none_of(sorted(final_exits), line).operand  # `a or b`, without the `not`
    result.append(nodes.assign(exited, any_final_exit, line))
    for flag in sorted(pending):
        still_pending = nodes.both(nodes.name(_before(flag, line) if flag in final_exits else flag, line),
                                   _negated(nodes.name(exited, line), line), line)
        value = _placed(gast.BoolOp(op=gast.Or(), values=[nodes.name(flag, line), still_pending]), line)
        result.append(nodes.assign(flag, value if flag in final_exits else still_pending, line))
    raised = _placed(gast.Compare(left=nodes.name(exception, line), ops=[gast.IsNot()],
                                  comparators=[nodes.constant(None, line)]), line)
    reraise = _placed(gast.Raise(exc=nodes.name(exception, line), cause=None), line)
    test = nodes.both(raised, _negated(nodes.name(exited, line), line), line)
    return result + [nodes.if_statement(test, [reraise], line)]


def _before(flag: str, line: int) -> str:
    return f"{flag}_before_L{line}"


def _negated(expression: gast.expr, line: int) -> gast.expr:
    return _placed(gast.UnaryOp(op=gast.Not(), operand=expression), line)


def _placed(node: gast.AST, line: int) -> gast.AST:
    """``node`` at ``line``, as the builders in ``nodes`` place what they make."""
    node.lineno = node.end_lineno = line
    node.col_offset = node.end_col_offset = 0
    return node


# --- shared helpers ------------------------------------------------------------------------------


def _store_return_value(node: gast.Return) -> list[gast.stmt]:
    value = node.value or nodes.constant(None, node.lineno)
    return [nodes.assign(RETURN_VALUE, value, node.lineno)]


def _return_statement(body: list[gast.stmt]) -> gast.stmt:
    line = _last_line(body)
    return nodes.return_statement(nodes.name(RETURN_VALUE, line), line)


def _needs_rewrite(body: list[gast.stmt]) -> bool:
    """A nested ``return`` (``_has_nested_return``) or any ``break`` / ``continue``, found in one walk."""
    own = (statement for statement in body if not isinstance(statement, gast.Return))
    return any(isinstance(node, EXITS) for statement in own for node in blocks.statements_within([statement]))


def _has_nested_return(body: list[gast.stmt]) -> bool:
    """A ``return`` inside any compound statement (``if``, loops, ``with``, ``try``)."""
    return any(not isinstance(s, gast.Return) and contains(s, gast.Return) for s in body)


def _any_loop_exit(body: list[gast.stmt]) -> bool:
    return any(isinstance(n, LOOPS) and contains(n, gast.Return) for n in blocks.statements_within(body))


def _last_line(statements: list[gast.stmt]) -> int:
    return getattr(statements[-1], "end_lineno", None) or statements[-1].lineno

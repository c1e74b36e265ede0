"""``match`` statements become an ``if`` / ``else`` chain, so that every later pass sees plain ``if``s.

The subject is evaluated once, into ``_ag_subject_L<line>``; each case becomes one ``if`` at its
pattern's line, the next cases its ``else``. A pattern the chain can test directly keeps Python's
own test, which a traced subject stages as ``lax.cond`` like any ``if``:

    case 0:          ->  if subject == 0:            (a literal or dotted value: Python's ``==``)
    case None:       ->  if subject is None:         (``None`` / ``True`` / ``False``: Python's ``is``)
    case 1 | 2:      ->  if subject == 1 or subject == 2:
    case 1 as n:     ->  if subject == 1: n = subject; ...
    case n:          ->  else: n = subject; ...      (a capture or ``_``: the final ``else``)
    case P if g:     ->  if (test of P) and g:

Any other case (a class, sequence or mapping pattern, a capture inside ``|``, a refutable pattern
with both a capture and a guard, where Python binds the capture before the guard fails) is tested by
Python's own ``match`` in a generated helper, ``_ag_case_L<line>``, which returns the captured
values (or ``None``: no match); the guard and the body still run in the chain, so a traced guard
stages. ``_ag.match_pattern`` calls the helper and refuses a traced value that the pattern would
have to look at, with the case's location. With no ``match`` left, the analysis, the early exits
(``return`` / ``break`` / ``continue`` in a case) and the staging apply to cases as to branches.
"""

from __future__ import annotations

import dataclasses

import gast

from ..analysis.blocks import SCOPES, blocks_of, statements_within
from ..analysis.cells import cell_names
from ..generated_names import PREFIX
from . import nodes
from .facts import ScopeFacts

# Sub-patterns that look at the value they meet (compare it, or ask its class); the others only
# take it apart, which gives a traced array the answer eager Python gives a concrete one.
_TESTING_PATTERNS = (gast.MatchValue, gast.MatchSingleton, gast.MatchClass)
_PATTERN_KINDS = {
    gast.MatchClass: "a class pattern", gast.MatchSequence: "a sequence pattern",
    gast.MatchMapping: "a mapping pattern",
}


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    """Rewrite every ``match`` of ``function``'s own scope; the facts returned count the names the cases
    capture as the locals Python makes them (the names a pattern binds are no assignment targets, so
    the facts found before the passes miss them), and as cells when a nested function reads them."""
    if not isinstance(function, gast.FunctionDef):
        return facts
    matches = [node for node in statements_within(function.body) if isinstance(node, gast.Match)]
    if not matches:
        return facts
    captured = frozenset().union(*(_captured_names(case.pattern) for node in matches for case in node.cases))
    if captured - facts.assigned:
        # On the tree as written: the pattern helpers made below bind the captures as locals of their own.
        assigned = facts.assigned | captured
        cells = facts.cells | cell_names(function, facts.parameters | assigned, facts.names)
        facts = dataclasses.replace(facts, assigned=assigned, cells=cells)
    function.body = _rewrite_block(function.body)
    return facts


def _rewrite_block(statements: list[gast.stmt]) -> list[gast.stmt]:
    """``statements`` with every ``match`` in them rewritten, inner ones (in case bodies) first."""
    result: list[gast.stmt] = []
    for statement in statements:
        if not isinstance(statement, SCOPES):  # a nested function is converted as its own scope
            for inner in blocks_of(statement):  # a match's case bodies included
                inner[:] = _rewrite_block(inner)
        result.extend(_rewrite_match(statement) if isinstance(statement, gast.Match) else [statement])
    return result


def _rewrite_match(node: gast.Match) -> list[gast.stmt]:
    subject = f"{PREFIX}subject_L{node.lineno}"
    rest: list[gast.stmt] = []
    helpers: list[gast.stmt] = []
    for case in reversed(node.cases):
        test = _direct_test(case.pattern, subject)
        if test is not None and case.guard is not None and test.capture and test.condition is not None:
            test = None  # Python binds the capture before the guard, even when the guard fails
        if test is None:
            helper, rest = _tested_in_python(case, subject, rest)
            helpers.insert(0, helper)
        else:
            rest = _tested_directly(case, test, subject, rest)
    return helpers + [nodes.assign(subject, node.subject, node.lineno)] + rest


def _tested_directly(
    case: gast.match_case, test: _Test, subject: str, rest: list[gast.stmt]
) -> list[gast.stmt]:
    """The chain from ``case`` on, when the chain itself tests its pattern."""
    line = case.pattern.lineno
    binds = [nodes.assign(test.capture, nodes.name(subject, line), line)] if test.capture else []
    condition = test.condition
    if case.guard is not None:
        condition = case.guard if condition is None else nodes.both(condition, case.guard, line)
    if condition is None:
        return binds + case.body  # irrefutable, with no guard: Python makes it the last case
    if test.condition is None:
        return binds + [_if(condition, case.body, rest, line)]  # `case n if g`: n is bound first
    return [_if(condition, binds + case.body, rest, line)]


def _tested_in_python(
    case: gast.match_case, subject: str, rest: list[gast.stmt]
) -> tuple[gast.FunctionDef, list[gast.stmt]]:
    """The helper that tests ``case``'s pattern with Python's ``match``, and the chain from it on.

    The helper's answer is concrete, so the ``if`` on it is Python's. With a guard and captures, the
    guard is evaluated where the captures are bound, into ``_ag_guard_L<line>``, and the body binds
    them again: the analysis cannot see that a true guard implies a match, and would take the body's
    reads of the captures for reads of names that may be unassigned.
    """
    line = case.pattern.lineno
    captures = tuple(sorted(_captured_names(case.pattern)))
    helper_name, bound, guard = (f"{PREFIX}{what}_L{line}" for what in ("case", "bound", "guard"))
    looks_at_parts = any(isinstance(p, _TESTING_PATTERNS) for p in _sub_patterns(case.pattern))
    call = nodes.runtime_call("match_pattern", [
        nodes.name(helper_name, line), nodes.name(subject, line),
        nodes.constant(_describe(case.pattern), line), nodes.constant(looks_at_parts, line),
    ], line)
    chain: list[gast.stmt] = [nodes.assign(bound, call, line)]
    binds = [nodes.assign(nodes.names(captures, line, store=True), nodes.name(bound, line), line)] if captures else []
    if case.guard is None:
        chain.append(_if(_is_not_none(bound, line), binds + case.body, rest, line))
    elif not captures:
        chain.append(_if(nodes.both(_is_not_none(bound, line), case.guard, line), case.body, rest, line))
    else:
        chain += nodes.assign_constant(guard, False, line)
        chain.append(_if(_is_not_none(bound, line), binds + [nodes.assign(guard, case.guard, line)], [], line))
        binds_again = [nodes.assign(nodes.names(captures, line, store=True), nodes.name(bound, line), line)]
        chain.append(_if(nodes.name(guard, line), binds_again + case.body, rest, line))
    return _pattern_helper(helper_name, case.pattern, captures, line), chain


@dataclasses.dataclass(frozen=True)
class _Test:
    """How the chain tests a pattern: ``condition`` (``None``: always matches) and the name it binds."""

    condition: gast.expr | None
    capture: str | None = None


def _direct_test(pattern: gast.pattern, subject: str) -> _Test | None:
    """The chain's test of ``pattern`` on the subject, or ``None`` when Python's ``match`` must test it."""
    if isinstance(pattern, gast.MatchAs):
        if pattern.pattern is None:
            return _Test(None, pattern.name)
        inner = _direct_test(pattern.pattern, subject)
        if inner is None or inner.capture is not None:
            return None
        return _Test(inner.condition, pattern.name)
    alternatives = pattern.patterns if isinstance(pattern, gast.MatchOr) else [pattern]
    conditions: list[gast.expr] = []
    for alternative in alternatives:
        if isinstance(alternative, gast.MatchAs) and alternative.pattern is None and alternative.name is None:
            return _Test(None)  # `... | _` always matches
        condition = _value_test(alternative, subject)
        if condition is None:
            return None
        conditions.append(condition)
    if len(conditions) == 1:
        return _Test(conditions[0])
    return _Test(_placed(gast.BoolOp(op=gast.Or(), values=conditions), pattern.lineno))


def _value_test(pattern: gast.pattern, subject: str) -> gast.expr | None:
    """``subject == value`` / ``subject is value`` for a value or singleton pattern (Python's tests)."""
    line = pattern.lineno
    if isinstance(pattern, gast.MatchValue):
        operator: gast.cmpop = gast.Eq()
        value = pattern.value
    elif isinstance(pattern, gast.MatchSingleton):
        operator, value = gast.Is(), nodes.constant(pattern.value, line)
    else:
        return None
    return _placed(gast.Compare(left=nodes.name(subject, line), ops=[operator], comparators=[value]), line)


def _pattern_helper(name: str, pattern: gast.pattern, captures: tuple[str, ...], line: int) -> gast.FunctionDef:
    """``def name(_ag_subject): match _ag_subject: case pattern: return (captures...)`` / ``return None``.

    Inside the helper the captures are renamed ``_ag_capture_<name>``: a pattern binds names that are
    no assignment targets, so the analysis would take the helper's reads of the user's names for reads
    of the enclosing function's variables (and carry them through every loop around the ``match``).
    """
    renamed = {capture: f"{PREFIX}capture_{capture}" for capture in captures}
    for node in gast.walk(pattern):
        for field in ("name", "rest"):
            if getattr(node, field, None) in renamed:
                setattr(node, field, renamed[getattr(node, field)])
    parameter = f"{PREFIX}subject"
    found = nodes.return_statement(nodes.names(renamed.values(), line), line)
    case = gast.match_case(pattern=pattern, guard=None, body=[found])
    statement = _placed(gast.Match(subject=nodes.name(parameter, line), cases=[case]), line)
    return nodes.helper(name, (parameter,), [statement], nodes.constant(None, line), line)


def _if(test: gast.expr, body: list[gast.stmt], orelse: list[gast.stmt], line: int) -> gast.If:
    statement = nodes.if_statement(test, body, line)
    statement.orelse = orelse
    return statement


def _is_not_none(name: str, line: int) -> gast.expr:
    return _placed(gast.Compare(left=nodes.name(name, line), ops=[gast.IsNot()], comparators=[nodes.constant(None, line)]), line)


def _sub_patterns(pattern: gast.pattern) -> list[gast.pattern]:
    """The patterns nested in ``pattern`` (not itself): they meet the parts of the subject."""
    return [node for node in gast.walk(pattern) if isinstance(node, gast.pattern) and node is not pattern]


def _captured_names(pattern: gast.pattern) -> set[str]:
    """The names a pattern binds: captures, ``*rest`` and a mapping's ``**rest``."""
    names: set[str] = set()
    for node in gast.walk(pattern):
        for field in ("name", "rest"):
            value = getattr(node, field, None)
            if isinstance(value, str):
                names.add(value)
    return names


def _describe(pattern: gast.pattern) -> str:
    """What in ``pattern`` needs Python's ``match``, for the error a traced subject gets."""
    if isinstance(pattern, gast.MatchAs) and pattern.pattern is not None:
        if _direct_test(pattern.pattern, "") is not None:
            return "a capture (`as`) together with a guard"
        return _describe(pattern.pattern)
    if isinstance(pattern, gast.MatchOr):
        for alternative in pattern.patterns:
            if _direct_test(alternative, "") is None:
                return _describe(alternative)
        return "an or-pattern that captures a name"
    return _PATTERN_KINDS[type(pattern)]


def _placed(node: gast.AST, line: int) -> gast.AST:
    node.lineno = node.end_lineno = line
    node.col_offset = node.end_col_offset = 0
    return node

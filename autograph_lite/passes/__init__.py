"""The rewrite, one concern per pass, in the order ``PASS_ORDER`` states with the reason for each place.

Every pass is ``transform(scope, facts) -> facts`` (``passes.facts``): it rewrites the scope in place
and returns what the passes after it know. Nested functions and lambdas are rewritten first, each as
a scope of its own, so that they work whoever calls them (``jax.vmap(lambda x: x if x > 0 else -x)``
included); then the passes run over the scope itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import gast

from ..analysis import NameScanner, analyze
from ..analysis.assigned_before_read import assigned_before_every_read
from ..analysis.blocks import child_nodes, contains
from ..source import ParsedFunction
from . import (
    attribute_stores,
    calls,
    conditionals,
    early_exits,
    fresh_values,
    fstrings,
    item_updates,
    list_appends,
    logical_expressions,
    loops,
    match_statements,
    outer_writes,
    plain_targets,
    raises,
    subscripts,
    unbound_reads,
    validate,
)
from .facts import ScopeFacts, scope_facts
from .statements import drop_redundant_binds

Pass = Callable[[gast.AST, ScopeFacts], ScopeFacts]

_SCOPES = (gast.FunctionDef, gast.Lambda)
_CARRYING = (gast.If, gast.While, gast.For)
_CARRYING_OR_RETURN = (*_CARRYING, gast.Return)


def find_placeholders(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    """Add the names every read of which finds them assigned (``analysis.assigned_before_read``).

    Only the statement passes read them, for an ``if`` / ``while`` / ``for``, and so does the check of
    unbound reads, through their analysis: a function without such a statement, now or from the
    early-exit pass (which makes ``if`` guards only around a ``return`` nested in a block: a ``break`` or
    ``continue`` needs a loop), needs none, and its search is skipped."""
    if not isinstance(function, gast.FunctionDef) or not any(
        not isinstance(statement, gast.Return) and contains([statement], _CARRYING_OR_RETURN)
        for statement in function.body
    ):
        return facts
    found = assigned_before_every_read(function, facts.names)
    return facts.with_placeholders(facts.placeholders | found)


def find_carried(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    """Add what each ``if`` / ``while`` / ``for`` carries (``analysis.analyze``); a lambda has none, and
    neither has a function without such a statement (a model's helpers often have none): its
    analysis, which finds nothing, is skipped."""
    if not isinstance(function, gast.FunctionDef) or not contains(function.body, _CARRYING):
        return facts
    test_reads = {loop: facts.names.reads(test) for loop, test in facts.stop_tests.items()}
    return facts.with_info(analyze(function, test_reads, facts.cells, facts.names))


PASS_ORDER: tuple[tuple[Pass, str], ...] = (
    (match_statements.transform, "before the validation, so that a case, which becomes an `if` branch, is checked "
                                 "as one; it makes only plain `if`s, assignments and pattern helpers, which every "
                                 "later pass already handles"),
    (validate.transform, "what cannot be converted is rejected, at the user's line, before anything else is "
                         "rewritten"),
    (plain_targets.transform, "right after the validation, which reports the user's statements as written: "
                              "before every pass that reads stores (the assignments it makes are the ones the "
                              "item updates and attribute stores rewrite)"),
    (find_placeholders, "on the program as written, with Python's own meaning of return, break, continue and "
                        "loop else, which the early-exit pass replaces with flags"),
    (outer_writes.transform, "before any pass generates helpers with `nonlocal` of their own"),
    (early_exits.transform, "first of the rewrites: the flags and the return value it introduces change which "
                            "names each statement carries"),
    (item_updates.transform, "after the early exits (a return in a loop is then an assignment to the return "
                             "value, which hands a container back), and before the analysis, so that the "
                             "container of `x[i] = v` is a name the statement writes"),
    (attribute_stores.transform, "next to the item updates, for the same reason as their checks: before the calls "
                                 "pass, which must leave the check alone, and before the statement passes, which "
                                 "move the statement into helpers"),
    (fresh_values.transform, "right after the attribute stores, whose in-place checks it marks where a local name "
                             "may hold a container from outside the function; it reads the item updates' "
                             "rebindings (x = _ag.setitem(x, ...)) as handing x back"),
    (list_appends.transform, "before the calls pass, which would make `ys.append(v)` a call through `_ag.call`"),
    (fstrings.transform, "before the logical-expression and statement passes: it enters neither lambdas nor "
                         "functions, and they move code into both"),
    (calls.transform, "before the logical-expression and statement passes, for the same reason as the "
                      "f-strings"),
    (subscripts.transform, "next to the calls, before the logical-expression and statement passes, for the "
                           "same reason as the f-strings; after the item updates, whose stores it leaves alone"),
    (logical_expressions.transform, "before the analysis, so that the lazy operands it wraps in lambdas are "
                                    "seen as reads; it rewrites the stop tests of `for` loops too"),
    (raises.transform, "after the expression passes, so that the message lambdas it makes hold rewritten "
                       "expressions, and before the analysis, which then sees the `with` it puts around a "
                       "`try` body"),
    (find_carried, "after every expression rewrite, before the statement passes, which need what each "
                   "statement carries"),
    (unbound_reads.transform, "before the statement passes, so that only the user's own reads are checked, "
                              "never the generated plumbing"),
    (conditionals.transform, "before the loops, so that a loop body's `if` is already a call when the loop "
                             "becomes helpers"),
    (loops.transform, "after the conditionals (see there); its `for` loops take their stop tests as helpers"),
    (drop_redundant_binds, "last: inside the helpers the statement passes made, a carried name is a parameter, "
                           "always bound"),
)


def rewrite(parsed: ParsedFunction, leave_call_as_is: Callable[[tuple[str, ...]], bool]) -> gast.AST:
    """Rewrite the parsed function (and the functions nested in it) in place; return its node.

    The ``is_generator`` and ``may_nest`` flags come from the compiled code, ``may_have_walrus``,
    ``may_format`` and ``may_read_frame`` from the source text: they spare walks over every expression
    looking for a ``yield``, a nested function, a walrus, an f-string or a ``locals()``. A nested
    scope's text is part of its parent's: it inherits the last three.
    """
    facts = scope_facts(
        parsed.node, names=NameScanner(may_have_walrus=parsed.may_have_walrus), locate=parsed.location,
        leave_call_as_is=leave_call_as_is, is_generator=parsed.is_generator, may_nest=parsed.may_nest,
        may_format=parsed.may_format, may_read_frame=parsed.may_read_frame,
    )
    _rewrite_scope(parsed.node, facts, parsed.may_nest)
    return parsed.node


def run_passes(scope: gast.AST, facts: ScopeFacts, passes: tuple[tuple[Pass, str], ...] = PASS_ORDER) -> ScopeFacts:
    """Run ``passes`` over ``scope`` (its nested scopes already rewritten); return the final facts."""
    for transform, _reason in passes:
        facts = transform(scope, facts)
    return facts


def _rewrite_scope(scope: gast.AST, facts: ScopeFacts, may_nest: bool) -> None:
    for nested in _nested_scopes(scope) if may_nest else ():
        _rewrite_nested(nested, facts)
    run_passes(scope, facts)


def _rewrite_nested(node: gast.AST, outer: ScopeFacts) -> None:
    """Rewrite a nested scope in place (its parent's facts were found before, on the tree as written);
    a nested generator stays as written (it is a Python iterator)."""
    if _is_generator(node):
        return
    facts = scope_facts(
        node, names=outer.names, locate=outer.locate, leave_call_as_is=outer.leave_call_as_is,
        enclosing_names=outer.local_names, may_format=outer.may_format,
        may_read_frame=outer.may_read_frame,
    )
    _rewrite_scope(node, facts, may_nest=True)


def _nested_scopes(function: gast.AST) -> Iterator[gast.AST]:
    """The functions and lambdas directly inside ``function``'s own scope (not inside classes)."""
    pending = child_nodes(function)
    while pending:
        node = pending.pop()
        if isinstance(node, _SCOPES):
            yield node
        elif not isinstance(node, (gast.ClassDef, gast.AsyncFunctionDef)):
            pending.extend(child_nodes(node))


def _is_generator(node: gast.AST) -> bool:
    pending = child_nodes(node)
    while pending:
        current = pending.pop()
        if isinstance(current, (gast.Yield, gast.YieldFrom)):
            return True
        if not isinstance(current, (*_SCOPES, gast.ClassDef, gast.AsyncFunctionDef)):
            pending.extend(child_nodes(current))
    return False

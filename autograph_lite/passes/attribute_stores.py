"""Before a statement that changes an attribute of an object, a check:

    self.count += 1   ->  _ag.check_attribute_assignment(lambda: self, 'self.count'); self.count += 1

A method or helper that changes an object (a counter on a module-level instance, a cache on a model)
and is called from a staged branch or loop body would run once while tracing, whatever the condition
or the trip count: the object would be left as after one run. The rewriter sees such a statement as
an effect only where it is written in the staged statement's own body; in a helper it is hidden from
the caller's rewrite. The check does nothing outside staged code (it does not even read the object,
so Python's order of evaluation is kept there), and inside it refuses a store into an object the
staged code did not make itself (``runtime.effects``), before the store happens.

Only an object that is a name or a chain of attributes of a name is checked, so that evaluating it
twice is harmless (``self``, ``TALLY``, ``self.state``); ``items[0].n = v`` is left without a check.
Assignments (``=``, augmented, annotated) and ``del`` are checked; nested functions and classes were
rewritten on their own (a class body is not rewritten).
"""

from __future__ import annotations

import gast

from ..analysis.blocks import SCOPES, blocks_of
from . import nodes
from .calls import dotted_name
from .facts import ScopeFacts

_STORES = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Delete)


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    if isinstance(function, gast.FunctionDef):
        _check_block(function.body)
    return facts


def _check_block(block: list[gast.stmt]) -> None:
    """Insert, in place, a check before each statement of ``block`` (and of its nested blocks) that
    changes an attribute of a name or of a chain of attributes."""
    checked: list[gast.stmt] = []
    for statement in block:
        if not isinstance(statement, SCOPES):
            for nested in blocks_of(statement):
                _check_block(nested)
        if isinstance(statement, _STORES):
            checked += _checks(statement)
        checked.append(statement)
    block[:] = checked


def _checks(statement: gast.stmt) -> list[gast.stmt]:
    """``_ag.check_attribute_assignment(owner, 'owner.attribute')`` for each attribute it stores into."""
    if isinstance(statement, (gast.Assign, gast.Delete)):
        targets = statement.targets
    elif isinstance(statement, gast.AnnAssign) and statement.value is None:
        return []  # an annotation alone assigns nothing
    else:
        targets = [statement.target]
    line = statement.lineno
    found = []
    for target in targets:
        for node in gast.walk(target):
            if isinstance(node, gast.Attribute) and isinstance(node.ctx, (gast.Store, gast.Del)):
                path = dotted_name(node.value)
                if path is not None:
                    owner = nodes.lazy(nodes.dotted_read(path, line))  # read only inside staged code
                    arguments = [owner, nodes.constant(".".join([*path, node.attr]), line)]
                    found.append(nodes.expression_statement(
                        nodes.runtime_call("check_attribute_assignment", arguments, line), line))
    return found


"""``while`` and ``for`` loops become helpers and one ``_ag.while_stmt`` / ``_ag.for_stmt`` call.

The helpers take and return the carried names, which map one-to-one onto the carry of
``lax.while_loop`` / ``fori_loop`` / ``scan``. A ``for`` body also takes the item first. (The calls
pass has already routed ``range`` / ``enumerate`` / ``zip`` through ``_ag.call``, so that traced
bounds and arrays stay visible to the loop operator.) A body's first side effect that staging cannot
reproduce is passed along, so that the runtime refuses to stage it. A ``for`` loop with a ``break`` or ``return``
also gets a stop-test helper (built by the early-exit pass). Its ``else`` clause was already moved
after it by that pass.
"""

from __future__ import annotations

import gast

from ..generated_names import PREFIX
from . import nodes
from .effects import first_effect
from .facts import ScopeFacts
from .statements import StatementPass, bind_before

ITEM = PREFIX + "item"


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    if isinstance(function, gast.FunctionDef):  # a lambda holds no statement
        _Loops(facts).run(function)
    return facts


class _Loops(StatementPass):
    def visit_While(self, node: gast.While) -> list[gast.stmt]:
        node.body = self._visit_block(node.body)
        orelse = self._visit_block(node.orelse)
        self.ensure_no_exits(node.body)
        info = self.info[node]
        carried = info.carried
        test_name, body_name = self.unique("while_test", node), self.unique("while_body", node)
        line = node.lineno
        helpers = [
            nodes.helper(test_name, carried, [], node.test, line, self.cells),
            nodes.helper(body_name, carried, node.body, nodes.names(carried, line), line, self.cells),
        ]
        arguments = [nodes.name(test_name, line), nodes.name(body_name, line),
                     nodes.names(carried, line), nodes.strings(carried, line)]
        call = nodes.runtime_call("while_stmt", arguments, line, _effect_keyword(node.body, line))
        return helpers + bind_before(info, carried, line, self.placeholders) + [
            nodes.assign_results(carried, call, line)
        ] + orelse

    def visit_For(self, node: gast.For) -> list[gast.stmt]:
        node.body = self._visit_block(node.body)
        orelse = self._visit_block(node.orelse)
        self.ensure_no_exits(node.body)
        info = self.info[node]
        carried = info.carried
        body_name = self.unique("for_body", node)
        bound_by_target = self.facts.names.target_names(node.target)
        simple_target = isinstance(node.target, gast.Name) and not (bound_by_target & set(carried))
        item = node.target.id if simple_target else ITEM
        line = node.lineno
        unpack = [] if simple_target else [nodes.assign(node.target, nodes.name(ITEM, line), line)]
        keywords = _effect_keyword(node.body, line)
        helpers = [nodes.helper(body_name, (item,) + carried, unpack + node.body, nodes.names(carried, line), line,
                                    self.cells)]
        stop_test = self.facts.stop_tests.get(node)
        if stop_test is not None:
            test_name = self.unique("for_test", node)
            helpers.insert(0, nodes.helper(test_name, carried, [], stop_test, line, self.cells))
            keywords.append(nodes.keyword("stop_test", nodes.name(test_name, line)))
        assigned_first = [
            n for n in carried if (n in info.unbound or n in info.maybe_unbound) and n not in info.live_into_body
        ]
        if assigned_first:
            keywords.append(nodes.keyword("assigned_first", nodes.strings(assigned_first, line)))
        arguments = [node.iter, nodes.name(body_name, line), nodes.names(carried, line),
                     nodes.strings(carried, line)]
        call = nodes.runtime_call("for_stmt", arguments, line, keywords)
        return helpers + bind_before(info, carried, line, self.placeholders) + [
            nodes.assign_results(carried, call, line)
        ] + orelse


def _effect_keyword(body: list[gast.stmt], line: int) -> list[gast.keyword]:
    effect = first_effect(body)
    return [nodes.keyword("effect", nodes.constant(effect, line))] if effect else []


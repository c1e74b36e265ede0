"""``if`` / ``elif`` / ``else`` statements become two branch helpers and one ``_ag.if_stmt`` call.

Each branch helper takes the carried names it may need and returns all carried names, so that the
call maps one-to-one onto ``lax.cond``. A carried name that both branches surely assign, and do not
read first, is not passed in: its value before the ``if`` cannot matter. A name a branch reads before
writing it but that nobody reads after the ``if`` is passed in and not returned, so that its type may
differ between the branches (as it may in Python).
"""

from __future__ import annotations

import gast

from ..analysis import NameScanner, surely_assigned
from . import nodes
from .effects import first_effect
from .facts import ScopeFacts
from .statements import StatementPass, bind_before


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    if isinstance(function, gast.FunctionDef):  # a lambda holds no statement
        _Conditionals(facts).run(function)
    return facts


class _Conditionals(StatementPass):
    def visit_If(self, node: gast.If) -> list[gast.stmt]:
        node.body = self._visit_block(node.body)
        node.orelse = self._visit_block(node.orelse)
        self.ensure_no_exits(node.body + node.orelse)
        info = self.info[node]
        carried = info.carried
        assigned_by_both = _assigned_by_both(node, self.facts.names)
        # A cell is passed in even when both branches assign it: a closure may read it before.
        inputs = tuple(n for n in carried if n not in assigned_by_both or n in info.live_into_body or n in self.cells)
        inputs += info.inputs_only  # read before written in a branch, but not needed after the `if`
        true_name, false_name = self.unique("if_true", node), self.unique("if_false", node)
        line = node.lineno
        helpers = [
            nodes.helper(
                name, inputs, body or [nodes.pass_statement(line)], nodes.names(carried, line), line, self.cells
            )
            for name, body in ((true_name, node.body), (false_name, node.orelse))
        ]
        effect = first_effect(node.body + node.orelse)
        arguments = [node.test, nodes.name(true_name, line), nodes.name(false_name, line),
                     nodes.names(inputs, line), nodes.strings(carried, line)]
        keywords = [nodes.keyword("effect", nodes.constant(effect, line))] if effect else []
        call = nodes.assign_results(carried, nodes.runtime_call("if_stmt", arguments, line, keywords), line)
        return helpers + bind_before(info, inputs, line, self.placeholders) + [call]


def _assigned_by_both(node: gast.If, names: NameScanner) -> frozenset[str]:
    body, orelse = surely_assigned(node.body, names), surely_assigned(node.orelse, names)
    if body is None:
        return orelse or frozenset()
    if orelse is None:
        return body
    return body & orelse

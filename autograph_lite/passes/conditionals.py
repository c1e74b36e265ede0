"""``if`` / ``elif`` / ``else`` statements become two branch helpers and one ``_ag.if_stmt`` call.

Each branch helper takes the carried names it may need and returns all carried names, so that the
call maps one-to-one onto ``lax.cond``. A carried name that both branches surely assign, and do not
read first, is not passed in: its value before the ``if`` cannot matter.
"""

from __future__ import annotations

import gast

from ..analysis import StatementInfo, surely_assigned
from . import templates
from .effects import first_effect
from .statements import StatementPass, bind_before


def transform(function: gast.AST, info: dict[gast.AST, StatementInfo], placeholders: frozenset[str], locate,
              cells: frozenset[str] = frozenset()) -> gast.AST:
    return _Conditionals(info, placeholders, locate, cells).run(function)


class _Conditionals(StatementPass):
    def visit_If(self, node: gast.If) -> list[gast.stmt]:
        node.body = self._visit_block(node.body)
        node.orelse = self._visit_block(node.orelse)
        self.ensure_no_exits(node.body + node.orelse)
        info = self.info[node]
        carried = info.carried
        assigned_by_both = _assigned_by_both(node)
        # A cell is passed in even when both branches assign it: a closure may read it before.
        inputs = tuple(n for n in carried if n not in assigned_by_both or n in info.live_into_body or n in self.cells)
        true_name, false_name = self.unique("if_true", node), self.unique("if_false", node)
        line = node.lineno
        helpers = [
            templates.helper(
                name, inputs, body or [templates.pass_statement(line)], templates.names(carried, line), line, self.cells
            )
            for name, body in ((true_name, node.body), (false_name, node.orelse))
        ]
        effect = first_effect(node.body + node.orelse)
        arguments = [node.test, templates.name(true_name, line), templates.name(false_name, line),
                     templates.names(inputs, line), templates.strings(carried, line)]
        keywords = [templates.keyword("effect", templates.constant(effect, line))] if effect else []
        call = templates.assign_results(carried, templates.runtime_call("if_stmt", arguments, line, keywords), line)
        return helpers + bind_before(info, inputs, line, self.placeholders) + [call]


def _assigned_by_both(node: gast.If) -> frozenset[str]:
    body, orelse = surely_assigned(node.body), surely_assigned(node.orelse)
    if body is None:
        return orelse or frozenset()
    if orelse is None:
        return body
    return body & orelse

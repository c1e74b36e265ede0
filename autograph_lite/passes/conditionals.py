"""``if`` / ``elif`` / ``else`` statements become two branch helpers and one ``_ag.if_stmt`` call.

Each branch helper takes the carried names it may need and returns all carried names, so that the
call maps one-to-one onto ``lax.cond``. A carried name that both branches surely assign, and do not
read first, is not passed in: its value before the ``if`` cannot matter. A name a branch reads before
writing it but that nobody reads after the ``if`` is passed in and not returned, so that its type may
differ between the branches (as it may in Python).

A chain that compares one name with integer constants (:mod:`.switches`) becomes one helper per
branch and one ``_ag.switch_stmt`` call instead, by the same rules over all its branches.
"""

from __future__ import annotations

import gast

from ..analysis import NameScanner, surely_assigned
from . import nodes
from .effects import first_effect
from .facts import ScopeFacts
from .statements import StatementPass, bind_before
from .switches import SwitchChain, switch_chain


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    if isinstance(function, gast.FunctionDef):  # a lambda holds no statement
        _Conditionals(facts).run(function)
    return facts


class _Conditionals(StatementPass):
    def visit_If(self, node: gast.If) -> list[gast.stmt]:
        chain = switch_chain(node)
        if chain is not None:
            return self._switch(node, chain)
        node.body = self._visit_block(node.body)
        node.orelse = self._visit_block(node.orelse)
        self.ensure_no_exits(node.body + node.orelse)
        info = self.info[node]
        carried = info.carried
        assigned_by_both = _assigned_by_all([node.body, node.orelse], self.facts.names)
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
        after_exit = self.facts.exit_branches.get(node)
        if after_exit is not None:  # for errors: a branch that holds the code after a `break` / `return`
            keywords.append(nodes.keyword("after_exit", nodes.strings((after_exit.branch, after_exit.exits), line)))
        call = nodes.assign_results(carried, nodes.runtime_call("if_stmt", arguments, line, keywords), line)
        return helpers + bind_before(info, inputs, line, self.placeholders) + [call]

    def _switch(self, node: gast.If, chain: SwitchChain) -> list[gast.stmt]:
        """One helper per branch (taking and returning what the whole chain carries) and one call."""
        blocks = chain.blocks
        for block in blocks:
            block[:] = self._visit_block(block)
        self.ensure_no_exits([statement for block in blocks for statement in block])
        info = self.info[node]  # the chain's first `if` holds the others: its analysis covers them all
        carried = info.carried
        assigned_by_all = _assigned_by_all(blocks, self.facts.names)
        inputs = tuple(n for n in carried if n not in assigned_by_all or n in info.live_into_body or n in self.cells)
        inputs += info.inputs_only
        names = [self.unique("if_true", test) for test in chain.tests] + [self.unique("if_false", chain.tests[-1])]
        lines = [test.lineno for test in chain.tests] + [chain.tests[-1].lineno]
        helpers = [
            nodes.helper(name, inputs, block or [nodes.pass_statement(line)], nodes.names(carried, line), line, self.cells)
            for name, block, line in zip(names, blocks, lines)
        ]
        line = node.lineno
        constants = nodes.tuple_of([nodes.tuple_of([_integer(c, line) for c in group], line) for group in chain.constants], line)
        arguments = [nodes.name(chain.subject, line), constants, nodes.tuple_of([nodes.name(n, line) for n in names], line),
                     nodes.names(inputs, line), nodes.strings(carried, line)]
        effects = [first_effect(block) for block in blocks]
        keywords = [nodes.keyword("statement", nodes.constant("`match`", line))] if chain.from_match else []
        if any(effects):
            keywords += [nodes.keyword("effect", nodes.constant(next(e for e in effects if e), line)),
                        nodes.keyword("branch_effects", nodes.tuple_of([nodes.constant(e, line) for e in effects], line))]
        call = nodes.assign_results(carried, nodes.runtime_call("switch_stmt", arguments, line, keywords), line)
        return helpers + bind_before(info, inputs, line, self.placeholders) + [call]


def _integer(value: int, line: int) -> gast.expr:
    """An int literal; a negative one as Python writes it, a unary minus."""
    if value >= 0:
        return nodes.constant(value, line)
    operand = nodes.constant(-value, line)
    return gast.UnaryOp(op=gast.USub(), operand=operand, lineno=line, end_lineno=line, col_offset=0, end_col_offset=0)


def _assigned_by_all(blocks: list[list[gast.stmt]], names: NameScanner) -> frozenset[str]:
    """The names every branch surely assigns; a branch that never completes (it raises) constrains nothing."""
    found = [assigned for assigned in (surely_assigned(block, names) for block in blocks) if assigned is not None]
    return frozenset.intersection(*found) if found else frozenset()

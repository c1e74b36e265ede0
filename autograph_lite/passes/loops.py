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

from ..analysis import StatementInfo, target_names
from . import templates
from .effects import first_effect
from .statements import StatementPass, assign_results, bind_before

ITEM = templates.PREFIX + "item"


def transform(
    function: gast.AST,
    info: dict[gast.AST, StatementInfo],
    placeholders: frozenset[str],
    stop_tests: dict[gast.For, gast.expr],
    locate,
) -> gast.AST:
    return _Loops(info, placeholders, stop_tests, locate).run(function)


class _Loops(StatementPass):
    def __init__(self, info, placeholders: frozenset[str], stop_tests: dict[gast.For, gast.expr], locate):
        super().__init__(info, placeholders, locate)
        self.stop_tests = stop_tests

    def visit_While(self, node: gast.While) -> list[gast.stmt]:
        node.body = self._visit_block(node.body)
        orelse = self._visit_block(node.orelse)
        self.ensure_no_exits(node.body)
        info = self.info[node]
        carried = info.carried
        test_name, body_name = self.unique("while_test", node), self.unique("while_body", node)
        params, results = ", ".join(carried), templates.name_tuple(carried)
        helpers = templates.statements(
            f"""
            def {test_name}({params}):
                return __test__
            def {body_name}({params}):
                __body__
                return {results}
            """,
            node.lineno,
            __test__=node.test,
            __body__=node.body,
        )
        effect = first_effect(node.body)
        call = templates.statements(
            f"{assign_results(carried)}{templates.RUNTIME}.while_stmt({test_name}, {body_name}, "
            f"{results}, {templates.string_tuple(carried)}{f', effect={effect!r}' if effect else ''})",
            node.lineno,
        )
        return helpers + bind_before(info, carried, node.lineno, self.placeholders) + call + orelse

    def visit_For(self, node: gast.For) -> list[gast.stmt]:
        node.body = self._visit_block(node.body)
        orelse = self._visit_block(node.orelse)
        self.ensure_no_exits(node.body)
        info = self.info[node]
        carried = info.carried
        body_name = self.unique("for_body", node)
        bound_by_target = target_names(node.target)
        simple_target = isinstance(node.target, gast.Name) and not (bound_by_target & set(carried))
        item = node.target.id if simple_target else ITEM
        unpack = [] if simple_target else templates.statements(f"__target__ = {ITEM}", node.lineno, __target__=node.target)
        effect = first_effect(node.body)
        options = f", effect={effect!r}" if effect else ""
        params, results = ", ".join((item,) + carried), templates.name_tuple(carried)
        helpers = templates.statements(
            f"""
            def {body_name}({params}):
                __body__
                return {results}
            """,
            node.lineno,
            __body__=unpack + node.body,
        )
        if node in self.stop_tests:
            test_name = self.unique("for_test", node)
            helpers = templates.statements(
                f"""
                def {test_name}({", ".join(carried)}):
                    return __test__
                """,
                node.lineno,
                __test__=self.stop_tests[node],
            ) + helpers
            options += f", stop_test={test_name}"
        call = templates.statements(
            f"{assign_results(carried)}{templates.RUNTIME}.for_stmt(__iter__, {body_name}, {results}, "
            f"{templates.string_tuple(carried)}{options})",
            node.lineno,
            __iter__=node.iter,
        )
        return helpers + bind_before(info, carried, node.lineno, self.placeholders) + call + orelse


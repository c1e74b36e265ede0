"""``while`` and ``for`` loops become helpers and one ``_ag.while_stmt`` / ``_ag.for_stmt`` call.

The helpers take and return the carried names, which map one-to-one onto the carry of
``lax.while_loop`` / ``fori_loop`` / ``scan``. A ``for`` body also takes the item first. In the
iterable position, ``range`` / ``enumerate`` / ``zip`` calls go through ``_ag.call`` so that traced
bounds and arrays stay visible to the loop operator. A ``for`` loop with a ``break`` or ``return``
also gets a stop-test helper (built by the early-exit pass). Its ``else`` clause was already moved
after it by that pass.
"""

from __future__ import annotations

import gast

from ..analysis import StatementInfo, target_names
from . import templates
from .statements import StatementPass, assign_results, bind_before

ITEM = templates.PREFIX + "item"
_OPEN_BUILTINS = ("range", "enumerate", "zip")


def transform(
    function: gast.AST,
    info: dict[gast.AST, StatementInfo],
    placeholders: frozenset[str],
    stop_tests: dict[gast.For, gast.expr],
) -> gast.AST:
    return _Loops(info, placeholders, stop_tests).run(function)


class _Loops(StatementPass):
    def __init__(self, info, placeholders: frozenset[str], stop_tests: dict[gast.For, gast.expr]):
        super().__init__(info, placeholders)
        self.stop_tests = stop_tests

    def visit_While(self, node: gast.While) -> list[gast.stmt]:
        node.body = self._visit_block(node.body)
        orelse = self._visit_block(node.orelse)
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
        call = templates.statements(
            f"{assign_results(carried)}{templates.RUNTIME}.while_stmt({test_name}, {body_name}, "
            f"{results}, {templates.string_tuple(carried)})",
            node.lineno,
        )
        return helpers + bind_before(info, carried, node.lineno, self.placeholders) + call + orelse

    def visit_For(self, node: gast.For) -> list[gast.stmt]:
        node.body = self._visit_block(node.body)
        orelse = self._visit_block(node.orelse)
        info = self.info[node]
        carried = info.carried
        body_name = self.unique("for_body", node)
        bound_by_target = target_names(node.target)
        simple_target = isinstance(node.target, gast.Name) and not (bound_by_target & set(carried))
        item = node.target.id if simple_target else ITEM
        unpack = [] if simple_target else templates.statements(f"__target__ = {ITEM}", node.lineno, __target__=node.target)
        options = ", has_effects=True" if _has_effects(node.body) else ""
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
            __iter__=_open_iterable(node.iter),
        )
        return helpers + bind_before(info, carried, node.lineno, self.placeholders) + call + orelse


def _staged_faithfully(call: gast.Call) -> bool:
    function = call.func
    if not (isinstance(function, gast.Attribute) and isinstance(function.value, gast.Name)):
        return False
    if function.value.id != templates.RUNTIME:
        return False
    if function.attr == "append":
        return True
    first = call.args[0] if call.args else None
    return function.attr == "call" and isinstance(first, gast.Name) and first.id == "print"


def _open_iterable(iterable: gast.expr) -> gast.expr:
    """``range(n)`` -> ``_ag.call(range, n)``, likewise ``enumerate`` and ``zip``."""
    if not (isinstance(iterable, gast.Call) and isinstance(iterable.func, gast.Name)):
        return iterable
    if iterable.func.id not in _OPEN_BUILTINS:
        return iterable
    call = templates.expression(f"{templates.RUNTIME}.call()", iterable.lineno)
    call.args = [iterable.func] + iterable.args
    call.keywords = iterable.keywords
    return call


def _has_effects(body: list[gast.stmt]) -> bool:
    """Whether the body visibly acts on the world outside its carried names.

    A call whose result is dropped is there for its effect; a store into an attribute or an item
    changes an object that outlives the iteration. Such a body is never traced aside to decide how
    to run the loop, so no effect runs twice. Two effects are staged faithfully and do not count:
    ``print`` (``jax.debug.print`` on traced values) and appends to an outer list (scan outputs).
    """
    for statement in body:
        for node in gast.walk(statement):
            if isinstance(node, gast.Expr) and isinstance(node.value, gast.Call) and not _staged_faithfully(node.value):
                return True
            if isinstance(node, (gast.Attribute, gast.Subscript)) and isinstance(node.ctx, gast.Store):
                return True
    return False

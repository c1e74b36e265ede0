"""Which ``if`` / ``elif`` chains compare one subject with integer constants (``_ag.switch_stmt``).

A chain such as ``if k == 0: ... elif k == 1: ... elif k == 2: ... else: ...`` (or a ``match`` on
integer literals, which the match pass has made such a chain) is nested ``_ag.if_stmt`` calls as an
ordinary ``if``, and so nested ``lax.cond``s: one comparison and one cond per test. As one
``_ag.switch_stmt`` call the runtime can, for a traced integer subject, compute the branch index in
a few equations and stage one ``lax.switch`` (:mod:`..runtime.switches`); for any other subject it
runs the same nested ``if_stmt`` calls the chain would have made.

Only tests that Python's chain evaluates against an unchanging value qualify: ``name == constant``
(the subject on the left, as written, and a name: reading it twice gives the same value, and never
runs code) and the match pass's ``name == 1 or name == 2`` (``case 1 | 2``). ``k in (1, 2)`` is left
a nested cond: its Python meaning (``is`` before ``==``, any container) is not a list of ``==``s.
"""

from __future__ import annotations

import dataclasses

import gast

from ..generated_names import PREFIX
from . import nodes

# Fewer tests stage at least as compactly as nested conds (one comparison and one cond each).
MINIMUM_TESTS = 3


@dataclasses.dataclass(frozen=True)
class SwitchChain:
    """An ``if`` chain that tests one subject against integer constants, one tuple per tested branch."""

    subject: str
    constants: tuple[tuple[int, ...], ...]
    tests: tuple[gast.If, ...]  # the ``if`` statement of each tested branch, in order
    default: list[gast.stmt]  # the final ``else`` block (empty when there is none)

    @property
    def from_match(self) -> bool:
        """Whether the match pass made the chain (its subject is the ``match``'s subject variable)."""
        return self.subject.startswith(f"{PREFIX}subject_L")

    @property
    def blocks(self) -> list[list[gast.stmt]]:
        """Every branch's statements, the tested ones in order, then the default."""
        return [test.body for test in self.tests] + [self.default]


def switch_chain(node: gast.If) -> SwitchChain | None:
    """The chain starting at ``node``, when it compares one name with distinct int constants at least
    ``MINIMUM_TESTS`` times; ``None`` otherwise (it stays nested ``if`` statements)."""
    tests: list[gast.If] = []
    groups: list[tuple[int, ...]] = []
    subject: str | None = None
    current: gast.stmt = node
    while isinstance(current, gast.If):
        tested = _tested(current.test)
        if tested is None or (subject is not None and tested[0] != subject):
            break
        subject = tested[0]
        tests.append(current)
        groups.append(tested[1])
        if len(current.orelse) != 1:
            break
        current = current.orelse[0]
    while len(tests) >= MINIMUM_TESTS and _repeats(groups):
        tests.pop()
        groups.pop()
    if subject is None or len(tests) < MINIMUM_TESTS:
        return None
    return SwitchChain(subject, tuple(groups), tuple(tests), tests[-1].orelse)


def _repeats(groups: list[tuple[int, ...]]) -> bool:
    flat = [value for group in groups for value in group]
    return len(set(flat)) != len(flat)


def _tested(test: gast.expr) -> tuple[str, tuple[int, ...]] | None:
    """``(subject, constants)`` for ``subject == c`` or ``_ag.or_(subject == c1, lambda: subject == c2)``."""
    if isinstance(test, gast.Compare):
        single = _compared(test)
        return None if single is None else (single[0], (single[1],))
    if not (isinstance(test, gast.Call) and nodes.runtime_operator(test.func) == "or_" and test.args and not test.keywords):
        return None
    operands = [test.args[0]] + [_lazy_body(argument) for argument in test.args[1:]]
    found = [_compared(operand) if isinstance(operand, gast.Compare) else None for operand in operands]
    if any(item is None for item in found) or len({item[0] for item in found if item}) != 1:
        return None
    pairs = [item for item in found if item is not None]
    return pairs[0][0], tuple(value for _, value in pairs)


def _compared(test: gast.Compare) -> tuple[str, int] | None:
    if len(test.ops) != 1 or not isinstance(test.ops[0], gast.Eq) or not isinstance(test.left, gast.Name):
        return None
    value = _int_constant(test.comparators[0])
    return None if value is None else (test.left.id, value)


def _int_constant(node: gast.expr) -> int | None:
    """The value of an ``int`` literal, negative ones (``-1``: a unary minus) included; never a bool."""
    sign = 1
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        sign, node = -1, node.operand
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def _lazy_body(argument: gast.expr) -> gast.expr | None:
    """The expression of ``lambda: expression``; ``None`` for anything else."""
    if isinstance(argument, gast.Lambda) and not argument.args.args:
        return argument.body
    return None

"""What the passes know about the scope they rewrite, in one value that every pass takes and returns.

Every pass is ``transform(scope, facts) -> facts``. A pass that finds something later passes need
(the placeholders, the stop tests of ``for`` loops, the analysis) returns new facts with it
(``facts.with_...``); the others return the facts they were given. The facts are frozen, so a pass
can rely on what it reads not changing behind its back; the passes that find them are in the order
of ``passes.PASS_ORDER``.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Mapping

import gast

from ..analysis import NameScanner, StatementInfo
from ..analysis.cells import cell_names
from ..analysis.names import parameter_names
from ..errors import Location
from ..generated_names import RETURN_VALUE

_NOTHING: Mapping = types.MappingProxyType({})
# The placeholders every scope starts with: the return value's.
_NO_PLACEHOLDERS = frozenset({RETURN_VALUE})


def _nothing() -> Mapping:
    """The empty, read-only mapping a fact starts as (a dataclass field needs a factory for it)."""
    return _NOTHING


@dataclasses.dataclass(frozen=True)
class ExitBranch:
    """The branch of an ``if`` that holds the statements after a ``break`` / ``continue`` / ``return``
    (moved there by the early-exit pass, or guarded by its flag): errors about that branch name the
    user's exit, not a branch the user did not write."""

    branch: str  # "true" or "false"
    exits: str  # the exits before it, as written: "`break`", "`break` / `return`"


@dataclasses.dataclass(frozen=True)
class ScopeFacts:
    """One scope (a ``def`` or a ``lambda``) of the function being converted, as the passes see it."""

    # How this conversion finds what syntax reads and writes; it knows whether the source may hold
    # a walrus (the walrus flag: without one, expressions bind no name).
    names: NameScanner
    # Where a node is in the user's file, for located errors.
    locate: Callable[[gast.AST], Location]
    # Whether a call to this dotted name stays as written (library code, classes).
    leave_call_as_is: Callable[[tuple[str, ...]], bool]
    parameters: frozenset[str]
    # The names the scope's body assigns (a lambda assigns none).
    assigned: frozenset[str]
    # The local names of the enclosing converted functions: a call to one of them is converted.
    enclosing_names: frozenset[str]
    # The locals a nested def or lambda refers to: helpers keep them in their cells.
    cells: frozenset[str]
    # Whether the scope's own code holds a ``yield`` (from the compiled code's flags).
    is_generator: bool
    # Whether the source text may hold an f-string: without one, the f-string pass is skipped.
    may_format: bool
    # Whether the source text may call locals / vars / eval / exec: without, validate's search is skipped.
    may_read_frame: bool
    # Found by the passes, in this order:
    # names that may start as zeros where unassigned, since every read follows an assignment;
    placeholders: frozenset[str] = _NO_PLACEHOLDERS
    # the stop test of each ``for`` loop with a ``break`` or ``return`` (the early-exit pass);
    stop_tests: Mapping[gast.For, gast.expr] = dataclasses.field(default_factory=_nothing)
    # the ``if`` statements one of whose branches holds what followed an exit (the early-exit pass);
    exit_branches: Mapping[gast.If, ExitBranch] = dataclasses.field(default_factory=_nothing)
    # what each ``if`` / ``while`` / ``for`` carries (the analysis; empty for a lambda).
    info: Mapping[gast.AST, StatementInfo] = dataclasses.field(default_factory=_nothing)

    def with_placeholders(self, placeholders: frozenset[str]) -> ScopeFacts:
        return self._with("placeholders", placeholders)

    # The two below keep the dict they are given, read-only: the caller hands it over.
    def with_stop_tests(self, stop_tests: dict[gast.For, gast.expr]) -> ScopeFacts:
        return self._with("stop_tests", types.MappingProxyType(stop_tests))

    def with_exit_branches(self, exit_branches: dict[gast.If, ExitBranch]) -> ScopeFacts:
        return self._with("exit_branches", types.MappingProxyType(exit_branches))

    def with_info(self, info: dict[gast.AST, StatementInfo]) -> ScopeFacts:
        return self._with("info", types.MappingProxyType(info))

    def _with(self, field: str, value: object) -> ScopeFacts:
        """``dataclasses.replace(self, field=value)`` without its per-field checks, which cost more than
        the smaller passes do (a fact is added a few times per converted function)."""
        facts = object.__new__(ScopeFacts)
        facts.__dict__.update(self.__dict__)
        facts.__dict__[field] = value
        return facts

    @property
    def own_names(self) -> frozenset[str]:
        """The scope's parameters and assigned names (the names later passes generate are not among them)."""
        return self.parameters | self.assigned

    @property
    def local_names(self) -> frozenset[str]:
        """Names bound in this scope or in an enclosing converted function."""
        return self.enclosing_names | self.own_names


def scope_facts(
    scope: gast.AST,
    *,
    names: NameScanner,
    locate: Callable[[gast.AST], Location],
    leave_call_as_is: Callable[[tuple[str, ...]], bool],
    enclosing_names: frozenset[str] = frozenset(),
    is_generator: bool = False,
    may_nest: bool = True,
    may_format: bool = True,
    may_read_frame: bool = True,
) -> ScopeFacts:
    """The facts of ``scope`` before any pass runs, found on the tree as the user wrote it.

    ``may_nest`` false (no nested code object) spares the search for closures.
    """
    assigned = frozenset(names.writes(scope.body)) if isinstance(scope, gast.FunctionDef) else frozenset()
    parameters = frozenset(parameter_names(scope.args))
    cells = cell_names(scope, parameters | assigned, names) if may_nest else frozenset()
    # ``ScopeFacts(...)`` with its defaults, its instance dict set at once: the frozen dataclass's own
    # ``__init__`` sets each of its thirteen fields through ``object.__setattr__``.
    facts = object.__new__(ScopeFacts)
    facts.__dict__.update(
        names=names, locate=locate, leave_call_as_is=leave_call_as_is, parameters=parameters, assigned=assigned,
        enclosing_names=enclosing_names, cells=cells, is_generator=is_generator, may_format=may_format,
        may_read_frame=may_read_frame,
        placeholders=_NO_PLACEHOLDERS, stop_tests=_NOTHING, exit_branches=_NOTHING, info=_NOTHING,
    )
    return facts

"""``if`` / ``elif`` chains and ``match`` statements that compare one subject with integer constants.

The rewrite (:mod:`..passes.switches`) makes such a chain one call, ``switch_stmt(subject,
constants, branches, ...)``: one tuple of constants per tested branch (``case 1 | 2`` has two), and
one more branch, the final ``else``. A traced integer scalar subject becomes one ``lax.switch``,
its index computed in a few equations (nested ``lax.cond``s: a comparison and a cond per test, one
after another). Every other subject (concrete, a float, a bool, an array) runs exactly the nested
``if_stmt`` calls the chain would be: Python's ``==`` in order for a concrete one (``1.0 == 1``
holds), a nested ``lax.cond`` per test for a traced one.

The switch adjusts its branches' outputs exactly as the nested conds would, so that its results
(values, dtypes, weak types) are theirs: a name that a branch leaves unassigned where no read can see
it starts as zeros there; a branch that raises at run time returns zeros (its check fires only when
the index selects it); a weakly typed Python scalar meeting another dtype is converted in each
branch through the dtypes the nested conds, innermost first, would convert it to. Any other
difference between the branches' outputs (a mismatch that must be reported, a read of an unassigned
name, a name bound only if a loop ran) stages the chain as the nested conds, with their adjustments and errors.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import UnassignedReadError
from . import report
from .carry import Carried, cond_tolerates, joined_dtype
from .carry_errors import Site
from .conditionals import if_stmt, refuse_effect, run_on_copies, settled, strong_beside, strongly_typed_where_a_branch_is
from .kept_containers import Fate
from .locations import location_of
from .logic import or_
from .narrow_numbers import cast_loses_value
from .path_constants import constants_of
from .paths import runs_when
from .raises import PathRaises, python_errors_at_run_time
from .values import Split, Undefined, is_traced
from .weak_types import cast_as_eager, python_bools_weak, zeros_of_type

Branch = Callable[..., tuple]


@dataclasses.dataclass(frozen=True)
class _Chain:
    """One chain: its constants per tested branch, its branches (the final ``else`` last), operands."""

    constants: tuple[tuple[int, ...], ...]
    branches: tuple[Branch, ...]
    operands: tuple
    names: tuple[str, ...]
    effects: tuple[str | None, ...]


def switch_stmt(
    subject: Any,
    constants: tuple[tuple[int, ...], ...],
    branches: tuple[Branch, ...],
    operands: tuple,
    names: tuple[str, ...],
    effect: str | None = None,
    branch_effects: tuple[str | None, ...] | None = None,
    statement: str = "`if` / `elif` chain",
) -> tuple:
    """Run the chain ``if subject == constants[0]...: branches[0] elif ...: ... else: branches[-1]``.

    ``effect`` is the first Python side effect in any branch, ``branch_effects`` each branch's own;
    ``statement`` names the chain in messages (a ``match`` is one too).
    """
    chain = _Chain(constants, branches, tuple(operands), names, branch_effects or (None,) * len(branches))
    if not _switchable(subject, constants):
        return _nested(subject, chain, 0)
    site = Site(statement, location_of(branches[0]))
    refuse_effect(effect, f"{site.construct} with a traced subject", "every branch is traced once", site.location)
    index = branch_index(subject, constants)
    outputs = _staged_switch(index, chain, site)
    if outputs is None:
        report.record(site, "nested lax.cond", "the subject is a traced integer, but the branches' outputs differ: "
                      "nested conds reconcile them pair by pair, as the chain is written")
        return _nested(subject, chain, 0)
    return outputs


def _switchable(subject: Any, constants: tuple[tuple[int, ...], ...]) -> bool:
    """A traced integer scalar whose dtype, and JAX's for a Python int, hold every constant (else ``==``
    fails, as ``m == 4294967295`` of a uint32 ``m`` does eagerly: the nested conds compare, and raise)."""
    if not is_traced(subject):
        return False
    kind = jax.typeof(subject)
    if kind.shape != () or not jnp.issubdtype(kind.dtype, jnp.integer):
        return False
    ints = jnp.iinfo(kind.dtype), jnp.iinfo(jnp.asarray(0).dtype)
    return all(max(i.min for i in ints) <= value <= min(i.max for i in ints) for group in constants for value in group)


def branch_index(subject: jax.Array, constants: tuple[tuple[int, ...], ...]) -> jax.Array:
    """The int32 index of the branch that ``subject`` takes: ``k + 1`` for ``constants[k]``, 0 for the
    final ``else``, which ``lax.switch`` takes first so that every value outside the constants is one
    clamp away from it.

    Constants ``lo, lo+1, ...`` in that order, on a subject of at most 32 bits: ``subject - lo + 1``
    clamped to ``[0, n + 1]``, with ``n + 1`` folded onto 0. In int32 arithmetic, which wraps:
    converting a subject of at most 32 bits to int32 keeps distinct values distinct, so the shifted
    value lands in ``[1, n]`` only for the constants. Any other constants: compared all at once.
    """
    flat = [value for group in constants for value in group]
    count = len(constants)
    dtype = jax.typeof(subject).dtype
    if all(len(group) == 1 for group in constants) and flat == list(range(flat[0], flat[0] + count)) \
            and np.dtype(dtype).itemsize <= 4:
        index = lax.convert_element_type(subject, np.int32)
        offset = _wrapped_int32(1 - flat[0])
        if offset:
            index = lax.add(index, offset)
        index = lax.clamp(np.int32(0), index, np.int32(count + 1))
        return lax.rem(index, np.int32(count + 1))
    positions = np.array([k + 1 for k, group in enumerate(constants) for _ in group], np.int32)
    hits = lax.eq(lax.broadcast(subject, (len(flat),)), np.array(flat, dtype))
    return lax.reduce_max(lax.select(hits, positions, np.zeros_like(positions)), (0,))


def _wrapped_int32(value: int) -> np.int32:
    """``value`` modulo 2**32, as the int32 two's complement arithmetic sees it."""
    return np.int32(np.array(value % 2**32, np.uint64).astype(np.uint32).view(np.int32))


def _nested(subject: Any, chain: _Chain, position: int) -> tuple:
    """The chain from test ``position`` on as the nested ``if_stmt`` calls it is short for."""
    group = chain.constants[position]
    condition = subject == group[0]
    if len(group) > 1:
        condition = or_(condition, *(_lazy_equals(subject, value) for value in group[1:]))
    rest_effects = [effect for effect in chain.effects[position:] if effect]
    later = chain.branches[position + 1]
    if position + 1 < len(chain.constants):
        later = _rest_of_chain(subject, chain, position + 1)
    return if_stmt(condition, chain.branches[position], later, chain.operands, chain.names,
                   rest_effects[0] if rest_effects else None)


def _lazy_equals(subject: Any, value: int) -> Callable[[], Any]:
    return lambda: subject == value


def _rest_of_chain(subject: Any, chain: _Chain, position: int) -> Branch:
    """The ``else`` of test ``position - 1``: the chain from ``position`` on.

    Error messages find where a branch assigns the return value by the code objects nested in it, as
    they would in the nested helper this stands for: the remaining branches' code is attached.
    """
    def rest(*operands: Any) -> tuple:
        return _nested(subject, dataclasses.replace(chain, operands=operands), position)

    nested_code = tuple(branch.__code__ for branch in chain.branches[position:])
    rest.__code__ = rest.__code__.replace(co_consts=rest.__code__.co_consts + nested_code)
    return rest


def _staged_switch(index: jax.Array, chain: _Chain, site: Site) -> tuple | None:
    """``lax.switch`` over the branches (the final ``else`` first), or ``None`` where it would not be
    exactly the nested conds: then the caller stages those.

    As in a staged ``if``: a name that a branch leaves unassigned where no read can see it, and that
    another branch assigns, starts as zeros there; a branch that raises at run time (:mod:`.raises`)
    returns zeros of the switch's outputs; an output whose dtypes differ where a weakly typed value
    meets another dtype is converted in each branch as the nested conds would convert it
    (:func:`_leaf_conversions`). Each is traced again once the others are known.
    """
    ordered = (chain.branches[-1], *chain.branches[:-1])
    traces = _Traces([None] * len(ordered))
    for _attempt in range(len(ordered) + 3):
        traces.splits, traces.raised, traces.fates, traces.constants = [None] * len(ordered), set(), {}, {}
        traced = [_traced(index, position, branch, chain, traces) for position, branch in enumerate(ordered)]
        try:
            arrays = lax.switch(index, traced)
        except TypeError:
            arrays = None  # the dtypes differ, or a raising branch did not know what to return yet
        except _NotAsIs:
            return None
        if traces.fill_placeholders():
            traces.applied = None  # the filled branches return other leaves: plan again
            continue
        plan = traces.plan()
        if plan is None:
            return None
        if arrays is not None and (plan == traces.applied or (traces.applied is None and not plan.converts)):
            given = [split for k, split in enumerate(traces.splits) if split is not None and k not in traces.raised]
            returning = [k for k in sorted(traces.fates) if k not in traces.raised]
            outputs = settled(chain.operands, plan.template, strongly_typed_where_a_branch_is(arrays, given),
                              [traces.constants[k] for k in returning], [traces.fates[k] for k in returning])
            report.record(site, "lax.switch", f"the subject is a traced integer; {len(ordered)} branches",
                          Carried(chain.names, outputs), traces.notes(ordered, chain.names))
            return outputs
        traces.applied = plan
    return None


@dataclasses.dataclass(frozen=True)
class _Plan:
    """How the branches' outputs become the switch's: per branch (in ``lax.switch`` order) and array
    output, the dtypes its value is converted through, and the switch's output types."""

    template: Split = dataclasses.field(compare=False)  # a returning branch's outputs: everyone's structure
    conversions: tuple[tuple[tuple[Any, ...], ...], ...]
    outputs: tuple[jax.ShapeDtypeStruct, ...]

    @property
    def converts(self) -> bool:
        return any(path for branch in self.conversions for path in branch)


@dataclasses.dataclass
class _Traces:
    """What the traces of one switch found: each branch's outputs (abstract, before any conversion),
    the branches that raise, per branch the names it starts as zeros (output index: the value another
    branch gives it), and the plan the last attempt traced with."""

    splits: list[Split | None]
    raised: set[int] = dataclasses.field(default_factory=set)
    fates: dict[int, Fate] = dataclasses.field(default_factory=dict)  # what a branch did with the containers given
    constants: dict[int, list[Any]] = dataclasses.field(default_factory=dict)  # per branch (path_constants)
    fills: dict[int, dict[int, Any]] = dataclasses.field(default_factory=dict)
    applied: _Plan | None = None

    @property
    def template(self) -> Split | None:
        """The outputs of the first branch that returned, which a raising branch imitates with zeros."""
        return next((split for k, split in enumerate(self.splits) if split is not None and k not in self.raised), None)

    def fill_placeholders(self) -> bool:
        """Note the names to start as zeros in branches that left them unassigned; whether there are new ones."""
        returned = {k: split.rebuild(split.arrays) for k, split in enumerate(self.splits)
                    if split is not None and k not in self.raised}
        added = False
        for position, values in returned.items():
            for slot, value in enumerate(values):
                if not (isinstance(value, Undefined) and value.placeholder):
                    continue
                given = [other[slot] for other in returned.values() if not isinstance(other[slot], Undefined)]
                if given:
                    self.fills.setdefault(position, {})[slot] = given[0]
                    added = True
        return added

    def plan(self) -> _Plan | None:
        """The conversions that make every branch return the nested conds' types; ``None`` where there
        are none: a branch not traced to its end, outputs of another structure, Python leaves or shape,
        a dtype difference between two strongly typed values, every branch raising."""
        template = self.template
        returning = [None if k in self.raised else split for k, split in enumerate(self.splits)]
        if template is None or any(split is None for k, split in enumerate(returning) if k not in self.raised) \
                or any(split.first_difference(template) is not None for split in returning if split is not None):
            return None
        filled = [self.filled_leaves(k, template) for k in range(len(returning))]
        per_leaf = [_leaf_conversions([None if split is None else split.arrays[leaf] for split in returning],
                                      {k for k, leaves in enumerate(filled) if leaf in leaves})
                    for leaf in range(len(template.arrays))]
        leaves = [found for found in per_leaf if found is not None]
        if len(leaves) != len(per_leaf):
            return None
        conversions = tuple(tuple(paths[position] for paths, _ in leaves) for position in range(len(returning)))
        return _Plan(template, conversions, tuple(output for _, output in leaves))

    def filled_leaves(self, position: int, template: Split) -> set[int]:
        """The array outputs of the branch at ``position`` that are zeros standing for unassigned names."""
        return {leaf for slot in self.fills.get(position, {}) for leaf in template.slots[slot] if not isinstance(leaf, tuple)}

    def notes(self, ordered: tuple[Branch, ...], names: tuple[str, ...]) -> list[str]:
        """What ``explain`` adds: the zeros each branch returns in place of what it does not compute,
        and the outputs it converts."""
        found = [f"the branch at line {location_of(ordered[k]).lineno} raises: it returns zeros" for k in sorted(self.raised)]
        for position, slots in sorted(self.fills.items()):
            for slot in slots:
                found.append(f"{report.readable(names[slot])} starts as zeros in the branch at line "
                             f"{location_of(ordered[position]).lineno} (assigned before every read)")
        plan = self.applied
        if plan is not None:
            owners = plan.template.array_names()
            for position, branch in enumerate(plan.conversions):
                found += [f"{report.readable(owners[leaf])} promoted to {jnp.dtype(path[-1]).name} in the branch at line "
                          f"{location_of(ordered[position]).lineno} (weakly typed Python scalar)"
                          for leaf, path in enumerate(branch)
                          if path and position not in self.raised and leaf not in self.filled_leaves(position, plan.template)]
        return found


def _leaf_conversions(avals: list[Any], zeros: set[int]) -> tuple[tuple[tuple[Any, ...], ...], jax.ShapeDtypeStruct] | None:
    """For one array output, given its type in each branch in ``lax.switch`` order (``None``: the branch
    raises; ``zeros``: the branches where it is zeros standing for a name left unassigned): the dtypes
    each branch converts it through, and the switch's output type; ``None`` where the nested conds
    would not unify the types.

    The nested conds are ``cond(test 0, branch 0, cond(test 1, branch 1, ... else))``. Innermost
    first, each joins its two sides as a staged ``if`` does (:func:`.carry.cond_adjustments`): a
    dtype difference is allowed where the cond allows it (one side weakly typed, and the joined dtype
    the strongly typed side's own: ``carry.cond_tolerates``, shared so that the two cannot drift apart);
    both sides convert to ``carry.joined_dtype`` (as ``carry._cond_casts`` computes it), a weakly typed
    value staying weakly typed; the cond's output is weakly typed only where both sides are
    (``conditionals.strongly_typed_where_a_branch_is``). A side that raises, or
    leaves the name unassigned, returns strongly typed zeros of the other side's type. So the value of
    a branch is converted at its own cond and at each enclosing cond that changes the dtype, and the
    switch converts it through the same dtypes, in that order; zeros convert to the output's dtype at
    once.
    """
    computed = [None if k in zeros else aval for k, aval in enumerate(avals)]
    inner = computed[0]  # the else: the false side of the innermost cond
    joined: list[Any] = [None] * (len(avals) - 1)  # the dtype of the cond of each test
    for level in reversed(range(len(joined))):
        test = computed[level + 1]
        if test is None or inner is None:
            inner = inner if test is None else jax.ShapeDtypeStruct(test.shape, test.dtype)
            joined[level] = None if inner is None else inner.dtype
            continue
        if test.shape != inner.shape or (test.dtype != inner.dtype and not cond_tolerates(test, inner)):
            return None
        joined[level] = joined_dtype(test, inner)
        weak = not any(strong_beside(side, jnp.zeros((), joined[level])) for side in (inner, test))  # as the cond's output
        if joined[level] != inner.dtype or inner.weak_type != weak:
            inner = jax.ShapeDtypeStruct(inner.shape, joined[level], weak_type=weak)
    if inner is None:
        return None
    paths = [_conversion_path(computed[0], joined[::-1])]
    paths += [_conversion_path(computed[level + 1], joined[level::-1]) for level in range(len(joined))]
    paths = [_conversion_path(avals[k], [inner.dtype]) if k in zeros else path for k, path in enumerate(paths)]
    return tuple(paths), inner


def _conversion_path(aval: Any, dtypes: list[Any]) -> tuple[Any, ...]:
    """The dtypes that a value of type ``aval`` is converted to, in order, as it meets ``dtypes``."""
    if aval is None:
        return ()
    path: list[Any] = []
    current = aval.dtype
    for dtype in dtypes:
        if dtype != current:
            path.append(dtype)
            current = dtype
    return tuple(path)


class _NotAsIs(Exception):
    """A branch cannot be traced as it is for the switch: it reads an unassigned name, or a weakly typed
    value of it would be converted to a narrower dtype that may not hold it (:mod:`.narrow_numbers`)."""


def _traced(index: jax.Array, position: int, branch: Branch, chain: _Chain, traces: _Traces) -> Callable[[], list[Any]]:
    """The function ``lax.switch`` traces for the branch at ``position``; it leaves its outputs' split
    and returns them converted as ``traces.applied`` says."""

    def traced_branch() -> list[Any]:
        try:
            with runs_when(lambda: index == position):
                values = _run_branch(branch, chain, traces, position)
        except PathRaises:
            traces.raised.add(position)
            return _raising_outputs(traces)
        for slot, value in traces.fills.get(position, {}).items():
            values[slot] = zeros_of_type(value)
        split = Split.of(values, chain.names)
        split, traces.constants[position] = python_bools_weak(split), constants_of(split.arrays, chain.operands)
        traces.splits[position] = split.abstract()
        if traces.applied is None:
            return split.arrays
        conversions = traces.applied.conversions[position]
        if any(cast_loses_value(array, dtype) for array, path in zip(split.arrays, conversions) for dtype in path):
            raise _NotAsIs()  # a Python number a float16 / uint8 cannot hold: the nested conds' located error
        return [_converted(array, path) for array, path in zip(split.arrays, conversions)]

    return traced_branch


def _raising_outputs(traces: _Traces) -> list[Any]:
    """What a branch that raises at run time returns: zeros of the switch's outputs, once known (until
    then, of the outputs of a branch traced before it, or nothing, and ``lax.switch`` fails)."""
    if traces.applied is not None:
        return [jnp.zeros(aval.shape, aval.dtype) for aval in traces.applied.outputs]
    template = traces.template
    return [] if template is None else [jnp.zeros(array.shape, array.dtype) for array in template.arrays]


def _converted(array: Any, path: tuple[Any, ...]) -> Any:
    for dtype in path:
        array = cast_as_eager(array, dtype)
    return array


def _run_branch(branch: Branch, chain: _Chain, traces: _Traces, position: int) -> list[Any]:
    """One trace of the branch's function, on fresh copies of the operands (see ``conditionals``)."""
    try:
        with python_errors_at_run_time(location_of(branch)):
            values, traces.fates[position] = run_on_copies(branch, chain.operands, location_of(branch))
            return values
    except UnassignedReadError as error:
        raise _NotAsIs() from error

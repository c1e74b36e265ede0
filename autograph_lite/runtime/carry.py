"""What a staged ``if`` or loop carries: one set of checks for both, and the adjustments they allow.

``lax.cond`` returns, and a ``lax`` loop carries, arrays of one type per output; the Python values
among the carried names (``None``, a tuple's structure, the marker of an unassigned name) are not
staged at all and must agree. So both kinds of statement compare two states of the same names (the
true and the false branch; the state before and after one iteration), by the same rules:

- a name that one side has not assigned, where no read can see it (``Undefined.placeholder``),
  starts as zeros of the other side's type;
- a name that a loop with a traced trip count left bound only if it ran (:class:`.raises.AssignedIfRan`)
  and that the other side assigns is bound there: its flag is true;
- a weakly typed Python scalar takes the other side's dtype (JAX promotes a loop's entry value;
  a cond's outputs are cast here, to the dtype eager arithmetic would give them);
- a loop carry that enters as a bool and leaves one iteration as a number (``flag = flag - 1``)
  starts as that number (see :mod:`.promotion`, which checks that this is exact);
- any other difference is one ``StagingTypeError`` for every differing name
  (:mod:`.carry_errors`).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp

from ..errors import ConversionError
from .carry_errors import (
    DTYPE,
    PYTHON_VALUE,
    SHAPE,
    SHAPE_AND_DTYPE,
    STRUCTURE,
    Difference,
    Sides,
    Site,
    assigned_in_one_branch,
    describe,
    described_apart,
    first_assigned_in_loop,
    mismatch_error,
    opaque_class,
    read_of_one_branch_value,
)
from .kept_containers import Fate
from .narrow_numbers import refuse_lossy_entries
from .path_constants import same_constant
from .raises import AssignedIfRan
from .values import OneBranchValue, Split, Undefined, is_traced
from .weak_types import EntryCastNeeded, as_entered, cast_like, python_bools_weak, weak_entries_widened, zeros_of_type


@dataclasses.dataclass(frozen=True)
class Carried:
    """The names a staged statement carries, with the values it gave them (what ``explain`` lists)."""

    names: Sequence[str]
    values: Sequence[Any]


# --- comparing two states of the carried names ---------------------------------------------------

# Whether a dtype difference between two array leaves is one JAX or the cond resolves by promotion.
Tolerates = Callable[[Any, Any], bool]


_PYTHON_SCALAR_OF_KIND = {"b": bool, "i": int, "f": float, "c": complex}


def joined_dtype(*types: Any) -> Any:
    """The one dtype for values of these abstract types, from two branches or a loop's entry and body.

    A weakly typed number stands for the Python number it was made from, which takes the other's
    dtype, as eager arithmetic does (``-10.0`` beside a float16 is float16, so ``x * y`` after it is
    float16 arithmetic, as eagerly; ``3`` beside a uint8 is a uint8); ``jnp.result_type`` of the
    abstract types would ignore the weak type and give float32 / int32. Where the narrower dtype may
    not hold the number (``70000`` as a uint8 is 112) the choice is refused (:mod:`.narrow_numbers`).
    """
    return jnp.result_type(*(_PYTHON_SCALAR_OF_KIND.get(t.dtype.kind, t.dtype) if t.weak_type else t.dtype
                             for t in types))


def _loop_tolerates(before: Any, after: Any) -> bool:
    """A loop promotes a weakly typed entry value to the dtype it shares with what its body gives it,
    which must then be the body's dtype: a Python float entry cannot become an int32 carry. A bool
    that the body turns into a number is judged apart (:class:`PromotionNeeded`): the first iteration
    must read it as that number, even a Python bool's (``print(flag)`` shows ``True``, not ``1``)."""
    return bool(before.weak_type) and before.dtype != jnp.bool_ and joined_dtype(before, after) == after.dtype


def cond_tolerates(true: Any, false: Any) -> bool:
    """A cond casts a weakly typed branch output to the dtype eager arithmetic gives both (see
    cond_adjustments), where that is the strongly typed one's own dtype: on its path the value then
    computes as eagerly. A Python float beside an int32 would make it a float32, which loses its value
    past 2**24; beside a uint8 it would compute ``n * 2`` in float32 (510) where eager's uint8 wraps
    (254). A bool becomes a number exactly (as in a staged ``and`` / ``or``)."""
    if not (true.weak_type or false.weak_type):
        return False
    joined = joined_dtype(true, false)
    return all(side.weak_type or side.dtype in (joined, jnp.bool_) for side in (true, false))


def differences(first: Split, second: Split, tolerates: Tolerates) -> list[Difference]:
    """Every carried name whose two states differ, in the order of the names."""
    first_values, second_values = first.rebuild(first.arrays), second.rebuild(second.arrays)
    found = []
    for index, (first_key, second_key) in enumerate(zip(first.per_name_keys(), second.per_name_keys())):
        if first_key != second_key:
            what, leaves = (STRUCTURE if first_key[0] != second_key[0] else PYTHON_VALUE), None
        else:
            what, leaves = _array_difference(_leaf_types(first, index), _leaf_types(second, index), tolerates)
        if what:
            opaque = opaque_class(first_values[index]) or opaque_class(second_values[index]) if what == PYTHON_VALUE else ""
            shown = described_apart(first_values[index], second_values[index])
            functions = all(map(_is_function, (first_values[index], second_values[index])))
            found.append(Difference(first.names[index], *shown, what, leaves, opaque, functions))
    return found


def _is_function(value: Any) -> bool:
    """A function, as messages call one (``jnp.sin`` too, a jitted function object): not an instance of
    the user's class that happens to define ``__call__``."""
    return callable(value) and hasattr(value, "__name__")


def _leaf_types(split: Split, index: int) -> list[Any]:
    """The abstract types of the array leaves of the ``index``-th name, in order."""
    return [jax.typeof(split.arrays[slot]) for slot in split.slots[index] if not isinstance(slot, tuple)]


def _array_difference(first: list[Any], second: list[Any], tolerates: Tolerates) -> tuple[str, tuple[Any, Any] | None]:
    """What differs between the array leaves of one name, with the first pair that differs."""
    shapes = [a.shape != b.shape for a, b in zip(first, second)]
    dtypes = [a.dtype != b.dtype and not tolerates(a, b) for a, b in zip(first, second)]
    differing = [(a, b) for a, b, shape, dtype in zip(first, second, shapes, dtypes) if shape or dtype]
    if not differing:
        return "", None
    what = SHAPE_AND_DTYPE if any(shapes) and any(dtypes) else SHAPE if any(shapes) else DTYPE
    return what, differing[0]


def _placeholder_fills(split: Split, other: Split) -> tuple[tuple[int, Any], ...]:
    """(index, value) for each name unassigned in ``split`` where no read can see it, but set in ``other``.

    Such a name may start as zeros of the value ``other`` gives it (abstract: no tracer is kept).
    """
    mine = split.rebuild(split.arrays)
    theirs = other.rebuild(other.abstract().arrays)
    return tuple(
        (index, value) for index, (own, value) in enumerate(zip(mine, theirs))
        if isinstance(own, Undefined) and own.placeholder and not isinstance(value, Undefined)
    )


def _assigned_since(split: Split, other: Split) -> tuple[int, ...]:
    """The names that ``other`` holds as bound only if a loop ran, and ``split`` assigned since."""
    mine, theirs = split.rebuild(split.arrays), other.rebuild(other.arrays)
    return tuple(index for index, (own, value) in enumerate(zip(mine, theirs))
                 if isinstance(value, AssignedIfRan) and not isinstance(own, (AssignedIfRan, Undefined)))


def bound(name: str, value: Any) -> AssignedIfRan:
    """``value``, assigned to ``name`` where the other side holds it as bound only if a loop ran."""
    return AssignedIfRan(name, value, jnp.ones((), jnp.bool_))


# --- loops ---------------------------------------------------------------------------------------


class PlaceholderNeeded(Exception):
    """The body assigns names that are unassigned before the loop and read only after assignments."""

    def __init__(self, fills: tuple[tuple[int, Any], ...]) -> None:
        super().__init__(fills)
        self.fills = fills  # (index of the name, the value the body gives it)


class PromotionNeeded(EntryCastNeeded):
    """The body turns carried bools into numbers; ``refusal`` is the error if that start is not exact.

    Raised from a trace of the body: the loop's lowering decides whether to start the carry as the
    number (:func:`.promotion.reads_bools_as_numbers`), and :func:`with_placeholders_filled` does it.
    """

    def __init__(self, casts: tuple[tuple[int, Any], ...], slots: tuple[int, ...], refusal: Exception) -> None:
        super().__init__(casts)
        self.slots = slots  # the array leaves (indices into the entry's arrays) that are bools turned numbers
        self.refusal = refusal


def with_placeholders_filled(run: Callable[[tuple], Any], state: tuple) -> Any:
    """``run(state)``, starting unassigned placeholder names as zeros of the type the body gives them,
    bools that the body turns into numbers as those numbers, and Python numbers that it widens
    (``total = 0``, then ``total + 0.5``) as the wider Python number.

    The zeros are never seen: every read of such a name follows an assignment (for the return value:
    it is read only once the ``returned`` flag, set together with it, is true). Each retry fills or
    promotes at least one name, once.
    """
    filled = list(state)
    for _ in range(2 * len(filled) + 1):
        try:
            return run(tuple(filled))
        except PlaceholderNeeded as needed:
            for index, value in needed.fills:
                filled[index] = zeros_of_type(value)
        except EntryCastNeeded as needed:
            for index, value in needed.casts:
                filled[index] = cast_like(filled[index], value)
    return run(tuple(filled))


def _bool_turned_number(before: Any, after: Any) -> bool:
    """A bool (a Python bool is a weakly typed one) that one iteration turns into a number."""
    return jax.typeof(before).dtype == jnp.bool_ and jax.typeof(after).dtype != jnp.bool_


def _bool_promotions(before: Split, after: Split, found: list[Difference], sides: Sides) -> PromotionNeeded | None:
    """The promotion that removes every difference in ``found``, if each is a bool turned number."""
    casts: list[tuple[int, Any]] = []
    slots: list[int] = []
    abstract_after = after.rebuild(after.abstract().arrays)
    for difference in found:
        if difference.what != DTYPE:
            return None
        index = before.names.index(difference.name)
        array_slots = [slot for slot in before.slots[index] if not isinstance(slot, tuple)]
        for slot, old, new in zip(array_slots, _leaf_types(before, index), _leaf_types(after, index)):
            if old.dtype == new.dtype:
                continue
            if old.dtype != jnp.bool_ or not jnp.issubdtype(new.dtype, jnp.number):
                return None
            slots.append(slot)
        casts.append((index, abstract_after[index]))
    if not casts:
        return None
    return PromotionNeeded(tuple(casts), tuple(slots), mismatch_error(found, sides))


def check_structure(before: Split, after: Split, site: Site) -> None:
    """The body must return the same Python values and structure; a placeholder may become an array.

    Raises :class:`PlaceholderNeeded` for placeholders the body assigns, else a ``StagingTypeError``
    (a name first assigned in the body; every name whose structure, Python value or type changes).
    """
    if before.first_difference(after) is None:
        return
    fills = _placeholder_fills(before, after)
    if fills:
        raise PlaceholderNeeded(fills)
    for name, old, new in zip(before.names, before.rebuild(before.arrays), after.rebuild(after.arrays)):
        if isinstance(old, Undefined) and not isinstance(new, Undefined):
            raise first_assigned_in_loop(name, describe(new), site)
    raise mismatch_error(differences(before, after, _loop_tolerates), Sides.of_loop(site))


class LoopCarry:
    """What one staged loop carries: its entry state, split into arrays and Python leaves, and what
    the last trace of its body returned (kept abstract), to name the variable JAX's type error is about.
    """

    def __init__(self, entry: tuple, names: Sequence[str], site: Site, fates: list[Fate] | None = None) -> None:
        self.entry = entry
        self.split = python_bools_weak(Split.of(entry, names))
        self.site = site
        self.returned: Split | None = None
        # where each traced run of the body notes what it did with the containers it was given
        self.fates: list[Fate] = [] if fates is None else fates

    def arrays_after(self, values: Sequence[Any], given: Sequence[Any] | None = None) -> list[Any]:
        """The array leaves of what one iteration returned, once its structure is checked; a weakly
        typed one where the entry's is strongly typed is cast to it (:func:`.weak_types.as_entered`).
        A Python number set to the number it entered with is the iteration's input (``given``): ``lax``
        hands a carry no iteration changes back as the entry's value, the Python number, not an int32
        (:mod:`.path_constants`).

        Raises :class:`PromotionNeeded` when the only type changes are bools turned numbers, and
        :class:`.weak_types.EntryCastNeeded` when Python numbers are widened (the entry must be too).
        """
        assigned = _assigned_since(Split.of(values, self.split.names), self.split)
        values = [bound(name, value) if index in assigned else value
                  for index, (name, value) in enumerate(zip(self.split.names, values))]
        out = python_bools_weak(Split.of(values, self.split.names))
        self.returned = out.abstract()
        check_structure(self.split, out, self.site)
        if any(_bool_turned_number(before, after) for before, after in zip(self.split.arrays, out.arrays)):
            found, sides = differences(self.split, out, _loop_tolerates), Sides.of_loop(self.site)
            promotion = _bool_promotions(self.split, out, found, sides)
            if promotion is not None:
                raise promotion
        refuse_lossy_entries(self.split, out, self.site)
        widened = weak_entries_widened(self.split, out)
        if widened:
            raise EntryCastNeeded(widened)
        return [given[k] if given is not None and not is_traced(before) and same_constant(after, before)
                else as_entered(before, after) for k, (before, after) in enumerate(zip(self.split.arrays, out.arrays))]

    def translated(self, error: TypeError) -> Exception:
        """JAX's carry type error in the user's terms (with JAX's as the cause), or JAX's own."""
        if isinstance(error, ConversionError) or self.returned is None:
            return error  # ours, raised inside the body; or the body never returned
        found = differences(self.split, self.returned, _loop_tolerates)
        if not found:
            return error
        translated = mismatch_error(found, Sides.of_loop(self.site))
        translated.__cause__ = error
        return translated


# --- lax.cond ------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class CondAdjustment:
    """What to change in one branch's outputs so that both branches agree."""

    fills: tuple[tuple[int, Any], ...] = ()  # (output index, value whose array leaves become zeros)
    casts: tuple[Any, ...] | None = None  # per array leaf: the dtype to cast to, or None
    assigned: tuple[int, ...] = ()  # outputs the other branch holds as bound only if a loop ran (see bound)
    hidden: tuple[tuple[int, Any], ...] = ()  # (output index, the OneBranchValue both branches return)


def cond_adjustments(
    true: Split, false: Split, current: dict[str, CondAdjustment], sides: Sides
) -> dict[str, CondAdjustment] | None:
    """The next adjustments to try (keyed ``"true"`` / ``"false"``), or ``None`` if there is none left.

    Fills come first: a filled name may then need a cast. A difference that no adjustment removes is
    a ``StagingTypeError`` naming every such name.
    """
    fills = {"true": _placeholder_fills(true, false), "false": _placeholder_fills(false, true)}
    if fills["true"] or fills["false"]:
        return {key: dataclasses.replace(current[key], fills=current[key].fills + fills[key]) for key in current}
    assigned = {"true": _assigned_since(true, false), "false": _assigned_since(false, true)}
    if assigned["true"] or assigned["false"]:
        return {key: dataclasses.replace(current[key], assigned=current[key].assigned + assigned[key]) for key in current}
    for name, left, right in zip(true.names, true.rebuild(true.arrays), false.rebuild(false.arrays)):
        if isinstance(left, Undefined) != isinstance(right, Undefined):
            raise assigned_in_one_branch(name, "true" if isinstance(right, Undefined) else "false", sides.site)
    found = differences(true, false, cond_tolerates)
    hidden = _one_branch_values(true, false, found, current, sides)
    if hidden:
        return {key: dataclasses.replace(current[key], hidden=current[key].hidden + hidden) for key in current}
    if found:
        raise mismatch_error(found, sides)
    casts = _cond_casts(true, false)
    if all(current[key].casts == casts[key] for key in casts):
        return None
    return {key: dataclasses.replace(current[key], casts=casts[key]) for key in current}


def _one_branch_values(
    true: Split, false: Split, found: list[Difference], current: dict[str, CondAdjustment], sides: Sides
) -> tuple[tuple[int, Any], ...]:
    """(index, stand-in) for each name that one branch set to a Python value (a function, a string) and
    the other filled as an unassigned placeholder: no zeros can stand for such a value, and no read can
    see it where it is unassigned, so both branches return a :class:`OneBranchValue` that raises if read."""
    filled = {index: key for key in current for index, _ in current[key].fills}
    values = {"true": true.rebuild(true.arrays), "false": false.rebuild(false.arrays)}
    hidden = []
    for difference in found:
        index = true.names.index(difference.name)
        if difference.what != PYTHON_VALUE or index not in filled:
            continue
        assigning = "false" if filled[index] == "true" else "true"
        shown = describe(values[assigning][index], article=True)
        hidden.append((index, OneBranchValue(functools.partial(
            read_of_one_branch_value, difference.name, shown, assigning, sides.site))))
    return tuple(hidden)


def _cond_casts(true: Split, false: Split) -> dict[str, tuple[Any, ...]]:
    """Per branch, the dtype to cast each array output to (``None``: kept), for outputs whose only
    difference is a weakly typed Python scalar: both take the dtype eager arithmetic gives them."""
    casts: dict[str, list[Any]] = {"true": [], "false": []}
    for left, right in zip(true.arrays, false.arrays):
        joined = joined_dtype(jax.typeof(left), jax.typeof(right))
        casts["true"].append(joined if jax.typeof(left).dtype != joined else None)
        casts["false"].append(joined if jax.typeof(right).dtype != joined else None)
    return {key: tuple(value) for key, value in casts.items()}


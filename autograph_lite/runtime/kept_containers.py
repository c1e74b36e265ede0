"""Lists and dicts that a staged statement updates in place stay the objects they were.

Eagerly, ``layer["w"] = v`` in an ``if`` updates the dict that ``layer`` names, which the list that
holds it, the caller of a helper that was given it and any other name see. A staged statement traces
its branches (or body) on copies, so that one branch's update cannot reach the other's trace, and
``lax`` hands back arrays from which the carried values are rebuilt: new containers, a dict's keys in
JAX's sorted order. The update then reached the one name the statement carries, and nothing else
(silently: the list, the caller, an alias kept the old values), and a dict's keys changed order.

So each traced branch or body records its :class:`Fate`: which of the lists and dicts it returns are
ones it was given (the same object, by its path in the arguments; for a branch, also the object a
copy stands for, or a list or dict of its closure, returned as it is: ``best = params``), which of
those it changed, and
each returned dict's key order. After the statement the rebuilt containers are written into the
objects they stand for (:func:`kept_in_place`), which take their place in the result: every other
way to them sees the update, as eagerly, and keeps its order. A container that no branch changed is
handed back as it was. Only what every trace agrees on is kept: a name that one branch updates in
place and the other binds to a new dict gets the rebuilt dict, and the original gets the updating
branch's items or its own, chosen by the condition (:func:`_chosen_in_place`); a container changed
and then replaced is refused (:func:`_refuse_lost_updates`). A loop body's container must be the one
it was given at the same place (``same_place``): one moved to another name would stand for a
different object after each iteration.
"""

from __future__ import annotations

import dataclasses
import dis
import functools
import types
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import jax

from ..errors import ConversionError, Location
from . import effects
from .locations import caller_location
from .values import cell_contents_or

Path = tuple[Any, ...]


@dataclasses.dataclass(frozen=True)
class Fate:
    """What one run of a branch or loop body did with the lists and dicts it was given."""

    kept: tuple[tuple[Path, Path], ...]  # (path in its result, path in its arguments) of each one it returned
    changed: frozenset[Path]  # the paths in its arguments of the ones whose items it replaced, added or removed
    orders: tuple[tuple[Path, tuple[Any, ...]], ...]  # (path in its result, key order) of each dict it returned
    # The objects from its closure that it returned as they are, by id: the "path" of such a one in
    # ``kept`` is (HELD, its id).
    held: tuple[tuple[int, Any], ...] = ()


HELD = "<held>"


def copied(operands: tuple) -> tuple:
    """Fresh containers for one branch's trace, the leaves as they are: a list or dict reached twice
    (``layer`` and ``layers[0]``) is copied once, so that an update through one name shows through
    the other in the trace, as eagerly; any other pytree node is rebuilt, as ``tree_map`` does."""
    memo: dict[int, Any] = {}

    def node(value: Any) -> Any:
        kind = type(value)
        if kind is not list and kind is not dict:
            return value
        made = memo.get(id(value))
        if made is None:
            made = memo[id(value)] = kind()
            if isinstance(made, list):
                made.extend(tree(item) for item in value)
            else:
                made.update((key, tree(item)) for key, item in value.items())
        return made

    def tree(value: Any) -> Any:
        return jax.tree_util.tree_map(node, value, is_leaf=lambda leaf: type(leaf) is list or type(leaf) is dict)

    return tree(operands)


def refuse_stale_reads(function: Callable[..., Any], operands: tuple, fates: Sequence[Fate], construct: str,
                       location: Location | None) -> None:
    """Refuse a staged statement whose code also reaches, through a variable it does not carry, a list or
    dict it updates through a carried one (``layer["w"] = v`` with ``layers`` read in the branch): staged,
    the update is made on a copy, and that variable would show the old items where eager code sees the new."""
    found = stale_read(function, operands, fates)
    if found is not None:
        name, kind = found
        raise ConversionError(
            f"'{name}' reaches a {kind} whose items this {construct} updates through another variable; "
            f"staged, the {construct} updates a copy, and '{name}' would show the old items",
            location,
            f"Inside the {construct}, read the updated items through the variable that updates them; "
            f"'{name}' shows the update after the {construct}.",
        )


def stale_read(function: Callable[..., Any], operands: tuple, fates: Sequence[Fate]) -> tuple[str, str] | None:
    """The variable (and the kind of container) of :func:`refuse_stale_reads`, or ``None``."""
    changed = {id(_at(operands, path)) for fate in fates for path in fate.changed}
    if not changed:
        return None
    read = _free_reads(function.__code__)
    for name, cell in zip(function.__code__.co_freevars, function.__closure__ or ()):
        if name in read:
            reached = [node for _, node in _containers((cell_contents_or(cell, None),)) if id(node) in changed]
            if reached:
                return name, type(reached[0]).__name__
    return None


def refuse_shared_updates(entry: tuple, names: Sequence[str], fates: Sequence[Fate], construct: str,
                          location: Location | None) -> None:
    """Refuse a staged loop that updates a list or dict two of its carried variables reach (``layer``
    and ``layers[0]``): a loop carries each variable's items on their own, so an update through one
    would not show through the other in the next iteration, as it does eagerly."""
    found = shared_update(entry, names, fates)
    if found is not None:
        first, second, kind = found
        raise ConversionError(
            f"'{first}' and '{second}' are one {kind}, whose items this {construct} updates; a staged loop "
            "carries each variable's items on their own, so the update through one would not show through the other",
            location,
            f"Inside the loop, update and read it through '{first}' only; '{second}' shows the update after the loop.",
        )


def shared_update(entry: tuple, names: Sequence[str], fates: Sequence[Fate]) -> tuple[str, str, str] | None:
    """The two ways to the container (and its kind) of :func:`refuse_shared_updates`, or ``None``."""
    paths: dict[int, list[Path]] = {}
    for path, node in _containers(entry):
        paths.setdefault(id(node), []).append(path)
    for fate in fates:
        for path in sorted(fate.changed, key=len):
            shared = paths.get(id(_at(entry, path)), [])
            if len(shared) > 1:
                return _spelled(names, shared[0]), _spelled(names, shared[1]), type(_at(entry, path)).__name__
    return None


@functools.lru_cache(maxsize=1024)
def _free_reads(code: types.CodeType) -> frozenset[str]:
    """The free variables that ``code`` and the functions in it read, but for the lambdas that only
    hand a variable to the runtime's checks (``aliases={'w': lambda: w}`` of an item update, which reads
    it only to compare identities)."""
    found: set[str] = set()
    for instruction in dis.get_instructions(code):
        if instruction.opname in ("LOAD_DEREF", "LOAD_CLASSDEREF"):
            found.add(instruction.argval)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType) and not _hands_over_a_variable(constant):
            found |= _free_reads(constant)
    return frozenset(found)


def _hands_over_a_variable(code: types.CodeType) -> bool:
    """Whether ``code`` is ``lambda: name``: a load of one free variable, returned."""
    if code.co_name != "<lambda>" or len(code.co_freevars) != 1:
        return False
    operations = [i.opname for i in dis.get_instructions(code) if i.opname not in ("RESUME", "COPY_FREE_VARS", "NOP")]
    return operations == ["LOAD_DEREF", "RETURN_VALUE"]


def _spelled(names: Sequence[str], path: Path) -> str:
    """A path into the carried values as code spells it: ``layers[0]['w']``."""
    return names[path[0]] + "".join(f"[{key!r}]" for key in path[1:])


def run_recording(function: Callable[..., Any], arguments: tuple, *leading: Any,
                  originals: tuple | None = None) -> tuple[Any, Fate]:
    """``function(*leading, *arguments)`` and its :class:`Fate` with respect to ``arguments``.

    ``originals``: what ``arguments`` are copies of (a staged branch's operands). A branch that hands
    back one of those objects itself, or a list or dict from its closure (``best = params``), keeps
    it as a copy would be kept: eagerly the name is that object after the statement, and the same
    object on every path is what the statement hands back."""
    given = {id(node): (path, node, _items(node)) for path, node in _containers(arguments)}
    before: dict[int, tuple[Any, Any]] = {}
    if originals is not None:
        cells = [cell_contents_or(cell, None) for cell in getattr(function, "__closure__", None) or ()]
        before.update((id(node), ((HELD, id(node)), node)) for _, node in _containers(tuple(cells)))
        before.update((id(node), (path, node)) for path, node in _containers(originals))
    result = function(*leading, *arguments)
    kept, orders, held = [], [], []
    for path, node in _containers(tuple(result)):
        found = given.get(id(node)) or before.get(id(node))
        if found is not None and found[1] is node:
            kept.append((path, found[0]))
            if found[0][:1] == (HELD,):
                held.append((id(node), node))
        if type(node) is dict:
            orders.append((path, tuple(node)))
    changed = frozenset(path for path, node, before in given.values() if not _same_items(before, _items(node)))
    return result, Fate(tuple(kept), changed, tuple(orders), tuple(held))


def kept_in_place(entry: tuple, result: Sequence[Any], fates: Sequence[Fate], same_place: bool = False,
                  choose: Callable[[list[Any]], Any] | None = None) -> tuple:
    """``result`` (rebuilt after a staged statement that started from ``entry``) with each container
    that every fate kept written into the ``entry`` object it stands for, and each rebuilt dict in the
    key order every fate gave it. With ``choose`` (a branch's value per fate, in the fates' order, to
    the one of the branch taken), a container that some branches keep and change and the others
    replace by a new one gets, in place, the kept branches' items or its own (:func:`_chosen_in_place`)."""
    result = tuple(result)
    if not fates:
        return result
    _refuse_lost_updates(entry, fates)
    kept = _agreed([dict(fate.kept) for fate in fates])
    if same_place:
        kept = {path: origin for path, origin in kept.items() if path == origin}
    if choose is not None:
        _chosen_in_place(entry, result, fates, choose, set(kept))
    orders = _agreed([dict(fate.orders) for fate in fates])
    if not kept and not orders:
        return result
    changed = frozenset().union(*(fate.changed for fate in fates))
    held = {key: node for fate in fates for key, node in fate.held}
    return tuple(_restored(value, (index,), _Plan(entry, kept, changed, orders, held)) for index, value in enumerate(result))


def _refuse_lost_updates(entry: tuple, fates: Sequence[Fate]) -> None:
    """Refuse a branch or body that changes a list or dict it was given and then hands back no such
    container (``d["a"] = v`` and then ``d = {...}``): whoever else holds it sees the change eagerly,
    and nothing the statement returns holds it."""
    for fate in fates:
        handed_back = {origin for _, origin in fate.kept}
        lost = sorted((path for path in fate.changed if path not in handed_back), key=len)
        if lost:
            raise ConversionError(
                f"a {type(_at(entry, lost[0])).__name__} is updated in place in this staged statement and then "
                "replaced by another: staged, the statement hands back the new one only, and whoever else "
                "holds the first would not see its update", caller_location(),
                "Update it in place only, or copy it before the update (d = dict(d)) where the first must "
                "keep its items.")


def _chosen_in_place(entry: tuple, result: tuple, fates: Sequence[Fate], choose: Callable[[list[Any]], Any],
                     agreed: set[Path]) -> None:
    """Eagerly, ``if c: d["a"] = v`` / ``else: d = {"a": w}`` updates the dict ``d`` held on one path and
    leaves it on the other: whoever else holds it sees the update there only. The statement binds ``d``
    to one new container (no object is the original on one path only); the original gets, per item,
    the result's where a branch kept and changed it, and its own where a branch replaced it untouched
    (one changed and then replaced is refused before: :func:`_refuse_lost_updates`)."""
    maps = [dict(fate.kept) for fate in fates]
    for path in set().union(*maps) - agreed:
        origins = {kept.get(path) for kept in maps}
        if None not in origins or len(origins) != 2:
            continue
        origin = next(o for o in origins if o is not None)
        if origin[:1] == (HELD,):
            continue  # an object of a closure, handed back by one path only: the result is a new one
        keeping = [kept.get(path) == origin for kept in maps]
        if not any(origin in fate.changed for fate, keeps in zip(fates, keeping) if keeps):
            continue
        target = _at(entry, origin)
        (keys, own), (node_keys, node_held) = _items(target), _items(_at(result, path))
        if keys != node_keys or len({jax.tree_util.tree_structure(held) for held in (own, node_held)}) != 1:
            raise ConversionError(
                f"a {type(target).__name__} that one branch updates in place and another replaces by one with other "
                "items: staged, the statement cannot tell what the original holds after it",
                caller_location(), "Update it in place in every branch, or replace it in every branch.")
        effects.check_item_assignment(target)
        chosen = jax.tree_util.tree_map(lambda *per_fate: choose(list(per_fate)),
                                        *[node_held if keeps else own for keeps in keeping])
        _fill(target, dict(zip(keys, chosen)) if type(target) is dict else list(chosen))


@dataclasses.dataclass(frozen=True)
class _Plan:
    entry: tuple
    kept: dict[Path, Path]
    changed: frozenset[Path]
    orders: dict[Path, tuple[Any, ...]]
    held: dict[int, Any]


def _restored(node: Any, path: Path, plan: _Plan) -> Any:
    """``node`` (at ``path`` in the result) with its containers restored, innermost first."""
    kind = type(node)
    if kind is tuple:
        return tuple(_restored(child, path + (index,), plan) for index, child in enumerate(node))
    if kind is list:
        node[:] = [_restored(child, path + (index,), plan) for index, child in enumerate(node)]
    elif kind is dict:
        order = plan.orders.get(path)
        keys = order if order is not None and set(order) == set(node) else tuple(node)
        node = {key: _restored(node[key], path + (key,), plan) for key in keys}
    else:
        return node
    origin = plan.kept.get(path)
    if origin is None:
        return node
    target = plan.held[origin[1]] if origin[:1] == (HELD,) else _at(plan.entry, origin)
    if origin in plan.changed and target is not node:
        effects.check_item_assignment(target)  # an update of a container from outside, where one is refused
        _fill(target, node)
    return target


def _fill(target: Any, source: Any) -> None:
    """``target``'s items made ``source``'s, in place; a dict keeps its own keys' order."""
    if type(target) is list:
        target[:] = source
        return
    for key in [key for key in target if key not in source]:
        del target[key]
    for key in source:
        target[key] = source[key]


def _containers(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every list and dict in ``value`` (through tuples, lists and dicts) with its path, outermost first."""
    kind = type(value)
    if kind is list or kind is tuple:
        children: Any = enumerate(value)
    elif kind is dict:
        children = value.items()
    else:
        return
    if kind is not tuple:
        yield path, value
    for key, child in children:
        yield from _containers(child, path + (key,))


def _items(node: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """A container's keys (a list's: none) and the objects it holds, as they are now."""
    if type(node) is dict:
        return tuple(node), tuple(node.values())
    return (), tuple(node)


def _same_items(before: tuple[tuple[Any, ...], tuple[Any, ...]], after: tuple[tuple[Any, ...], tuple[Any, ...]]) -> bool:
    """Whether a container holds the same objects under the same keys as before: nothing replaced."""
    (keys_before, held_before), (keys_after, held_after) = before, after
    return (keys_before == keys_after and len(held_before) == len(held_after)
            and all(a is b for a, b in zip(held_before, held_after)))


def _agreed(mappings: list[dict[Path, Any]]) -> dict[Path, Any]:
    """What every mapping says about a path, where they all say the same."""
    first, *others = mappings
    return {path: value for path, value in first.items() if all(other.get(path, _NOTHING) == value for other in others)}


_NOTHING = object()


def _at(value: Any, path: Path) -> Any:
    for key in path:
        value = value[key]
    return value

"""Which local names hold containers the function built itself, and how deep: the proof the effect
checks need for a name that is neither a parameter nor from outside the function.

A helper that mutates a module-level container through a local alias (``xs = POOL; xs += [v]``,
``b = BUF; b += 1.0``, ``rows = [GRID[0]]; rows[0][1] += 1.0``) changes it once while tracing when
it is called from a staged loop body, whatever the trip count. The run-time checks
(``runtime.effects``) refuse that for a parameter, which holds the caller's value; a local name is
left alone where it holds what the function built (``parts = [x]; parts += [y]``), and checked
like a parameter otherwise. Which one it is, is decided here, on the function's text, for every
binding of the name at once (not per path: a name bound once to an outer container is checked
everywhere):

- the **fresh depth** of a value is how many levels down it is provably built by this function: a
  number or a string is fresh all the way down; a display or comprehension is one level more than
  its least fresh element (``[[0.0] * 3 for _ in range(3)]``: all the way; ``[GRID[0]]``: one level,
  its element is ``GRID``'s); an operator's result is new, but holds its operands' elements (``[x] *
  3``); a call of a known constructor (``list(...)``, ``np.zeros(...)``, ``x.copy()``) is one level;
  any other call, a parameter, a global, an attribute, a slice (a NumPy array's view), a loop
  target or an unpacking is not fresh at all;
- a name's depth is the least of its bindings' (``xs += ys`` keeps ``xs``, with ``ys``'s elements).

``xs += v`` needs ``xs`` fresh one level; ``rows[0][1] = v`` needs ``rows`` fresh two levels (the list
it changes is ``rows[0]``). This pass marks the in-place check that ``attribute_stores`` put before
``xs += v`` with ``from_outside=True`` where ``xs`` is not fresh; ``item_updates`` asks
:func:`fresh_depths` for the roots of nested stores.
"""

from __future__ import annotations

import gast

from ..analysis.blocks import SCOPES, blocks_of, statements_within, walk
from ..generated_names import RUNTIME
from . import nodes
from .facts import ScopeFacts

ALL_THE_WAY = 1 << 16  # deeper than any display written out
# Calls that return a new container, one level fresh: builtins, by name, and NumPy's constructors.
_CONSTRUCTORS = frozenset({"list", "dict", "set", "frozenset", "tuple", "bytearray", "sorted"})
_ARRAY_CONSTRUCTORS = frozenset({
    "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like", "array", "copy",
    "arange", "linspace", "eye", "identity", "concatenate", "stack",
})
_ARRAY_MODULES = frozenset({"np", "numpy", "jnp"})
_DISPLAYS = (gast.List, gast.Set, gast.Tuple)
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp)


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    """Mark the in-place checks of names that may hold a container from outside (see above)."""
    if not isinstance(function, gast.FunctionDef):
        return facts
    augmented = {statement.target.id for statement in statements_within(function.body)
                 if isinstance(statement, gast.AugAssign) and isinstance(statement.target, gast.Name)}
    augmented -= facts.parameters  # a parameter's check says from_caller already
    if augmented:  # most functions have none, and are not analysed
        depths = fresh_depths(function)
        outside = frozenset(name for name in augmented if depths.get(name, 0) < 1)
        if outside:
            _mark_block(function.body, outside)
    return facts


def fresh_depths(function: gast.FunctionDef) -> dict[str, int]:
    """The fresh depth of every name the function (nested scopes included) binds; a name bound in
    any way but by an assignment of one value to it alone (a parameter, a loop target, an unpacking,
    ``global``, an import, a nested scope's binding of the same spelling) is 0."""
    bindings: dict[str, list[tuple[gast.expr, gast.expr | None]]] = {}  # name -> [(value, augmented name)]
    unknown: set[str] = set()
    known_targets: dict[int, tuple[gast.expr, gast.expr | None]] = {}
    for node in walk(function):
        if isinstance(node, (gast.Assign, gast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, gast.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], gast.Name):
                known_targets[id(targets[0])] = (node.value, None)
        elif isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
            known_targets[id(node.target)] = (node.value, node.target)
        elif isinstance(node, gast.NamedExpr):
            known_targets[id(node.target)] = (node.value, None)
    # A nested scope's binding of the same spelling is another variable, or, with ``nonlocal``, one
    # whose value is not known here: only the function's own statements' targets are known.
    own = {id(node) for statement in statements_within(function.body) if not isinstance(statement, SCOPES)
           for node in _own_nodes(statement)}
    for node in walk(function):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            if id(node) in known_targets and id(node) in own:
                bindings.setdefault(node.id, []).append(known_targets[id(node)])
            elif not isinstance(node.ctx, gast.Del):
                unknown.add(node.id)
        else:
            unknown.update(_other_bindings(node))
    return _solve(bindings, frozenset(unknown))


def _own_nodes(statement: gast.AST) -> list[gast.AST]:
    """The nodes of ``statement`` outside its nested blocks and scopes (its targets and values)."""
    found, pending = [], [child for child in gast.iter_child_nodes(statement) if not isinstance(child, gast.stmt)]
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, (*SCOPES, *_COMPREHENSIONS, gast.GeneratorExp)):
            pending.extend(gast.iter_child_nodes(node))
    return found


def _other_bindings(node: gast.AST) -> list[str]:
    """Names ``node`` binds without a ``Name`` node: ``def``, ``class``, ``import``, ``global`` /
    ``nonlocal``, a ``match`` capture."""
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
        return [node.name]
    if isinstance(node, gast.alias):
        return [node.asname or node.name.partition(".")[0]]
    if isinstance(node, (gast.Global, gast.Nonlocal)):
        return list(node.names)
    if isinstance(node, (gast.MatchAs, gast.MatchStar)) and node.name:
        return [node.name]
    if isinstance(node, gast.MatchMapping) and node.rest:
        return [node.rest]
    return []


def _solve(bindings: dict[str, list[tuple[gast.expr, gast.expr | None]]], unknown: frozenset[str]) -> dict[str, int]:
    """The greatest depths that every binding agrees with: start from all the way down and lower a
    name's depth to its least binding's until nothing changes (each round only lowers a depth)."""
    depths = {name: 0 if name in unknown else ALL_THE_WAY for name in bindings.keys() | unknown}
    for _ in range(len(depths) + 1):
        changed = False
        for name, values in bindings.items():
            least = min(_binding_depth(value, augmented, depths) for value, augmented in values)
            if least < depths[name]:
                depths[name], changed = least, True
        if not changed:
            break
    return depths


def _binding_depth(value: gast.expr, augmented: gast.expr | None, depths: dict[str, int]) -> int:
    """``x = value``: the value's depth; ``x += value``: ``x`` itself, now holding ``value``'s elements."""
    depth = value_depth(value, depths)
    if augmented is None:
        return depth
    return min(value_depth(augmented, depths), max(1, depth))


def value_depth(value: gast.expr, depths: dict[str, int]) -> int:
    """The fresh depth of ``value`` given the names' (see the module's docstring)."""
    if isinstance(value, (gast.Constant, gast.JoinedStr, gast.Compare, gast.Lambda)):
        return ALL_THE_WAY  # immutable, or a new function
    if isinstance(value, gast.Name):
        return depths.get(value.id, 0)
    if isinstance(value, _DISPLAYS):
        return _display_depth(value.elts, depths)
    if isinstance(value, gast.Dict):  # (a key is hashable: not changed in place)
        return _display_depth(value.values, depths, spread=[key is None for key in value.keys])
    if isinstance(value, _COMPREHENSIONS):
        element = value.value if isinstance(value, gast.DictComp) else value.elt
        bound = {node.id for generator in value.generators for node in walk(generator.target) if isinstance(node, gast.Name)}
        return min(ALL_THE_WAY, 1 + value_depth(element, {**depths, **dict.fromkeys(bound, 0)}))
    if isinstance(value, gast.BinOp):
        return max(1, min(value_depth(value.left, depths), value_depth(value.right, depths)))
    if isinstance(value, gast.UnaryOp):
        return ALL_THE_WAY if isinstance(value.op, gast.Not) else max(1, value_depth(value.operand, depths))
    if isinstance(value, gast.BoolOp):
        return min(value_depth(operand, depths) for operand in value.values)
    if isinstance(value, gast.IfExp):
        return min(value_depth(value.body, depths), value_depth(value.orelse, depths))
    if isinstance(value, gast.Subscript) and not isinstance(value.slice, gast.Slice):
        return max(0, value_depth(value.value, depths) - 1)  # an element (a slice may be a view)
    if isinstance(value, gast.Call):
        return _call_depth(value, depths)
    return 0


def _display_depth(elements: list[gast.expr], depths: dict[str, int], spread: list[bool] | None = None) -> int:
    """One level more than the least fresh element; ``*xs`` (and ``**d``: ``spread``) brings ``xs``'s
    elements."""
    least = ALL_THE_WAY
    for index, element in enumerate(elements):
        if isinstance(element, gast.Starred):
            least = min(least, max(0, value_depth(element.value, depths) - 1))
        elif spread is not None and spread[index]:
            least = min(least, max(0, value_depth(element, depths) - 1))
        else:
            least = min(least, value_depth(element, depths))
    return min(ALL_THE_WAY, 1 + least)


def _call_depth(call: gast.Call, depths: dict[str, int]) -> int:
    """``_ag.setitem(x, ...)`` (an item store, rewritten) hands back ``x``; a known constructor's
    result is new, one level (with no arguments, it holds nothing: all the way)."""
    callee = call.func
    if isinstance(callee, gast.Attribute) and isinstance(callee.value, gast.Name):
        module, attribute = callee.value.id, callee.attr
        if module == RUNTIME and attribute == "setitem" and call.args:
            return value_depth(call.args[0], depths)
        if module in _ARRAY_MODULES and module not in depths and attribute in _ARRAY_CONSTRUCTORS:
            return 0 if _may_share(call) else 1
    if isinstance(callee, gast.Attribute) and callee.attr == "copy" and not call.args and not call.keywords:
        return 1
    if isinstance(callee, gast.Name) and callee.id in _CONSTRUCTORS and callee.id not in depths:
        return 1 if call.args or call.keywords else ALL_THE_WAY
    return 0


def _may_share(call: gast.Call) -> bool:
    """Whether a constructor is told it may hand back its argument (``np.array(x, copy=False)``, or
    ``copy=None``, or ``copy=`` anything but a literal ``True``)."""
    return any(keyword.arg == "copy" and not (isinstance(keyword.value, gast.Constant) and keyword.value.value is True)
               for keyword in call.keywords)


def _mark_block(block: list[gast.stmt], outside: frozenset[str]) -> None:
    """Before each ``x op= v`` of a name in ``outside``: the in-place check says ``from_outside``.

    ``attribute_stores`` puts that check right before every augmented assignment to a name, but one
    that it proved holds only numbers (bound to numbers written out, nested scopes' names of the
    same spelling included): no in-place method runs on a number, so that one needs none.
    """
    for index, statement in enumerate(block):
        if not isinstance(statement, SCOPES):
            for nested in blocks_of(statement):
                _mark_block(nested, outside)
        if isinstance(statement, gast.AugAssign) and isinstance(statement.target, gast.Name) and (
                statement.target.id in outside):
            check = _in_place_check(block[index - 1], statement.target.id) if index else None
            if check is not None:
                check.keywords.append(nodes.keyword("from_outside", nodes.constant(True, statement.lineno)))


def _in_place_check(statement: gast.stmt, name: str) -> gast.Call | None:
    """The call ``_ag.check_in_place_operator(name, ...)`` that ``statement`` is, if it is one."""
    call = statement.value if isinstance(statement, gast.Expr) else None
    if (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute)
            and call.func.attr == "check_in_place_operator" and isinstance(call.args[0], gast.Name)
            and call.args[0].id == name):
        return call
    return None

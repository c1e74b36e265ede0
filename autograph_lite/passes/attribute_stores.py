"""A statement that changes an attribute of an object is made by the runtime, or checked before it:

    del self.a, self.b  ->  _ag.check_attribute_assignment(lambda: self, 'self.a'); ...; del self.a, self.b

A method or helper that changes an object (a counter on a module-level instance, a cache on a model)
and is called from a staged branch or loop body would run once while tracing, whatever the condition
or the trip count: the object would be left as after one run. The rewriter sees such a statement as
an effect only where it is written in the staged statement's own body; in a helper it is hidden from
the caller's rewrite. The check does nothing outside staged code (it does not even read the object,
so Python's order of evaluation is kept there), and inside it refuses a store into an object the
staged code did not make itself (``runtime.effects``), before the store happens.

Most stores are made by the runtime instead, which checks them there (``runtime.attribute_stores``):
a property's setter or a ``__setattr__`` of the user's is code Python runs implicitly, which must run
converted. The value is passed first, then the owner, as Python evaluates them; ``effect`` tells the
statement passes (``passes.effects``) what the store does, as an assignment's target did:

    q.w = v      ->  _ag.setattr(v, q, 'w', effect='assigns to q.w')
    q.w += v     ->  _ag.setattr(_ag.augmented(q.w, v, '+='), q, 'w', effect='assigns to q.w')
    del q.w      ->  _ag.delattr(q, 'w', 'q.w')

(``q.w`` then read through ``_ag.getattr`` by the calls pass). A tuple, chained, annotated, ``for``
or ``with`` target reaches this pass as assignments of one target each (``passes.plain_targets``).
Left as written, with the check below: a ``del`` of several targets, a private name the class
mangles (``self.__w``), and an augmented store into an owner that is not one of the function's own
locals (read twice: ``a.b`` would run a getter twice, and a global that a call in the value rebinds
would be read anew, ``STATS.n += reset()``).

Where the store stays as written, only an object that evaluating twice is harmless is checked: a
name or a chain of attributes of a name (``self``, ``TALLY``, ``self.state``), or of subscripts by
names and constants (``ITEMS[0]``, ``self.layers[i]``); ``make()[0].__w = v`` is left without a check.
Assignments (``=``, augmented, annotated) and ``del`` are checked; nested functions and classes were
rewritten on their own (a class body is not rewritten).

An augmented assignment to a name or a chain of attributes gets a check of its own, since it may run
an in-place method that changes the value where it is: a user class's ``__iadd__`` (unconverted
code), or ``list.__iadd__`` on a list the caller passed (``xs += [v]`` in a helper):

    xs += [v]   ->  _ag.check_in_place_operator(xs, '+=', from_caller=True); xs += [v]

``from_caller`` marks a parameter: only then is a list, set or dict checked (``runtime.effects``).
"""

from __future__ import annotations

import copy
import dataclasses

import gast

from ..analysis.blocks import SCOPES, blocks_of, statements_within, walk
from . import nodes
from .calls import dotted_name
from .facts import ScopeFacts
from .fresh_values import value_depth
from .item_updates import AUGMENTED, harmless_to_read_again

# A store's effect as the statement passes read it (``passes.effects``); after it, the target's text,
# which the runtime's messages name (``runtime.attribute_stores``).
_ASSIGNS = "assigns to "

_STORES = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Delete)
_NEW_CONTAINERS = (gast.List, gast.Dict, gast.Set, gast.ListComp, gast.DictComp, gast.SetComp, gast.Call)


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    if isinstance(function, gast.FunctionDef):
        statements = list(statements_within(function.body))
        augments_a_name = any(isinstance(statement, gast.AugAssign) and isinstance(statement.target, gast.Name)
                              for statement in statements)
        numbers = _numbers_only(function) if augments_a_name else frozenset()  # most functions: not walked
        _check_block(function.body, _InPlace(facts.parameters, numbers, _own_locals(statements, facts)))
    return facts


def _own_locals(statements: list[gast.stmt], facts: ScopeFacts) -> frozenset[str]:
    """The names only the function's own code (``statements``, its nested functions' cells aside) can
    rebind: its parameters and assignments, less those a nested function shares (its cells) and those
    a ``global`` / ``nonlocal`` declares (a helper called on the way may rebind them: ``STATS.n +=
    reset()``, where ``reset`` makes a new ``STATS``)."""
    declared = {name for statement in statements if isinstance(statement, (gast.Global, gast.Nonlocal))
                for name in statement.names}
    return (facts.parameters | facts.assigned) - facts.cells - declared


@dataclasses.dataclass(frozen=True)
class _InPlace:
    """What the in-place checks need to know of the function's names."""

    parameters: frozenset[str]  # hold the caller's values
    numbers: frozenset[str]  # only ever hold a number: no in-place method runs on them
    own_locals: frozenset[str] = frozenset()  # no call can rebind them (_own_locals)


def _check_block(block: list[gast.stmt], names: _InPlace) -> None:
    """Insert, in place, a check before each statement of ``block`` (and of its nested blocks) that
    changes an attribute of a name or of a chain of attributes, or applies an augmented operator to one;
    replace a store that the runtime makes (:func:`_runtime_store`)."""
    checked: list[gast.stmt] = []
    for statement in block:
        through_runtime = None
        if not isinstance(statement, SCOPES):
            for nested in blocks_of(statement):
                _check_block(nested, names)
        if isinstance(statement, _STORES):
            _note_new_container(statement)
            through_runtime = _runtime_store(statement, names.own_locals)
            if through_runtime is None:
                checked += _checks(statement)
        if isinstance(statement, gast.AugAssign):
            checked += _in_place_check(statement, names)
        checked.append(statement if through_runtime is None else through_runtime)
    block[:] = checked


def _note_new_container(statement: gast.stmt) -> None:
    """``self.items = []`` -> ``self.items = _ag.fresh([])``: a display, a comprehension or a known
    constructor's result (``list(...)``, ``np.zeros(...)``: :func:`.fresh_values.value_depth`) stored
    into an attribute is the new container of an object the staged code may change (the store's check
    has refused any other owner), so its later ``self.items.append(x)`` or ``self.buf += 1`` changes
    the trace's own container."""
    if (isinstance(statement, gast.Assign) and isinstance(statement.value, _NEW_CONTAINERS)
            and any(isinstance(target, gast.Attribute) for target in statement.targets)
            and value_depth(statement.value, {}) >= 1):
        statement.value = nodes.runtime_call("fresh", [statement.value], statement.lineno)


def _in_place_check(statement: gast.AugAssign, names: _InPlace) -> list[gast.stmt]:
    """``_ag.check_in_place_operator(target, '+=')`` where the target is a name or attribute
    chain (a name that only ever holds a number needs none: ``steps = 0``, then ``steps += 1``)."""
    path = dotted_name(statement.target)
    if path is None or (path == (path[0],) and path[0] in names.numbers):
        return []
    line = statement.lineno
    # A name is passed as it is (the statement reads it first anyway; a lambda would make it a cell
    # variable, slow in every Python loop over it), an attribute chain read only inside staged code.
    read = nodes.dotted_read(path, line)
    arguments = [read if len(path) == 1 else nodes.lazy(read), nodes.constant(AUGMENTED[type(statement.op)], line)]
    from_caller = len(path) == 1 and path[0] in names.parameters
    keywords = [nodes.keyword("from_caller", nodes.constant(True, line))] if from_caller else []
    if len(path) > 1:  # an attribute may hold a container from outside, even on an object the trace made
        keywords += [nodes.keyword("deferred", nodes.constant(True, line)),
                     nodes.keyword("from_outside", nodes.constant(True, line))]
    return [nodes.expression_statement(nodes.runtime_call("check_in_place_operator", arguments, line, keywords), line)]


def _numbers_only(function: gast.FunctionDef) -> frozenset[str]:
    """The names that every binding in ``function`` (nested scopes included, where a name of the same
    spelling counts too) sets to a number written out: ``steps = 0``, ``steps += 1``, ``x = -1.5``.
    Any other binding (a parameter, a loop target, an unpacking, ``global``, an import, a ``def``, a
    ``match`` capture) leaves the name out."""
    written: set[int] = set()
    for node in walk(function):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and _is_number(node.value):
            written.add(id(node.targets[0]))
        elif isinstance(node, gast.AugAssign) and _is_number(node.value):
            written.add(id(node.target))
    numbers: set[str] = set()
    others: set[str] = set()
    for node in walk(function):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            (numbers if id(node) in written else others).add(node.id)
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            others.update(node.names)
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            others.add(node.name)
        elif isinstance(node, gast.alias):
            others.add(node.asname or node.name.partition(".")[0])
        elif isinstance(node, (gast.MatchAs, gast.MatchStar, gast.MatchMapping)):
            return frozenset()  # a capture binds a name no Name node shows
    return frozenset(numbers - others)


def _is_number(value: gast.expr) -> bool:
    if isinstance(value, gast.UnaryOp) and isinstance(value.op, (gast.USub, gast.UAdd)):
        value = value.operand
    return isinstance(value, gast.Constant) and type(value.value) in (int, float, complex)


def _runtime_store(statement: gast.stmt, own_locals: frozenset[str]) -> gast.stmt | None:
    """The store of ``statement`` made by the runtime, or ``None`` where it stays as written with its
    check: a ``del`` of several targets, a private (mangled) name, an augmented store whose owner is
    not one of the function's own locals (read twice below: a chain would run its
    getters twice, and a global another call rebinds would be read anew)."""
    line = statement.lineno
    if isinstance(statement, gast.Delete):
        target = _plain_attribute(statement.targets)
        if target is None:
            return None
        arguments = [target.value, nodes.constant(target.attr, line), nodes.constant(gast.unparse(target), line)]
        return nodes.expression_statement(nodes.runtime_call("delattr", arguments, line), line)
    if isinstance(statement, gast.Assign):
        target, value = _plain_attribute(statement.targets), statement.value
    elif isinstance(statement, gast.AugAssign) and _owner_read_again_harmlessly(statement, own_locals):
        target = statement.target
        current = nodes.dotted_read((target.value.id, target.attr), line)
        operator = nodes.constant(AUGMENTED[type(statement.op)], line)
        value = nodes.runtime_call("augmented", [current, statement.value, operator], line)
    else:
        return None
    if target is None:
        return None
    effect = nodes.keyword("effect", nodes.constant(f"{_ASSIGNS}{gast.unparse(target)}", line))
    arguments = [value, target.value, nodes.constant(target.attr, line)]
    return nodes.expression_statement(nodes.runtime_call("setattr", arguments, line, [effect]), line)


def _plain_attribute(targets: list[gast.expr]) -> gast.Attribute | None:
    """The one target, where it is an attribute that the class does not mangle (``self.__w``)."""
    if len(targets) != 1 or not isinstance(targets[0], gast.Attribute):
        return None
    attribute = targets[0].attr
    return None if attribute.startswith("__") and not attribute.endswith("__") else targets[0]


def _owner_read_again_harmlessly(statement: gast.AugAssign, own_locals: frozenset[str]) -> bool:
    """``q.w += v``, whose owner ``q`` is a local that nothing in ``v`` rebinds: no walrus
    (``q.w += (q := r).w``), and no call can, as it could a global (``_own_locals``)."""
    target = statement.target
    return (_plain_attribute([target]) is not None and isinstance(target.value, gast.Name)
            and target.value.id in own_locals
            and not any(isinstance(node, gast.NamedExpr) for node in walk(statement.value)))


def _checks(statement: gast.stmt) -> list[gast.stmt]:
    """``_ag.check_attribute_assignment(owner, 'owner.attribute')`` for each attribute it stores into."""
    if isinstance(statement, (gast.Assign, gast.Delete)):
        targets = statement.targets
    elif isinstance(statement, gast.AnnAssign) and statement.value is None:
        return []  # an annotation alone assigns nothing
    else:
        targets = [statement.target]
    line = statement.lineno
    found = []
    for target in targets:
        if type(target) is gast.Name:
            continue  # most targets: a name stores into no attribute, no walk needed to see it
        for node in walk(target):
            if isinstance(node, gast.Attribute) and isinstance(node.ctx, (gast.Store, gast.Del)):
                owner = _owner(node.value, line)
                if owner is not None:
                    arguments = [nodes.lazy(owner), nodes.constant(f"{gast.unparse(owner)}.{node.attr}", line)]
                    found.append(nodes.expression_statement(
                        nodes.runtime_call("check_attribute_assignment", arguments, line), line))
    return found


def _owner(value: gast.expr, line: int) -> gast.expr | None:
    """A second read of the object an attribute is stored into (made only inside staged code), where
    it is harmless: a name or a chain of attributes and of subscripts by names and constants."""
    path = dotted_name(value)
    if path is not None:
        return nodes.dotted_read(path, line)
    return copy.deepcopy(value) if harmless_to_read_again(value) else None


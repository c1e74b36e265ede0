"""Item assignments become rebindings, so that they work on immutable JAX arrays:

    x[i] = v     ->  x = _ag.setitem(x, i, v)
    x[i] += v    ->  x = _ag.setitem(x, i, v, '+=')

On a JAX array the runtime uses ``x.at[i].set(v)`` / ``.add(v)`` / ...; on a list, dict or NumPy
array it assigns in place and returns the same object, so Python semantics are kept. As a
rebinding, ``x`` becomes a variable written by the statement, and a staged branch or loop carries it.
Only a local name as the container is rewritten. Any other item assignment is left as written, with
a check before it, so that Python's order of evaluation is kept: a global, a closure variable or an
attribute chain (``COUNTS[0] += 1`` in a helper, ``self.w[i] = v``) changes a container that may come
from outside staged code, where the update would happen once while tracing (``runtime.effects``):

    COUNTS[0] += 1   ->  _ag.check_item_assignment(COUNTS, 'COUNTS'); COUNTS[0] += 1

``del x[i]`` changes the container in place whoever holds it, so it gets the check whatever ``x`` is
(a list built inside the staged code, or outside staged code altogether, is left alone by the check).

A container that is itself an item (``GRID[0][1] += 1`` in a helper, ``del self.rows[0][-1]``) is
checked through the root it is read from, the name or chain of attributes under its subscripts, and,
where its indices are names or constants (harmless to read a second time), through the container
too. Both are read lazily, only inside staged code, so Python's order of evaluation is kept outside it:

    GRID[0][1] += 1  ->  _ag.check_nested_item_assignment(lambda: GRID, lambda: GRID[0], 'GRID[0]'); GRID[0][1] += 1

Where the function builds a local root new at every level down to the container the store changes
(``passes.fresh_values``: ``grid = [[0.0] * m for _ in range(n)]``), and the indices hold no call, the
store rebinds the root, which a staged ``if`` or loop then carries as any variable it assigns
(``runtime.nested_items``):

    grid[i][j] = v   ->  grid = _ag.setitem_nested(grid, (i,), j, v, text='grid[i]')

Any other local list of lists built inside the staged code (``rows = [[0.0]]; rows[f(0)][0] = x``) stays
allowed by its root (``runtime.effects``), where the function builds every container on the way from
the root to the one the store changes: ``rows = [GRID[0]]; rows[0][1] += 1``
changes ``GRID[0]``, so its check gets ``items_only=False`` and asks of ``rows[0]`` itself, as it does of
a root that is a closure variable. A container read off anything else (``make()[0] = v``,
``vars(o)[k] = v``) is stored into by the runtime, which reads it once, as Python does, and checks it:

    make()[0] = v    ->  _ag.store_item(v, make(), 0, 'make()')
    make()[0] += v   ->  _ag.augment_item(make(), 0, lambda: v, '+=', 'make()')

A JAX array's update is then seen through ``x`` alone. Where Python's in-place update would also be
seen elsewhere (by the caller, or through another name bound by ``w = v``), the call gets keywords
that let the runtime raise a located error for a JAX array (see ``analysis.lost_updates``), and,
for the names that may show ``x``'s memory as a NumPy view (``analysis.shared_memory``), how:

    x[i] = v     ->  x = _ag.setitem(x, i, v, name='x', from_caller_of='f', aliases={'w': lambda: w})
    row[0] = 0   ->  row = _ag.setitem(row, 0, 0, name='row', views=(('g', lambda: g, "'row': ...", ...),))
"""

from __future__ import annotations

import copy

import gast

from ..analysis.blocks import statements_within, walk
from ..analysis.lost_updates import UpdateFacts, lost_update_candidates, updated_name
from ..analysis.shared_memory import SharedView
from . import nodes
from .calls import dotted_name
from .facts import ScopeFacts
from .fresh_values import fresh_depths
from .statements import BlockTransformer

AUGMENTED = {
    gast.Add: "+=", gast.Sub: "-=", gast.Mult: "*=", gast.Div: "/=", gast.FloorDiv: "//=", gast.Mod: "%=",
    gast.Pow: "**=", gast.MatMult: "@=", gast.BitAnd: "&=", gast.BitOr: "|=", gast.BitXor: "^=",
    gast.LShift: "<<=", gast.RShift: ">>=",
}


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    """Only the scope's own names (parameters and assigned names) are rebound. A container from
    outside the function (a global, a closure variable) is updated in place as written: rebinding it
    would make it a local."""
    if isinstance(function, gast.FunctionDef) and _assigns_items(function):
        checks = lost_update_candidates(function, facts.parameters, facts.names)
        roots = _Roots(function, facts.parameters, facts.own_names, facts.enclosing_names)
        _ItemUpdates(facts.own_names, checks, function.name, roots).visit(function)
    return facts


class _Roots:
    """Whether a local root's freshness reaches the container a nested store changes (see above)."""

    def __init__(self, function: gast.FunctionDef, parameters: frozenset[str], own_names: frozenset[str],
                 enclosing_names: frozenset[str]) -> None:
        self.function = function
        self.parameters = parameters
        self.own_names = own_names
        self.enclosing_names = enclosing_names
        self.depths: dict[str, int] | None = None  # found at the first nested store into a local root

    def reach(self, root: tuple[str, ...], levels: int) -> bool:
        """Whether the root's privacy may vouch for the container ``levels`` subscripts below it: a
        parameter's, a global's or an attribute chain's as before (a staged body's copy of it), a local
        name's only where the function builds it new that deep; an enclosing function's variable's
        never (built there, it may hold anything)."""
        if len(root) > 1 or root[0] in self.parameters:
            return True
        if root[0] not in self.own_names:
            return root[0] not in self.enclosing_names
        if self.depths is None:
            self.depths = fresh_depths(self.function)
        return self.depths.get(root[0], 0) > levels


    def fresh_nested(self, target: gast.expr) -> bool:
        """Whether ``target`` is a nested item (``grid[i][j]``, subscripts only) of a local name that the
        function builds new down to the container it changes, with indices free of calls (read before
        the value by the rewrite): then the store may rebind the root (:func:`_nested_rebind`)."""
        root, levels = target, -1
        while isinstance(root, gast.Subscript):
            if any(isinstance(node, (gast.Call, *_SCOPED)) for node in walk(root.slice)):
                return False
            root, levels = root.value, levels + 1
        return (levels > 0 and isinstance(root, gast.Name) and root.id in self.own_names
                and root.id not in self.parameters and self.reach((root.id,), levels))


def _nested_rebind(node: gast.stmt, target: gast.Subscript, value: gast.expr, operator: str | None,
                   roots: _Roots) -> gast.stmt:
    """``grid[i][j] = v`` -> ``grid = _ag.setitem_nested(grid, (i,), j, v, text='grid[i]')``: the root,
    rebound, is a variable a staged statement carries (see ``runtime.nested_items``)."""
    line, container = node.lineno, target.value
    keys: list[gast.expr] = []
    while isinstance(container, gast.Subscript):
        keys.insert(0, _index_expression(container.slice))
        container = container.value
    arguments = [nodes.name(container.id, line), nodes.tuple_of(keys, line), _index_expression(target.slice), value]
    if operator:
        arguments.append(nodes.constant(operator, line))
    keywords = [nodes.keyword("text", nodes.constant(gast.unparse(target.value), line))]
    if operator and not roots.reach((container.id,), len(keys) + 1):  # grid[0][1] += [v]: the item may be from outside
        keywords.append(nodes.keyword("item_from_outside", nodes.constant(gast.unparse(target.value), line)))
    return nodes.assign(container.id, nodes.runtime_call("setitem_nested", arguments, line, keywords), line)


def _assigns_items(function: gast.FunctionDef) -> bool:
    """Whether a statement of the function's own scope assigns to or deletes an item (``x[i] = v``,
    ``a.b[i] += v``, ``x, y[0] = ...``, ``del x[i]``): the only statements this pass changes. Most
    functions have none, and are not walked again."""
    for statement in statements_within(function.body):
        if isinstance(statement, (gast.Assign, gast.Delete)):
            targets = statement.targets
        elif isinstance(statement, gast.AugAssign):
            targets = [statement.target]
        else:
            continue
        for target in targets:
            if type(target) is not gast.Name and any(isinstance(node, gast.Subscript) for node in walk(target)):
                return True
    return False


class _ItemUpdates(BlockTransformer):
    def __init__(self, local_names: frozenset[str], checks: dict[gast.AST, UpdateFacts], function_name: str,
                 roots: _Roots) -> None:
        self.local_names = local_names
        self.checks = checks
        self.function_name = function_name
        self.roots = roots
        self.depth = 0

    def visit_FunctionDef(self, node: gast.FunctionDef) -> gast.AST:
        if self.depth:  # nested functions were rewritten on their own already
            return node
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        return node

    def visit_Lambda(self, node: gast.AST) -> gast.AST:
        return node

    visit_ClassDef = visit_AsyncFunctionDef = visit_Lambda

    def visit_Assign(self, node: gast.Assign) -> gast.stmt | list[gast.stmt]:
        if len(node.targets) == 1 and self.roots.fresh_nested(node.targets[0]):
            return _nested_rebind(node, node.targets[0], node.value, None, self.roots)
        if updated_name(node) not in self.local_names:
            return _checked_in_place(node, node.targets, self.roots)
        return self._rebind(node, node.targets[0], node.value, None)

    def visit_Delete(self, node: gast.Delete) -> gast.stmt | list[gast.stmt]:
        """``del x[i]`` changes the container in place, whichever name holds it: checked like a store
        into an outer container (a JAX array, which has no item deletion, raises JAX's own error)."""
        return _checked_in_place(node, node.targets, self.roots)

    def visit_AugAssign(self, node: gast.AugAssign) -> gast.stmt | list[gast.stmt]:
        if self.roots.fresh_nested(node.target):
            return _nested_rebind(node, node.target, node.value, AUGMENTED[type(node.op)], self.roots)
        if updated_name(node) not in self.local_names:
            return _checked_in_place(node, [node.target], self.roots)
        return self._rebind(node, node.target, node.value, AUGMENTED[type(node.op)])

    def _rebind(self, node: gast.stmt, target: gast.Subscript, value: gast.expr, operator: str | None) -> gast.stmt:
        name, line = target.value.id, node.lineno
        arguments = [nodes.name(name, line), _index_expression(target.slice), value]
        if operator:
            arguments.append(nodes.constant(operator, line))
        keywords = self._checks(self.checks.get(node), name, line)
        if operator and not self.roots.reach((name,), 1):  # xs[0] += [v]: xs[0] may be from outside
            keywords.append(nodes.keyword("item_from_outside", nodes.constant(name, line)))
        call = nodes.runtime_call("setitem", arguments, line, keywords)
        return nodes.assign(name, call, line)

    def _checks(self, update: UpdateFacts | None, name: str, line: int) -> list[gast.keyword]:
        """The keywords that let the runtime refuse an update that a JAX array would hide."""
        if update is None:
            return []
        keywords = [nodes.keyword("name", nodes.constant(name, line))]
        if update.from_caller:
            keywords.append(nodes.keyword("from_caller_of", nodes.constant(self.function_name, line)))
        if update.aliases:
            # Lazy, one lambda per name: a name may be unbound yet, and only a JAX array needs them.
            keys = [nodes.constant(alias, line) for alias in update.aliases]
            values = [nodes.lazy(nodes.name(alias, line)) for alias in update.aliases]
            lazy_values = gast.copy_location(gast.Dict(keys=keys, values=values), keys[0])
            keywords.append(nodes.keyword("aliases", lazy_values))
        if update.views:
            keywords.append(nodes.keyword("views", _views(update.views, line)))
        return keywords


def _views(views: tuple[SharedView, ...], line: int) -> gast.Tuple:
    """``(('g', lambda: g, <how they share memory>, <who reads it>, <stored by the same unpacking>), ...)``:
    lazy, as the aliases are."""
    rows = [nodes.tuple_of([nodes.constant(view.other, line), nodes.lazy(nodes.name(view.other, line)),
                            nodes.constant(view.description, line), nodes.constant(view.reader, line),
                            nodes.constant(view.unpacking, line)], line) for view in views]
    return nodes.tuple_of(rows, line)


def _checked_in_place(node: gast.stmt, targets: list[gast.expr], roots: _Roots) -> gast.stmt | list[gast.stmt]:
    """``node`` as written, after a check of each container whose item it assigns in place; or, where
    its one target's container is read off a call (:func:`_store_into_a_result`), made by the runtime."""
    made_by_runtime = _store_into_a_result(node, targets)
    if made_by_runtime is not None:
        return made_by_runtime
    checks = []
    for target in targets:
        for store in walk(target):
            if not (isinstance(store, gast.Subscript) and isinstance(store.ctx, (gast.Store, gast.Del))):
                continue
            check = _container_check(store.value, isinstance(store.ctx, gast.Del), node.lineno, roots)
            if check is not None:
                checks.append(nodes.expression_statement(check, node.lineno))
    return [*checks, node] if checks else node


def _store_into_a_result(node: gast.stmt, targets: list[gast.expr]) -> gast.stmt | None:
    """``c()[i] = v`` -> ``_ag.store_item(v, c(), i, 'c()')``, ``del c()[i]`` -> ``_ag.delete_item(c(), i,
    'c()')``, ``c()[i] += v`` -> ``_ag.augment_item(c(), i, lambda: v, '+=', 'c()')``: a container read
    off a call (``vars(o)[k] = v``, ``row_of(GRID)[2] = v``), which a check before the statement could
    not read again, is read once, in Python's order (an assignment's value first; an augmented one's
    operand after the item), and checked by the runtime before the store. ``None`` for any other
    statement: a container with a root (checked before the statement), several targets, an augmented
    operand with a walrus, ``yield`` or ``await`` (left unchecked)."""
    if len(targets) != 1 or not isinstance(targets[0], gast.Subscript):
        return None
    target, line = targets[0], node.lineno
    if dotted_name(target.value) is not None or _root_of(target.value)[0] is not None:
        return None
    text = nodes.constant(gast.unparse(target.value), line)
    if isinstance(node, gast.Delete):
        operator, arguments = "delete_item", [target.value, _index_expression(target.slice), text]
    elif isinstance(node, gast.AugAssign):
        if any(isinstance(inner, _SCOPED) for inner in walk(node.value)):
            return None  # the operand becomes a function: a walrus, yield or await in it would change scope
        symbol = nodes.constant(AUGMENTED[type(node.op)], line)
        operator = "augment_item"
        arguments = [target.value, _index_expression(target.slice), nodes.lazy(node.value), symbol, text]
    else:
        operator, arguments = "store_item", [node.value, target.value, _index_expression(target.slice), text]
    return nodes.expression_statement(nodes.runtime_call(operator, arguments, line), line)


# What an expression cannot hold once it is the body of a lambda (a walrus binds in the lambda's scope).
_SCOPED = (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await)


def _container_check(container: gast.expr, deletes: bool, line: int, roots: _Roots) -> gast.Call | None:
    """The check of ``container`` before an item of it is assigned or deleted in place, if it has a root."""
    path = dotted_name(container)
    if path is not None:
        # a name or a.b.c: evaluated a second time, it gives the same object (attributes aside that
        # are computed properties, which a container rarely is)
        arguments = [nodes.dotted_read(path, line), nodes.constant(".".join(path), line)]
        if deletes:
            arguments.append(nodes.constant(True, line))  # deletes: worded as a deletion
        return nodes.runtime_call("check_item_assignment", arguments, line)
    root, items_only, levels = _root_of(container)
    if root is None:
        return None
    items_only = items_only and roots.reach(root, levels)
    read_again = nodes.lazy(copy.deepcopy(container)) if harmless_to_read_again(container) else None
    arguments = [nodes.lazy(nodes.dotted_read(root, line)), read_again or nodes.constant(None, line),
                 nodes.constant(gast.unparse(container), line)]
    keywords = [nodes.keyword("deletes", nodes.constant(True, line))] if deletes else []
    if not items_only:
        keywords.append(nodes.keyword("items_only", nodes.constant(False, line)))
    return nodes.runtime_call("check_nested_item_assignment", arguments, line, keywords)


def _root_of(container: gast.expr) -> tuple[tuple[str, ...] | None, bool, int]:
    """The name or attribute chain under ``container``'s subscripts (``GRID`` for ``GRID[0]``,
    ``self.rows`` for ``self.rows[i][j]``), whether only items lead from it to the container, and
    how many subscripts."""
    items_only, levels = True, 0
    while isinstance(container, (gast.Subscript, gast.Attribute)) and dotted_name(container) is None:
        items_only = items_only and isinstance(container, gast.Subscript)
        levels += isinstance(container, gast.Subscript)
        container = container.value
    return dotted_name(container), items_only, levels


def harmless_to_read_again(container: gast.expr) -> bool:
    """Whether reading ``container`` a second time gives the same object and changes nothing: a chain of
    attributes and of subscripts by names and constants (``-1`` included), from a name or from the
    class of a name (``type(self).count``, a class attribute bumped through an instance)."""
    while isinstance(container, (gast.Subscript, gast.Attribute)):
        if isinstance(container, gast.Subscript):
            indices = container.slice.elts if isinstance(container.slice, gast.Tuple) else [container.slice]
            if not all(_harmless_index(index) for index in indices):
                return False
        container = container.value
    return isinstance(container, gast.Name) or _class_of_a_name(container)


def _class_of_a_name(node: gast.expr) -> bool:
    """``type(x)`` of a name, with nothing else passed."""
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == "type"
            and len(node.args) == 1 and isinstance(node.args[0], gast.Name) and not node.keywords)


def _harmless_index(index: gast.expr) -> bool:
    if isinstance(index, gast.UnaryOp) and isinstance(index.op, (gast.USub, gast.UAdd)):
        return isinstance(index.operand, gast.Constant)
    return isinstance(index, (gast.Name, gast.Constant))


def _index_expression(index: gast.expr) -> gast.expr:
    """A subscript's index as an ordinary expression: slices ``a:b`` become ``slice(a, b)``."""
    if isinstance(index, gast.Slice):
        parts = [index.lower, index.upper, index.step]
        line = getattr(index, "lineno", 1) or 1
        arguments = [p if p is not None else nodes.constant(None, line) for p in parts]
        return nodes.call(nodes.name("slice", line), arguments, line)
    if isinstance(index, gast.Tuple):
        index.elts = [_index_expression(e) for e in index.elts]
        index.ctx = gast.Load()
        return index
    return index

"""Names that may share memory with an item update's container through a NumPy view or a traced choice.

``x[i] = v`` is rewritten to ``x = setitem(x, i, v)`` (see :mod:`.lost_updates`). On NumPy arguments,
eager Python stores into memory that other names may show too, without being the same object: a
view (``row`` in ``for row in g``, ``sub = x[1:3]``, ``t = g.T``, ``g.reshape(...)``), the arm a
conditional expression chose (converted, a traced ``x if c else z`` is a new array), an item of a
display that holds the array (``r = [x][0]``). Under ``jit`` every argument is a traced JAX array,
so the runtime cannot see such sharing; it is found here, on the function's text.

A forward analysis gives each name the *memory* it may show: a set of tokens. A parameter starts
with its own (the caller's array); any other binding makes a new token, except that ``w = v``
(and each pair of ``a, b = x, y``) passes ``v``'s memory on as it is, and a view of ``v`` adds a
token of its own to ``v``'s. Two names share memory when their sets meet; where the sets are equal
the names are one object, which the runtime's identity check covers (:mod:`.lost_updates`).

An update of ``n`` is then checked against each other name whose memory meets ``n``'s without being
equal, where that name is read after the update, or the shared memory is the caller's (a parameter's
at entry): eager NumPy changes it, converted it keeps the old values. The runtime refuses only where
both values are JAX arrays with at least one dimension (NumPy's 0-d item ``x[j]`` is a copy).
"""

from __future__ import annotations

import dataclasses

import gast

from ..generated_names import PREFIX, TARGET_TEMPORARY
from .blocks import TRY_STATEMENTS, walk
from .names import NameScanner

Token = tuple[object, ...]
Memory = frozenset[Token]
State = dict[str, Memory]

# Methods and attributes whose result is a NumPy view of the array they are read from.
VIEW_METHODS = frozenset({"reshape", "ravel", "view", "swapaxes", "transpose", "diagonal", "squeeze"})
VIEW_ATTRIBUTES = frozenset({"T", "mT", "real", "imag", "flat"})
# NumPy functions (called as np.f) whose result is a view of their first argument.
VIEW_FUNCTIONS = frozenset({"asarray", "asanyarray", "reshape", "ravel", "transpose", "swapaxes", "squeeze"})
_INDEX_PARTS = (gast.Constant, gast.Name, gast.Slice, gast.UnaryOp, gast.BinOp, gast.Attribute)


@dataclasses.dataclass(frozen=True)
class SharedView:
    """Another name that may show the memory an update changes, and why its reader would see it."""

    other: str
    description: str  # how the two names share memory, for the message
    reader: str  # who sees the change eagerly: the other name read afterwards, or the caller
    unpacking: bool  # the other is a value that the same unpacking stores afterwards (`g[0], g[1] = g[1], g[0]`)


def view_base(expression: gast.expr) -> str | None:
    """The name ``expression`` is a NumPy view of, through basic indexing and view methods
    (``g[1:3].T`` -> ``g``); ``None`` where it is no view of a name (an index list or mask copies)."""
    while True:
        if isinstance(expression, gast.Name):
            return expression.id
        if _view_of_its_value(expression):
            expression = expression.value
        elif isinstance(expression, gast.Call) and isinstance(expression.func, gast.Attribute):
            function = expression.func
            if isinstance(function.value, gast.Name) and function.value.id in ("np", "numpy"):
                if function.attr not in VIEW_FUNCTIONS or not expression.args:
                    return None
                expression = expression.args[0]
            elif function.attr in VIEW_METHODS:
                expression = function.value
            else:
                return None
        else:
            return None


def _view_of_its_value(expression: gast.expr) -> bool:
    """``g[1:3]``, ``g[i]``, ``g.T``: a view of the array it is read from."""
    if isinstance(expression, gast.Subscript):
        return _basic_index(expression.slice)
    return isinstance(expression, gast.Attribute) and expression.attr in VIEW_ATTRIBUTES


def _basic_index(index: gast.expr) -> bool:
    """Whether NumPy indexes with ``index`` as basic indexing (a view): ints, names, slices, arithmetic
    of those; a list, a call or a comparison (an index array, a mask) makes a copy."""
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    return all(isinstance(part, _INDEX_PARTS) for part in parts)


class Memories:
    """The forward analysis: the memory each name may show before each statement of the scope."""

    def __init__(self, names: NameScanner, parameters: frozenset[str]) -> None:
        self.names = names
        self.parameters = parameters
        self.before: dict[gast.AST, State] = {}
        self.texts: dict[Token, str] = {}  # each view's token: how the view was made, for the message

    def analyze(self, body: list[gast.stmt]) -> None:
        self.block(body, {name: frozenset({("argument", name, name)}) for name in self.parameters})

    def block(self, statements: list[gast.stmt], state: State) -> State:
        for statement in statements:
            state = self.statement(statement, state)
        return state

    def statement(self, node: gast.stmt, state: State) -> State:
        self.before[node] = state
        if isinstance(node, gast.If):
            return _merge(self.block(node.body, state), self.block(node.orelse, state))
        if isinstance(node, gast.While | gast.For):
            return self._loop(node, state)
        if isinstance(node, gast.With):
            return self.block(node.body, self._fresh(node.items, node, state))
        if isinstance(node, TRY_STATEMENTS):
            body_end = self.block(node.body, state)
            raised = _merge(state, body_end, *(self.before[s] for s in node.body))
            ends = [self.block(node.orelse, body_end)] + [self.block(h.body, raised) for h in node.handlers]
            return self.block(node.finalbody, _merge(*ends))
        if isinstance(node, gast.Assign):
            return self._assign(node, state)
        if isinstance(node, gast.AugAssign):
            return state  # NumPy's `v += 1` changes v where it is: the memory stays
        return self._fresh(node, node, state)

    def _fresh(self, written: gast.AST | list, node: gast.AST, state: State) -> State:
        """``state`` after ``node`` binds the names written in ``written`` to new values."""
        return {**state, **{name: _token("bound", node, name) for name in self.names.writes(written)}}

    def _assign(self, node: gast.Assign, state: State) -> State:
        after = dict(self._fresh(node.targets, node, state))
        for target in node.targets:
            if isinstance(target, gast.Name):
                after[target.id] = self.memory(node.value, state, node, target.id)
            elif isinstance(target, gast.Tuple | gast.List):
                after.update(self._unpacked(target, node.value, state, node))
        return after

    def _unpacked(self, target: gast.Tuple | gast.List, value: gast.expr, state: State, node: gast.AST) -> State:
        """``a, b = x, y`` pairs the names; ``a, b = g`` makes each a view of ``g``'s rows."""
        names = [element.id if isinstance(element, gast.Name) else None for element in target.elts]
        if isinstance(value, gast.Tuple | gast.List) and len(value.elts) == len(names):
            return {name: self.memory(element, state, node, name)
                    for name, element in zip(names, value.elts) if name is not None}
        return {name: self.item_memory(value, state, node, name) for name in names if name is not None}

    def memory(self, value: gast.expr, state: State, node: gast.AST, name: str) -> Memory:
        """The memory ``name`` shows once bound to ``value`` by ``node``."""
        if isinstance(value, gast.Name):
            return state.get(value.id, _token("bound", node, name))
        if isinstance(value, gast.IfExp):
            arms = self.memory(value.body, state, node, name) | self.memory(value.orelse, state, node, name)
            return arms | self._view(node, name, f"it may be the array that `{gast.unparse(value)}` chose")
        if isinstance(value, gast.List | gast.Tuple | gast.Set):
            held = [self.memory(element, state, node, name) for element in value.elts]
            return _token("bound", node, name).union(*held)
        base = view_base(value)
        if base is not None and base in state:
            sliced = any(isinstance(part, gast.Slice) for part in walk(value.slice)) if isinstance(
                value, gast.Subscript) else True
            kind = "a view" if sliced else "an item or a view"  # g[i] is a row of a 2-D g, a copy of a 1-D one's
            return state[base] | self._view(node, name, f"it may be {kind} of '{base}' (`{gast.unparse(value)}`)")
        return _token("bound", node, name)

    def item_memory(self, iterable: gast.expr, state: State, node: gast.AST, name: str) -> Memory:
        """The memory an item drawn from ``iterable`` (by a ``for`` or an unpacking) shows: an item
        of a display, or a row of an array, a view of it."""
        drawn = "drawn by the `for` loop" if isinstance(node, gast.For) else "unpacked"
        if isinstance(iterable, gast.Tuple | gast.List):
            held = [self.memory(element, state, node, name) for element in iterable.elts]
            return self._view(node, name, f"it is an item of `{gast.unparse(iterable)}` {drawn}").union(*held)
        base = view_base(iterable)
        if base is None or base not in state:
            return _token("bound", node, name)
        text = f"it is {drawn} from `{gast.unparse(iterable)}`, whose rows are views of '{base}'"
        return state[base] | self._view(node, name, text)

    def _view(self, node: gast.AST, name: str, text: str) -> Memory:
        token = ("view", id(node), name)
        self.texts[token] = f"{text}, line {getattr(node, 'lineno', '?')}"
        return frozenset({token})

    def _loop(self, node: gast.While | gast.For, state: State) -> State:
        """Iterate to the fixpoint: what the body leaves flows back to its top."""
        head = state
        while True:
            entry = self._drawn(node, head) if isinstance(node, gast.For) else head
            widened = _merge(head, self.block(node.body, entry))
            if widened == head:
                break
            head = widened
        return self.block(node.orelse, head)

    def _drawn(self, node: gast.For, state: State) -> State:
        """``state`` once the ``for`` target is bound to an item: ``for row in g``, ``for i, row in
        enumerate(g)``, ``for a, b in zip(g, h)``, ``for arr in (x, z)``."""
        state = self._fresh(node.target, node, state)
        sources = _iterables(node.target, node.iter)
        return {**state, **{name: self.item_memory(source, state, node, name) for name, source in sources}}


def _iterables(target: gast.expr, iterable: gast.expr) -> list[tuple[str, gast.expr]]:
    """Each name the ``for`` target binds to an item of an iterable, with that iterable."""
    if isinstance(iterable, gast.Call) and isinstance(iterable.func, gast.Name) and not iterable.keywords:
        function, arguments = iterable.func.id, iterable.args
        if function == "reversed" and len(arguments) == 1:
            return _iterables(target, arguments[0])
        if function == "enumerate" and len(arguments) == 1 and _pair(target):
            return _iterables(target.elts[1], arguments[0])
        if function == "zip" and isinstance(target, gast.Tuple) and len(target.elts) == len(arguments):
            return [pair for element, source in zip(target.elts, arguments) for pair in _iterables(element, source)]
    return [(target.id, iterable)] if isinstance(target, gast.Name) else []


def _pair(target: gast.expr) -> bool:
    return isinstance(target, gast.Tuple) and len(target.elts) == 2


def _token(kind: str, node: gast.AST, name: str) -> Memory:
    return frozenset({(kind, id(node), name)})


def _merge(*states: State) -> State:
    merged: State = {}
    for state in states:
        for name, memory in state.items():
            merged[name] = merged.get(name, frozenset()) | memory
    return merged


def shared_views(memories: Memories, node: gast.AST, name: str, live: frozenset[str],
                 function_name: str) -> tuple[SharedView, ...]:
    """The names an update of ``name`` at ``node`` may change eagerly and not converted (see above)."""
    state = memories.before.get(node, {})
    mine = state.get(name)
    if mine is None:
        return ()
    found: dict[str, SharedView] = {}
    for other, theirs in sorted(state.items()):
        if other == name or other not in live or theirs == mine or not theirs & mine:
            continue
        if other.startswith(PREFIX) and not other.startswith(TARGET_TEMPORARY):
            continue
        description = _description(memories, mine, theirs, name, other)
        found[other] = SharedView(other, description, f"'{other}' is read afterwards", other.startswith(TARGET_TEMPORARY))
    for token in sorted(mine, key=str):  # a view of the caller's array: eagerly, the caller sees the store
        parameter = str(token[1])
        if token[0] == "argument" and mine != {token} and parameter not in found:
            reader = f"it is the caller's array (the argument '{parameter}' of {function_name})"
            description = _description(memories, mine, frozenset({token}), name, parameter)
            found[parameter] = SharedView(parameter, description, reader, False)
    return tuple(found.values())


def _description(memories: Memories, mine: Memory, theirs: Memory, name: str, other: str) -> str:
    """How ``name`` and ``other`` share memory: the view that one of them is, named by its binding."""
    for owner, tokens in ((name, mine - theirs), (other, theirs - mine)):
        texts = sorted(memories.texts[token] for token in tokens if token in memories.texts)
        if texts:
            return f"'{owner}': {texts[0]}" if not owner.startswith(PREFIX) else texts[0]
    return f"'{name}' and '{other}' may show the same memory"

"""Values as the runtime operators see them: traced or concrete, staged leaves or Python leaves.

This module owns the one test "is this a tracer?". Everything else asks it.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend import core as jex_core
from jax.tree_util import PyTreeDef

from ..errors import Location, TracedPredicateError, UnassignedReadError, unbound_message
from .session import current

# ShapeDtypeStruct: what a branch or loop body returned, kept abstract once its trace is over.
_ARRAY_TYPES = (jax.Array, np.ndarray, np.generic, bool, int, float, complex, jax.ShapeDtypeStruct)


def is_traced(value: Any) -> bool:
    """True for a value that only knows its shape and dtype at this point of tracing."""
    return isinstance(value, jax.core.Tracer)


def inside_a_trace() -> bool:
    """True while JAX traces the code that is running (jit, grad, vmap, make_jaxpr, a lax body).

    ``take_current_trace`` (public, in jax.extend.core) yields the trace that is current on entry;
    outside every transformation that is the evaluation trace, which ``jax.core.eval_context``
    installs. Without that API, answer True: a debug callback outside a trace runs at once, so print
    stays right, only going through JAX.
    """
    try:
        with jex_core.take_current_trace() as current:
            pass
        with jax.core.eval_context(), jex_core.take_current_trace() as evaluating:
            pass
    except AttributeError:
        return True
    return current is not evaluating


def any_traced(tree: Any) -> bool:
    # An iterator (a generator expression given to sum or any) is a value, not a container to open.
    leaves = jax.tree_util.tree_leaves(tree, is_leaf=lambda value: isinstance(value, Iterator))
    return any(is_traced(leaf) for leaf in leaves)


def is_array_leaf(value: Any) -> bool:
    """Leaves that lax primitives can carry; anything else must stay a Python constant."""
    return isinstance(value, _ARRAY_TYPES)


class _FailsOnUse:
    """A stand-in value whose every use (a call, arithmetic, a truth test, an attribute) raises ``_fail``'s error."""

    __slots__ = ()

    def _fail(self) -> NoReturn:
        raise NotImplementedError

    def _used(self, *_: Any, **__: Any) -> NoReturn:
        self._fail()

    __bool__ = __iter__ = __len__ = __call__ = __getitem__ = __index__ = __float__ = __int__ = _used
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _used
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __neg__ = __pos__ = _used
    __matmul__ = __rmatmul__ = __lt__ = __le__ = __gt__ = __ge__ = __abs__ = __array__ = _used
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = __invert__ = _used

    def __getattr__(self, attribute: str) -> NoReturn:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        self._fail()


class Undefined(_FailsOnUse):
    """The value of a carried name that no path has assigned yet.

    Any use of it raises the ``UnboundLocalError`` that Python would have raised at the read.
    ``placeholder`` says that every read of the name in the user's code follows an assignment, so a
    staged statement may carry zeros in its place: nothing can read them.
    """

    __slots__ = ("name", "placeholder")

    def __init__(self, name: str, placeholder: bool = False) -> None:
        self.name = name
        self.placeholder = placeholder

    def __repr__(self) -> str:
        return f"Undefined({self.name!r})"

    def _fail(self) -> NoReturn:
        if not current().staged:  # Python's own read, on no path a staged statement traces: its error
            raise UnboundLocalError(unbound_message(self.name))
        raise UnassignedReadError(self.name)  # a staged statement's trace: it decides what the read means


class OneBranchValue(_FailsOnUse):
    """The value, after a staged ``if``, of a name that one branch set to a Python value (a function, a
    string) and the other left unassigned: which of the two holds is known only when the program runs,
    and a Python value cannot be chosen then. Nothing may read it (where the other branch ran, Python
    has no value to read either): any use raises what ``error`` makes, a located ``StagingTypeError``."""

    __slots__ = ("error",)

    def __init__(self, error: Callable[[], Exception]) -> None:
        self.error = error

    def __repr__(self) -> str:
        return "OneBranchValue()"

    def _fail(self) -> NoReturn:
        raise self.error()


def cell_contents_or(cell: types.CellType, default: Any) -> Any:
    """What a closure cell holds, or ``default`` for an empty cell (a name not bound yet)."""
    try:
        return cell.cell_contents
    except ValueError:
        return default


def ld(value: Any) -> Any:
    """A read of a name that may hold the ``Undefined`` stand-in: raise as Python would, or pass it on."""
    if isinstance(value, _FailsOnUse):
        value._fail()
    return value


def maybe_undefined(scope: dict[str, Any], name: str, placeholder: bool = False) -> Any:
    """The current value of ``name`` in a ``locals()`` snapshot, or ``Undefined`` if it is unbound."""
    return scope[name] if name in scope else Undefined(name, placeholder)


def with_article(noun: str) -> str:
    """``noun`` after its article, as messages write a type's name: ``a list``, ``an Enumerate``."""
    return f"{'an' if noun[:1].lower() in ('a', 'e', 'i', 'o', 'u') else 'a'} {noun}"


def type_string(value: Any) -> str:
    """A short description of a value's type, as error messages print it (``float32[3]``, ``None``)."""
    if isinstance(value, Undefined):
        return "undefined"
    if is_array_leaf(value):
        aval = jax.typeof(value)
        text = aval.str_short(short_dtypes=True)
        if not getattr(aval, "weak_type", False):
            return text
        # a weakly typed bool is a Python bool (weak_types.python_bools_weak)
        return f"a Python bool ({text})" if aval.dtype == jnp.bool_ else f"weakly typed {text}"
    if value is None:
        return "None"
    if callable(value) and hasattr(value, "__name__"):
        return f"the function {value.__name__}"
    if isinstance(value, str):
        return f"the string {value!r}"
    return type(value).__name__


def to_predicate(value: Any, construct: str, location: Location) -> jax.Array:
    """Turn a traced condition into a boolean scalar with Python's truth rules (nonzero is true)."""
    value = jnp.asarray(value)
    if value.size != 1:
        raise TracedPredicateError(
            f"the condition of the {construct} is a traced array of shape {value.shape}, and an array "
            "with more than one element has no single truth value",
            location,
            "Reduce it to one value first: use `(cond).any()` or `(cond).all()`.",
        )
    return truth_of_one_element(value)


def truth_of_one_element(array: jax.Array) -> jax.Array:
    """Python's ``bool()`` of a one-element array, as a boolean scalar (nonzero is true).

    Each caller checks the size first, with a message naming what it evaluates (a condition, an
    operand of ``and``, an ``in`` comparison, ``bool()``)."""
    if array.ndim:
        array = array.reshape(())
    return array if array.dtype == jnp.bool_ else array != 0


# One leaf of a carried value: its index into ``Split.arrays`` (an array leaf), or ("py", the leaf) (a Python leaf).
Slot = int | tuple[str, Any]


@dataclasses.dataclass
class Split:
    """Carried values flattened per name into array leaves (staged) and Python leaves (kept)."""

    names: tuple[str, ...]
    treedefs: list[PyTreeDef]
    # Per name, one slot per leaf.
    slots: list[list[Slot]]
    arrays: list[Any]
    # Per name, the key order of the dicts in it where JAX's (sorted) is not theirs (see key_orders).
    orders: list[Any] = dataclasses.field(default_factory=list)

    @classmethod
    def of(cls, values: Sequence[Any], names: Sequence[str]) -> Split:
        treedefs: list[PyTreeDef] = []
        slots: list[list[Slot]] = []
        arrays: list[Any] = []
        orders: list[Any] = []
        for value in values:
            leaves, treedef = jax.tree_util.tree_flatten(value)
            treedefs.append(treedef)
            orders.append(key_orders(value))
            name_slots: list[Slot] = []
            for leaf in leaves:
                if is_array_leaf(leaf):
                    name_slots.append(len(arrays))
                    arrays.append(leaf)
                else:
                    name_slots.append(("py", leaf))
            slots.append(name_slots)
        return cls(tuple(names), treedefs, slots, arrays, orders)

    def abstract(self) -> Split:
        """This split with shapes and dtypes in place of its arrays.

        Kept after a trace ends, for type checks and messages: holding the trace's own values would
        keep its tracers alive (a leak, as jax.checking_leaks reports).
        """
        avals = [jax.typeof(a) for a in self.arrays]
        structs = [jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in avals]
        return dataclasses.replace(self, arrays=structs)

    def rebuild(self, arrays: Sequence[Any]) -> tuple[Any, ...]:
        """The carried values with ``arrays`` in place of the array leaves."""
        values: list[Any] = []
        for index, (treedef, name_slots) in enumerate(zip(self.treedefs, self.slots)):
            leaves = [slot[1] if isinstance(slot, tuple) else arrays[slot] for slot in name_slots]
            value = jax.tree_util.tree_unflatten(treedef, leaves)
            values.append(value if not self.orders or self.orders[index] is None else in_order(value, self.orders[index]))
        return tuple(values)

    def first_difference(self, other: Split) -> int | None:
        """Index of the first name whose structure or Python leaves differ from ``other``'s, if any."""
        for index, (mine, theirs) in enumerate(zip(self.per_name_keys(), other.per_name_keys())):
            if mine != theirs:
                return index
        return None

    def per_name_keys(self) -> list[tuple[Any, ...]]:
        keys: list[tuple[Any, ...]] = []
        for treedef, name_slots in zip(self.treedefs, self.slots):
            shape = tuple(("py", _identity_key(s[1])) if isinstance(s, tuple) else "array" for s in name_slots)
            keys.append((treedef, shape))
        return keys

    def array_names(self) -> list[str]:
        """For each array leaf, the name of the variable it belongs to."""
        owners = [""] * len(self.arrays)
        for name, name_slots in zip(self.names, self.slots):
            for slot in name_slots:
                if not isinstance(slot, tuple):
                    owners[slot] = name
        return owners


def key_orders(value: Any) -> Any:
    """How the dicts in ``value`` (through dicts, lists and tuples) order their keys, where that is not
    the sorted order that JAX's pytree of a dict rebuilds them in; ``None`` where nothing differs.

    A staged loop's body rebuilt from its carried arrays would otherwise see ``params`` with sorted
    keys: ``{k: p - g for k, p in params.items()}`` kept that order, and ``list(params.values())[0]``
    was another parameter than eager's."""
    kind = type(value)
    if kind is dict:
        inner = {key: key_orders(item) for key, item in value.items()}
        keys = tuple(value)
        try:
            unsorted = keys != tuple(sorted(keys))
        except TypeError:  # keys of several types: JAX cannot sort them either
            unsorted = False
        return (keys, inner) if unsorted or any(order is not None for order in inner.values()) else None
    if kind is list or kind is tuple:
        inner_orders = [key_orders(item) for item in value]
        return tuple(inner_orders) if any(order is not None for order in inner_orders) else None
    return None


def in_order(value: Any, orders: Any) -> Any:
    """``value`` with its dicts in the key ``orders`` that :func:`key_orders` found (the same keys)."""
    kind = type(value)
    if orders is None:
        return value
    if kind is dict:
        keys, inner = orders
        if set(keys) != set(value):
            return value
        return {key: in_order(value[key], inner[key]) for key in keys}
    if kind is list or kind is tuple:
        return kind(in_order(item, order) for item, order in zip(value, orders))
    return value


def _identity_key(value: Any) -> Any:
    if isinstance(value, Undefined):
        return Undefined
    try:
        hash(value)
        return value
    except TypeError:
        return id(value)

"""Making an instance of a dataclass from converted code: the steps of its generated ``__init__``, taken here.

``@dataclasses.dataclass`` writes the class's ``__init__`` with ``exec``: it has no source, so it cannot
be converted, and run as it is it calls the class's ``__post_init__`` and the fields' ``default_factory``
unconverted. An effect there (a module-level log, a print) would happen once while tracing a staged
loop body instead of once per iteration, and an ``if`` on a traced field would fail. So the runtime
takes the steps that ``__init__`` takes, in its order: the arguments are bound by the generated
function's own signature (a call that does not fit raises Python's ``TypeError`` from that function
itself), each field is stored as it stores it (through ``object.__setattr__`` on a frozen class, the
default of a ``field(init=False)`` on a class with slots), and each ``default_factory`` and then
``__post_init__`` (given the ``InitVar`` values) are called through the runtime, which converts the
user's code among them.

What the generated function does is read off the function itself, not assumed: whether it calls
``__post_init__`` (it does where the class had one when it was decorated) and which defaults its body
stores. A dataclass whose ``__init__`` this module does not recognise (another Python's dataclasses)
is made as it is outside staged code, and refused inside it if it runs the user's code
(:func:`refuse_unconverted`).
"""

from __future__ import annotations

import dataclasses
import inspect
import linecache
import types
from collections.abc import Callable
from typing import Any

from .. import callees
from . import appends
from .ownership import refuse

# How a field's value is found: its parameter; its factory unless a value was given; its factory;
# the class's default (a field(init=False) of a class with slots, whose default is no class attribute).
_PARAMETER, _FACTORY_UNLESS_GIVEN, _FACTORY, _DEFAULT = "parameter", "factory unless given", "factory", "default"
# dataclasses' own markers: a field's kind, and the default of a parameter whose field has a factory.
_FIELD_KINDS = (getattr(dataclasses, "_FIELD", None), getattr(dataclasses, "_FIELD_INITVAR", None))
_HAS_DEFAULT_FACTORY = getattr(dataclasses, "_HAS_DEFAULT_FACTORY", None)


@dataclasses.dataclass(frozen=True)
class DataclassInit:
    """The steps of one dataclass's generated ``__init__``: ``stores`` are (field, how its value is
    found, the factory or default); ``init_vars`` the ``InitVar`` names ``__post_init__`` is given."""

    init: types.FunctionType
    signature: inspect.Signature
    stores: tuple[tuple[str, str, Any], ...]
    frozen: bool
    post_init: bool
    init_vars: tuple[str, ...]

    def run(self, made: Any, args: tuple[Any, ...], kwargs: dict[str, Any], call: Callable[..., Any]) -> None:
        """Initialise ``made`` as ``__init__(made, *args, **kwargs)`` would; ``call`` calls through the runtime."""
        try:
            bound = self.signature.bind(made, *args, **kwargs)
        except TypeError:
            self.init(made, *args, **kwargs)  # raises the TypeError that Python raises for this call, word for word
            return
        bound.apply_defaults()
        values = bound.arguments
        store = object.__setattr__ if self.frozen else setattr
        for name, how, source in self.stores:
            if how == _PARAMETER or (how == _FACTORY_UNLESS_GIVEN and values[name] is not _HAS_DEFAULT_FACTORY):
                value = values[name]
            else:
                value = call(source) if how != _DEFAULT else source
            store(made, name, value)
        if self.post_init:
            call(made.__post_init__, *(values[name] for name in self.init_vars))


def plan(cls: type, init: Any) -> DataclassInit | None:
    """The steps of ``init`` if it is the ``__init__`` that ``@dataclass`` generated for a class of
    ``cls``'s MRO, without source, and everything it does is understood here; else ``None``."""
    owner = next((klass for klass in cls.__mro__ if "__init__" in vars(klass)), None)
    if owner is None or vars(owner)["__init__"] is not init or "__dataclass_fields__" not in vars(owner):
        return None
    if None in _FIELD_KINDS or not isinstance(init, types.FunctionType) or _has_source(init):
        return None
    fields = [field for field in vars(owner)["__dataclass_fields__"].values() if field._field_type in _FIELD_KINDS]
    try:
        signature = inspect.signature(init)
    except (TypeError, ValueError):
        return None
    if list(signature.parameters)[1:] != [field.name for field in _in_init_order(fields) if field.init]:
        return None
    stores = tuple(store for field in fields if (store := _store(field, init)) is not None)
    return DataclassInit(
        init, signature, stores, bool(getattr(vars(owner).get("__dataclass_params__"), "frozen", False)),
        "__post_init__" in init.__code__.co_names,
        tuple(field.name for field in fields if field._field_type is _FIELD_KINDS[1]),
    )


def _in_init_order(fields: list[Any]) -> list[Any]:
    """The fields as ``__init__`` takes them: the keyword-only ones last."""
    return [field for field in fields if not field.kw_only] + [field for field in fields if field.kw_only]


def _store(field: Any, init: types.FunctionType) -> tuple[str, str, Any] | None:
    """How the generated ``__init__`` stores ``field`` (``None``: it does not, an ``InitVar`` or a
    ``field(init=False)`` whose default the class attribute holds)."""
    if field._field_type is _FIELD_KINDS[1]:
        return None
    if field.default_factory is not dataclasses.MISSING:
        return field.name, _FACTORY_UNLESS_GIVEN if field.init else _FACTORY, field.default_factory
    if field.init:
        return field.name, _PARAMETER, None
    if field.default is not dataclasses.MISSING and _body_reads_default(init, field.name):
        return field.name, _DEFAULT, field.default
    return None


def _body_reads_default(init: types.FunctionType, name: str) -> bool:
    """Whether the generated body reads ``name``'s default (it stores it on a class with slots)."""
    code = init.__code__
    return any(spelled in code.co_freevars or spelled in code.co_names
               for spelled in (f"_dflt_{name}", f"__dataclass_dflt_{name}__"))


def _has_source(function: types.FunctionType) -> bool:
    filename = function.__code__.co_filename
    return not filename.startswith("<") or bool(linecache.getlines(filename))


def refuse_unconverted(cls: type) -> None:
    """Before a dataclass is made as it is inside staged code: refuse it where making it runs the
    user's code unconverted (a ``__post_init__``, a ``default_factory`` of the user's), whose effects
    would happen once while tracing."""
    context = appends.innermost()
    if context is None or not dataclasses.is_dataclass(cls):
        return
    post_init = getattr(cls, "__post_init__", None)
    users = [function for function in (post_init, *(field.default_factory for field in dataclasses.fields(cls)))
             if isinstance(function, types.FunctionType) and not callees.is_library_function(function)]
    if not users:
        return
    refuse(
        f"makes a dataclass ({cls.__name__}) whose __init__ runs {users[0].__qualname__}() unconverted",
        f"this call of {cls.__name__}, a dataclass whose __init__ runs {users[0].__qualname__}() unconverted "
        "(the class is made in a way the runtime cannot take step by step),", context,
        "make the object before the staged code, or give the class an __init__ of its own that does "
        "what __post_init__ does",
    )

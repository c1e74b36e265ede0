"""Converting callables that are not plain functions: objects with a ``__call__`` (Flax NNX, Equinox
and plain modules) and JAX's transformation wrappers around a user function (``jax.vmap(f)``).

An object's converted counterpart is a :class:`ConvertedCall`: its converted ``__call__`` bound to
the object. It is a pytree whose only child is the object, so a pytree module stays one:
``eqx.filter_jit`` / ``eqx.filter_grad`` see the module's arrays through it, as they see the module's
own. ``autograph_lite.jit(obj)`` is a :class:`JittedCall`, whose program takes those arrays as arguments.

A JAX transformation of a user function (or Flax linen's wrapper of a module method) is a closure of
library code over the function; the converted counterpart is the same code over the same closure with
the user's function replaced by its converted one (:func:`with_converted_closure`): the
transformation and its options are applied exactly as the user wrote them, only the function they
apply to differs.
"""

from __future__ import annotations

import functools
import inspect
import os
import types
import weakref
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from . import callees
from .errors import ConversionError

# JAX's wrappers (api_boundary around vmap_f around the user's function) nest this deep at most.
MAX_WRAPPER_DEPTH = 8


class ConvertedCall:
    """The converted ``__call__`` of ``instance``, bound to it: ``convert(model)(x)`` runs
    ``model.__call__(x)`` converted. A pytree (child: the instance), so transformations that split a
    callable into arrays and the rest (``eqx.filter_jit``, ``eqx.filter_grad``) treat it as the instance."""

    __slots__ = ("__weakref__", "call", "instance")

    def __init__(self, instance: Any, call: Callable[..., Any]) -> None:
        self.instance = instance
        self.call = call

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.call(self.instance, *args, **kwargs)

    @property
    def __wrapped__(self) -> Any:
        """The bound ``__call__`` it was made from, as ``functools.wraps`` would record it."""
        return types.MethodType(self.call.__wrapped__, self.instance)  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"<converted {type(self.instance).__qualname__}.__call__>"


jax.tree_util.register_pytree_node(
    ConvertedCall,
    lambda converted: ((converted.instance,), converted.call),
    lambda call, children: ConvertedCall(children[0], call),
)


def call_method(instance: Any) -> types.FunctionType | None:
    """``type(instance).__call__`` when it is a Python function (the user's, or a library's wrapper)."""
    method = getattr(type(instance), "__call__", None)  # noqa: B004 (the method itself, not callable())
    if not isinstance(method, types.FunctionType) or callees.is_marked_do_not_convert(method):
        return None
    return method


def with_converted_closure(
    wrapper: types.FunctionType, convert: Callable[[Any], Callable[..., Any]], depth: int = 0,
) -> types.FunctionType | None:
    """A copy of a library ``wrapper`` (JAX's, Flax linen's) whose closure holds ``convert(f)`` where it
    held the user's function or callable object ``f`` (through nested JAX wrappers); ``None`` when it
    holds none or is not such a wrapper. Unchanged cells are shared with ``wrapper``, so the copy sees
    the same state."""
    if not _is_rewrappable(wrapper) or not wrapper.__closure__ or depth > MAX_WRAPPER_DEPTH:
        return None
    cells, changed = [], False
    for cell in wrapper.__closure__:
        replacement = _converted_cell_value(cell, convert, depth)
        changed = changed or replacement is not None
        cells.append(cell if replacement is None else types.CellType(replacement))
    if not changed:
        return None
    copy = types.FunctionType(wrapper.__code__, wrapper.__globals__, wrapper.__name__, wrapper.__defaults__, tuple(cells))
    copy.__kwdefaults__ = wrapper.__kwdefaults__
    copy.__qualname__ = wrapper.__qualname__
    copy.__dict__.update(wrapper.__dict__)
    return copy


def _is_rewrappable(function: types.FunctionType) -> bool:
    """JAX's transformation wrappers, and the method wrapper Flax linen puts around each method of a
    ``nn.Module`` (it sets up the module's scope, then calls the user's method from its closure).
    Told by their file: a wrapper carries the wrapped function's ``__module__`` (``functools.wraps``)."""
    filename = function.__code__.co_filename
    if function.__code__.co_name == "wrapped_module_method":
        return filename.endswith(os.path.join("flax", "linen", "module.py"))
    return f"{os.sep}jax{os.sep}" in filename


def _converted_cell_value(
    cell: types.CellType, convert: Callable[[Any], Callable[..., Any]], depth: int,
) -> Callable[..., Any] | None:
    """What a closure cell should hold in the converted wrapper; ``None``: keep it as it is."""
    try:
        value = cell.cell_contents
    except ValueError:  # an empty cell
        return None
    if isinstance(value, types.FunctionType) and callees.is_library_function(value):
        return with_converted_closure(value, convert, depth + 1)
    plain = isinstance(value, (types.FunctionType, types.MethodType, functools.partial))
    if not plain and call_method(value) is None:
        return None  # data, or a callable without Python code of its own
    try:
        converted = convert(value)
    except ConversionError:  # a library's callable object: it stays as it is
        return None
    return None if converted is value else converted


# Per JAX wrapper of a user's function (jax.vmap(f), jax.checkpoint(f)) and conversion options: its rebuilt
# counterpart around the converted function, or None where there is none (rebuilt_wrapper).
_rebuilt: weakref.WeakKeyDictionary[Any, dict[Any, Callable[..., Any] | None]] = weakref.WeakKeyDictionary()


def rebuilt_wrapper(wrapper: types.FunctionType, options: Any,
                    convert: Callable[[Any], Callable[..., Any]]) -> Callable[..., Any] | None:
    """A JAX transformation of the user's function rebuilt around ``convert(f)``: ``jax.vmap(f)``,
    ``jax.checkpoint(f)`` (:func:`with_converted_closure`); ``None`` when it holds none or cannot be
    rebuilt. Not ``jax.jit(f)`` (an object, not a function: never given here): eagerly its ``print``s
    come out once per trace, while it traces, and rebuilt around the converted ``f`` they would be
    staged, printing on every call. Remembered per wrapper and ``options`` (the conversion's), the
    caller holding its lock."""
    per_options = _rebuilt.setdefault(wrapper, {})
    if options not in per_options:
        per_options[options] = with_converted_closure(wrapper, convert)
    return per_options[options]


def holds_converted(wrapper: types.FunctionType, is_converted: Callable[[Any], bool], depth: int = 0) -> bool:
    """Whether a library wrapper holds a converted function (through nested JAX wrappers):
    ``jax.vmap(autograph_lite.convert(f))``, which needs no rebuilding."""
    if depth > MAX_WRAPPER_DEPTH:
        return False
    for cell in wrapper.__closure__ or ():
        try:
            held = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if held is not wrapper and is_converted(held):
            return True
        if held is not wrapper and isinstance(held, types.FunctionType) and callees.is_library_function(held) \
                and holds_converted(held, is_converted, depth + 1):
            return True
    return False


def is_transformation_wrapper(function: types.FunctionType) -> bool:
    """Whether a library function is a JAX transformation's wrapper (``jax.vmap(f)``,
    ``jax.checkpoint(f)``) that :func:`with_converted_closure` may rebuild around a converted ``f``."""
    return bool(function.__closure__) and callees.is_library_function(function) and _is_rewrappable(function)


# What jax.jit returns (a compiled object of JAX's, not a Python function).
_JIT_TYPE = type(jax.jit(abs))


def wrapped_user_function(wrapper: Any) -> Callable[..., Any] | None:
    """The user's function inside ``jax.jit(f)``, ``jax.custom_jvp(f)`` or ``jax.custom_vjp(f)``
    (objects of JAX's that keep ``f`` as ``__wrapped__``); ``None`` for anything else."""
    if not (isinstance(wrapper, _JIT_TYPE) or type(wrapper).__qualname__ in ("custom_jvp", "custom_vjp")):
        return None
    inner = getattr(wrapper, "__wrapped__", None)
    if isinstance(inner, (types.MethodType, functools.partial)):
        return inner
    if isinstance(inner, types.FunctionType) and not callees.is_library_function(inner):
        return inner
    return None


def wrapper_fix(kind: str, name: str) -> str:
    """How to convert the function ``name`` inside a ``kind`` wrapper (``jit``, ``custom_jvp``) of JAX's
    that conversion cannot rebuild: convert it before wrapping it."""
    if kind in ("custom_jvp", "custom_vjp"):  # the wrapper also holds rules: convert inside it
        return (f"Convert the function inside the wrapper: {name} = jax.{kind}(autograph_lite.convert(f)) for "
                "the plain function f, and convert a rule with control flow too (defjvp / defvjp of "
                "autograph_lite.convert(rule)); then call or jit it as usual.")
    return (f"Convert the function before wrapping it: jax.jit(autograph_lite.convert({name}), ...), or "
            f"autograph_lite.jit({name}, ...) with the same options.")


class JittedCall:
    """``autograph_lite.jit(obj)`` for a callable object: the object's arrays (its pytree leaves: an
    Equinox or NNX module's parameters) are arguments of the compiled program, read from the object at
    every call, so the program never holds them as constants and sees the object as it is now (after
    an optimizer step, say); its other leaves and its structure are static (a change compiles again).
    A ``__call__`` that replaces one of those arrays is refused: the change would be lost."""

    def __init__(self, converted: ConvertedCall, jit_kwargs: dict[str, Any], wrap: Callable[[Any], Any] | None) -> None:
        if "in_shardings" in jit_kwargs:
            raise ConversionError(
                f"autograph_lite.jit of a {type(converted.instance).__qualname__} object does not take in_shardings",
                hint="Pass the object as an argument instead: autograph_lite.jit(lambda model, x: model(x), "
                "in_shardings=...).",
            )
        jitted = jax.jit(_named_run(converted), **_shifted(jit_kwargs))
        self._jitted: Any = jitted if wrap is None else wrap(jitted)
        self._converted = converted

    def _split(self) -> tuple[tuple[Any, tuple[tuple[int, Any], ...]], list[Any]]:
        leaves, treedef = jax.tree_util.tree_flatten(self._converted)
        statics = tuple((index, leaf) for index, leaf in enumerate(leaves) if not _is_array(leaf))
        return (treedef, statics), [leaf for leaf in leaves if _is_array(leaf)]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._jitted(*self._split(), *args, **kwargs)

    def lower(self, *args: Any, **kwargs: Any) -> Any:
        return self._jitted.lower(*self._split(), *args, **kwargs)

    def trace(self, *args: Any, **kwargs: Any) -> Any:
        return self._jitted.trace(*self._split(), *args, **kwargs)

    def eval_shape(self, *args: Any, **kwargs: Any) -> Any:
        return self._jitted.eval_shape(*self._split(), *args, **kwargs)

    def clear_cache(self) -> None:
        self._jitted.clear_cache()

    def __repr__(self) -> str:
        return f"<autograph_lite.jit of {type(self._converted.instance).__qualname__}.__call__>"


def _run(structure: tuple[Any, tuple[tuple[int, Any], ...]], arrays: list[Any], *args: Any, **kwargs: Any) -> Any:
    """The compiled program of a :class:`JittedCall`: rebuild the object around the traced arrays, call it."""
    treedef, statics = structure
    static_at, remaining = dict(statics), iter(arrays)
    leaves = [static_at[index] if index in static_at else next(remaining) for index in range(treedef.num_leaves)]
    converted = jax.tree_util.tree_unflatten(treedef, leaves)
    result = converted(*args, **kwargs)
    after = [leaf for leaf in jax.tree_util.tree_leaves(converted) if _is_array(leaf)]
    if len(after) != len(arrays) or any(new is not old for new, old in zip(after, arrays)):
        raise ConversionError(
            f"{type(converted.instance).__qualname__}.__call__ changes the object's arrays, and under "
            "autograph_lite.jit(obj) that change would be lost: the compiled program gets copies",
            hint="Use the library's transformation, which carries the change out: nnx.jit(lambda model, x: "
            "autograph_lite.convert(model)(x)), or return the new state from __call__.",
        )
    return result


def _named_run(converted: ConvertedCall) -> Callable[..., Any]:
    """``_run`` under the object's class name (the name JAX gives the program) and with the signature
    of its ``__call__`` after the two leading arguments, so that ``static_argnames`` finds its names."""

    def run(*args: Any, **kwargs: Any) -> Any:
        return _run(*args, **kwargs)

    run.__name__ = run.__qualname__ = type(converted.instance).__name__
    try:
        parameters = list(inspect.signature(converted.__wrapped__).parameters.values())
    except (TypeError, ValueError):  # no signature to read: names cannot be static, positions can
        return run
    leading = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_ONLY) for name in ("_structure", "_arrays")]
    run.__signature__ = inspect.Signature(leading + parameters)  # type: ignore[attr-defined]
    return run


def _is_array(leaf: Any) -> bool:
    return isinstance(leaf, (jax.Array, np.ndarray, np.generic))


def _shifted(jit_kwargs: dict[str, Any]) -> dict[str, Any]:
    """``jax.jit`` options for ``_run``: argument positions move by its two leading arguments, and the
    first (the object's structure and non-array leaves) is static."""
    shifted = dict(jit_kwargs)
    for option in ("static_argnums", "donate_argnums"):
        positions = shifted.get(option)
        if positions is not None:
            positions = (positions,) if isinstance(positions, int) else tuple(positions)
            shifted[option] = tuple(p + 2 if p >= 0 else p for p in positions)
    shifted["static_argnums"] = (0, *(shifted.get("static_argnums") or ()))
    return shifted

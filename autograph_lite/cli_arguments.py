"""What ``autograph-lite explain`` calls, and with what: its ``--args`` and ``--static-argnums``, read
and checked against the function before anything is traced.

Every mistake on the command line (an argument too many or too few, a position that names no
argument, a method without an instance) is a :class:`.UsageError`, one line and exit code 2, rather
than whatever JAX raises from inside the trace, which names JAX's frames and not the option to fix.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable, Sequence
from typing import Any

from .cli_targets import Target, UsageError

_SHORT_DTYPES = {
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64", "i8": "int8", "i16": "int16",
    "i32": "int32", "i64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "bool": "bool", "b": "bool", "c64": "complex64",
}
_SPEC = re.compile(r"^\s*([A-Za-z][A-Za-z0-9]*)\s*\[\s*([0-9,\s]*)\]\s*$")


def parse_arguments(text: str) -> list[Any]:
    """``"f32[3, 4], 5"`` as ``[ShapeDtypeStruct((3, 4), float32), 5]``."""
    return [parse_argument(spec) for spec in _split_specs(text)]


def parse_argument(spec: str) -> Any:
    """``f32[3, 4]`` as a ``jax.ShapeDtypeStruct``; a Python literal (``4``, ``0.5``, ``True``) as itself."""
    import jax
    import jax.numpy as jnp

    match = _SPEC.match(spec)
    if match is None:
        try:
            return ast.literal_eval(spec.strip())
        except (ValueError, SyntaxError):
            raise UsageError(f"cannot read argument {spec.strip()!r}: write a type like f32[3] or a Python literal") from None
    dtype_name, dims = match.groups()
    try:
        dtype = jnp.dtype(_SHORT_DTYPES.get(dtype_name, dtype_name))
    except TypeError:
        raise UsageError(f"unknown dtype {dtype_name!r} in {spec.strip()!r}") from None
    shape = tuple(int(d) for d in dims.split(",") if d.strip())
    return jax.ShapeDtypeStruct(shape, dtype)


def _split_specs(text: str) -> list[str]:
    """Split at commas that are not inside brackets: "f32[3, 4], i32[]" -> ["f32[3, 4]", "i32[]"]."""
    specs, depth, current = [], 0, ""
    for character in text:
        depth += {"[": 1, "]": -1}.get(character, 0)
        if character == "," and depth == 0:
            specs.append(current)
            current = ""
        else:
            current += character
    if current.strip():
        specs.append(current)
    return [s for s in specs if s.strip()]


def parse_static_argnums(text: str, arguments: Sequence[Any]) -> tuple[int, ...]:
    """``"0,2"`` as ``(0, 2)``, each position naming one of ``arguments`` that can be static (hashable,
    and a value rather than an array type: a static argument's value is what the function sees)."""
    import jax

    positions = []
    for part in (part.strip() for part in text.split(",")):
        if not part:
            continue
        try:
            position = int(part)
        except ValueError:
            raise UsageError(f"--static-argnums: {part!r} is not a position; write 0-based integers such as 0,2") from None
        if not -len(arguments) <= position < len(arguments):
            raise UsageError(f"--static-argnums: position {position} names no argument: --args gives {len(arguments)}")
        value = arguments[position]
        if isinstance(value, jax.ShapeDtypeStruct):
            raise UsageError(f"--static-argnums: argument {position} is an array type ({_spec_text(value)}); "
                             "a static argument is a Python literal such as 5")
        try:
            hash(value)
        except TypeError:
            raise UsageError(f"--static-argnums: argument {position} ({value!r}) is not hashable, as a static "
                             "argument must be; write a tuple instead of a list") from None
        positions.append(position)
    return tuple(positions)


def _spec_text(value: Any) -> str:
    return f"{value.dtype}[{','.join(str(size) for size in value.shape)}]"


def check_arity(function: Callable[..., Any], name: str, arguments: Sequence[Any]) -> None:
    """Refuse ``--args`` that ``function`` cannot be called with, naming its parameters."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # no signature to check against (a builtin): the call will tell
        return
    try:
        signature.bind(*arguments)
    except TypeError as error:
        given = f"{len(arguments)} argument{'s' if len(arguments) != 1 else ''}"
        raise UsageError(f"--args gives {given}, but {name}{signature} cannot take them: {error}") from None


def callable_for_explain(target: Target) -> Callable[..., Any]:
    """The function ``explain`` traces: the target itself, or for a method of a class the method bound
    to an instance made with no arguments (the usual case of a model configured by defaults); a class
    whose constructor needs arguments, or a nested function, is a usage error that says what to do."""
    if target.nested_code is not None:
        outer = target.defined_in
        raise UsageError(f"{target.qualname} is defined inside {outer} and exists only while it runs: explain {outer}")
    owner = target.owner
    method_name = target.qualname.rsplit(".", 1)[-1]
    if owner is None or isinstance(inspect.getattr_static(owner, method_name, None), (staticmethod, classmethod)):
        return target.function
    return getattr(_instance(owner, target.qualname, method_name), method_name)


def _instance(owner: type, qualname: str, method_name: str) -> Any:
    """``owner()``, or a usage error naming the constructor's required parameters and the way out."""
    try:
        parameters = inspect.signature(owner).parameters.values()
    except (TypeError, ValueError):  # no signature to check: try the call
        parameters = None
    required = [p.name for p in parameters or () if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if required:
        raise UsageError(
            f"{qualname} is a method: explain calls it on {owner.__name__}(), but {owner.__name__}() needs "
            f"{', '.join(required)}; explain a function that builds one and calls it, e.g. "
            f"def run(x): return {owner.__name__}(...).{method_name}(x)"
        )
    try:
        return owner()
    except Exception as error:  # the user's constructor may raise anything
        raise UsageError(f"{qualname} is a method, and making the instance {owner.__name__}() failed: "
                         f"{type(error).__name__}: {error}") from error

"""Converting one function, with the caches that make converting it again free.

Two levels: the rewrite and compile depend only on the code object, so they are cached per code
object; binding that code to a function's globals and cells is cheap and cached per function, weakly
(the cache never keeps a user's function alive), so converting the same function twice returns the
same converted function, and ``jax.jit`` sees the same callable and keeps its compiled cache.
"""

from __future__ import annotations

import functools
import threading
import types
import weakref
from typing import Any, Callable

from . import codegen, passes, source
from .errors import ConversionError
from .runtime import Operators

_DO_NOT_CONVERT = "__autograph_lite_do_not_convert__"

_lock = threading.RLock()
_compiled: dict[types.CodeType, codegen.CompiledCode] = {}
_converted: "weakref.WeakKeyDictionary[types.FunctionType, dict[str, weakref.ref]]" = weakref.WeakKeyDictionary()
_operators: dict[str, Operators] = {}


def do_not_convert(function: Callable) -> Callable:
    """Mark ``function`` to run as written: ``convert`` / ``jit`` return it unchanged."""
    target = function.__func__ if isinstance(function, types.MethodType) else function
    setattr(target, _DO_NOT_CONVERT, True)
    return function


def is_marked_do_not_convert(function: Callable) -> bool:
    return getattr(function, _DO_NOT_CONVERT, False)


def convert_callable(function: Callable, static_loops: str) -> Callable:
    """The converted counterpart of a function, bound method or ``functools.partial``."""
    if is_marked_do_not_convert(function):
        return function
    if isinstance(function, types.MethodType):
        return types.MethodType(convert_callable(function.__func__, static_loops), function.__self__)
    if isinstance(function, functools.partial):
        return functools.partial(convert_callable(function.func, static_loops), *function.args, **function.keywords)
    if not isinstance(function, types.FunctionType):
        raise ConversionError(
            f"cannot convert {function!r}: autograph_lite converts Python functions (def or lambda), "
            "bound methods and functools.partial objects",
            hint="Pass the function itself, or its __call__ method, to convert / jit.",
        )
    return convert_function(function, static_loops)


def convert_function(function: types.FunctionType, static_loops: str) -> types.FunctionType:
    with _lock:
        per_options = _converted.setdefault(function, {})
        reference = per_options.get(static_loops)
        converted = reference() if reference is not None else None
        if converted is None:
            compiled = compiled_code(function)
            converted = codegen.bind(compiled, function, operators(static_loops))
            per_options[static_loops] = weakref.ref(converted)
        return converted


def compiled_code(function: types.FunctionType) -> codegen.CompiledCode:
    """The rewritten and compiled code of ``function``, from the cache when its code was seen before."""
    with _lock:
        compiled = _compiled.get(function.__code__)
        if compiled is None:
            parsed = source.parse_function(function)
            rewritten = passes.rewrite(parsed)
            compiled = codegen.compile_rewritten(parsed, rewritten, function)
            _compiled[function.__code__] = compiled
        return compiled


def operators(static_loops: str) -> Operators:
    with _lock:
        if static_loops not in _operators:
            _operators[static_loops] = Operators(static_loops)
        return _operators[static_loops]


def unwrap_for_source(function: Any) -> types.FunctionType:
    """The plain function whose source ``to_source`` prints."""
    while isinstance(function, (types.MethodType, functools.partial)):
        function = function.__func__ if isinstance(function, types.MethodType) else function.func
    if not isinstance(function, types.FunctionType):
        raise ConversionError(f"cannot show the conversion of {function!r}: it is not a Python function")
    return function

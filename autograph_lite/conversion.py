"""Converting one function, with the caches that make converting it again free.

Two levels: the rewrite and compile depend only on the code object, so they are cached per code
object; binding that code to a function's globals and cells is cheap and cached on the function
itself (never keeping it alive), so converting the same function twice returns the same converted
function, and ``jax.jit`` sees the same callable and keeps its compiled cache.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import logging
import threading
import types
from collections.abc import Callable
from typing import Any

from . import callables, callees, codegen, passes, source
from .errors import ConversionError
from .logs import LOGGER
from .passes.raises import CHECK_OPERATORS, may_reach_check
from .runtime import Operators
from .runtime.builtins import TRACED_BUILTINS
from .runtime.call_effects import DRAINING_BUILTINS
from .runtime.calls import Calls
from .runtime.code_sets import CodeMap, CodeSet
from .runtime.effects import changes_random_state, registers_with_parent
from .runtime.function_arguments import takes_functions
from .runtime.iteration import open_builtin
from .runtime.library_mutators import is_mutator
from .runtime.staged_logging import is_logging_call
from .runtime.values import cell_contents_or

_lock = threading.RLock()
_compiled: dict[tuple[types.CodeType, int], codegen.CompiledCode] = {}
_CONVERTED_ATTRIBUTE = "__autograph_lite_converted__"
_operators: dict[str, Operators] = {}
# Every code object that conversion produced: calls to these need no conversion.
_converted_codes = CodeSet()
# The converted functions' code objects whose code (nested functions included) may stage a run-time check.
_checking_codes = CodeSet()
# Whether the others may reach one through what they call (another function, an implicit check):
# decided when `autograph_lite.jit` first asks (`stages_checks(..., through_calls=True)`), not on every
# conversion, since most converted functions are helpers reached while tracing, never asked about.
_reaching_codes: CodeMap[bool] = CodeMap()
_MISSING = object()


def do_not_convert(function: Callable) -> Callable:
    """Mark ``function`` to run as written: ``convert`` / ``jit`` return it unchanged."""
    target = function.__func__ if isinstance(function, types.MethodType) else function
    setattr(target, callees.DO_NOT_CONVERT_MARK, True)
    return function


def convert_callable(function: Callable, static_loops: str) -> Callable:
    """The converted counterpart of a function, bound method, ``functools.partial``, object with a
    Python ``__call__`` (:mod:`.callables`) or JAX transformation of a user function."""
    if callees.is_marked_do_not_convert(function) or _is_converted(function):
        if LOGGER.isEnabledFor(logging.INFO):
            why = "marked do_not_convert" if callees.is_marked_do_not_convert(function) else "converted already"
            LOGGER.info("%r left as written: %s", function, why)
        return function
    if isinstance(function, types.MethodType):
        return types.MethodType(convert_callable(function.__func__, static_loops), function.__self__)
    if isinstance(function, functools.partial):
        return functools.partial(convert_callable(function.func, static_loops), *function.args, **function.keywords)
    if not isinstance(function, types.FunctionType):
        converted_call = _converted_call_method(function, static_loops)
        if converted_call is None:
            raise _refusal(function)
        return callables.ConvertedCall(function, converted_call)
    if callees.is_library_function(function):
        converted = _rebuilt_wrapper(function, static_loops)
        if converted is None and callables.holds_converted(function, _is_converted):
            return function  # jax.vmap(autograph_lite.convert(f)): converted inside already
        if converted is None:
            raise ConversionError(
                f"cannot convert {function.__qualname__!r}: its code is library code "
                f"({function.__code__.co_filename}), which autograph_lite never rewrites",
                hint="Convert your function inside the library's wrapper: jax.vmap(autograph_lite.convert(f)). "
                "For your own package installed into site-packages, call autograph_lite.convert_modules("
                "'yourpackage') first.",
            )
        return converted
    return convert_function(function, static_loops)


def _rebuilt_wrapper(wrapper: types.FunctionType, static_loops: str) -> Callable | None:
    """:func:`.callables.rebuilt_wrapper` with these options, made once per wrapper object and
    options, as a function is converted once: a helper decorated with ``@jax.vmap`` and called from
    converted code is rebuilt at its first call, not at every one."""
    with _lock:
        key = (static_loops, callees.rules_version())
        return callables.rebuilt_wrapper(wrapper, key, lambda inner: convert_callable(inner, static_loops))


def _converted_call_method(instance: Any, static_loops: str) -> Callable | None:
    """The converted ``type(instance).__call__``: the user's converted, a library wrapper of the
    user's (Flax linen) rebuilt around the converted method; ``None`` when there is none."""
    method = callables.call_method(instance)
    if method is None or method.__code__ in _converted_codes:
        return method
    if callees.is_library_function(method):
        return callables.with_converted_closure(method, lambda f: convert_callable(f, static_loops))
    return convert_function(method, static_loops)


def convert_argument(value: Any, static_loops: str) -> Any:
    """A function a library function is given (``jax.grad(inner)``), or a callable object that
    converted code calls: the user's code converted, anything else, or what cannot be converted, as
    it is (it runs as written, as it would have)."""
    if isinstance(value, (types.FunctionType, types.MethodType, functools.partial)):
        try:
            return convert_callable(value, static_loops)
        except ConversionError:
            return value
    if _is_converted(value) or callables.wrapped_user_function(value) is not None:
        return value  # jax.jit(f) / jax.custom_jvp(f) run as written (callables.rebuilt_wrapper says why)
    converted_call = _converted_call_method(value, static_loops)
    return value if converted_call is None else callables.ConvertedCall(value, converted_call)


def _is_converted(function: Any) -> bool:
    """Made by autograph_lite already: a converted function or object, or ``jax.jit`` of one (what
    ``autograph_lite.jit`` returns), seen through the ``__wrapped__`` of non-function wrappers."""
    for _ in range(4):
        if isinstance(function, callables.ConvertedCall) or getattr(function, "__code__", None) in _converted_codes:
            return True
        if isinstance(function, (types.FunctionType, types.MethodType)) or not hasattr(function, "__wrapped__"):
            return False
        function = function.__wrapped__
    return False


def _refusal(function: Any) -> ConversionError:
    """Why an object cannot be converted, naming its type (its repr may be a whole model)."""
    kind = type(function).__qualname__
    wrapped = getattr(function, "__wrapped__", None)
    if isinstance(wrapped, types.FunctionType) and not callees.is_library_function(wrapped):
        hint = callables.wrapper_fix(kind, wrapped.__name__)
        return ConversionError(
            f"cannot convert a {kind} object wrapping {wrapped.__qualname__!r}: autograph_lite cannot "
            "rewrite the function inside a compiled wrapper", hint=hint,
        )
    return ConversionError(
        f"cannot convert a {kind} object: autograph_lite converts Python functions (def or lambda), bound "
        "methods, functools.partial objects and objects whose class defines __call__ in Python",
        hint="Pass the Python function that it calls to convert / jit, or call it unconverted.",
    )


def convert_function(function: types.FunctionType, static_loops: str) -> types.FunctionType:
    """The converted function, the same object for as long as ``function`` lives.

    It is kept in ``function``'s own ``__dict__``: the pair is a reference cycle that the garbage
    collector frees with the function, and ``autograph_lite.jit(f)(x)`` written inline, twice, finds
    the same converted function and so ``jax.jit``'s cache. A ``functools.wraps`` wrapper copies
    that ``__dict__``; an entry is only used by the function it was made for.
    """
    with _lock:
        key = (static_loops, callees.rules_version())
        per_options = function.__dict__.get(_CONVERTED_ATTRIBUTE)
        converted = per_options.get(key) if per_options else None
        if converted is None or converted.__wrapped__ is not function:
            compiled = compiled_code(function)
            converted = codegen.bind(compiled, function, operators(static_loops))
            converted.__dict__.pop(_CONVERTED_ATTRIBUTE, None)  # copied over by functools.update_wrapper
            if per_options is None or any(c.__wrapped__ is not function for c in per_options.values()):
                per_options = {}
            per_options[key] = converted
            function.__dict__[_CONVERTED_ATTRIBUTE] = per_options
            LOGGER.info("converted %s (%s:%d)", function.__qualname__, function.__code__.co_filename,
                        function.__code__.co_firstlineno)
        else:
            LOGGER.debug("converted %s: from the cache", function.__qualname__)
        return converted


def compiled_code(function: types.FunctionType) -> codegen.CompiledCode:
    """The rewritten and compiled code of ``function``, from the cache when its code was seen before."""
    with _lock:
        key = _code_key(function)
        compiled = _compiled.get(key)
        if compiled is None:
            parsed = source.parse_function(function)
            rewritten = _rewritten(function, parsed)
            compiled = codegen.compile_rewritten(parsed, rewritten, function)
            _compiled[key] = compiled
            codes = _rewritten_codes(compiled.code)
            _converted_codes.update(codes)
            if any(CHECK_OPERATORS.intersection(code.co_names) for code in codes):
                _checking_codes.add(compiled.code)
        return compiled


def _rewritten_codes(code: types.CodeType) -> list[types.CodeType]:
    """``code`` and the code objects nested in it that the rewrite went through: not a class body's,
    nor what a class body holds (the passes leave a class statement as written, so its methods are
    converted when called, like any method)."""
    found, pending = [], [code]
    while pending:
        current = pending.pop()
        found.append(current)
        pending.extend(c for c in current.co_consts if isinstance(c, types.CodeType) and c.co_flags & inspect.CO_NEWLOCALS)
    return found


def stages_checks(converted: Callable, through_calls: bool = False) -> bool:
    """Whether a converted function (or a method or partial of one) may stage a run-time check of its
    own: its rewrite, nested functions included, calls one of ``passes.raises.CHECK_OPERATORS`` (read
    from the compiled code's names, which hold the attributes of ``_ag`` that the code reads). With
    ``through_calls``: or only through another function it calls, or an operator with an implicit check
    (``passes.raises.may_reach_check``)."""
    while isinstance(converted, (types.MethodType, functools.partial, callables.ConvertedCall)):
        converted = (
            converted.call if isinstance(converted, callables.ConvertedCall)
            else converted.__func__ if isinstance(converted, types.MethodType) else converted.func
        )
    code = getattr(converted, "__code__", None)
    if code in _checking_codes:
        return True
    if not isinstance(code, types.CodeType) or code not in _converted_codes:
        return _wrapper_stages_checks(converted, through_calls)
    if not hasattr(converted, "__wrapped__"):
        # Defined inside converted code: its rewrite is part of its parent's, with no function of its
        # own to rewrite again, so reaching a check through its calls is assumed.
        return through_calls or any(CHECK_OPERATORS.intersection(c.co_names) for c in codegen.all_code_objects(code))
    return through_calls and _reaches_check(converted, code)


def _wrapper_stages_checks(function: Any, through_calls: bool, depth: int = 0) -> bool:
    """Whether a library wrapper that conversion rebuilt around converted functions (``jax.vmap(f)``'s,
    :func:`.callables.with_converted_closure`, through nested wrappers) holds one that stages checks:
    ``autograph_lite.jit(jax.vmap(f))`` stages ``f``'s."""
    if depth > callables.MAX_WRAPPER_DEPTH or not isinstance(function, types.FunctionType) or \
            not callees.is_library_function(function):
        return False
    for cell in function.__closure__ or ():
        held = cell_contents_or(cell, None)
        if held is function:
            continue
        if _is_converted(held) and stages_checks(held, through_calls):
            return True
        if _wrapper_stages_checks(held, through_calls, depth + 1):
            return True
    return False


def _reaches_check(converted: Any, code: types.CodeType) -> bool:
    """``passes.raises.may_reach_check`` on the rewrite of the function behind ``converted``, rewritten
    again (as ``rewritten_source`` does) the first time it is asked, then remembered."""
    with _lock:
        decision = _reaching_codes.get(code)
        if decision is None:
            function: types.FunctionType = converted.__wrapped__
            rewritten = _rewritten(function, source.parse_function(function))
            free_names = function.__code__.co_freevars
            decision = may_reach_check(rewritten, lambda name: name in function.__globals__ or name in free_names)
            _reaching_codes[code] = decision
        return decision



def _code_key(function: types.FunctionType) -> tuple:
    """What the compiled code depends on besides the code object itself.

    Code objects compare equal by content alone, file name excluded: the same function copied into
    two modules is one key. But the compiled code carries its file name (for tracebacks), and
    which calls stay as written depends on what the module's names refer to, and on the rules.
    """
    code = function.__code__
    return (code, code.co_filename, id(function.__globals__), callees.rules_version())


def rewritten_source(function: types.FunctionType) -> str:
    """The rewritten source of ``function``. Rewritten again rather than kept: printing is rare, and
    converting should not pay for it."""
    return codegen.source_of(_rewritten(function, source.parse_function(function)))


def _rewritten(function: types.FunctionType, parsed: source.ParsedFunction) -> Any:
    """The rewrite of ``function``'s parsed source, with the calls its module's names leave as they are."""
    return passes.rewrite(parsed, _calls_left_as_is(function))


def operators(static_loops: str) -> Operators:
    with _lock:
        if static_loops not in _operators:
            calls = Calls(
                lambda function: convert_function(function, static_loops),
                _converted_codes,
                lambda value: convert_argument(value, static_loops),
            )
            _operators[static_loops] = Operators(static_loops, calls)
        return _operators[static_loops]


def _calls_left_as_is(function: types.FunctionType) -> Callable[[tuple[str, ...]], bool]:
    """The predicate the calls pass asks: is ``a.b.c(...)`` a call of library code (a library's class
    included)? A class of the user's goes through ``_ag.call``, which notes its new instance as made by
    the staged code that called it."""
    cells = dict(zip(function.__code__.co_freevars, function.__closure__ or ()))

    def leave_as_is(path: tuple[str, ...]) -> bool:
        root, *attributes = path
        if root in cells:
            try:
                value = cells[root].cell_contents
            except ValueError:
                return False
        elif root in function.__globals__:
            value = function.__globals__[root]
        elif hasattr(builtins, root):
            value = getattr(builtins, root)
        else:
            return False
        for attribute in attributes:
            if not isinstance(value, types.ModuleType):
                return False  # attributes of other objects may be properties: never evaluated here
            value = getattr(value, attribute, _MISSING)
        if value is _MISSING or _needs_runtime(value) or takes_functions(value):
            return False  # the runtime converts the function a library function is given
        if isinstance(value, type):  # the runtime notes a user's class's new instances (runtime.effects.note_made)
            return callees.is_library_module(value.__module__) and not registers_with_parent(value)
        module = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
        return callees.is_library_module(module)

    decided: dict[tuple[str, ...], bool] = {}

    def remembered(path: tuple[str, ...]) -> bool:
        """``leave_as_is``, asked once per name chain (``jnp.abs`` may be called many times): a dict
        of its own, cheaper to make than ``functools.cache``'s wrapper, which every conversion makes."""
        decision = decided.get(path)
        if decision is None:
            decision = decided[path] = leave_as_is(path)
        return decision

    return remembered


def _needs_runtime(value: Any) -> bool:
    """Builtins with a traced meaning (``min``, ``range``, ``print``, ``next``, ...) always go through
    ``_ag.call``, and so do the builtins that draw every item of an iterator (``list(it)``, whose draw
    the runtime refuses inside staged code), the ``logging`` module's functions (logged when the program runs), draws
    from a random number generator (``np.random.normal``, a method of
    NumPy's hidden global one) and the library functions that mutate an argument (``heapq.heappush``,
    ``np.copyto``: runtime.library_mutators), which the runtime refuses inside staged code."""
    if changes_random_state(value) or is_mutator(value) or value is getattr or value is hasattr:
        return True  # getattr / hasattr: the attribute's getter of the user's runs converted (runtime.attribute_loads)
    if is_logging_call(value):
        return True  # logging.info(...) logs when the program runs (runtime.staged_logging)
    try:
        return value in TRACED_BUILTINS or value in DRAINING_BUILTINS or open_builtin(value) is not None
    except TypeError:  # unhashable
        return False


def original_of(function: Any) -> Any:
    """The user's function behind a converted one (or behind jit of one); anything else as it is.

    Only autograph_lite's own wrapping is undone: a user's functools.wraps wrapper is a function of
    its own, with its own source.
    """
    if getattr(function, "__code__", None) in _converted_codes:
        return function.__wrapped__
    if hasattr(function, "__wrapped__") and not isinstance(function, (types.FunctionType, types.MethodType)):
        return original_of(function.__wrapped__)  # the jax.jit wrapper that autograph_lite.jit returns
    return function


def unwrap_for_source(function: Any) -> types.FunctionType:
    """The plain function whose source ``to_source`` prints (through methods, partials, callable
    objects, library method wrappers and autograph_lite's own wrappers, in any order)."""
    function = original_of(function)
    while not isinstance(function, types.FunctionType) or callees.is_library_function(function):
        inner: Any
        if isinstance(function, (types.MethodType, functools.partial)):
            inner = function.__func__ if isinstance(function, types.MethodType) else function.func
        elif isinstance(function, types.FunctionType):
            inner = getattr(function, "__wrapped__", None)  # a library's wrapper of the user's method
        else:
            inner = callables.call_method(function)
        if inner is None:
            what = "library code" if isinstance(function, types.FunctionType) else "not a Python function"
            raise ConversionError(f"cannot show the conversion of a {type(function).__qualname__} object: it is {what}")
        function = original_of(inner)
    return function

"""Which called functions are converted: the user's code yes, library code never.

The rule goes by where the code lives, not by a hand list alone: a function whose module is in the
standard library or an installed package (``site-packages`` / ``dist-packages``, the interpreter's
``purelib`` / ``platlib``) is library code and runs as written; so does anything in the modules
named below, whatever its path (they may be installed in development mode). Users can move modules
to either side with :func:`convert_modules` and :func:`skip_modules`, e.g. for their own package
installed into ``site-packages``.
"""

from __future__ import annotations

import functools
import os
import sys
import sysconfig
import threading
import types

_ALWAYS_LIBRARY = frozenset({
    "autograph_lite", "jax", "jaxlib", "numpy", "scipy", "flax", "equinox", "optax", "chex", "haiku",
    "tensorflow", "torch", "ml_dtypes", "opt_einsum", "functools", "builtins",
})
_LIBRARY_DIRECTORIES = tuple(
    os.path.realpath(path) + os.sep
    for path in {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
)

# The attribute that autograph_lite.do_not_convert sets on a function.
DO_NOT_CONVERT_MARK = "__autograph_lite_do_not_convert__"

_lock = threading.Lock()
_converted_prefixes: set[str] = set()
_skipped_prefixes: set[str] = set()
_decisions: dict[tuple[types.CodeType, str], bool] = {}
# Bumped by every change of the rules: conversions made under older rules are not reused.
_version = 0


# JAX's own effects, staged where they are called: in a staged branch or loop body they run when, and as
# often as, that code does (a jax.debug.print in a lax.cond branch prints only if it is taken). Spelled as
# code calls them: the rewrite reads a call's text (passes.effects), the runtime resolves them (runtime.calls).
STAGED_BY_JAX = ("jax.debug.print", "jax.debug.callback")


def rules_version() -> int:
    return _version


def convert_modules(*module_names: str) -> None:
    """Always convert functions from these modules (and their submodules), wherever they are installed."""
    _move(module_names, into=_converted_prefixes, out_of=_skipped_prefixes)


def skip_modules(*module_names: str) -> None:
    """Never convert functions from these modules (and their submodules)."""
    _move(module_names, into=_skipped_prefixes, out_of=_converted_prefixes)


def _move(module_names: tuple[str, ...], into: set[str], out_of: set[str]) -> None:
    global _version
    with _lock:
        into.update(module_names)
        out_of.difference_update(module_names)
        _decisions.clear()
        _version += 1


def is_library_module(module_name: str | None) -> bool:
    """Whether a module, by its name and the file it was loaded from, is library code."""
    if not module_name:
        return False
    if _matches(module_name, _converted_prefixes):
        return False
    if _matches(module_name, _skipped_prefixes) or module_name.split(".")[0] in _ALWAYS_LIBRARY:
        return True
    if module_name in sys.builtin_module_names:
        return True
    module = sys.modules.get(module_name)
    filename = getattr(module, "__file__", None)
    return filename is not None and _in_library_directory(filename)


def is_marked_do_not_convert(function: object) -> bool:
    return getattr(function, DO_NOT_CONVERT_MARK, False)


def is_library_function(function: types.FunctionType) -> bool:
    """Whether ``function`` is library code (cached per code object)."""
    code = function.__code__
    key = (code, code.co_filename)  # code objects compare equal across files
    decision = _decisions.get(key)
    if decision is None:
        module_name = getattr(function, "__module__", None)
        if module_name and (_matches(module_name, _converted_prefixes) or _matches(module_name, _skipped_prefixes)):
            decision = is_library_module(module_name)
        else:
            decision = is_library_module(module_name) or _in_library_directory(code.co_filename)
        _decisions[key] = decision
    return decision


def _matches(module_name: str, prefixes: set[str]) -> bool:
    return any(module_name == p or module_name.startswith(p + ".") for p in prefixes)


@functools.lru_cache(maxsize=4096)
def _in_library_directory(filename: str) -> bool:
    """Whether the file is in the standard library or an installed package. Remembered per file
    name: a first conversion asks for its module's file and for its code's, most often the same
    file, and every function of a module asks again; each ``realpath`` reads the file system."""
    path = os.path.realpath(filename)
    if f"{os.sep}site-packages{os.sep}" in path or f"{os.sep}dist-packages{os.sep}" in path:
        return True
    return path.startswith(_LIBRARY_DIRECTORIES)

"""Resolve the TARGET of an ``autograph-lite`` command (``FILE.py::FUNC`` or ``package.module:FUNC``)
to the function it names.

Finding the function is a job of its own: a file is imported as a real module (the converter reads
source through ``inspect`` and ``linecache``), as a module of its package when it is in one (so that
its relative imports work, as pytest's ``rootdir`` import does), a module is imported as ``python -m``
would, and every way of failing (no file, an import that raises, a missing attribute, a class instead
of a function) becomes a :class:`TargetError` whose message names what was not found.

A function defined inside another (``outer.inner`` or ``outer.<locals>.inner``) exists only while its
outer function runs: it is found as a code object inside the outer function's, and shown as it
appears in the outer function's rewrite (:func:`nested_source`).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import itertools
import os
import pkgutil
import re
import sys
import textwrap
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .generated_names import PREFIX

_module_numbers = itertools.count()
_LOCALS = "<locals>"


class UsageError(Exception):
    """A command line that cannot be carried out as given (exit code 2)."""


class TargetError(UsageError):
    """The target named on the command line cannot be found or loaded (exit code 2)."""


@dataclasses.dataclass(frozen=True)
class Target:
    """What a TARGET names: the object found, and where it was found."""

    function: Callable[..., Any]
    """The function named, or for a nested function the outer function that defines it."""
    qualname: str
    """The name as written after the colon(s)."""
    owner: type | None = None
    """The class the last name was looked up on: a method found there needs an instance to be called."""
    nested: tuple[str, ...] = ()
    """For a function defined inside ``function``: the names from ``function`` down to it."""
    nested_code: types.CodeType | None = None
    defined_in: str = ""
    """For a nested function: the qualified name of ``function``, which defines it."""


def load_target(target: str) -> Target:
    """The object named by ``FILE.py::FUNC`` or ``package.module:FUNC``."""
    if "::" in target:
        location, _, qualname = target.rpartition("::")
        module = _load_file(location)
    elif ":" in target:
        location, _, qualname = target.rpartition(":")
        module = _load_file(location) if location.endswith(".py") else _import_module(location)
    else:
        raise TargetError(f"{target!r} names no function: write FILE.py::FUNC or package.module:FUNC")
    if not qualname:
        raise TargetError(f"{target!r} names no function after the colon")
    found = _resolve(module, qualname, location)
    if isinstance(found.function, type):
        raise TargetError(f"{qualname!r} is a class: name one of its methods, e.g. {qualname}.__call__")
    if not callable(found.function):
        raise TargetError(f"{qualname!r} is a {type(found.function).__name__}, not a function")
    return found


def _load_file(path_text: str) -> types.ModuleType:
    """Import a file as a real module: the converter reads the source through ``inspect`` and ``linecache``,
    which find it by the module and file a function's code object names."""
    path = Path(path_text)
    if not path.is_file():
        raise TargetError(f"no such file: {path_text}")
    in_package = _package_module(path.resolve())
    if in_package is not None:
        return _load_package_module(path_text, *in_package)
    name = f"_autograph_lite_cli_{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}_{next(_module_numbers)}"
    spec = importlib.util.spec_from_file_location(name, path.resolve())
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot import {path_text}: not a Python source file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    # Like `python FILE.py`: the file's own directory is importable, so its sibling imports work.
    _importable(path.resolve().parent)
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as error:  # user code may raise anything, sys.exit() included
        del sys.modules[name]
        raise TargetError(f"importing {path_text} failed: {_describe(error)}") from error
    return module


def _package_module(path: Path) -> tuple[Path, str] | None:
    """The directory that holds ``path``'s top-level package and ``path``'s dotted module name, found by
    the chain of ``__init__.py`` files above it; ``None`` for a file that is in no package."""
    parts = [] if path.name == "__init__.py" else [path.stem]
    directory = path.parent
    while (directory / "__init__.py").is_file():
        parts.insert(0, directory.name)
        directory = directory.parent
    if directory == path.parent or not all(part.isidentifier() for part in parts):
        return None  # no package, or one that no import statement can name (a directory "my-pkg")
    return directory, ".".join(parts)


def _load_package_module(path_text: str, root: Path, module_name: str) -> types.ModuleType:
    """Import a file of a package by its dotted name, with the package's parent directory importable,
    after checking that the name finds this package and not another one earlier on ``sys.path``."""
    _importable(root)
    top_level = module_name.split(".")[0]
    try:
        spec = importlib.util.find_spec(top_level)
    except (ImportError, ValueError):  # a module of that name that is half imported, or has no spec
        spec = None
    found = spec.origin if spec is not None else None
    if found is None or Path(found).resolve() != root / top_level / "__init__.py":
        raise TargetError(
            f"{path_text} is module {module_name} of the package in {root}, but the name {top_level} finds "
            f"{found or 'another module'}: another module of that name comes first on sys.path; rename the "
            "package, or name the function as package.module:FUNC"
        )
    return _import_module(module_name)


def _importable(directory: Path) -> None:
    if str(directory) not in sys.path:
        sys.path.insert(0, str(directory))


def _import_module(module_name: str) -> types.ModuleType:
    # The console script's sys.path starts at its bin directory; make it behave like `python -m`.
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    if not all(part.isidentifier() for part in module_name.split(".")):
        raise TargetError(f"{module_name!r} is not a module name: write package.module:FUNC")
    try:
        module: types.ModuleType = pkgutil.resolve_name(f"{module_name}:")
    except ModuleNotFoundError as error:
        if error.name and (module_name == error.name or module_name.startswith(error.name + ".")):
            raise TargetError(f"no module named {error.name!r}") from error
        raise TargetError(f"importing {module_name} failed: {_describe(error)}") from error
    except (Exception, SystemExit) as error:
        raise TargetError(f"importing {module_name} failed: {_describe(error)}") from error
    return module


def _resolve(module: types.ModuleType, qualname: str, location: str) -> Target:
    value: Any = module
    owner: type | None = None
    names = qualname.split(".")
    for depth, attribute in enumerate(names):
        if attribute == _LOCALS or (_is_function(value) and not hasattr(value, attribute)):
            return _nested_target(value, names[depth:], qualname, location)
        try:
            found = getattr(value, attribute)
        except AttributeError:
            owner_text = location if depth == 0 else f"{location}: {'.'.join(names[:depth])}"
            raise TargetError(f"{owner_text} has no attribute {attribute!r}") from None
        owner = value if isinstance(value, type) else None
        value = found
    return Target(value, qualname, owner)


def _is_function(value: Any) -> bool:
    return callable(value) and not isinstance(value, (type, types.ModuleType))


def _nested_target(outer: Any, names: list[str], qualname: str, location: str) -> Target:
    """A function defined inside ``outer``, by its names under it (``<locals>`` parts optional)."""
    from .codegen import all_code_objects
    from .conversion import unwrap_for_source
    from .errors import ConversionError

    wanted = tuple(name for name in names if name != _LOCALS)
    outer_name = qualname[: len(qualname) - len(".".join(names))].rstrip(".")
    if not wanted:
        raise TargetError(f"{qualname!r} ends with {_LOCALS}: name the function defined there")
    if any(name.startswith("<") for name in wanted):
        raise TargetError(f"{qualname!r} names a lambda or comprehension, which has no def of its own: show {outer_name}")
    try:
        code = unwrap_for_source(outer).__code__
    except ConversionError:
        raise TargetError(f"{location}: {outer_name} has no attribute {wanted[0]!r}") from None
    prefix = _without_locals(code.co_qualname)
    found = sorted((c for c in all_code_objects(code) if _without_locals(c.co_qualname) == prefix + wanted),
                   key=lambda c: c.co_firstlineno)
    if not found:
        raise TargetError(f"{location}: {outer_name} has no attribute or nested function {'.'.join(wanted)!r}")
    if len(found) > 1:
        lines = ", ".join(str(c.co_firstlineno) for c in found)
        raise TargetError(
            f"{outer_name} defines {len(found)} functions named {'.'.join(wanted)!r} (lines {lines}): show {outer_name}"
        )
    return Target(outer, qualname, None, wanted, found[0], outer_name)


def _without_locals(qualname: str) -> tuple[str, ...]:
    return tuple(name for name in qualname.split(".") if name != _LOCALS)


def nested_source(rewritten_outer: str, names: tuple[str, ...]) -> str:
    """The ``def`` of the function at ``names`` inside the rewritten outer function, as it runs there
    (the rewrite may have moved it into a generated helper, whose name is not part of the path)."""
    tree = ast.parse(rewritten_outer)
    found = [node for node, path in _named_definitions(tree.body[0], ()) if path == names]
    if len(found) != 1 or not isinstance(found[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise UsageError(f"the rewrite holds no single def for {'.'.join(names)}: show the function that defines it")
    node = found[0]
    lines = rewritten_outer.splitlines(keepends=True)
    first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
    assert node.end_lineno is not None
    return textwrap.dedent("".join(lines[first - 1 : node.end_lineno]))


def _named_definitions(node: ast.AST, path: tuple[str, ...]) -> Iterator[tuple[ast.AST, tuple[str, ...]]]:
    """Every def and class of the user's below ``node`` (not the generated helpers, which the rewrite may
    have moved it into), with its path: the names of the user's defs and classes down to it."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not child.name.startswith(PREFIX):
            yield child, (*path, child.name)
            yield from _named_definitions(child, (*path, child.name))
        else:
            yield from _named_definitions(child, path)


def _describe(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__

"""Resolve the TARGET of an ``autograph-lite`` command (``FILE.py::FUNC`` or ``package.module:FUNC``)
to the function it names.

Finding the function is a job of its own: a file is imported as a real module (the converter reads
source through ``inspect`` and ``linecache``), a module is imported as ``python -m`` would, and every
way of failing (no file, an import that raises, a missing attribute, a class instead of a function)
becomes a :class:`TargetError` whose message names what was not found.
"""

from __future__ import annotations

import importlib
import importlib.util
import itertools
import os
import re
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

_module_numbers = itertools.count()


class UsageError(Exception):
    """A command line that cannot be carried out as given (exit code 2)."""


class TargetError(UsageError):
    """The target named on the command line cannot be found or loaded (exit code 2)."""


def load_target(target: str) -> Callable[..., Any]:
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
    if isinstance(found, type):
        raise TargetError(f"{qualname!r} is a class: name one of its methods, e.g. {qualname}.__call__")
    if not callable(found):
        raise TargetError(f"{qualname!r} is a {type(found).__name__}, not a function")
    return found


def _load_file(path_text: str) -> types.ModuleType:
    """Import a file as a real module: the converter reads the source through ``inspect`` and ``linecache``,
    which find it by the module and file a function's code object names."""
    path = Path(path_text)
    if not path.is_file():
        raise TargetError(f"no such file: {path_text}")
    name = f"_autograph_lite_cli_{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}_{next(_module_numbers)}"
    spec = importlib.util.spec_from_file_location(name, path.resolve())
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot import {path_text}: not a Python source file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    # Like `python FILE.py`: the file's own directory is importable, so its sibling imports work.
    directory = str(path.resolve().parent)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as error:  # user code may raise anything, sys.exit() included
        del sys.modules[name]
        raise TargetError(f"importing {path_text} failed: {_describe(error)}") from error
    return module


def _import_module(module_name: str) -> types.ModuleType:
    # The console script's sys.path starts at its bin directory; make it behave like `python -m`.
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and (module_name == error.name or module_name.startswith(error.name + ".")):
            raise TargetError(f"no module named {error.name!r}") from error
        raise TargetError(f"importing {module_name} failed: {_describe(error)}") from error
    except (Exception, SystemExit) as error:
        raise TargetError(f"importing {module_name} failed: {_describe(error)}") from error


def _resolve(module: types.ModuleType, qualname: str, location: str) -> Any:
    value: Any = module
    for depth, attribute in enumerate(qualname.split(".")):
        try:
            value = getattr(value, attribute)
        except AttributeError:
            owner = location if depth == 0 else f"{location}: {'.'.join(qualname.split('.')[:depth])}"
            raise TargetError(f"{owner} has no attribute {attribute!r}") from None
    return value


def _describe(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__

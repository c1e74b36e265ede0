"""Whether an object that staged code is about to change can be seen from outside that code.

``self.count += 1`` in a method that a staged loop body calls changes an object while the body is
traced: once, whatever the trip count. That is a wrong value only if something outside the staged
code can see the object (a module-level instance, a model the function was given, anything reachable
from them); an object the traced code built itself (``acc = Accumulator()`` in the body) is private
to the trace, and changing it while tracing is what Python does.

Python keeps no creation time on objects, and a constructor call proves nothing about freshness (it
may return a shared instance), so the question is answered the other way round: is the object
reachable from what the code outside the staged statement holds? That is the variables of the user's
frames from the one that entered the staged trace outward (the converted function, its callers),
and their modules' globals, followed through containers and objects' attributes. Frames of JAX, of
this package and of other installed libraries hold no user object that the user's own frames do not
hold too, and are not searched. The search is bounded; past the bound it answers "visible", so that
the check stays on the safe side (a located error, never a silent wrong value).
"""

from __future__ import annotations

import os
import sysconfig
import types
from collections.abc import Iterable, Iterator
from typing import Any

import jax
import numpy as np

from .locations import PACKAGE_DIRECTORY

_DEPTH = 4  # a module global, its attribute, that one's attribute, ...
_BUDGET = 50_000  # objects expanded before giving up (then: visible)
_OPAQUE = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.CodeType,
           types.FrameType, jax.Array, np.ndarray, np.generic, str, bytes, int, float, complex, bool, type(None))
_LIBRARY_DIRECTORIES = tuple(
    {os.path.realpath(path) + os.sep for key in ("stdlib", "platstdlib", "purelib", "platlib")
     if (path := sysconfig.get_paths().get(key))} | {PACKAGE_DIRECTORY}
)


def visible_outside(target: Any, boundary: types.FrameType | None) -> bool:
    """Whether ``target`` is reachable from the user's frames from ``boundary`` (the frame that
    entered the staged trace) outward, or from their globals (see the module's docstring)."""
    if boundary is None:
        return True
    seen: set[int] = set()
    frontier: list[Any] = list(_roots(boundary))
    for _ in range(_DEPTH + 1):
        following: list[Any] = []
        for value in frontier:
            if value is target:
                return True
            if isinstance(value, _OPAQUE) or id(value) in seen:
                continue
            seen.add(id(value))
            if len(seen) > _BUDGET:
                return True
            following.extend(_children(value))
        frontier = following
    return any(value is target for value in frontier)


def _roots(boundary: types.FrameType) -> Iterator[Any]:
    """The variables of the user's frames from ``boundary`` outward, then their modules' globals."""
    modules: dict[int, dict[str, Any]] = {}
    frame: types.FrameType | None = boundary
    while frame is not None:
        if _users(frame.f_code.co_filename):
            yield from frame.f_locals.values()
            modules[id(frame.f_globals)] = frame.f_globals
        frame = frame.f_back
    for variables in modules.values():
        yield from variables.values()


def _users(filename: str) -> bool:
    """Whether code from ``filename`` is the user's: not JAX's, this package's, the standard library's
    or an installed library's."""
    if filename.startswith("<frozen"):
        return False
    return not os.path.realpath(filename).startswith(_LIBRARY_DIRECTORIES)


def _children(value: Any) -> Iterable[Any]:
    """What ``value`` holds: a container's items (a dict's values), an object's attributes."""
    if isinstance(value, dict):
        return value.values()
    if isinstance(value, (list, tuple, set, frozenset)):
        return value
    attributes = getattr(value, "__dict__", None)
    slots = [getattr(value, name, None) for name in getattr(type(value), "__slots__", ())
             if isinstance(name, str)]
    return [*(attributes.values() if isinstance(attributes, dict) else ()), *slots]


"""The state a generated program leaves in its own module, compared after each run like the arguments.

A helper's effect on a module-level container (``COUNTER[0] += 1``, ``BAG += [0]``, a setter logging
to ``METER_LOG``, ``type(self).made += 1``) that runs once while tracing a staged loop instead of once
per iteration is a wrong value the caller sees, whether or not it reaches ``f``'s result: the helpers
return their counts modulo 5, and a count of 6 for eager's 1 agrees there. So the checker snapshots
what the program keeps at module level after each run and compares it with eager's.

What is snapshotted: every module-level value that is not a module, a function or a class (lists,
dicts, NumPy arrays, instances of the program's classes by their attributes, rebound globals such as
``SWAPPED``), and the data attributes of the program's classes (``Counter.made``). A JAX tracer found
there (an effect that leaked one) stands as ``<tracer>``, which no eager value equals.
"""

from __future__ import annotations

import types
from typing import Any

import jax
import numpy as np

_SKIPPED = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type)


def module_state(namespace: dict[str, Any]) -> dict[str, Any]:
    """A deep, comparable copy of the state the program module ``namespace`` holds (see the module doc)."""
    module = namespace.get("__name__")
    state = {name: _snapshot(value, module) for name, value in namespace.items()
             if not name.startswith("__") and not isinstance(value, _SKIPPED)}
    for name, value in namespace.items():
        if isinstance(value, type) and value.__module__ == module:
            state[f"{name}.<class>"] = {key: _snapshot(item, module) for key, item in vars(value).items()
                                        if not key.startswith("__") and not _is_code(item)}
    return state


def state_difference(actual: dict[str, Any], expected: dict[str, Any]) -> str | None:
    """Which module-level names hold other values than eager's, and what each holds; None when all agree."""
    differing = sorted(name for name in expected.keys() | actual.keys() if actual.get(name) != expected.get(name))
    if not differing:
        return None
    return "; ".join(f"{name} is {actual.get(name)!r}, eager Python left {expected.get(name)!r}"
                     for name in differing)


def _is_code(value: Any) -> bool:
    return callable(value) or isinstance(value, (staticmethod, classmethod, property))


def _snapshot(value: Any, module: str | None) -> Any:
    """A value equal to another snapshot exactly where the two states are the same."""
    if isinstance(value, jax.core.Tracer):
        return "<tracer>"
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_snapshot(item, module) for item in value])
    if isinstance(value, dict):
        return (type(value).__name__, {key: _snapshot(item, module) for key, item in value.items()})
    if isinstance(value, (np.ndarray, jax.Array)):
        array = np.asarray(value)
        return ("array", str(array.dtype), array.tolist())
    if type(value).__module__ == module and hasattr(value, "__dict__"):
        return (type(value).__name__, _snapshot(vars(value), module))
    return value

"""The user's code that a store or an in-place operator runs implicitly, unconverted.

``obj.attr = v`` may run a property's setter, a data descriptor's ``__set__`` or the class's own
``__setattr__``; ``xs[i] = v`` the class's ``__setitem__``; ``a += v`` its ``__iadd__``. Converted code
never calls them itself, so they run as written, and whatever they change besides the object (a
module-level log) would escape the effect checks of :mod:`.effects`, which asks these functions which
such code a store would run. Library code (a Flax module's ``__setattr__``) is not the user's.
"""

from __future__ import annotations

import types
from typing import Any, TypeGuard

from .. import callees


def user_hook(owner_type: type, method: str) -> str | None:
    """``Class.method()`` where ``owner_type``'s ``method`` is the user's Python code (inherited
    included), not a builtin's slot or library code: what a store or a call of the class runs
    implicitly, unconverted."""
    function = getattr(owner_type, method, None)
    return f"{function.__qualname__}()" if _is_users(function) else None


def _is_users(function: Any) -> TypeGuard[types.FunctionType]:
    return isinstance(function, types.FunctionType) and not callees.is_library_function(function)


def attribute_hook(owner: Any, attribute: str, through_object: bool = False) -> str | None:
    """The user's code that storing or deleting ``owner.attribute`` runs: a ``__setattr__`` /
    ``__delattr__`` of the class's, a property's setter or deleter, a data descriptor's ``__set__`` /
    ``__delete__``. Both kinds are looked for: the check does not know whether the store deletes.
    ``through_object``: the store is ``object.__setattr__(owner, ...)``, which bypasses the class's own
    ``__setattr__`` (a frozen class's ``__init__`` stores so), but not a descriptor."""
    owner_type = type(owner)
    hook = None if through_object else user_hook(owner_type, "__setattr__") or user_hook(owner_type, "__delattr__")
    if hook is not None:
        return hook
    for klass in owner_type.__mro__:
        if attribute in vars(klass):
            descriptor = vars(klass)[attribute]
            if isinstance(descriptor, property):
                users = any(_is_users(function) for function in (descriptor.fset, descriptor.fdel))
                return f"the setter of the property {owner_type.__name__}.{attribute}" if users else None
            return user_hook(type(descriptor), "__set__") or user_hook(type(descriptor), "__delete__")
    return None

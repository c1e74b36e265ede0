"""``x[i] = v`` and ``x[i] op= v`` on any container: ``.at[]`` updates for JAX arrays, in place otherwise."""

from __future__ import annotations

import operator
from typing import Any

import jax

_AT_METHODS = {"+=": "add", "-=": "subtract", "*=": "multiply", "/=": "divide", "**=": "power"}
_BINARY = {
    "+=": operator.add, "-=": operator.sub, "*=": operator.mul, "/=": operator.truediv,
    "//=": operator.floordiv, "%=": operator.mod, "**=": operator.pow, "@=": operator.matmul,
    "&=": operator.and_, "|=": operator.or_, "^=": operator.xor, "<<=": operator.lshift, ">>=": operator.rshift,
}
_IN_PLACE = {
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "@=": operator.imatmul,
    "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift, ">>=": operator.irshift,
}


def setitem(container: Any, index: Any, value: Any, augmented: str | None = None) -> Any:
    """The container after ``container[index] = value`` (or ``container[index] augmented value``)."""
    if isinstance(container, jax.Array):
        where = container.at[index]
        if augmented is None:
            return where.set(value)
        if augmented in _AT_METHODS:
            return getattr(where, _AT_METHODS[augmented])(value)
        return where.set(_BINARY[augmented](container[index], value))
    if augmented is None:
        container[index] = value
    else:
        container[index] = _IN_PLACE[augmented](container[index], value)
    return container

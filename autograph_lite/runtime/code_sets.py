"""Sets of code objects, and values kept per code object, by identity.

Code objects compare equal by content, their file name excluded, and hash without their first line: the
same helper written in many modules (or at many lines) is one hash with unequal members, so a ``set`` of
them probes through each, comparing code and constants deeply. A long run converting many similar
functions (the generated-program fuzzer: 650 programs) spent minutes in those comparisons. What the
converter asks is whether this very code object is one it made, so it keeps them by ``id``; the objects
stay referenced here, so an ``id`` is never reused while its entry stands.
"""

from __future__ import annotations

import types
from collections.abc import Iterable
from typing import Generic, TypeVar

V = TypeVar("V")


class CodeSet:
    """Code objects, by identity (see the module docstring)."""

    def __init__(self) -> None:
        self._codes: dict[int, types.CodeType] = {}

    def add(self, code: types.CodeType) -> None:
        self._codes[id(code)] = code

    def update(self, codes: Iterable[types.CodeType]) -> None:
        for code in codes:
            self._codes[id(code)] = code

    def __contains__(self, code: object) -> bool:
        return isinstance(code, types.CodeType) and self._codes.get(id(code)) is code


class CodeMap(Generic[V]):
    """A value per code object, by identity (see the module docstring)."""

    def __init__(self) -> None:
        self._entries: dict[int, tuple[types.CodeType, V]] = {}

    def get(self, code: types.CodeType) -> V | None:
        entry = self._entries.get(id(code))
        return entry[1] if entry is not None and entry[0] is code else None

    def __setitem__(self, code: types.CodeType, value: V) -> None:
        self._entries[id(code)] = (code, value)

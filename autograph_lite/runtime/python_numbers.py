"""Traced values that stand for a Python number eagerly, so that the text made from them is eager's.

``float(x)`` of a float32 ``x`` is a Python float eagerly, the very number ``x`` holds: ``print(float(x))``
prints ``0.10000000149011612``. Under a trace the cast is a weakly typed float32 array, whose text
when the program ran was float32's (``0.1``); ``int(x)`` likewise printed ``Array(3, dtype=int32,
weak_type=True)`` inside a tuple, where eager Python prints ``3``. The casts note the values they make
(:func:`noted`); a print's callback turns a noted value into the Python number it holds before it
formats it. A value computed from a noted one is not noted: it prints as the array it is, a Python
number that staged code computes in float32 or int32 (docs/semantics.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .session import current


def noted(value: Any) -> Any:
    """``value``, the result of ``int()`` / ``float()`` of a traced value, noted as a Python number."""
    current().python_numbers[id(value)] = value
    return value


def among(leaves: Sequence[Any], traced_at: Sequence[int]) -> frozenset[int]:
    """The positions among ``traced_at`` whose leaf is a noted Python number."""
    numbers = current().python_numbers
    return frozenset(index for index in traced_at if numbers.get(id(leaves[index])) is leaves[index])

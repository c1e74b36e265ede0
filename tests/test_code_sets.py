"""The converter's registries of code objects go by identity (runtime/code_sets.py): code objects
compare equal by content, their file excluded, and hash without their first line, so the same helper
written at many lines made a ``set`` of them probe through every one (a fuzz run of 650 generated
programs spent minutes in ``code_richcompare``); and a code object from another file that only
compares equal is not one the converter made."""

from __future__ import annotations

import autograph_lite
from autograph_lite import conversion
from autograph_lite.runtime.code_sets import CodeMap, CodeSet

TEXT = "def twin(v):\n    return v * 2\n"


def _twin(filename: str, blank_lines: int):
    return compile("\n" * blank_lines + TEXT, filename, "exec").co_consts[0]


def test_a_code_object_equal_to_a_member_is_not_one():
    first, copy, moved = _twin("a.py", 0), _twin("b.py", 0), _twin("a.py", 3)
    assert first == copy and hash(first) == hash(moved) and first != moved  # what a set goes by
    codes = CodeSet()
    codes.update([first])
    assert first in codes
    assert copy not in codes and moved not in codes and None not in codes


def test_a_value_per_code_object():
    first, copy = _twin("a.py", 0), _twin("b.py", 0)
    decisions: CodeMap[bool] = CodeMap()
    decisions[first] = True
    assert decisions.get(first) is True and decisions.get(copy) is None


def doubled(v):
    if v > 0:
        return v * 2
    return v


def test_the_converter_knows_its_own_code_not_an_equal_copy():
    made = autograph_lite.convert(doubled).__code__
    copy = made.replace()  # equal, not the same object
    assert copy == made and copy is not made
    assert made in conversion._converted_codes
    assert copy not in conversion._converted_codes and doubled.__code__ not in conversion._converted_codes

"""The package's size limits, enforced: modules under 400 lines, functions under 60.

A module that grows past 400 lines has taken on a second job, and a function past 60 lines is hard to
read whole; both limits come from the contributing standards. Each file is parsed, not imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "autograph_lite"
MODULE_LIMIT = 400
FUNCTION_LIMIT = 60
MODULES = sorted(PACKAGE.rglob("*.py"))


def long_functions(source: str) -> list[tuple[str, int]]:
    """(name, length in lines) of every function or method in ``source`` longer than the limit."""
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno - node.lineno + 1 > FUNCTION_LIMIT
    ]


def test_the_package_has_modules_to_check() -> None:
    assert len(MODULES) > 40


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_module_is_under_the_size_limits(path: Path) -> None:
    source = path.read_text()
    assert len(source.splitlines()) < MODULE_LIMIT, f"{path.name} has {len(source.splitlines())} lines"
    assert long_functions(source) == []


def test_a_long_function_is_found() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(FUNCTION_LIMIT))
    assert long_functions(f"def f():\n{body}\n") == [("f", FUNCTION_LIMIT + 1)]
    assert long_functions("def g():\n    return 1\n") == []

"""Conversion's faster stand-ins for gast's own functions must give exactly what gast's give: the
translators between Python's ``ast`` and gast (``source._gast_parse``, ``codegen.to_python_ast``: gast's
with the method lookup done once per node class, ``autograph_lite.dispatch``), positions included, and
the tree walks (``analysis.blocks.walk`` / ``child_nodes``: gast's, the same nodes in the same order)."""

from __future__ import annotations

import ast
import pathlib
import warnings

import gast
import pytest

from autograph_lite import codegen, conversion, source
from autograph_lite.analysis.blocks import child_nodes, walk
from autograph_lite.dispatch import DispatchByClass

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The package, the benchmark programs, the examples and the test programs: every statement and
# expression class that the project's own code and its test inputs use (match, try*, walrus, f-strings).
CORPUS = sorted(
    [*ROOT.glob("autograph_lite/**/*.py"), *ROOT.glob("bench/programs/*.py"), *ROOT.glob("examples/*.py"),
     *ROOT.glob("tests/program_*.py"), *ROOT.glob("tests/test_match*.py"), *ROOT.glob("tests/test_exits_in_with_try.py")]
)


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_translations_are_gasts_own(path):
    text = path.read_text()
    expected = gast.parse(text)
    translated = source._gast_parse(text)
    assert gast.dump(translated, include_attributes=True) == gast.dump(expected, include_attributes=True)
    assert ast.dump(codegen.to_python_ast(translated), include_attributes=True) == ast.dump(
        gast.gast_to_ast(expected), include_attributes=True
    )
    assert [id(node) for node in walk(expected)] == [id(node) for node in gast.walk(expected)]
    assert all(child_nodes(node) == list(gast.iter_child_nodes(node)) for node in gast.walk(expected))


def test_rewritten_trees_translate_as_gast_translates_them():
    """A rewritten tree holds generated nodes (shared contexts, helpers): same translation."""
    from bench.programs import PROGRAMS, natural

    for program in PROGRAMS:
        for name in program.functions:
            function = getattr(natural, name)
            rewritten = conversion._rewritten(function, source.parse_function(function))
            assert ast.dump(codegen.to_python_ast(rewritten), include_attributes=True) == ast.dump(
                gast.gast_to_ast(rewritten), include_attributes=True
            ), name


def test_a_visitor_with_a_pre_3_8_constant_method_still_gets_it():
    """``ast.NodeVisitor`` hands a constant to ``visit_Num`` / ``visit_Str`` / ... when a visitor has
    one (with a DeprecationWarning); the per-class table skips that step only for visitors without."""

    class Numbers(DispatchByClass, ast.NodeVisitor):
        def __init__(self) -> None:
            self.seen: list[object] = []

        def visit_Num(self, node: ast.Constant) -> None:
            self.seen.append(node.value)

    visitor = Numbers()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        visitor.visit(ast.parse("x = 1 + 'a' + 2.5"))
    assert visitor.seen == [1, 2.5]


"""Golden files of the analysis: what each ``if`` / ``while`` / ``for`` carries, per function of
tests/golden/analysis/corpus.py, in tests/golden/analysis/NAME.txt.

The analysis runs where the conversion runs it: after the passes before it in ``passes.PASS_ORDER``
(so a ``break`` is already a flag the loop carries), on the function's own scope. Calls are left as
written (a converted call only adds the runtime's name, never a local). Each file shows the source
the analysis saw, then, for each control-flow statement in source order, its line and header and:

- carried: the names the staged statement takes and returns;
- live after: the names read after the statement before being written again;
- live into body: the names its body (or a branch) reads before writing them;
- unbound: carried names that no path has bound before the statement (they start as ``Undefined``);
- maybe unbound: carried names that some paths have bound (looked up at run time);
- inputs only (``if``): names a branch reads before writing them that nobody reads after the ``if``:
  passed into the branches, not returned (so their types may differ between the branches).

A change in the analysis shows up here as a readable diff, to be reviewed like any other change. To
regenerate the files after an intended change (or after editing the corpus, since lines move), run

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_analysis_golden.py

and review ``git diff tests/golden/analysis/`` before committing (as for tests/test_golden.py).
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import gast
import pytest

from autograph_lite import codegen, passes
from autograph_lite.analysis import NameScanner
from autograph_lite.analysis.blocks import blocks_of
from autograph_lite.errors import Location
from autograph_lite.passes.facts import ScopeFacts, scope_facts

DIRECTORY = Path(__file__).parent / "golden" / "analysis"
CORPUS = DIRECTORY / "corpus.py"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
CORPUS_LINES = CORPUS.read_text().splitlines(keepends=True)
NAMES = [node.name for node in ast.parse("".join(CORPUS_LINES)).body if isinstance(node, ast.FunctionDef)]
UNTIL_ANALYSIS = passes.PASS_ORDER[: [step for step, _ in passes.PASS_ORDER].index(passes.find_carried) + 1]


def analysed(function: gast.FunctionDef) -> ScopeFacts:
    """The facts of ``function`` once the analysis has run, as in a conversion."""
    text = "".join(CORPUS_LINES[function.lineno - 1 : function.end_lineno])
    facts = scope_facts(
        function, names=NameScanner(may_have_walrus=":=" in text),
        locate=lambda node: Location(str(CORPUS), getattr(node, "lineno", 1)), leave_call_as_is=lambda path: True,
    )
    return passes.run_passes(function, facts, UNTIL_ANALYSIS)


def control_flow_in_order(statements: list[gast.stmt]) -> list[gast.stmt]:
    """The statements in ``statements`` and in their blocks, in source order (a pre-order walk)."""
    found = []
    for statement in statements:
        found.append(statement)
        for block in blocks_of(statement):
            found.extend(control_flow_in_order(block))
    return found


def header(node: gast.stmt) -> str:
    if isinstance(node, gast.If):
        return f"if {_text(node.test)}:"
    if isinstance(node, gast.While):
        return f"while {_text(node.test)}:"
    return f"for {_text(node.target)} in {_text(node.iter)}:"


def _text(node: gast.AST) -> str:
    return ast.unparse(gast.gast_to_ast(node))


def _names(names) -> str:
    return ", ".join(sorted(names)) or "-"


def parsed(name: str) -> gast.FunctionDef:
    """A fresh tree of the corpus function ``name`` (the passes rewrite the tree they are given)."""
    module = gast.parse("".join(CORPUS_LINES))
    return next(node for node in module.body if isinstance(node, gast.FunctionDef) and node.name == name)


def dump(name: str) -> str:
    function = parsed(name)
    facts = analysed(function)
    lines = [
        f"# The analysis of corpus.{name}: see tests/test_analysis_golden.py.",
        f"placeholders: {_names(facts.placeholders)}",
        f"cells: {_names(facts.cells)}",
        "",
        "analysed source:",
        *("    " + line for line in codegen.source_of(function).splitlines()),
    ]
    for node in control_flow_in_order(function.body):
        if node not in facts.info:
            continue
        info = facts.info[node]
        lines += ["", f"line {node.lineno}: {header(node)}"]
        if node in facts.stop_tests:
            lines.append(f"    stop test:      {_text(facts.stop_tests[node])}")
        lines += [
            f"    carried:        {_names(info.carried)}",
            f"    live after:     {_names(info.live_after)}",
            f"    live into body: {_names(info.live_into_body)}",
            f"    unbound:        {_names(info.unbound)}",
            f"    maybe unbound:  {_names(info.maybe_unbound)}",
        ]
        if isinstance(node, gast.If):
            lines.append(f"    inputs only:    {_names(info.inputs_only)}")
    return "\n".join(lines) + "\n"


def golden_path(name: str) -> Path:
    return DIRECTORY / f"{name}.txt"


@pytest.mark.parametrize("name", NAMES)
def test_analysis_matches_golden_file(name):
    actual = dump(name)
    path = golden_path(name)
    if UPDATE:
        path.write_text(actual)
        return
    assert path.exists(), f"no golden file {path.name}; run with UPDATE_GOLDEN=1 to create it"
    assert actual == path.read_text(), (
        f"the analysis of corpus.{name} changed; if intended, run UPDATE_GOLDEN=1 pytest "
        f"tests/test_analysis_golden.py and review the diff of {path.relative_to(Path(__file__).parent.parent)}"
    )


def test_no_stale_golden_files():
    stale = sorted(p.name for p in DIRECTORY.glob("*.txt") if p.stem not in NAMES)
    if UPDATE:
        for name in stale:
            (DIRECTORY / name).unlink()
        return
    assert not stale, f"golden files without a corpus function: {stale}"


def test_the_corpus_covers_each_kind_of_fact():
    """Every field of the dump is non-empty somewhere: a golden that only ever says "-" checks little."""
    dumps = "\n".join(dump(name) for name in NAMES)
    for field in ("stop test:", "carried:", "live after:", "live into body:", "unbound:", "maybe unbound:",
                  "inputs only:"):
        assert any(line.strip().startswith(field) and not line.endswith(" -") for line in dumps.splitlines()), field
    assert any(line.startswith("cells:") and not line.endswith(" -") for line in dumps.splitlines())
    assert len(NAMES) >= 10

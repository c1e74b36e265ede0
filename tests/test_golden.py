"""Golden files of the rewritten source: ``autograph_lite.to_source`` over tests/golden/corpus.py.

Each function ``NAME`` of the corpus has its expected rewritten source in
``tests/golden/NAME.py.txt``. A change in the rewrite shows up here as a readable diff of generated
code, to be reviewed like any other code change.

To regenerate the files after an intended change (or after editing the corpus, since generated
helper names carry line numbers), run

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_golden.py

and review ``git diff tests/golden/`` before committing. With ``UPDATE_GOLDEN=1`` the comparison
tests write the files and pass; stale files (for functions no longer in the corpus) are removed.
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path

import pytest
from golden import corpus
from support import assert_equivalent

import autograph_lite

GOLDEN_DIRECTORY = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
FUNCTIONS = [
    (name, value)
    for name, value in vars(corpus).items()
    if inspect.isfunction(value) and value.__module__ == corpus.__name__
]
NAMES = [name for name, _ in FUNCTIONS]


def golden_path(name: str) -> Path:
    return GOLDEN_DIRECTORY / f"{name}.py.txt"


@pytest.mark.parametrize("name, function", FUNCTIONS, ids=NAMES)
def test_rewritten_source_matches_golden_file(name, function):
    actual = autograph_lite.to_source(function)
    path = golden_path(name)
    if UPDATE:
        path.write_text(actual)
        return
    assert path.exists(), f"no golden file {path.name}; run with UPDATE_GOLDEN=1 to create it"
    expected = path.read_text()
    assert actual == expected, (
        f"the rewrite of corpus.{name} changed; if intended, run UPDATE_GOLDEN=1 pytest "
        f"tests/test_golden.py and review the diff of {path.relative_to(Path(__file__).parent.parent)}"
    )


def test_no_stale_golden_files():
    stale = sorted(p.name for p in GOLDEN_DIRECTORY.glob("*.py.txt") if p.name[: -len(".py.txt")] not in NAMES)
    if UPDATE:
        for name in stale:
            (GOLDEN_DIRECTORY / name).unlink()
        return
    assert not stale, f"golden files without a corpus function: {stale}"


def test_the_corpus_covers_every_construct():
    sources = "\n".join(golden_path(name).read_text() for name in NAMES if golden_path(name).exists())
    for operator in ("if_stmt", "if_exp", "and_", "or_", "not_", "compare", "while_stmt", "for_stmt", "call"):
        assert f"_ag.{operator}(" in sources, operator
    for runtime_name in ("setitem", "append", "Undefined", "maybe_undefined"):
        assert f"_ag.{runtime_name}(" in sources, runtime_name
    for flag in ("_ag_break_", "_ag_continue_", "_ag_returned", "_ag_retval"):
        assert flag in sources, flag
    assert len(FUNCTIONS) >= 15


def test_golden_sources_are_valid_python():
    for name, _ in FUNCTIONS:
        if golden_path(name).exists():
            compile(golden_path(name).read_text(), golden_path(name).name, "exec")


@pytest.mark.parametrize(
    "name, args",
    [(name, args) for name, examples in corpus.EXAMPLES.items() for args in examples],
    ids=[f"{name}-{index}" for name, examples in corpus.EXAMPLES.items() for index in range(len(examples))],
)
def test_corpus_functions_match_eager(name, args):
    assert_equivalent(getattr(corpus, name), *args)

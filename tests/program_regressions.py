"""Regression files of the generated-program fuzzer, and reducing a failing program by hand.

A failing case is written to tests/regressions/ as a module (:func:`save_regression`) that
tests/test_regressions.py replays with ``program_check.check_function``. ``PYTHONPATH=. python
tests/program_generator.py reduce FILE TEXT [OUT]`` shrinks the program in such a file (run from the
repository root, which must be on the path as pytest puts it: tests/support.py imports ``bench``).
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import importlib.util
import inspect
import itertools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from program_check import Outcome, check_case
from program_model import Case, Program, regression_text


def regression_name(case: Case) -> str:
    digest = hashlib.sha1(regression_text(case, header="").encode()).hexdigest()[:10]
    return f"gen_{digest}.py"


def save_regression(case: Case, outcome: Outcome, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / regression_name(case)
    path.write_text(regression_text(case, outcome))
    return path


_regression_counter = itertools.count()


def load_regression(path: Path):
    """Import a regression file as it is (the converter reads the function's source from it)."""
    name = f"_autograph_lite_regression_{path.stem}_{next(_regression_counter)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# --- reducing a failing program by hand ----------------------------------------------------------
# Hypothesis shrinks what a failing test run finds. A survey (AUTOGRAPH_LITE_FUZZ_SURVEY) does not
# fail, so its examples are reduced here instead: greedily delete statements, replace an if / loop by
# one of its bodies, drop input sets, for as long as the outcome still shows the same failure.

def _statement_lists(tree: ast.AST):
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            statements = getattr(node, field, None)
            if isinstance(statements, list) and statements and isinstance(statements[0], ast.stmt):
                yield statements


def _is_counter_increment(node: ast.stmt) -> bool:
    return (isinstance(node, ast.Assign) and isinstance(node.value, ast.BinOp)
            and isinstance(node.value.left, ast.Name) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name) and node.targets[0].id == node.value.left.id
            and node.targets[0].id.startswith("w") and isinstance(node.value.op, ast.Add))


def _candidates(source: str):
    """Sources one step simpler than ``source``."""
    tree = ast.parse(source)
    count = sum(len(statements) for statements in _statement_lists(tree))
    for index in range(count):
        for action in ("delete", "body", "orelse"):
            tree = ast.parse(source)
            position = index
            for statements in _statement_lists(tree):
                if position < len(statements):
                    break
                position -= len(statements)
            node = statements[position]
            if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef)):
                continue
            if action == "delete":
                if _is_counter_increment(node) or isinstance(node, ast.Return):
                    continue  # a while loop without it would not end; every path keeps its return
                replacement = []
            elif isinstance(node, (ast.If, ast.For, ast.While)):
                replacement = node.body if action == "body" else node.orelse
                if isinstance(node, ast.While) and action == "body":
                    replacement = node.body[1:]  # without the counter increment: run it once
            else:
                continue
            if action == "orelse" and not isinstance(node, (ast.If, ast.For, ast.While)):
                continue
            statements[position:position + 1] = replacement
            if not statements:
                statements.append(ast.Pass())
            yield ast.unparse(tree) + "\n"


def reduce_case(case: Case, still_fails: Callable[[Outcome], bool], directory: Path) -> tuple[Case, Outcome]:
    """A smaller case whose outcome ``still_fails``; ``case``'s own outcome must."""
    best = case
    outcome = check_case(case, directory)
    assert still_fails(outcome), f"the case does not fail as asked: {outcome.signature}"
    progress = True
    while progress:
        progress = False
        for index in range(len(best.inputs)):
            if len(best.inputs) > 1:
                smaller = dataclasses.replace(best, inputs=best.inputs[:index] + best.inputs[index + 1:])
                result = check_case(smaller, directory)
                if still_fails(result):
                    best, outcome, progress = smaller, result, True
                    break
        for source in _candidates(best.program.source):
            if source == best.program.source:
                continue
            try:
                compile(source, "<candidate>", "exec")
            except SyntaxError:
                continue
            smaller = dataclasses.replace(best, program=dataclasses.replace(best.program, source=source))
            result = check_case(smaller, directory)
            if still_fails(result):
                best, outcome, progress = smaller, result, True
                break
    return best, outcome


def case_from_regression(path: Path) -> Case:
    """The case a regression file holds (its source, inputs and maybe-unassigned names)."""
    module = load_regression(path)
    text = Path(path).read_text()
    source = text[text.index("import jax.numpy as jnp"):text.index("\n\nINPUTS = [")] + "\n"
    params = tuple((name, "") for name in inspect.signature(module.f).parameters)
    program = Program(source, params, 0, frozenset(), frozenset(getattr(module, "MAYBE_UNDEFINED", ())))
    return Case(program, tuple(tuple(args) for args in module.INPUTS))


def main(argv: Sequence[str]) -> None:
    """``PYTHONPATH=. python tests/program_generator.py reduce FILE TEXT [OUT]``: reduce the program in FILE (a
    regression module) while its outcome's signature or message contains TEXT; write it to OUT."""
    import tempfile

    command, path, text, *out = argv
    assert command == "reduce", main.__doc__
    case = case_from_regression(Path(path))
    small, outcome = reduce_case(case, lambda o: text in o.signature or text in o.message,
                                 Path(tempfile.mkdtemp()))
    result = regression_text(small, outcome)
    if out:
        Path(out[0]).write_text(result)
    print(result)
    print(outcome.message[-3000:])


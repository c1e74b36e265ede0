"""Replay the programs in tests/regressions/: minimal programs on which autograph_lite once disagreed
with eager Python (most found by tests/test_generated_programs.py, which writes them).

Each file is a module with a function ``f``, its ``INPUTS`` (a list of argument tuples) and a
``STATUS``: "open" while the bug is not fixed (the test is then an expected failure, strict: once
the converter agrees, it fails to say so, and the file should say "fixed"), "fixed" afterwards. The
check is the generator's: ``f`` eagerly vs ``convert(f)`` on concrete inputs vs ``jit(f)`` traced, on
every device.
"""

from __future__ import annotations

from pathlib import Path

import program_generator as generator
import pytest

REGRESSIONS = sorted((Path(__file__).parent / "regressions").glob("*.py"))


@pytest.mark.parametrize("path", REGRESSIONS, ids=[path.stem for path in REGRESSIONS])
def test_regression_matches_eager(path, request):
    module = generator.load_regression(path)
    status = getattr(module, "STATUS", "fixed")
    assert status in ("open", "fixed"), f"{path.name}: STATUS must be 'open' or 'fixed', not {status!r}"
    if status == "open":
        request.applymarker(pytest.mark.xfail(
            strict=True,
            reason=f"open autograph_lite bug (set STATUS = 'fixed' in {path.name} once it passes)",
        ))
    outcome = generator.check_function(module.f, module.INPUTS, frozenset(getattr(module, "MAYBE_UNDEFINED", ())))
    assert outcome.kind != "discarded", f"{path.name}: eager Python raises on every input"
    # a documented limitation is a clear error: fine for a program that reads a maybe-unassigned name
    assert outcome.kind in ("agree", "limitation"), f"{path.name}: {outcome.signature}\n{outcome.message}"

"""Generated programs: ``autograph_lite.jit(f)(*args) == f(*args)`` run eagerly (tests/program_generator.py).

Four tests share one check:

- ``test_generated_programs_match_eager`` runs in every ``make test``, under the hypothesis profile that
  conftest.py selects ("ci": 60 programs, derandomized, so every run checks the same programs).
- ``test_generated_programs_match_eager_under_vmap_and_grad`` runs 30 with the checker's ``vmap`` and
  ``grad`` modes too: each program also under ``jit(vmap(...))`` and ``jit(grad(...))``.
- ``test_generated_effect_programs_match_eager`` runs 60 more with the effect features of issue #13
  listed in ``EFFECTS_IN_CI`` switched on (closures, nonlocal writers, container methods, in-place
  array helpers, print, tuples / dicts), and fails unless each of them was used by some program.
- ``test_fuzz_generated_programs`` is the long run, collected only when the "long" profile is selected
  (``AUTOGRAPH_LITE_HYPOTHESIS_PROFILE=long``) and marked ``fuzz``: ``make fuzz FUZZ_SEED=1 FUZZ_COUNT=5000``.

An example fails when converted and eager results (or printed output, or, for in-place array
helpers, the arguments after the call) differ, or when the converted function raises
where eager Python did not, unless the error is a documented limitation that the program really hits
(``program_generator.DOCUMENTED_LIMITATIONS``). Input sets on which the eager run raises are
discarded (``hypothesis.assume``), except an ``UnboundLocalError`` (a read of a name that may be
unassigned or deleted): then the converted function must raise it too, or a documented error.

Environment of the long run (the Makefile sets the first ones):

- ``AUTOGRAPH_LITE_FUZZ_FEATURES``: generator features relative to the default, e.g.
  ``+break_continue,+return_in_loop`` (see ``program_features.FEATURES``);
- ``AUTOGRAPH_LITE_FUZZ_SIZE``: the most statements in one program (16 unless set);
- ``AUTOGRAPH_LITE_REGRESSION_DIR``: where the shrunk failing program is written as a replayable
  module (tests/regressions/ in ``make fuzz``), for tests/test_regressions.py;
- ``AUTOGRAPH_LITE_FUZZ_SURVEY``: a path; every outcome is counted instead of failing at the first
  bug, and the counts with the smallest program of each kind are written there as JSON;
- ``AUTOGRAPH_LITE_FUZZ_ONLY``: fail only on outcomes whose signature contains this text (to shrink
  one kind of failure found by a survey while others are known).
"""

from __future__ import annotations

import collections
import json
import os
from pathlib import Path

import program_generator as generator
import pytest
from hypothesis import assume, given, settings

LONG_RUN = os.environ.get("AUTOGRAPH_LITE_HYPOTHESIS_PROFILE") == "long"
FEATURES = generator.parse_features(os.environ.get("AUTOGRAPH_LITE_FUZZ_FEATURES"))
SURVEY = os.environ.get("AUTOGRAPH_LITE_FUZZ_SURVEY")
ONLY = os.environ.get("AUTOGRAPH_LITE_FUZZ_ONLY")
REGRESSION_DIR = os.environ.get("AUTOGRAPH_LITE_REGRESSION_DIR")
SIZE = int(os.environ.get("AUTOGRAPH_LITE_FUZZ_SIZE", "16"))

# The effect features (program_features.EFFECT_FEATURES) that CI checks: the lead adds each one
# here once the converter's fix for it has landed (they made eager Python and the converter differ,
# silently, when the generator learnt them). While this is empty the effect test is skipped.
EFFECTS_IN_CI: frozenset[str] = generator.EFFECT_FEATURES
EFFECT_PROGRAMS = 60
TRANSFORM_PROGRAMS = 30


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("generated_programs")


class _Run:
    """One hypothesis run: outcome counts, and the failing examples in the order they were seen."""

    def __init__(self, directory: Path, survey: bool):
        self.directory = directory
        self.survey = survey
        self.counts: collections.Counter[str] = collections.Counter()
        self.smallest: dict[str, tuple[generator.Case, generator.Outcome]] = {}
        self.failures: list[tuple[generator.Case, generator.Outcome]] = []
        self.used: set[str] = set()  # the optional features some checked program used

    def check(self, case: generator.Case) -> None:
        outcome = generator.check_case(case, self.directory)
        self.counts[outcome.signature] += 1
        known = self.smallest.get(outcome.signature)
        if outcome.kind != "agree" and (known is None or len(case.program.source) < len(known[0].program.source)):
            self.smallest[outcome.signature] = (case, outcome)
        assume(outcome.kind != "discarded")
        self.used |= case.program.used
        if outcome.is_bug and not self.survey and (ONLY is None or ONLY in outcome.signature):
            self.failures.append((case, outcome))
            raise AssertionError(_report(case, outcome))

    def finish(self) -> None:
        """Save the last failing example (hypothesis replays the shrunk one last) and the survey."""
        if self.failures and REGRESSION_DIR:
            path = generator.save_regression(*self.failures[-1], Path(REGRESSION_DIR))
            print(f"\nshrunk failing program written to {path}")
        summary = "\n".join(f"{count:6d}  {signature}" for signature, count in self.counts.most_common())
        print(f"\ngenerated-program outcomes ({sum(self.counts.values())} examples):\n{summary}")
        if self.survey:
            Path(SURVEY).write_text(json.dumps({
                "features": sorted(FEATURES),
                "counts": dict(self.counts.most_common()),
                "examples": {
                    signature: {"program": generator.regression_text(case, outcome), "message": outcome.message}
                    for signature, (case, outcome) in self.smallest.items()
                },
            }, indent=1))


def _report(case: generator.Case, outcome: generator.Outcome) -> str:
    return f"{outcome.signature}\n\n{generator.regression_text(case, outcome)}\n{outcome.message}"


def _run(directory: Path, features: frozenset[str], survey: bool, size: int = 16, **settings_kwargs) -> _Run:
    run = _Run(directory, survey)

    @settings(**settings_kwargs)
    @given(case=generator.cases(features, size))
    def generated_program_matches_eager(case):
        run.check(case)

    try:
        generated_program_matches_eager()
    finally:
        run.finish()
    return run


def test_generated_programs_match_eager(program_dir):
    _run(program_dir, generator.DEFAULT_FEATURES, survey=False)


def test_generated_programs_match_eager_under_vmap_and_grad(program_dir):
    """The default features with the checker's ``vmap`` and ``grad`` modes (program_vmap.py, program_grad.py)."""
    _run(program_dir, generator.DEFAULT_FEATURES | {"vmap", "grad"}, survey=False, max_examples=TRANSFORM_PROGRAMS)


def test_generated_effect_programs_match_eager(program_dir):
    run = _run(program_dir, generator.DEFAULT_FEATURES | EFFECTS_IN_CI, survey=False, max_examples=EFFECT_PROGRAMS)
    unused = EFFECTS_IN_CI - run.used
    assert not unused, f"none of the {EFFECT_PROGRAMS} programs used {sorted(unused)}: the CI run does not check them"


if LONG_RUN:

    @pytest.mark.fuzz
    def test_fuzz_generated_programs(program_dir):
        # No example database: a seed and a count name the programs that were run.
        _run(program_dir, FEATURES, survey=bool(SURVEY), size=SIZE, database=None)

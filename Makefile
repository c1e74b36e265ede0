# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

BENCH_STAMP := $(VENV)/.bench-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
DOCS_STAMP := $(VENV)/.docs-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
LINT_STAMP := $(VENV)/.lint-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: demo test lint fuzz bench bench-quick docs venv clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

venv: $(STAMP)

$(BENCH_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,bench]'
	rm -f $(VENV)/.bench-*
	touch $(BENCH_STAMP)

$(LINT_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,lint]'
	rm -f $(VENV)/.lint-*
	touch $(LINT_STAMP)

$(DOCS_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,docs]'
	rm -f $(VENV)/.docs-*
	touch $(DOCS_STAMP)

## Convert the quickstart examples, print their rewritten source and run them jitted.
demo: venv
	$(PY) examples/demo.py

## Run the whole test suite (hypothesis runs its bounded CI profile).
test: venv
	$(PY) -m pytest

## Lint (ruff) and type-check (mypy) with the settings in pyproject.toml; CI runs it after the tests.
lint: $(LINT_STAMP)
	$(VENV)/bin/ruff check autograph_lite tests bench examples
	$(VENV)/bin/mypy

## Long generated-program run: make fuzz FUZZ_SEED=1 FUZZ_COUNT=5000 [FUZZ_FEATURES=+break_continue]
## [FUZZ_SURVEY=fuzz.json: count every outcome instead of stopping at the first bug] [FUZZ_X64=1: with jax_enable_x64].
## A failing program is shrunk and written to tests/regressions/ (replayed by tests/test_regressions.py).
FUZZ_SEED ?= 0
FUZZ_COUNT ?= 3000
FUZZ_FEATURES ?=
FUZZ_SURVEY ?=
FUZZ_X64 ?=
fuzz: venv
	AUTOGRAPH_LITE_HYPOTHESIS_PROFILE=long AUTOGRAPH_LITE_FUZZ_COUNT=$(FUZZ_COUNT) \
	AUTOGRAPH_LITE_FUZZ_FEATURES=$(FUZZ_FEATURES) AUTOGRAPH_LITE_FUZZ_SURVEY=$(FUZZ_SURVEY) AUTOGRAPH_LITE_FUZZ_X64=$(FUZZ_X64) \
	AUTOGRAPH_LITE_REGRESSION_DIR=tests/regressions \
		$(PY) -m pytest -m fuzz -p no:cacheprovider -s --hypothesis-seed=$(FUZZ_SEED) \
		tests/test_generated_programs.py

## Benchmark against hand-written lax and the AutoGraph engine (diastatic-malt); results go to
## bench/results/ and the compile-time plot to docs/compile_curve.png. `make bench-quick`: fewer repeats,
## results and plot only under bench/results/ (untracked: a quick run changes no tracked file).
bench: $(BENCH_STAMP)
	$(PY) -m bench

bench-quick: $(BENCH_STAMP)
	$(PY) -m bench --quick

## Build the documentation site into site/, failing on any warning (broken link, missing page).
docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict

clean:
	rm -rf $(VENV) build dist site *.egg-info

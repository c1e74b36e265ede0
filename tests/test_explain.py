"""autograph_lite.explain and `autograph-lite explain`: what each statement became, and why."""

import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
from explain_corpus import programs

import autograph_lite

CORPUS = Path(programs.__file__)
REPO = Path(__file__).resolve().parents[1]


def at(mark):
    """``file:line`` of the corpus line carrying ``# mark: <mark>``."""
    for number, line in enumerate(CORPUS.read_text().splitlines(), start=1):
        if line.endswith(f"# mark: {mark}"):
            return f"{CORPUS}:{number}"
    raise LookupError(mark)


# A traced `if` whose branches are small, pure and gradient-neutral is a select (runtime/selects.py).
SELECTED = "lax.select_n (the condition is traced; both branches are small, pure and gradient-neutral: a select of their values)"


def test_traced_if_is_a_select_with_its_promotion():
    text = str(autograph_lite.explain(programs.branches, 1.0, 2.0))
    assert f"{at('branches-if')}: `if` -> {SELECTED}" in text
    assert "carries y: weakly typed f32[]" in text  # x and 0 are Python numbers: so is y
    assert "y promoted to float32 in the false branch" in text


def test_static_argument_keeps_the_if_in_python():
    text = str(autograph_lite.explain(programs.branches, 1.0, 2.0, static_argnums=1))
    assert f"{at('branches-if')}: `if` -> lax.select_n" in text  # x is still traced
    text = str(autograph_lite.explain(programs.branches, 1.0, 2.0, static_argnums=(0, 1)))
    assert f"{at('branches-if')}: `if` -> Python if (the condition is concrete)" in text


def test_static_argnames_given_by_position_and_jitted_functions():
    by_name = str(autograph_lite.explain(programs.branches, 1.0, 2.0, static_argnames=("x", "threshold")))
    assert f"{at('branches-if')}: `if` -> Python if (the condition is concrete)" in by_name
    jitted = str(autograph_lite.explain(autograph_lite.jit(programs.branches), 1.0, 2.0))
    assert f"{at('branches-if')}: `if` -> {SELECTED}" in jitted


def test_each_loop_reports_its_lowering():
    text = str(autograph_lite.explain(programs.loops, jax.ShapeDtypeStruct((3, 2), jnp.float32), 4))
    assert f"{at('loops-range')}: `for` loop -> lax.fori_loop (a while_loop)" in text
    assert f"{at('loops-rows')}: `for` loop -> lax.scan (static trip count 3)" in text
    assert f"{at('loops-unroll')}: `for` loop -> Python loop (unroll(...) or static_loops='unroll')" in text


def test_static_range_with_only_python_values_stays_python():
    text = str(autograph_lite.explain(programs.loops, jax.ShapeDtypeStruct((0, 2), jnp.float32), 3, static_argnums=1))
    assert f"{at('loops-range')}: `for` loop -> Python loop (it carries and appends no value that depends on traced data)" in text
    assert f"{at('loops-rows')}: `for` loop -> Python loop (zero iterations)" in text


def test_early_return_of_a_float_reports_the_masked_scan_and_readable_flags():
    text = str(autograph_lite.explain(programs.search_value, jax.ShapeDtypeStruct((5,), jnp.float32)))
    assert f"{at('search-value-for')}: `for` loop -> lax.scan, iterations after an exit masked by lax.cond" in text
    assert "<returned flag>: bool[]" in text and "<return value>" in text
    assert "_ag_" not in text


def test_early_return_of_an_index_reports_the_while_loop_that_stops_there():
    text = str(autograph_lite.explain(programs.search, jax.ShapeDtypeStruct((5,), jnp.float32)))
    assert (f"{at('search-for')}: `for` loop -> lax.while_loop (stops at the exit; it carries no float, so no "
            "gradient flows through it)") in text


def test_python_iterable_is_named_as_the_reason():
    text = str(autograph_lite.explain(programs.python_iterables, 1.0, [1.0, 2.0]))
    assert f"{at('python-for')}: `for` loop -> Python loop (it iterates over a Python iterable)" in text


def test_explaining_twice_reports_again():
    first = autograph_lite.explain(programs.branches, 1.0, 2.0)
    second = autograph_lite.explain(programs.branches, 1.0, 2.0)
    assert first.decisions and first.decisions == second.decisions


def run_cli(*arguments):
    return subprocess.run(
        [sys.executable, "-m", "autograph_lite", "explain", *arguments],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )


def test_cli_explain_reads_argument_types():
    result = run_cli(f"{CORPUS}::loops", "--args", "f32[3, 2], i32[]")
    assert result.returncode == 0, result.stderr
    assert f"{at('loops-range')}: `for` loop -> lax.fori_loop" in result.stdout
    assert f"{at('loops-rows')}: `for` loop -> lax.scan (static trip count 3)" in result.stdout


def test_cli_explain_static_literal_argument():
    result = run_cli(f"{CORPUS}::branches", "--args", "2.0, 1.0", "--static-argnums", "0,1")
    assert result.returncode == 0, result.stderr
    assert f"{at('branches-if')}: `if` -> Python if (the condition is concrete)" in result.stdout


def test_cli_explain_rejects_a_malformed_type_with_exit_code_2():
    result = run_cli(f"{CORPUS}::branches", "--args", "f32[3")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "cannot read argument 'f32[3'" in result.stderr


# --- source order, methods ----------------------------------------------------------------------


def ordered(xs, limit):
    def bump(total, row):
        return total + row if row.sum() > limit else total  # here: bump
    total = xs[0] * 0
    for row in xs:  # here: loop
        if row.sum() > 2 * limit:  # here: if
            total = bump(total, row)
        total = total + programs.branches(row.sum(), limit)
    return total


def here(mark):
    """``file:line`` of the line of this file that ends with ``# here: <mark>``."""
    for number, line in enumerate(Path(__file__).read_text().splitlines(), start=1):
        if line.endswith(f"# here: {mark}"):
            return f"{Path(__file__)}:{number}"
    raise LookupError(mark)


def test_statements_are_listed_in_source_order_own_file_first():
    explanation = autograph_lite.explain(ordered, jax.ShapeDtypeStruct((3, 2), jnp.float32), jnp.float32(1.0))
    heads = [line for line in str(explanation).splitlines() if " -> " in line]
    assert [head.split(" -> ")[0].strip() for head in heads] == [
        f"{here('bump')}: conditional expression",
        f"{here('loop')}: `for` loop",
        f"{here('if')}: `if`",
        f"{at('branches-if')}: `if`",  # another file: after the explained function's
    ]
    # The decisions themselves are in that order too, not the trace's (which records a loop after
    # the statements of its body, and the body's `if` after the call inside it).
    assert [str(d.location) for d in explanation.decisions] == [h.strip().split(": ")[0] for h in heads]


class Doubler:
    def __init__(self, factor=2.0):
        self.factor = factor

    def __call__(self, x):
        if x > 0:  # here: doubler-if
            x = x * self.factor
        return x


def test_a_bound_method_is_explained_under_its_qualified_name():
    text = str(autograph_lite.explain(Doubler().__call__, jnp.float32(1.0)))
    assert text.startswith("Doubler.__call__:\n")
    assert f"{here('doubler-if')}: `if` -> {SELECTED}" in text

"""``any(...)`` / ``all(...)`` of a generator or a list of traced conditions (runtime/logic.py
``truth_fold``), and ``min(...)`` / ``max(...)`` of a generator of traced values.

Python takes each element's truth in order and stops at the first that decides. With a traced
element its truth was a Python ``bool`` of a tracer: a TracerBoolConversionError under ``jit`` for
``any(x > t for x in xs)``, one of the commonest lines of Python. The elements after a traced one
are now drawn anyway (a generator's code runs, its prints and checks waiting for the condition that
no earlier element decided), and the truths combined at run time.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import assert_equivalent, conversion_error, where

import autograph_lite

LOG: list[int] = []


def any_above(xs, t):
    return any(x > t for x in xs)


def all_above(xs, t):
    return all(x > t for x in xs)


def any_of_a_list(a, b):
    return any([a > 0, b > 0, a + b > 3])


def all_of_a_tuple(a, b):
    return all((a > 0, b > 0))


def branch_on_any(xs, t):
    if any(x > t for x in xs):
        return jnp.sum(xs)
    return -t


def concrete_after_traced(xs, t):
    return any([xs[0] > t, 1, xs[1] > t])  # the 1 decides, whatever the traced element is


def empty_any_and_all(xs):
    return any(x > 0 for x in xs[:0]), all(x > 0 for x in xs[:0])


XS = jnp.array([1.0, 4.0, -2.0])


@pytest.mark.parametrize("t", [-5.0, 0.0, 2.0, 9.0])
@pytest.mark.parametrize("function", [any_above, all_above, branch_on_any, concrete_after_traced],
                         ids=lambda f: f.__name__)
def test_a_generator_of_traced_conditions_as_eager(function, t):
    assert_equivalent(function, XS, jnp.float32(t))


@pytest.mark.parametrize("a, b", [(1.0, 1.0), (-1.0, 5.0), (-1.0, -1.0), (2.0, 2.0)])
@pytest.mark.parametrize("function", [any_of_a_list, all_of_a_tuple], ids=lambda f: f.__name__)
def test_a_display_of_traced_conditions_as_eager(function, a, b):
    assert_equivalent(function, jnp.float32(a), jnp.float32(b))


def test_no_element_gives_python_s_answer():
    assert autograph_lite.jit(empty_any_and_all)(XS) == (False, True)


def shown(k):
    print("shown", k)
    return k


def prints_per_element(xs, t):
    return any(shown(x) > t for x in xs)


@pytest.mark.parametrize("t", [-5.0, 2.0, 9.0])
def test_an_element_prints_only_where_python_draws_it(t, capsys):
    expected = prints_per_element(XS, jnp.float32(t))
    printed = capsys.readouterr().out
    jitted = autograph_lite.jit(prints_per_element)
    for _ in range(2):  # the trace, then the cached program
        assert bool(jitted(XS, jnp.float32(t))) == bool(expected)
        jax.effects_barrier()
        assert capsys.readouterr().out == printed


def logged(x):
    LOG.append(1)
    return x > 0


def mutates_after_a_traced_element(xs):
    return any(logged(x) for x in xs)


def test_an_effect_after_a_traced_element_is_refused_at_the_line():
    """Eager Python appends once per element it draws: how many is known at run time only."""
    message = conversion_error(mutates_after_a_traced_element, XS)
    assert where(mutates_after_a_traced_element, "any(logged") in message
    assert "any(...)" in message
    LOG.clear()


def any_of_rows(rows):
    return any(row > 0 for row in rows)


def test_a_traced_element_of_several_values_is_a_located_error():
    """Eager Python raises for the truth of a row of several elements; traced, it is refused where it is."""
    with pytest.raises(ValueError):
        any_of_rows(np.ones((2, 3)))
    message = conversion_error(any_of_rows, jnp.ones((2, 3)))
    assert where(any_of_rows, "any(row") in message


def test_an_array_keeps_jax_s_reduction():
    assert primitives_of(any_above, XS, jnp.float32(0.0)) >= {"gt", "or"}
    assert_equivalent(lambda xs: any(xs > 1.0), XS)


def primitives_of(function, *args):
    return {equation.primitive.name for equation in jax.make_jaxpr(autograph_lite.convert(function))(*args).jaxpr.eqns}


def largest_shifted(xs):
    return max(x + 1.0 for x in xs)


def smallest_by_key(xs):
    return min((x for x in xs), key=lambda v: (v - 1.0) ** 2)


def first_smallest(xs):
    return min(x * 0.0 for x in xs)  # 0.0, -0.0, 0.0: Python keeps the first of equal values


@pytest.mark.parametrize("function", [largest_shifted, smallest_by_key], ids=lambda f: f.__name__)
def test_min_and_max_of_a_generator_of_traced_values_as_eager(function):
    """Python draws the whole generator, then compares in order: a TracerBoolConversionError before."""
    assert_equivalent(function, XS)


def test_min_of_a_generator_keeps_python_s_first_of_equal_values():
    result = autograph_lite.jit(first_smallest)(jnp.array([1.0, -2.0, 3.0]))
    assert float(result) == 0.0 and not np.signbit(result)


GENERATED_PROGRAMS = 25


def test_generated_programs_with_any_and_all_match_eager(tmp_path) -> None:
    """A bounded run of feature any_all with prints (the long run: ``make fuzz FUZZ_FEATURES=+any_all,+print``)."""
    import program_generator as generator
    from hypothesis import given, settings

    used: set[str] = set()

    @settings(max_examples=GENERATED_PROGRAMS)
    @given(case=generator.cases(generator.DEFAULT_FEATURES | {"any_all", "print"}))
    def matches_eager(case: generator.Case) -> None:
        outcome = generator.check_case(case, tmp_path)
        used.update(case.program.used)
        assert not outcome.is_bug, f"{outcome.signature}\n\n{generator.regression_text(case, outcome)}\n{outcome.message}"

    matches_eager()
    assert "any_all" in used, f"none of the {GENERATED_PROGRAMS} programs used any_all"

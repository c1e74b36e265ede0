"""``any(...)`` / ``all(...)`` of traced conditions (runtime/logic.py ``truth_fold``), and ``min(...)`` /
``max(...)`` of a generator of traced values.

Python takes each element's truth in order and stops at the first that decides. With a traced
element that was a Python ``bool`` of a tracer: a TracerBoolConversionError under ``jit`` for
``any(x > t for x in xs)``, one of the commonest lines of Python. The elements after a traced one are
now taken too, and the truths combined at run time, where that changes nothing anyone sees: a
container's elements, and a generator expression written as the argument over a container or an
array (its code runs for them as a lazy operand of ``or`` does). Any other iterator is refused at a
traced element (found by review of the first version, which drew on: it took elements from whoever
else held the iterator, ran a generator function's effects, and never ended on ``itertools.count()``).
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import assert_equivalent, where

import autograph_lite
from autograph_lite.errors import TracedPredicateError


def any_above(xs, t):
    return any(x > t for x in xs)


def all_above(xs, t):
    return all(x > t for x in xs)


def any_of_a_comprehension(xs, t):
    return any([x > t for x in xs])  # noqa: C419 - a list on purpose: made whole before any() asks


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


def concrete_before_traced(xs, t):
    return all([0, xs[0] > t])  # Python's all stops at the 0 and never asks the traced element


def dict_values_all(xs, t):
    return all({"a": xs[0] > t, "b": xs[1] > t}.values())


def over_values_and_a_range(xs, t):
    flags = {"a": xs[0], "b": xs[1]}
    return any(v > t for v in flags.values()) or all(xs[i] < t for i in range(2))


def empty_any_and_all(xs):
    return any([x > 0 for x in xs[:0]]), all([x > 0 for x in xs[:0]])  # noqa: C419


def over_a_zip_and_a_reversed(xs, t):
    """A zip / reversed written in place over arrays is private too (refused as a held iterator before)."""
    return any(a > t for a, _ in zip(xs, xs)), all(a > t for a in reversed(xs))


XS = jnp.array([1.0, 4.0, -2.0])


@pytest.mark.parametrize("t", [-5.0, 0.0, 2.0, 9.0])
@pytest.mark.parametrize("function", [any_above, all_above, any_of_a_comprehension, branch_on_any,
                                      concrete_after_traced, concrete_before_traced, dict_values_all,
                                      over_values_and_a_range, over_a_zip_and_a_reversed],
                         ids=lambda f: f.__name__)
def test_traced_conditions_as_eager(function, t):
    assert_equivalent(function, XS, jnp.float32(t))


@pytest.mark.parametrize("a, b", [(1.0, 1.0), (-1.0, 5.0), (-1.0, -1.0), (2.0, 2.0)])
@pytest.mark.parametrize("function", [any_of_a_list, all_of_a_tuple], ids=lambda f: f.__name__)
def test_a_display_of_traced_conditions_as_eager(function, a, b):
    assert_equivalent(function, jnp.float32(a), jnp.float32(b))


def test_no_element_gives_python_s_answer():
    assert autograph_lite.jit(empty_any_and_all)(XS) == (False, True)


def rest_after_any(xs):
    it = iter(xs)
    found = any(v > 0 for v in it)  # Python stops at the first positive element...
    return found, next(it, -1.0)  # ... and the iterator still holds the rest


def any_twice(xs):
    g = (v > 0 for v in xs)
    return any(g), any(g)


def checks(xs, log):
    for v in xs:
        log.append(v)
        yield v > 0


def count_checked(xs):
    log = []
    return any(checks(xs, log)), len(log)


def first_power_above(xs):
    return any(xs[0] < i for i in itertools.count())


@pytest.mark.parametrize("function, text", [
    (rest_after_any, "any(v"), (any_twice, "any(g)"), (count_checked, "any(checks"),
    (first_power_above, "any(xs"),
], ids=lambda f: getattr(f, "__name__", ""))
def test_an_iterator_meeting_a_traced_truth_is_refused_at_the_line(function, text):
    """Python stops drawing at the element that decides, known only at run time: drawing on would
    take elements from whoever else holds the iterator, run a generator function's effects, or
    never end. Found by review (each gave a silent wrong value, or hung, on the first version)."""
    function(XS)  # eager Python answers
    with pytest.raises(TracedPredicateError) as refused:
        autograph_lite.jit(function)(XS)
    assert where(function, text) in str(refused.value)
    assert "list comprehension" in str(refused.value)


def test_an_iterator_python_decides_on_before_a_traced_element_is_python_s():
    def decided_early(xs):
        return any(v for v in [1, xs[0] > 0]), all(iter([0, xs[0] > 0]))

    assert autograph_lite.jit(decided_early)(XS) == (True, False)


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


LOG: list[int] = []


def logged(x):
    LOG.append(1)
    return x > 0


def mutates_after_a_traced_element(xs):
    return any(logged(x) for x in xs)


def test_an_effect_after_a_traced_element_is_refused_at_the_line():
    """Eager Python appends once per element it draws: how many is known at run time only."""
    with pytest.raises(autograph_lite.ConversionError) as refused:
        autograph_lite.jit(mutates_after_a_traced_element)(XS)
    assert where(mutates_after_a_traced_element, "any(logged") in str(refused.value)
    assert "any(...)" in str(refused.value)
    LOG.clear()


def any_of_rows(rows):
    return any(row > 0 for row in rows)


def test_a_traced_element_of_several_values_raises_as_eager():
    """Python's own ``any`` asks the truth of a row of several elements: JAX's ValueError, as eagerly."""
    with pytest.raises(ValueError, match="more than one element") as eager:
        any_of_rows(jnp.ones((2, 3)))
    with pytest.raises(ValueError, match="more than one element") as converted:
        autograph_lite.jit(any_of_rows)(jnp.ones((2, 3)))
    assert str(converted.value).splitlines()[0] == str(eager.value).splitlines()[0]


def after_a_traced_one(x, rows):
    return any([x > 0, rows > 0])  # Python asks the row only where x <= 0


def test_a_row_after_a_traced_element_is_a_located_error():
    with pytest.raises(TracedPredicateError) as refused:
        autograph_lite.jit(after_a_traced_one)(jnp.float32(1.0), jnp.ones(3))
    assert where(after_a_traced_one, "any(") in str(refused.value)


def test_an_array_keeps_jax_s_reduction():
    ops = {e.primitive.name for e in jax.make_jaxpr(autograph_lite.convert(lambda xs: any(xs > 1.0)))(XS).jaxpr.eqns}
    assert "reduce_or" in ops
    assert_equivalent(lambda xs: any(xs > 1.0), XS)


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


def largest_of_one(xs):
    return max(v for v in [xs])  # one item: Python compares nothing and returns the array


def test_min_and_max_of_one_item_return_it():
    """Found by review: the generator made a list of one array, compared as a 2-D array (an error)."""
    assert_equivalent(largest_of_one, XS)
    assert_equivalent(lambda xs: min([xs]), XS)


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

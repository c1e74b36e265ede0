"""Effects hidden in what a staged statement calls: a helper's store into a module-level container,
``next(iterator)``, a draw from a random number generator.

Each changes state that outlives the statement. Traced once inside a staged loop body or branch, it
would happen once instead of once per iteration: a silent wrong value (``bump`` below gave 3.0 for
eager's 6.0). Such a call is refused before it runs: in the static-loop policy's trial the loop runs
as Python instead (eager's value), in a real staging it is a located ``ConversionError`` whose fix
works. Outside staged code nothing changes.
"""

from __future__ import annotations

import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import assert_same, conversion_error, where

import autograph_lite

F32 = jnp.float32

# --- a helper bumping a module-level counter ---------------------------------------------------------

CALLS = [0]
COUNTS = {"body": 0}


def bump(v):
    CALLS[0] += 1
    return v + CALLS[0]


def bump_three_times(x):
    for i in range(3):  # a static trip count: staged as a lax.scan unless the trial sees an effect
        x = bump(x)
    return x


def bump_n_times(x, n):
    for i in range(n):
        x = bump(x)
    return x


def bump_once(x):
    return bump(x)


def _reset_calls() -> None:
    CALLS[0] = 0


def test_a_helpers_store_into_a_global_list_in_a_static_loop_runs_as_python():
    _reset_calls()
    expected = bump_three_times(F32(0.0))
    assert CALLS == [3]
    _reset_calls()
    assert_same(autograph_lite.jit(bump_three_times)(F32(0.0)), expected)
    assert CALLS == [3]  # was [1]: the body ran once, while tracing, and gave 3.0 for 6.0


def test_a_helpers_store_into_a_global_list_in_a_staged_loop_is_a_located_error():
    _reset_calls()
    message = conversion_error(bump_n_times, F32(0.0), 3)
    assert message.startswith(where(bump, "CALLS[0] += 1") + ": ")
    assert "this item assignment into CALLS, which mutates a list from outside the staged code" in message
    assert where(bump_n_times, "for i in range(n):") in message
    assert "static_argnames" in message
    _reset_calls()
    expected = bump_n_times(F32(0.0), 3)
    _reset_calls()
    assert_same(autograph_lite.jit(bump_n_times, static_argnames="n")(F32(0.0), n=3), expected)  # the fix
    assert CALLS == [3]


def test_a_helpers_store_into_a_global_list_outside_loops_and_in_a_loop_on_concrete_values():
    _reset_calls()
    assert_same(autograph_lite.jit(bump_once)(F32(1.0)), F32(2.0))
    _reset_calls()
    assert_same(autograph_lite.convert(bump_n_times)(F32(0.0), 2), F32(3.0))  # a loop on concrete values
    assert CALLS == [2]


def count_body(key):
    COUNTS[key] += 1
    return COUNTS[key]


def count_in_branch(x):
    if x > 0:
        x = x + count_body("body")
    return x


def test_a_store_into_a_global_dict_in_a_traced_branch_is_a_located_error():
    message = conversion_error(count_in_branch, F32(1.0))
    assert message.startswith(where(count_body, "COUNTS[key] += 1") + ": ")
    assert "this item assignment into COUNTS, which mutates a dict from outside the staged code" in message


class Totals:
    def __init__(self) -> None:
        self.values = [0.0]

    def add(self, v):
        self.values[0] += 1.0
        return v


def add_to_totals(x, totals, n):
    for i in range(n):
        x = totals.add(x)
    return x


def test_a_store_through_an_attribute_chain_in_a_staged_loop_is_a_located_error():
    message = conversion_error(add_to_totals, F32(1.0), Totals(), 2, static_argnums=1)
    assert message.startswith(where(Totals.add, "self.values[0] += 1.0") + ": ")
    assert "this item assignment into self.values, which mutates a list" in message


def closure_counter(x, n):
    seen = [0]

    def count(v):
        seen[0] += 1
        return v

    for i in range(n):
        x = count(x)
    return x, seen[0]


def test_a_store_into_a_closure_list_in_a_staged_loop_is_a_located_error():
    message = conversion_error(closure_counter, F32(1.0), 2)
    assert message.startswith(where(closure_counter, "seen[0] += 1") + ": ")


def own_list(v):
    parts = [v, v]
    parts[0] = parts[0] * 2.0
    parts.append(v)
    return parts[0] + parts[2]


def own_closure_list(v):
    acc = [0.0]

    def add(w):
        acc[0] += w

    add(v)
    add(v)
    return acc[0]


def helpers_with_own_lists(x, n):
    for i in range(n):
        x = own_list(x) * 0.25 + own_closure_list(x) * 0.125
    return x


def test_helpers_mutating_lists_they_build_themselves_stage():
    expected = helpers_with_own_lists(F32(1.0), 3)
    assert_same(autograph_lite.jit(helpers_with_own_lists)(F32(1.0), 3), expected)


# --- next() on an iterator from before the loop ---------------------------------------------------------


def next_in_static_loop(x):
    it = iter([1.0, 2.0, 3.0, 4.0, 5.0])
    for i in range(3):
        x = x + next(it)
    return x


def next_in_while(x, n):
    it = iter([1.0, 2.0, 3.0, 4.0, 5.0])
    i = 0
    while i < n:
        x = x + next(it, 0.0)
        i += 1
    return x


def next_outside_loops(x):
    first = next(iter([2.0, 3.0]))
    return x + first + next(iter([]), 5.0)


def test_next_in_a_static_loop_runs_as_python():
    assert_same(autograph_lite.jit(next_in_static_loop)(F32(1.0)), next_in_static_loop(F32(1.0)))  # 7.0, was 4.0


def test_next_in_a_staged_while_is_a_located_error_whose_fix_works():
    message = conversion_error(next_in_while, F32(1.0), 3)
    assert message.startswith(where(next_in_while, "x = x + next(it, 0.0)") + ": ")
    assert "this call of next() on a list_iterator, which advances an iterator" in message
    assert "xs[i]" in message
    assert_same(autograph_lite.jit(next_in_while, static_argnames="n")(F32(1.0), n=3), next_in_while(F32(1.0), 3))


def test_next_outside_staged_code_is_unchanged():
    assert_same(autograph_lite.jit(next_outside_loops)(F32(1.0)), F32(8.0))
    assert_same(autograph_lite.convert(next_in_while)(F32(1.0), 2), F32(4.0))


# --- random number generators ----------------------------------------------------------------------------


def generator_draws(x, n):
    rng = np.random.default_rng(0)
    for i in range(n):
        x = x + rng.integers(0, 10)
    return x


def generator_draws_static(x):
    return generator_draws(x, 3)


def module_rng_draws(x, n):
    for i in range(n):
        x = x + np.random.normal() + random.random() + random.uniform(0.0, 1.0)
    return x


def _seeded(function, *args, **kwargs):
    np.random.seed(0)
    random.seed(0)
    return function(*args, **kwargs)


def test_generator_draws_in_a_static_loop_run_as_python():
    expected = generator_draws(F32(0.0), 3)
    assert_same(autograph_lite.jit(generator_draws, static_argnames="n")(F32(0.0), n=3), expected)
    assert_same(autograph_lite.jit(generator_draws_static)(F32(0.0)), expected)


def test_generator_draws_in_a_staged_loop_are_a_located_error():
    message = conversion_error(generator_draws, F32(0.0), 3)
    assert message.startswith(where(generator_draws, "x = x + rng.integers(0, 10)") + ": ")
    assert "Generator.integers(), which changes the state of a NumPy random Generator" in message
    assert "jax.random" in message


@pytest.mark.parametrize("n", [0, 2])
def test_module_level_random_functions_in_a_static_loop_run_as_python(n):
    expected = _seeded(module_rng_draws, F32(0.0), n)
    assert_same(_seeded(autograph_lite.jit(module_rng_draws, static_argnames="n"), F32(0.0), n=n), expected)


def test_module_level_random_functions_in_a_staged_loop_are_a_located_error():
    message = conversion_error(module_rng_draws, F32(0.0), 2)
    assert "this call of np.random.normal(), which changes the state of a NumPy RandomState" in message


def random_only(x, n):
    for i in range(n):
        x = x + random.uniform(0.0, 1.0)
    return x


def test_a_python_method_of_the_hidden_random_instance_is_refused_too():
    message = conversion_error(random_only, F32(0.0), 2)
    assert "this call of random.uniform(), which changes the state of a random.Random" in message


def draw_outside_loops(x):
    rng = np.random.default_rng(1)
    return x + rng.normal()


def test_draws_outside_staged_code_are_unchanged():
    assert_same(autograph_lite.jit(draw_outside_loops)(F32(1.0)), draw_outside_loops(F32(1.0)))


YS = [1.0, 2.0]


def first_of_a_fresh_iterator_in_a_branch(x):
    if x > 0:
        y = next(iter(YS))
    else:
        y = 0.0
    return y + x


def iterator_from_outside_the_branch(x):
    it = iter(YS)
    if x > 0:
        y = next(it)
    else:
        y = 0.0
    return y + next(it)


def test_next_of_an_iterator_made_in_the_same_staged_code_is_eagers():
    # iter() made it inside the branch's trace: advancing it once there is what eager does (a review
    # found the refusal of this idiom)
    for x in (1.0, -1.0):
        assert float(autograph_lite.jit(first_of_a_fresh_iterator_in_a_branch)(jnp.float32(x))) == \
            float(first_of_a_fresh_iterator_in_a_branch(jnp.float32(x)))


def test_next_of_an_iterator_made_outside_a_staged_branch_is_refused():
    with pytest.raises(autograph_lite.ConversionError, match="advances an iterator"):
        autograph_lite.jit(iterator_from_outside_the_branch)(jnp.float32(-1.0))


# --- del of an item: the same effect as a store -----------------------------------------------------

POOL = list(range(10))


def shrink():
    del POOL[-1]
    return len(POOL)


def shrink_three_times(x):
    POOL[:] = range(10)
    for i in range(3):
        x = x + shrink()
    return x


def shrink_while_small(x):
    POOL[:] = range(10)
    while x < 20.0:
        x = x + shrink()
    return x


def drop_first(items, x):
    del items[0]
    return x + len(items)


def test_a_helpers_del_of_a_global_item_in_a_static_loop_runs_as_python():
    expected, expected_pool = shrink_three_times(F32(0.0)), list(POOL)
    for run in (autograph_lite.convert(shrink_three_times), autograph_lite.jit(shrink_three_times)):
        assert float(run(F32(0.0))) == float(expected) == 24.0
        assert POOL == expected_pool == list(range(7))


def test_a_helpers_del_of_a_global_item_in_a_staged_loop_is_a_located_error():
    message = conversion_error(shrink_while_small, F32(0.0))
    assert message.startswith(f"{where(shrink, 'del POOL[-1]')}: this deletion of an item of POOL, which mutates a list")
    assert "build a new value instead of deleting in place" in message
    assert POOL == list(range(10))  # refused before the deletion


def test_del_of_an_item_of_a_list_from_the_caller_in_a_traced_branch_is_a_located_error():
    def keep_or_drop(x):
        items = [1, 2, 3]
        if x > 0:
            x = drop_first(items, x)
        return x, len(items)

    assert conversion_error(keep_or_drop, F32(1.0)).startswith(f"{where(drop_first, 'del items[0]')}: ")


def test_del_of_a_numpy_arrays_item_is_numpys_error_inside_staged_code_too():
    def drop(x):
        a = np.arange(3.0)
        if x > 0:
            del a[0]
        return x

    with pytest.raises(ValueError, match="cannot delete array elements"):
        drop(1.0)
    # NumPy's error, raised where the branch runs (a run-time check: the branch is traced whatever x
    # is); a function with no check of its own reports it as JAX's error ending with NumPy's
    assert float(autograph_lite.jit(drop)(F32(-1.0))) == drop(-1.0) == -1.0
    with pytest.raises(jax.errors.JaxRuntimeError, match="ValueError: cannot delete array elements"):
        autograph_lite.jit(drop)(F32(1.0))


def test_del_of_items_of_lists_built_inside_staged_code_or_outside_it_is_python():
    def trims(x):
        kept = 0.0
        for i in range(3):
            parts = [x, x * 2.0, x * 3.0]
            del parts[0]
            kept = kept + parts[0]
        table = {"a": 1, "b": 2}
        del table["a"]
        return kept + len(table)

    assert_same(autograph_lite.jit(trims)(F32(1.5)), trims(F32(1.5)))
    assert "scan" in str(autograph_lite.explain(trims, F32(1.5)))

"""Loops that eager Python runs and that are staged exactly (issue #14, items 3 and 7).

- ``range`` over a traced bool counts it as the int it stands for (``range(True)`` is ``range(1)``);
  a float bound is a located error, as Python's ``TypeError``.
- A loop carry that enters as a bool and leaves one iteration as a number starts as that number,
  when the first iteration reads the bool as a number (else the error naming both dtypes stays);
  a weakly typed Python scalar takes the dtype the body gives it.
- ``max`` / ``min`` with ``key=`` on traced keys pick the first best item, as Python does.

Every function runs eagerly, converted on concrete arguments and jitted on traced ones
(``support.assert_equivalent``); the static variants pass the bound with ``static_argnums``.
"""

import jax
import jax.numpy as jnp
import pytest
from support import assert_equivalent, conversion_error, where

import autograph_lite

F32, I32 = jnp.float32, jnp.int32


# --- range over a traced bool ---------------------------------------------------------------------


def count_while_positive(x):
    total = 0
    for _ in range(x > 0):
        total = total + 1
    return total


def sum_from_bool_start(x, n):
    total = 0
    for i in range(x > 1, n, 2):
        total = total + i
    return total


# Eagerly, `x > 0` is a Python bool for a Python int `x` (a JAX bool array has no __index__, so
# eager `range` refuses it): jit traces the same `x`, and its traced bool must count as Python's.
@pytest.mark.parametrize("x", [3, -3, 0])
def test_range_over_a_traced_bool_counts_it_as_an_int(x):
    assert_equivalent(count_while_positive, x)
    assert int(autograph_lite.jit(count_while_positive)(I32(x))) == count_while_positive(x)


@pytest.mark.parametrize("x", [3, 0])
def test_a_bool_start_with_a_traced_stop(x):
    assert_equivalent(sum_from_bool_start, x, 7)
    assert_equivalent(sum_from_bool_start, x, 7, static_argnums=(1,))
    assert int(autograph_lite.jit(sum_from_bool_start)(I32(x), I32(7))) == sum_from_bool_start(x, 7)


def test_a_static_bool_bound_is_python_range():
    assert_equivalent(count_while_positive, 2, static_argnums=(0,))


def sum_to_float(x):
    total = 0.0
    for i in range(x):
        total = total + i
    return total


def sum_from_half(n):
    total = 0
    for i in range(0.5, n):
        total = total + i
    return total


def test_a_traced_float_bound_is_a_located_type_error():
    with pytest.raises(TypeError):
        sum_to_float(2.0)  # eager Python
    message = conversion_error(sum_to_float, F32(2.0))
    assert message.startswith(where(sum_to_float, "for i in range(x)") + ": range() takes integers (or bools)")
    assert "a traced float32 value" in message and "'float' object cannot be interpreted as an integer" in message
    assert message.splitlines()[-1].startswith("Convert the bound to an integer first: range(int(n))")
    with pytest.raises(TypeError, match="range\\(\\) takes integers"):
        autograph_lite.jit(sum_to_float)(F32(2.0))


def test_a_concrete_float_bound_beside_a_traced_one_is_the_same_error():
    message = conversion_error(sum_from_half, I32(3))
    assert message.startswith(where(sum_from_half, "range(0.5, n)") + ": ")
    assert "a bound of this range is 0.5 (float)" in message


# --- a carried bool that becomes a number -------------------------------------------------------


def bool_decremented_in_while(x):
    flag = x > 0
    i = 0
    while i < x:
        flag = flag - 1
        i = i + 1
    return flag


def bool_decremented_over_traced_range(x):
    flag = x > 0
    for _ in range(x):
        flag = flag - 1
    return flag


def bool_decremented_over_static_range(x):
    flag = x > 0
    for _ in range(3):  # static_loops="auto": the trial sees the dtype change, the loop stays Python
        flag = flag - 1
    return flag


def bool_plus_traced_in_staged_for(x):
    flag = x > 0
    for _ in autograph_lite.stage(range(3)):
        flag = flag + x
    return flag


def bool_doubled_until_early_exit(x):
    flag = x > 0
    for i in autograph_lite.stage(range(5), early_exit=True):
        if i > x:
            break
        flag = flag * 2 + 1
    return flag


def bool_doubled_until_break_in_masked_scan(x):
    flag = x > 0
    for i in autograph_lite.stage(range(5)):  # a static trip count: a scan whose iterations after the break are masked
        if i > x:
            break
        flag = flag * 2 + 1
    return flag


def bool_doubled_until_break_over_traced_range(x):
    flag = x > 0
    for i in range(x + 4):
        if i > x:
            break
        flag = flag * 2 + 1
    return flag


def bool_becomes_float(x):
    flag = x > 0
    for _ in range(x):
        flag = flag + 0.5
    return flag


def bool_read_through_if_and_where(x):
    flag = x > 0
    i = 0
    while i < x:
        if flag:
            i = i + 1
        flag = jnp.where(flag, 3, 2) + flag
        i = i + 1
    return flag, i


def bool_read_by_the_test(x):
    flag = x > 0
    while flag < 3:
        flag = flag + x + 1
    return flag


def one_leaf_of_a_tuple(x):
    pair = (x > 0, x < 0)
    for _ in range(x):
        pair = (pair[0] + 1, pair[1])
    return pair


PROMOTED = [bool_decremented_in_while, bool_decremented_over_traced_range, bool_decremented_over_static_range,
            bool_plus_traced_in_staged_for, bool_doubled_until_early_exit, bool_doubled_until_break_in_masked_scan,
            bool_doubled_until_break_over_traced_range,
            bool_becomes_float, bool_read_through_if_and_where, bool_read_by_the_test, one_leaf_of_a_tuple]


@pytest.mark.parametrize("function", PROMOTED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [I32(3), 3, I32(1)])
def test_a_bool_carry_turned_number_equals_eager(function, x):
    assert_equivalent(function, x)


@pytest.mark.parametrize("function", PROMOTED, ids=lambda f: f.__name__)
def test_the_promoted_carry_has_eager_dtype(function):
    eager = jax.tree_util.tree_leaves(function(I32(3)))
    staged = jax.tree_util.tree_leaves(autograph_lite.jit(function)(I32(3)))
    assert [jnp.asarray(leaf).dtype for leaf in staged] == [jnp.asarray(leaf).dtype for leaf in eager]


def test_zero_iterations_give_the_bool_as_the_number():
    # The staged carry has one type: with no iteration it holds the entry bool converted (True is 1).
    staged = autograph_lite.jit(bool_decremented_over_traced_range)(I32(0))
    assert staged.dtype == jnp.int32 and int(staged) == int(bool_decremented_over_traced_range(I32(0)))


def bool_inverted_then_counted(x):
    flag = x > 0
    for _ in range(x):
        flag = ~flag + 1
    return flag


def int_turned_float(x, y):
    acc = jnp.int32(0)
    for _ in range(x):
        acc = acc + y
    return acc


def test_a_bool_read_as_a_bool_keeps_the_dtype_error():
    # ~True is False, but ~1 is -2: starting the carry as an int would change the first iteration.
    message = conversion_error(bool_inverted_then_counted, I32(3))
    assert message.startswith(where(bool_inverted_then_counted, "for _ in range(x)") + ": 'flag' is bool[] before")
    assert "weakly typed i32[] after one iteration (the dtype differs)" in message
    assert message.splitlines()[-1] == (
        "Start it as a number: flag = jnp.asarray(flag, 'int32'); a bool the first iteration reads as a bool "
        "(~, a comparison) is not converted for you, since True and 1 differ there.")


def test_a_genuine_dtype_change_still_names_both_dtypes():
    message = conversion_error(int_turned_float, I32(3), F32(1.5))
    assert "'acc' is i32[] before the `for` loop but f32[] after one iteration (the dtype differs)" in message


def weak_zero_becomes_float_in_while(x):
    n = 0
    i = 0
    while i < x:
        n = n + 0.5 * i
        i = i + 1
    return n


def weak_one_becomes_float_in_staged_for(x):
    n = 1
    for _ in autograph_lite.stage(range(4)):
        n = n * x
    return n


def weak_zero_becomes_int_over_traced_range(x):
    n = 0
    for i in range(x):
        n = n + x * i
    return n


WEAK = [(weak_zero_becomes_float_in_while, x) for x in (I32(3), F32(1.5), 3)]
WEAK += [(weak_one_becomes_float_in_staged_for, x) for x in (I32(3), F32(1.5), 3)]
WEAK += [(weak_zero_becomes_int_over_traced_range, x) for x in (I32(3), 3)]


@pytest.mark.parametrize(("function", "x"), WEAK, ids=lambda v: getattr(v, "__name__", ""))
def test_a_weak_literal_carry_takes_the_body_dtype(function, x):
    eager = assert_equivalent(function, x)
    if not isinstance(x, int):
        assert autograph_lite.jit(function)(x).dtype == jnp.asarray(eager).dtype


# --- max / min with key= ---------------------------------------------------------------------------


def max_by_negation(xs):
    return max(xs, key=lambda v: -v)


def min_by_square(xs):
    return min(xs, key=lambda v: v * v)


def max_of_arguments_by_abs(a, b, c):
    return max(a, b, c, key=abs)


def index_of_largest(xs):
    return max([0, 1, 2], key=lambda i: xs[i])


def row_with_largest_sum(m):
    return max(m, key=lambda row: row.sum())


def min_of_empty_with_default(xs):
    return min([], key=lambda v: v, default=xs[0])


def max_of_pairs(xs):
    return max([(xs[0], xs[1]), (xs[2], xs[0])], key=lambda pair: pair[1])


def max_of_concrete_keys(xs):
    return max([xs[0], xs[1], xs[2]], key=lambda v: 1)


KEYED = [
    (max_by_negation, (jnp.asarray([1.0, -2.0, -2.0, 3.0], F32),)),
    (max_by_negation, (jnp.asarray([3, 1, 1, 5], I32),)),
    (min_by_square, (jnp.asarray([2.0, -1.0, 1.0, jnp.nan], F32),)),
    (min_by_square, (jnp.asarray([jnp.nan, -1.0, 1.0], F32),)),
    (max_by_negation, (jnp.asarray([2.0, jnp.nan, -1.0], F32),)),
    (max_of_arguments_by_abs, (F32(-3.0), F32(3.0), F32(1.0))),
    (index_of_largest, (jnp.asarray([1.0, 5.0, 5.0], F32),)),
    (row_with_largest_sum, (jnp.arange(6.0, dtype=F32).reshape(3, 2),)),
    (min_of_empty_with_default, (jnp.asarray([4.0], F32),)),
    (max_of_pairs, (jnp.asarray([1.0, 2.0, 2.0], F32),)),
    (max_of_concrete_keys, (jnp.asarray([7.0, 8.0, 9.0], F32),)),
]


@pytest.mark.parametrize(("function", "args"), KEYED, ids=lambda v: getattr(v, "__name__", ""))
def test_max_min_with_key_pick_the_first_best_item_as_python(function, args):
    assert_equivalent(function, *args)


def test_ties_pick_the_first_item():
    # Equal values would hide which item was picked: the index is what differs.
    xs = jnp.asarray([1.0, 5.0, 5.0], F32)
    assert int(autograph_lite.jit(index_of_largest)(xs)) == index_of_largest(xs) == 1
    assert autograph_lite.jit(min_by_square)(jnp.asarray([2.0, -1.0, 1.0], F32)) == -1.0


def max_over_two_shapes(xs):
    return max(xs, xs[:2], key=lambda v: v[0])


def min_by_rows_key(m):
    return min(m, key=lambda row: row * 2)


def test_items_of_different_shapes_are_a_located_error():
    message = conversion_error(max_over_two_shapes, jnp.asarray([1.0, 2.0, 3.0], F32))
    assert message.startswith(where(max_over_two_shapes, "return max(") + ": max() / min() with key=")
    assert message.splitlines()[-1].startswith("Give the items one shape")


def test_a_key_of_several_elements_is_a_located_error():
    with pytest.raises(autograph_lite.TracedPredicateError) as raised:
        autograph_lite.jit(min_by_rows_key)(jnp.ones((2, 2), F32))
    message = str(raised.value)
    assert message.startswith(where(min_by_rows_key, "return min(") + ": min() with key= got a key of shape (2,)")
    assert message.splitlines()[-1] == "Make the key return one number per item, e.g. key=lambda v: v.sum()."

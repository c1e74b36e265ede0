"""``print`` and f-strings in converted code print what eager Python prints, in order, on every call.

Each equivalence test runs the function eagerly on jax arrays (the reference), converted on the same
concrete values (no trace: the builtin print), and under ``autograph_lite.jit`` twice (the second
call runs the cached program, which must print again), and compares stdout and stderr exactly.
"""


import jax
import jax.numpy as jnp
import numpy as np
import pytest
from print_support import assert_prints_like_eager, captured, staged_as

import autograph_lite

F32, I32 = jnp.float32, jnp.int32
TABLE = np.arange(3)
LAYERS = [1.0, 2.0, 3.0]


# --- the repros of issue #13 --------------------------------------------------------------------


def concrete_then_traced(y):
    print("x is", TABLE)
    print("y is", y)
    return y


def static_then_traced(y, n):
    print("n is", n)
    print("y is", y)
    return y


def test_concrete_and_traced_prints_keep_their_order_on_every_call():
    assert_prints_like_eager(concrete_then_traced, F32(2.0), expected="x is [0 1 2]\ny is 2.0\n")
    assert_prints_like_eager(
        static_then_traced, F32(2.0), n=3, static_argnames="n", expected="n is 3\ny is 2.0\n"
    )


def formats_a_loss(loss):
    print(f"loss {loss:.3f}")
    return loss


def test_format_spec_on_a_traced_value():
    assert_prints_like_eager(formats_a_loss, F32(5.76), expected="loss 5.760\n")


def fstring_in_a_staged_loop(xs):
    loss = 0.0
    for i in range(3):
        loss = loss + xs[i]
        print(f"loss {loss}")
    return loss


def test_fstring_in_a_loop_staged_by_the_auto_policy_prints_at_run_time():
    xs = jnp.arange(3.0)
    assert "lax.scan" in staged_as(fstring_in_a_staged_loop, xs)
    assert_prints_like_eager(fstring_in_a_staged_loop, xs, expected="loss 0.0\nloss 1.0\nloss 3.0\n")


def many_traced_prints(x):
    for k in autograph_lite.unroll(range(12)):
        print("value", x + k)
    return x


def test_prints_of_traced_values_keep_program_order():
    expected = "".join(f"value {float(k)}\n" for k in range(12))
    assert_prints_like_eager(many_traced_prints, F32(0.0), expected=expected)
    # Ordered callbacks: XLA may not reorder them (unordered ones it may, which no test run can show).
    effects = jax.make_jaxpr(autograph_lite.convert(many_traced_prints))(F32(0.0)).effects
    assert {str(effect) for effect in effects} == {"OrderedDebug"}


def formats_an_int(n):
    print(f"{n}")
    print(n)
    return n


def test_fstring_of_a_traced_int_prints_its_value_not_a_tracer():
    assert_prints_like_eager(formats_an_int, I32(7), expected="7\n7\n")


def branch_prints(x):
    if x > 0:
        print("positive", x)
    else:
        print("not positive", TABLE)
    return x


@pytest.mark.parametrize("x, expected", [(1.5, "positive 1.5\n"), (-1.0, "not positive [0 1 2]\n")])
def test_only_the_taken_branch_of_a_traced_if_prints(x, expected):
    assert_prints_like_eager(branch_prints, F32(x), expected=expected)


def test_one_compiled_program_prints_the_branch_each_call_takes():
    jitted = autograph_lite.jit(branch_prints)
    assert captured(jitted, F32(1.0))[0] == "positive 1.0\n"
    assert captured(jitted, F32(-1.0))[0] == "not positive [0 1 2]\n"
    assert captured(jitted, F32(2.0))[0] == "positive 2.0\n"


def needs_a_concrete_index(x):
    for i in range(3):
        print("layer", i)
        x = x * LAYERS[i]
    return x


def test_trial_traces_and_tracing_alone_print_nothing():
    x = F32(1.0)
    assert "Python loop" in staged_as(needs_a_concrete_index, x)  # after a trial trace of the body
    assert_prints_like_eager(needs_a_concrete_index, x, expected="layer 0\nlayer 1\nlayer 2\n")
    assert captured(jax.make_jaxpr(autograph_lite.convert(branch_prints)), x) == ("", "")


# --- loops and nesting ---------------------------------------------------------------------------


def doubles_while_small(x):
    while x < 10:
        print("x", x)
        x = x * 2
    return x


def counts_to(x, n):
    for i in range(n):
        print(f"i={i} x={x:.1f}")
        x = x * 2
    return x


def nested(xs):
    total = 0.0
    for i in range(2):
        for j in range(2):
            if xs[i] > j:
                print("above", i, j, xs[i])
            else:
                print("below", i, j)
            total = total + xs[i] * j
    return total


def test_staged_while_loop():
    assert "lax.while_loop" in staged_as(doubles_while_small, F32(3.0))
    assert_prints_like_eager(doubles_while_small, F32(3.0), expected="x 3.0\nx 6.0\n")


def test_fori_loop_over_a_traced_range_and_the_same_loop_with_a_static_bound():
    assert "fori_loop" in staged_as(counts_to, F32(1.0), I32(2))
    expected = "i=0 x=1.0\ni=1 x=2.0\n"
    assert_prints_like_eager(counts_to, F32(1.0), I32(2), expected=expected)
    assert_prints_like_eager(counts_to, F32(1.0), n=2, static_argnames="n", expected=expected)


def test_nested_loops_and_branches():
    xs = jnp.asarray([0.5, 1.5], F32)
    expected = "above 0 0 0.5\nbelow 0 1\nabove 1 0 1.5\nabove 1 1 1.5\n"
    assert_prints_like_eager(nested, xs, expected=expected)


def noisy_bound(limit):
    print("test", limit)
    return limit


def while_with_a_printing_concrete_test(x):
    n = 0
    while n < noisy_bound(2):
        x = x * 2.0
        n = n + 1
    return x


@pytest.mark.parametrize("x", [F32(3.0), 3.0])
def test_a_concrete_while_test_prints_once_per_evaluation(x):
    """The test of a loop carrying a traced value is evaluated first in a throwaway trace: its prints
    were staged there and lost (jit printed nothing for eager's three lines; found by the generator)."""
    assert_prints_like_eager(while_with_a_printing_concrete_test, x, expected="test 2\ntest 2\ntest 2\n")


def noisy_not(done):
    print("test", done)
    return not done


def while_with_a_printing_test_traced_after_one_iteration(x):
    done = False
    while noisy_not(done):
        x = x * 2.0
        done = x > 10.0
    return x


def test_a_while_test_traced_after_a_trial_iteration_prints_once_per_evaluation():
    """The trial of the first iteration traces the test after it; the loop evaluates it again."""
    assert "lax.while_loop" in staged_as(while_with_a_printing_test_traced_after_one_iteration, F32(3.0))
    assert_prints_like_eager(while_with_a_printing_test_traced_after_one_iteration, F32(3.0),
                             expected="test False\ntest False\ntest True\n")


def stage_loop_eagerly(x):
    print("before")
    for i in autograph_lite.stage(range(2)):
        x = x + i
        print("inside", x)
    print("after", x)
    return x


def test_a_loop_staged_outside_any_jit_prints_in_order_with_the_builtin_prints():
    assert_prints_like_eager(stage_loop_eagerly, F32(1.0), expected="before\ninside 1.0\ninside 2.0\nafter 2.0\n")


# --- f-strings ----------------------------------------------------------------------------------


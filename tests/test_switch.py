"""``if`` / ``elif`` chains and ``match`` statements on one integer: one ``lax.switch`` (issue #19).

Every function is checked against eager Python: on concrete inputs (``convert``: Python's ``==`` in
order, whatever the subject's type), and on traced ones (``jit``), where an integer scalar subject
stages one ``lax.switch`` and any other subject the nested ``lax.cond``s the chain always was.
Prints, run-time raises, early exits, vmap, grad and explain are checked through the switch too, and
the switch's equations are pinned against the same chain written by hand with ``lax``.

PYTEST_DONT_REWRITE: a user function here holds an assert, whose eager message must stay Python's.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.extend.core import jaxpr_as_fun
from print_support import assert_prints_like_eager
from support import assert_equivalent, assert_same, count_equations, primitives

import autograph_lite
from autograph_lite import ConversionError
from autograph_lite.runtime import switches as switch_runtime
from bench.measure import _equations, primitive_counts
from tests.test_runtime_checks import assert_like_eager

I32, F32 = jnp.int32, jnp.float32


def four_way(k, x):
    if k == 0:
        y = x + 1.0
    elif k == 1:
        y = x * 2.0
    elif k == 2:
        y = x - 3.0
    else:
        y = -x
    return y


def sparse_negative(k, x):
    if k == -5:
        y = x + 1.0
    elif k == 7:
        y = x * 2.0
    elif k == 100:
        y = x - 3.0
    elif k == -1:
        y = x * x
    else:
        y = -x
    return y


def literal_cases(k, x):
    match k:
        case 1:
            return x
        case 2 | 3:
            return x * 2
        case 5:
            return x * 3
        case _:
            return 0.0 * x


def no_else(k, x):
    y = x
    if k == 3:
        y = x + 1
    elif k == 4:
        y = x + 2
    elif k == 5:
        y = x + 3
    return y


def returns_in_some_branches(k, x):
    if k == 0:
        return x * 10
    elif k == 1:
        x = x + 1
    elif k == 2:
        return x - 10
    return x * 2


def returns_in_a_loop(k, x):
    for i in range(3):
        if k == 0:
            return x * i
        elif k == 1:
            x = x + 1
        elif k == 2:
            return x - 10
        else:
            x = x * 2
    return x


def weak_scalar_in_one_branch(k, x):
    if k == 0:
        y = 0
    elif k == 1:
        y = x * 2.0
    elif k == 2:
        y = x - 1.0
    else:
        y = x
    return y


def chained(k, x):
    """Branches that stage conds, loops and another switch of their own."""
    if k == 0:
        y = x
        for _ in range(k + 3):
            y = y * 0.5
    elif k == 1:
        y = jnp.where(x > 0, x, -x)
        if y > 1:
            y = y - 1
    elif k == 2:
        y = four_way(k - 1, x) + four_way(k + 1, x)
    else:
        y = x * 0
    return y


KS = [-2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 100, -5, 2**31 - 1, -(2**31)]


@pytest.mark.parametrize("function", [four_way, sparse_negative, literal_cases, no_else, returns_in_some_branches,
                                      returns_in_a_loop, weak_scalar_in_one_branch, chained])
@pytest.mark.parametrize("k", KS)
def test_agrees_with_eager_for_concrete_and_traced_int_subjects(function, k):
    assert_equivalent(function, k, F32(1.5))
    assert_equivalent(function, I32(k), F32(-0.5))


@pytest.mark.parametrize("function", [four_way, sparse_negative, literal_cases, no_else, returns_in_some_branches])
def test_a_traced_int_subject_is_one_lax_switch(function):
    assert "switch_stmt" in autograph_lite.to_source(function)
    counts = primitive_counts(autograph_lite.convert(function), I32(1), F32(1.5))
    assert counts["cond"] == 1, counts
    assert "switch" in str(autograph_lite.explain(function, I32(1), F32(1.5)))


@pytest.mark.parametrize("subject", [1.0, 2.0, 7.5, np.float32(1.0), np.int64(2), np.int8(0), True, False, jnp.float32(0.0)])
def test_a_concrete_subject_of_any_type_matches_as_pythons_equality(subject):
    for function in (four_way, literal_cases, no_else):
        assert_same(autograph_lite.convert(function)(subject, F32(1.5)), function(subject, F32(1.5)), what=function.__name__)


@pytest.mark.parametrize("subject", [F32(1.0), F32(2.0), F32(2.5), F32(-3.0)])
def test_a_traced_float_subject_stages_the_nested_conds(subject):
    for function in (four_way, literal_cases):
        assert_equivalent(function, subject, F32(1.5))
        counts = primitive_counts(autograph_lite.convert(function), subject, F32(1.5))
        assert counts["cond"] + counts["select_n"] == 3, counts  # small pure branches: selects
        assert "lax.switch" not in str(autograph_lite.explain(function, subject, F32(1.5)))


@pytest.mark.parametrize("subject", [True, False])
def test_a_traced_bool_subject_stages_the_nested_conds(subject):
    assert_equivalent(four_way, jnp.bool_(subject), F32(1.5))
    counts = primitive_counts(autograph_lite.convert(four_way), jnp.bool_(subject), F32(1.5))
    assert counts["cond"] + counts["select_n"] == 3, counts


def test_a_traced_array_subject_is_refused_as_the_nested_conds_refuse_it():
    def two_tests(k, x):  # stays nested conds: the reference message
        if k == 0:
            y = x
        elif k == 1:
            y = -x
        else:
            y = x * 2
        return y

    messages = []
    for function in (two_tests, four_way):
        with pytest.raises(Exception) as raised:
            autograph_lite.jit(function)(jnp.arange(3), F32(1.5))
        messages.append((type(raised.value), str(raised.value).split(":")[-1]))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("dtype, values", [
    (jnp.int8, [-128, -1, 0, 1, 2, 127]), (jnp.uint8, [0, 1, 2, 3, 255]), (jnp.int16, [-1, 0, 2, 3]),
    (jnp.uint32, [0, 1, 2, 3, 2**32 - 1, 2**31]),
])
def test_small_and_unsigned_integer_subjects(dtype, values):
    for value in values:
        for function in (four_way, sparse_negative if jnp.issubdtype(dtype, jnp.signedinteger) else no_else):
            assert_equivalent(function, jnp.asarray(value, dtype), F32(1.5))


def test_constants_outside_the_subjects_dtype_stage_the_nested_conds_as_before():
    def wide(k, x):
        if k == 1:
            y = x
        elif k == 2:
            y = -x
        elif k == 300:
            y = x * 3
        else:
            y = x * 0
        return y

    for value in (1, 2, 0):
        expected = wide(jnp.uint8(value), F32(1.5))
        assert_same(autograph_lite.jit(wide)(jnp.uint8(value), F32(1.5)), expected)


def test_vmap_over_the_subject_and_the_operand():
    ks = jnp.array([-1, 0, 1, 2, 3, 5], I32)
    xs = jnp.linspace(-2.0, 2.0, 6, dtype=F32)
    for function in (four_way, sparse_negative, literal_cases):
        batched = jax.vmap(autograph_lite.convert(function))(ks, xs)
        expected = jnp.stack([function(int(k), x) for k, x in zip(ks, xs)])
        assert_same(batched, expected, what=function.__name__)


@pytest.mark.parametrize("k", [0, 1, 2, 3, 9])
def test_grad_through_the_switch(k):
    def smooth(k, x):
        if k == 0:
            y = jnp.sin(x)
        elif k == 1:
            y = x**3
        elif k == 2:
            y = jnp.exp(x) * x
        else:
            y = 2.0 * x
        return y

    staged = jax.jit(jax.grad(autograph_lite.convert(smooth), argnums=1))
    assert_same(staged(I32(k), F32(0.7)), jax.grad(smooth, argnums=1)(k, F32(0.7)))
    assert "cond" in primitives(jax.grad(autograph_lite.convert(smooth), argnums=1), I32(k), F32(0.7))


def prints_its_branch(k, x):
    if k == 0:
        print("zero", x)
    elif k == 1:
        print("one")
    elif k == 2:
        print(f"two {x}")
    else:
        print("other", k)
    return x


@pytest.mark.parametrize("k, expected", [(0, "zero 1.5\n"), (1, "one\n"), (2, "two 1.5\n"), (7, "other 7\n")])
def test_only_the_taken_branch_prints(k, expected):
    assert_prints_like_eager(prints_its_branch, I32(k), F32(1.5), expected=expected)


def raises_in_branches(k, x):
    if k == 0:
        raise ValueError(f"no zero, x={x}")
    elif k == 1:
        y = x * 2
    elif k == 2:
        assert x > 0, "x must be positive"
        y = x
    else:
        y = x + k
    return y


@pytest.mark.parametrize("k, x", [(0, 1.0), (1, 1.0), (2, 1.0), (2, -1.0), (3, -1.0)])
def test_run_time_checks_in_branches_fire_only_on_the_taken_branch(k, x):
    assert_like_eager(raises_in_branches, I32(k), F32(x))
    assert "lax.switch" in str(autograph_lite.explain(raises_in_branches, I32(k), F32(x)))


def test_every_branch_raising_is_the_nested_conds_error():
    def always_raises(k):
        if k == 0:
            raise ValueError("a")
        elif k == 1:
            raise ValueError("b")
        elif k == 2:
            raise ValueError("c")
        else:
            raise ValueError("d")

    with pytest.raises(ConversionError, match="every path through this `if` raises"):
        autograph_lite.jit(always_raises)(I32(1))


def test_a_side_effect_in_a_branch_is_refused_with_a_traced_subject_only():
    seen = []

    def appends_outside(k, x):
        if k == 0:
            seen.append(x)
        elif k == 1:
            y = 1
        elif k == 2:
            y = 2
        y = 3
        return x * y

    with pytest.raises(ConversionError, match=r"`if` / `elif` chain with a traced subject cannot be staged"):
        autograph_lite.jit(appends_outside)(I32(0), F32(1.0))
    assert_same(autograph_lite.convert(appends_outside)(0, F32(1.0)), F32(3.0))
    assert len(seen) == 1


def test_a_return_value_unset_in_some_branches_starts_as_zeros_there():
    text = str(autograph_lite.explain(returns_in_a_loop, I32(1), F32(1.5)))
    assert "-> lax.switch" in text and "-> lax.cond" not in text.split("chain")[1], text
    line = returns_in_a_loop.__code__.co_firstlineno + 4  # `elif k == 1:`, which does not return
    assert f"<return value> starts as zeros in the branch at line {line}" in text, text


def test_explain_reports_the_switch_and_its_fallback():
    text = str(autograph_lite.explain(literal_cases, I32(2), F32(1.5)))
    assert "`match` -> lax.switch (the subject is a traced integer; 4 branches)" in text, text
    fallback = str(autograph_lite.explain(bound_if_its_loop_ran, I32(0), I32(2), F32(1.5)))
    assert "lax.switch" not in fallback and "`if` / `elif` chain -> nested lax.cond" in fallback, fallback


def bound_if_its_loop_ran(k, n, x):
    """z is bound after the first branch only if its loop ran: only the nested conds track that."""
    y = x
    if k == 0:
        for i in range(n):
            z = x + i
        y = y + 1
    elif k == 1:
        z = x * 2
    elif k == 2:
        z = x
    else:
        z = -x
    return y, z


@pytest.mark.parametrize("k, n", [(0, 2), (1, 0), (2, 3), (3, 1)])
def test_a_name_bound_only_if_a_loop_ran_stages_the_nested_conds(k, n):
    assert_equivalent(bound_if_its_loop_ran, I32(k), I32(n), F32(1.5))


@pytest.mark.parametrize("source_test", [
    "k == 0", "k == 1", "k + 0 == 2",  # the third test is not the subject itself
])
def test_chains_that_stay_nested(source_test):
    def two_tests(k, x):
        if k == 0:
            return x
        elif k == 1:
            return -x
        return x * 2

    def other_subjects(k, j, x):
        if k == 0:
            y = x
        elif j == 1:
            y = -x
        elif k == 2:
            y = x * 2
        else:
            y = x
        return y

    def membership(k, x):
        if k in (0, 1):
            y = x
        elif k == 2:
            y = -x
        elif k == 3:
            y = x * 2
        else:
            y = x
        return y

    def repeated(k, x):
        if k == 0:
            y = x
        elif k == 0:
            y = -x
        elif k == 0:
            y = x * 2
        else:
            y = x
        return y

    for function in (two_tests, other_subjects, membership, repeated):
        assert "switch_stmt" not in autograph_lite.to_source(function), function.__name__
    for k in (0, 1, 2, 3):
        assert_equivalent(other_subjects, k, 1, F32(1.5))
        assert_equivalent(membership, k, F32(1.5))
        assert_equivalent(repeated, k, F32(1.5))


def test_a_switch_in_a_staged_loop_body():
    def state_machine(n, x):
        state = 0
        for _ in range(n):
            if state == 0:
                x = x + 1.0
                state = 1
            elif state == 1:
                x = x * 2.0
                state = 2
            elif state == 2:
                x = x - 3.0
                state = 0 if x < 10 else 3
            else:
                x = x
        return x, state

    for n in (0, 1, 5, 20):
        assert_equivalent(state_machine, I32(n), F32(1.0))
    assert "switch" in str(autograph_lite.explain(state_machine, I32(5), F32(1.0)))


# --- equations against the same chain written by hand with lax --------------------------------------


def _chain_source(branches: int) -> str:
    lines = ["def chain(k, x):"]
    for k in range(branches - 1):
        lines += [f"    {'if' if k == 0 else 'elif'} k == {k}:", f"        y = x * {k + 2}.0"]
    lines += ["    else:", "        y = -x", "    return y"]
    return "\n".join(lines) + "\n"


def _hand_written_switch(branches: int):
    def chain(k, x):
        index = jnp.where((k >= 0) & (k < branches - 1), k, branches - 1)
        cases = [lambda x, c=c: x * (c + 2.0) for c in range(branches - 1)] + [lambda x: -x]
        return lax.switch(index, cases, x)
    return chain


def _hand_written_nested_conds(branches: int):
    def chain(k, x):
        def from_test(c):
            if c == branches - 1:
                return -x
            return lax.cond(k == c, lambda: x * (c + 2.0), lambda: from_test(c + 1))
        return from_test(0)
    return chain


@pytest.mark.parametrize("branches", [4, 16])
def test_equations_at_most_the_hand_written_switch(branches, tmp_path):
    from support import load_source

    ours = load_source(_chain_source(branches), tmp_path).chain
    args = (I32(3), F32(1.5))
    for k in (-1, 0, 1, branches - 2, branches - 1, branches + 5):
        assert_equivalent(ours, k, F32(1.5))
        assert_same(_hand_written_switch(branches)(I32(k), F32(1.5)), ours(k, F32(1.5)))
    converted = count_equations(autograph_lite.convert(ours), *args)
    assert converted <= count_equations(_hand_written_switch(branches), *args)
    assert converted < count_equations(_hand_written_nested_conds(branches), *args)
    assert primitive_counts(autograph_lite.convert(ours), *args)["cond"] == 1


def test_a_type_mismatch_is_the_nested_conds_error_naming_every_line():
    def mismatched(k, x):
        if k == 0:
            return x
        elif k == 1:
            return jnp.zeros(3)
        elif k == 2:
            return x
        return x

    first = mismatched.__code__.co_firstlineno
    with pytest.raises(autograph_lite.StagingTypeError) as raised:
        autograph_lite.jit(mismatched)(I32(1), F32(1.0))
    assert f"returns f32[3] at line {first + 4} but f32[] at line {first + 6}, {first + 7}" in str(raised.value)


# --- an `else` that raises, weakly typed scalars: one switch, typed as the nested conds (issue #19) ---


def else_raises(op, x):
    if op == 0:
        y = x + 1.0
    elif op == 1:
        y = x * 2.0
    elif op == 2:
        y = x - 3.0
    else:
        raise ValueError(f"unknown op {op}")
    return y


def default_case_raises(op, x):
    match op:
        case 0:
            return x
        case 1 | 2:
            return x * 2
        case 5:
            return -x
        case _:
            raise KeyError(f"op {op} at x={x}")


def first_and_else_raise(op, x):
    if op == 0:
        raise ValueError("zero")
    elif op == 1:
        y = x * 2
    elif op == 2:
        assert x > 0, f"x={x}"
        y = x
    else:
        raise OverflowError(f"op {op}")
    return y


def weak_scalar_and_raising_else(op, x):
    if op == 0:
        y = 0
    elif op == 1:
        y = x
    elif op == 2:
        y = x * 2
    else:
        raise ValueError(f"unknown op {op}")
    return y


RAISING_ELSE = [else_raises, default_case_raises, first_and_else_raise, weak_scalar_and_raising_else]


@pytest.fixture
def nested_conds(monkeypatch):
    """Make every chain stage its nested conds, the reference the switch must equal."""
    return lambda: monkeypatch.setattr(switch_runtime, "_switchable", lambda subject, constants: False)


def _fresh_jaxpr(function, *args):
    """The jaxpr of ``convert(function)``, traced anew (make_jaxpr caches traces by function)."""
    return jax.make_jaxpr(lambda *values: autograph_lite.convert(function)(*values))(*args)


def _output_types(closed) -> list[tuple]:
    return [(aval.shape, aval.dtype, aval.weak_type) for aval in closed.out_avals]


def _cond_branch_counts(closed) -> list[int]:
    """The number of branches of every cond in a jaxpr, sub-jaxprs included (a switch has more than 2)."""
    return sorted(len(equation.params["branches"]) for equation in _equations(closed.jaxpr)
                  if equation.primitive.name == "cond")


@pytest.mark.parametrize("function", RAISING_ELSE)
@pytest.mark.parametrize("op", [-1, 0, 1, 2, 3, 5, 100])
def test_a_raising_else_raises_eagers_exception_only_when_taken(function, op):
    assert_like_eager(function, I32(op), F32(1.5))
    assert_like_eager(function, I32(op), F32(-0.5))


@pytest.mark.parametrize("function", RAISING_ELSE)
def test_a_raising_else_is_one_switch(function, nested_conds):
    text = str(autograph_lite.explain(function, I32(1), F32(1.5)))
    assert "-> lax.switch (the subject is a traced integer; 4 branches)" in text and "nested" not in text, text
    assert "raises: it returns zeros" in text, text
    switch = _fresh_jaxpr(function, I32(1), F32(1.5))
    equations = count_equations(lambda *values: autograph_lite.convert(function)(*values), I32(1), F32(1.5))
    nested_conds()
    nested = _fresh_jaxpr(function, I32(1), F32(1.5))
    # The three conds of the tests become one switch; the run-time checks' own conds stay.
    assert _cond_branch_counts(switch) == sorted(_cond_branch_counts(nested)[3:] + [4])
    assert _output_types(switch) == _output_types(nested)
    assert equations < count_equations(lambda *values: autograph_lite.convert(function)(*values), I32(1), F32(1.5))


def test_a_raising_else_against_the_hand_written_switch():
    def hand_written(op, x):
        def fail(op):
            raise ValueError(f"unknown op {op}")

        def unknown(x):
            jax.debug.callback(fail, op)
            return jnp.zeros_like(x)

        index = jnp.where((op >= 0) & (op < 3), op + 1, 0)
        return lax.switch(index, [unknown, lambda x: x + 1.0, lambda x: x * 2.0, lambda x: x - 3.0], x)

    for op in (0, 1, 2):
        assert_same(hand_written(I32(op), F32(1.5)), autograph_lite.jit(else_raises)(I32(op), F32(1.5)))
    # Two more: the run-time check guards its callback with the else's predicate (`index == 0`, in a
    # cond), where the hand-written callback is unguarded; the index costs the same.
    converted = count_equations(autograph_lite.convert(else_raises), I32(1), F32(1.5))
    assert converted <= count_equations(hand_written, I32(1), F32(1.5)) + 2


def test_a_raising_else_under_vmap_raises_when_one_element_takes_it():
    ks, xs = jnp.array([0, 1, 2, 1], I32), jnp.linspace(-1.0, 1.0, 4, dtype=F32)
    batched = jax.jit(jax.vmap(autograph_lite.convert(else_raises)))
    assert_same(batched(ks, xs), jnp.stack([else_raises(int(k), x) for k, x in zip(ks, xs)]))
    with pytest.raises(jax.errors.JaxRuntimeError, match="ValueError: unknown op 7"):
        jax.block_until_ready(batched(ks.at[2].set(7), xs))


def weak_or_array(k, x):
    """cartpole_step's force, with a third action."""
    if k == 0:
        force = -10.0
    elif k == 1:
        force = 10.0
    elif k == 2:
        force = x
    else:
        force = 0.0
    return force, x * force


def python_floats_only(k, x):
    if k == 0:
        force = -10.0
    elif k == 1:
        force = 10.0
    elif k == 2:
        force = 2.5
    else:
        force = 0.0
    return force, x * force


def weak_float_meets_int(k, x):
    """A traced k is strongly typed, so the inner conds' y is a strongly typed int32 (the output of a
    cond is strongly typed where a branch's value is), and a Python float beside it would make it a
    float32, which loses int32 values past 2**24: refused, by the switch as by the nested conds."""
    if k == 0:
        y = 0.5
    elif k == 1:
        y = k
    elif k == 2:
        y = k * 2
    else:
        y = 1
    return y, x + y


def weak_int_meets_narrow_float(k, x):
    if k == 0:
        y = x
    elif k == 1:
        y = 3
    elif k == 2:
        y = x * x
    else:
        y = -1
    return y, y * x


def promoted_twice(k, x):
    """The else's 3 becomes float32 at the cond of `k == 1`, then complex64 at the cond of `k == 0`."""
    if k == 0:
        y = 1j
    elif k == 1:
        y = 0.5
    elif k == 2:
        y = 2
    else:
        y = 3
    return y, x * y


def returns_a_python_int_in_a_loop(k, x):
    """<return value> is zeros where a branch does not return, and promoted where `return 0` is."""
    for _ in range(2):
        if k == 0:
            return 0
        elif k == 1:
            x = x + 1
        elif k == 2:
            return x * 2.0
        else:
            x = x * 3.0
    return x


WEAK = [(weak_scalar_in_one_branch, F32), (weak_or_array, F32), (python_floats_only, F32),
        (weak_int_meets_narrow_float, jnp.float16), (weak_int_meets_narrow_float, jnp.bfloat16), (promoted_twice, F32),
        (returns_a_python_int_in_a_loop, F32), (weak_scalar_and_raising_else, F32)]


@pytest.mark.parametrize("function, dtype", WEAK)
@pytest.mark.parametrize("k", KS)
def test_weak_scalars_agree_with_eager(function, dtype, k):
    if function is weak_scalar_and_raising_else and k not in (0, 1, 2):
        return  # raises: test_a_raising_else_raises_eagers_exception_only_when_taken
    assert_equivalent(function, k, jnp.asarray(1.5, dtype))
    assert_equivalent(function, I32(k), jnp.asarray(-0.5, dtype))


@pytest.mark.parametrize("function, dtype", WEAK)
def test_weak_scalars_make_one_switch_typed_and_valued_as_the_nested_conds(function, dtype, nested_conds):
    args = (I32(1), jnp.asarray(1.5, dtype))
    switch = _fresh_jaxpr(function, *args)
    assert "lax.switch" in str(autograph_lite.explain(function, *args))
    nested_conds()
    nested = _fresh_jaxpr(function, *args)
    assert _output_types(switch) == _output_types(nested)
    assert 4 in _cond_branch_counts(switch) and 4 not in _cond_branch_counts(nested)
    for k in [k for k in KS if function is not weak_scalar_and_raising_else or k in (0, 1, 2)]:
        ours, theirs = jaxpr_as_fun(switch)(I32(k), args[1]), jaxpr_as_fun(nested)(I32(k), args[1])
        assert [a.dtype for a in ours] == [a.dtype for a in theirs]
        assert_same(ours, theirs, what=f"{function.__name__}({k})")


def test_a_weak_scalar_costs_no_more_equations_than_the_hand_written_switch():
    def hand_written(k, x):
        index = jnp.where((k >= 0) & (k < 3), k + 1, 0)
        return lax.switch(index, [lambda x: x, lambda x: jnp.float32(0), lambda x: x * 2.0, lambda x: x - 1.0], x)

    for k in (-1, 0, 1, 2, 3):
        assert_same(hand_written(I32(k), F32(1.5)), autograph_lite.jit(weak_scalar_in_one_branch)(I32(k), F32(1.5)))
    converted = count_equations(autograph_lite.convert(weak_scalar_in_one_branch), I32(1), F32(1.5))
    assert converted <= count_equations(hand_written, I32(1), F32(1.5))


def test_dtypes_that_differ_with_no_weak_scalar_are_the_nested_conds_error(nested_conds):
    def strongly_typed(k, x):
        if k == 0:
            y = k
        elif k == 1:
            y = x
        elif k == 2:
            y = x
        else:
            y = x
        return y

    messages = []
    for _ in range(2):
        with pytest.raises(autograph_lite.StagingTypeError) as raised:
            _fresh_jaxpr(strongly_typed, I32(1), F32(1.5))
        messages.append(str(raised.value))
        nested_conds()
    assert messages[0] == messages[1]
    assert "'y' is i32[] in the true branch" in messages[0], messages[0]


def test_a_python_float_beside_a_strongly_typed_int_is_refused_as_the_nested_conds_refuse_it(nested_conds):
    messages = []
    for _ in range(2):  # the switch's attempt, then the nested conds alone
        with pytest.raises(autograph_lite.StagingTypeError) as raised:
            _fresh_jaxpr(weak_float_meets_int, I32(1), F32(1.5))
        messages.append(str(raised.value))
        nested_conds()
    assert messages[0] == messages[1] and "'y' is weakly typed f32[]" in messages[0], messages

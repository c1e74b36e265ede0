"""A traced ``if`` whose branches are small, pure and gradient-neutral is selects, not a ``lax.cond``
(runtime/selects.py); everywhere else it stays a cond. Either way values and gradients are eager's.

The risk of a select is reverse mode: the branch not taken receives a zero cotangent, and a nonlinear
primitive there multiplies it by a derivative that may be infinite or NaN (``0 * inf``), where the
cond, like eager Python, never differentiates that branch. So besides the rules pinned one by one, a
hypothesis test draws both branches from a grammar of linear and nonlinear expressions and compares
value, ``jax.grad`` and ``jax.jvp`` with eager JAX at inputs that make derivatives infinite or NaN.
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import assert_same, load_source, primitive_counts, primitives

import autograph_lite
from autograph_lite.runtime import selects

F32 = jnp.float32
SPECIAL = [0.0, -0.0, 1.0, -2.5, float("inf"), -float("inf"), float("nan"), 1e30]


def _choice_of(function, *args) -> set[str]:
    return primitives(autograph_lite.convert(function), *args) & {"cond", "select_n"}


# --- which choices are selects --------------------------------------------------------------------


def integer_choice(score):
    if score < -0.5:
        action = 0
    elif score < 0.5:
        action = 1
    else:
        action = 2
    return action


def linear_choice(x, rate, step):
    if step < 5:
        rate = rate * (step + 1) / 5  # a product with an integer converted: finite, no gradient
    else:
        rate = rate - x * 0.5
    return rate


def sqrt_choice(x):
    if x > 0:
        y = jnp.sqrt(x)
    else:
        y = 0.0 * x
    return y


def abs_choice(x, c):
    if c:
        y = -1.0 + 0.0 * x
    else:
        y = jnp.abs(x)  # its derivative is sign(x): NaN at NaN, and 0 * NaN is NaN
    return y


def product_choice(x, y):
    if x > y:
        z = x * y  # the other factor is differentiable too: it may be infinite
    else:
        z = x + y
    return z


def printing_choice(x):
    if x > 0:
        print("positive")
        x = x + 1.0
    return x


def large_choice(xs):
    if xs.sum() > 0:
        xs = xs + 1.0
    return xs


def long_choice(x):
    if x > 0:
        for _ in autograph_lite.unroll(range(30)):
            x = x + 1.0
    return x


def test_integer_outputs_are_selects_and_equal_the_expert_where():
    for score in (-1.0, 0.0, 1.0, float("nan")):
        assert_same(autograph_lite.jit(integer_choice)(F32(score)), integer_choice(F32(score)))
    assert _choice_of(integer_choice, F32(0.0)) == {"select_n"}
    expert = lambda s: jnp.where(s < -0.5, 0, jnp.where(s < 0.5, 1, 2))
    ours = sum(primitive_counts(autograph_lite.convert(integer_choice), F32(0.0)).values())
    assert ours <= sum(primitive_counts(expert, F32(0.0)).values())


def test_sums_moves_and_products_with_finite_constants_are_selects():
    assert _choice_of(linear_choice, F32(1.0), F32(0.1), jnp.int32(2)) == {"select_n"}
    for step in (2, 7):
        args = (F32(1.0), F32(0.1), jnp.int32(step))
        assert_same(autograph_lite.jit(linear_choice)(*args), linear_choice(*args))
        assert_same(jax.grad(autograph_lite.jit(linear_choice), argnums=(0, 1))(*args),
                    jax.grad(linear_choice, argnums=(0, 1))(*args))


@pytest.mark.parametrize("function, args", [
    (sqrt_choice, (F32(0.0),)),
    (abs_choice, (F32(float("nan")), jnp.bool_(True))),
    (product_choice, (F32(float("inf")), F32(0.0))),
    (printing_choice, (F32(1.0),)),
    (large_choice, (jnp.ones(100, jnp.float32),)),
    (long_choice, (F32(1.0),)),
], ids=["sqrt", "abs", "product", "print", "large", "long"])
def test_nonlinear_effectful_large_or_long_branches_stay_conds(function, args):
    assert _choice_of(function, *args) == {"cond"}


@pytest.mark.parametrize("function, args", [
    (sqrt_choice, (F32(0.0),)),  # eager: d/dx (0 * x) = 0; a select: 0 * (1 / (2 sqrt(0))) = NaN
    (abs_choice, (F32(float("nan")), jnp.bool_(True))),
    (product_choice, (F32(float("inf")), F32(0.0))),
], ids=["sqrt", "abs", "product"])
def test_the_gradient_of_a_kept_cond_is_eagers_where_a_select_would_be_nan(function, args):
    ours = jax.grad(autograph_lite.jit(function))(*args)
    eager = jax.grad(function)(*args)
    assert np.array_equal(np.asarray(ours), np.asarray(eager), equal_nan=True), (ours, eager)
    assert not np.isnan(np.asarray(eager))


def loss_scaled(x, warm):
    if warm > 0:
        y = x * 1024.0 * 128.0  # float16: each factor finite, 1024 * 128 = 131072 is not
    else:
        y = x * 2.0
    return y


def divided_by_epsilon(x, warm):
    if warm > 0:
        y = x / 1e-5  # float16: XLA may multiply by 1 / 1e-5 = 1e5, which is not finite there
    else:
        y = x * 2.0
    return y


def chained_in_float32(x, warm):
    if warm > 0:
        y = x * 1e20 * 1e20
    else:
        y = x * 2.0
    return y


def divided_by_a_subnormal(x, warm):
    if warm > 0:
        y = x / 1e-40  # nonzero, but its reciprocal overflows (and the CPU flushes it to zero)
    else:
        y = x * 2.0
    return y


@pytest.mark.parametrize("function, x", [
    (loss_scaled, jnp.float16(1e-4)), (divided_by_epsilon, jnp.float16(1e-4)),
    (chained_in_float32, F32(1.0)), (divided_by_a_subnormal, F32(1.0)),
], ids=["loss_scaled_f16", "epsilon_f16", "chain_f32", "subnormal_f32"])
def test_constant_factors_whose_product_overflows_keep_the_cond(function, x):
    """XLA folds ``(x * c1) * c2`` into ``x * (c1 * c2)`` and ``x / c`` into ``x * (1 / c)``: in the branch
    not taken the zero cotangent would meet an infinity (0 * inf: NaN). Found by review."""
    warm = F32(-1.0)  # the scaled branch is the one not taken
    assert _choice_of(function, x, warm) == {"cond"}
    assert float(jax.grad(autograph_lite.jit(function))(x, warm)) == float(jax.grad(function)(x, warm)) == 2.0
    assert float(jax.jit(jax.grad(autograph_lite.convert(function)))(x, warm)) == 2.0


NUMBERS = np.ones(3, np.float32)


@pytest.mark.parametrize("may_select", [True, False], ids=["select", "cond"])
def test_a_numpy_array_both_branches_pass_through_comes_back_a_jax_array(may_select):
    """As ``lax.cond`` returns it: not the user's own array, which an in-place ``+=`` after the ``if``
    would change while tracing (found by review)."""
    returned = []

    def staged(c):
        (value,), _ = selects.cond_or_select(c > 0, lambda: [NUMBERS], lambda: [NUMBERS], lambda: may_select)
        returned.append(value)
        return value

    jax.make_jaxpr(staged)(F32(1.0))
    assert not isinstance(returned[0], np.ndarray) and returned[0].shape == (3,)


def test_weak_types_of_python_numbers_are_kept():
    def python_numbers(c):
        return 2 if c else 3

    (out,) = jax.make_jaxpr(autograph_lite.convert(python_numbers))(jnp.bool_(True)).out_avals
    assert out.weak_type and out.dtype == jnp.int32
    assert _choice_of(python_numbers, jnp.bool_(True)) == {"select_n"}


def test_vmap_of_a_select_is_eagers_per_element():
    xs = jnp.array([-1.0, 0.2, 3.0], jnp.float32)
    batched = jax.vmap(autograph_lite.jit(integer_choice))(xs)
    assert [int(v) for v in batched] == [integer_choice(float(x)) for x in xs]


# --- drawn branches: value, gradient and tangent equal eager's --------------------------------------

LEAVES = ["x", "y"]  # constants enter through UNARY only: Python would fold `2.0 / 0.0` and raise
UNARY = ["-({})", "({} * 2.0)", "({} * 0.0)", "({} / -1.5)", "(2.0 - {})", "({} * 300.0)", "({} / 1e-5)",
         "({} * 1e20)", "({} / 1e-40)", "jnp.abs({})", "jnp.sqrt({})", "jnp.log({})", "jnp.exp({})", "jnp.tanh({})"]
BINARY = ["({} + {})", "({} - {})", "({} * {})", "({} / {})", "jnp.maximum({}, {})"]


def _expressions(depth: int) -> st.SearchStrategy[str]:
    if depth == 0:
        return st.sampled_from(LEAVES)
    smaller = _expressions(depth - 1)
    return st.one_of(
        st.sampled_from(LEAVES),
        st.tuples(st.sampled_from(UNARY), smaller).map(lambda pair: pair[0].format(pair[1])),
        st.tuples(st.sampled_from(BINARY), smaller, smaller).map(lambda t: t[0].format(t[1], t[2])),
    )


def _close(got, want) -> bool:
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return bool(np.allclose(got, want, rtol=1e-4, atol=1e-6, equal_nan=True))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's overflow warning for 1e30 as float16: inf, as intended
@given(on_true=_expressions(2), on_false=_expressions(2), point=st.sampled_from(list(itertools.product(SPECIAL, SPECIAL))),
       dtype=st.sampled_from([jnp.float32, jnp.float16]))
def test_drawn_branches_give_eagers_value_gradient_and_tangent(tmp_path_factory, on_true, on_false, point, dtype):
    source = f"import jax.numpy as jnp\n\ndef f(x, y, c):\n    if c > 0:\n        r = 0.0 * x + {on_true}\n" \
             f"    else:\n        r = 0.0 * y + {on_false}\n    return r\n"
    function = load_source(source, tmp_path_factory.mktemp("selects")).f
    converted = autograph_lite.jit(function)
    x, y = dtype(point[0]), dtype(point[1])
    for c in (F32(1.0), F32(-1.0)):
        with np.errstate(all="ignore"):
            assert _close(converted(x, y, c), function(x, y, c)), source
            assert _close(jax.grad(converted, argnums=(0, 1))(x, y, c), jax.grad(function, argnums=(0, 1))(x, y, c)), source
            tangents = (dtype(1.0), dtype(0.5), F32(0.0))
            assert _close(jax.jvp(converted, (x, y, c), tangents)[1], jax.jvp(function, (x, y, c), tangents)[1]), source

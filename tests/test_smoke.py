"""The seed example of the Core issue, end to end."""

import pytest
from support import assert_equivalent, primitives

import autograph_lite


def conditional_double(x, threshold):
    if x > threshold:
        return x * 2
    else:
        return x


@pytest.mark.parametrize("x, threshold", [(3.0, 1.0), (0.5, 1.0), (1.0, 1.0)])
def test_conditional_double_matches_eager(x, threshold):
    assert_equivalent(conditional_double, x, threshold)


def test_conditional_double_stages_one_select():
    # Its branches are small, pure and gradient-neutral: a select, as jnp.where (runtime/selects.py).
    staged = primitives(autograph_lite.convert(conditional_double), 1.0, 2.0)
    assert "select_n" in staged and "cond" not in staged

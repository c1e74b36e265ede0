"""What a staged ``if`` carries out of its branches, and what those values become.

Checked against eager Python with ``support.assert_equivalent`` like tests/test_conditionals.py; the
values a traced ``if`` carries (arrays, weakly typed Python scalars, Python leaves, pytrees) must come
out as eager's, and only the names read after the ``if`` are carried: a branch's temporaries, a name
set in one branch and dead after, and a name a branch rewrites that nobody reads after are not, and a
name left unbound (or a function set in one branch only, read after) fails where eager Python fails,
or as a located error. ``return`` inside branches and nested ``if`` statements:
tests/test_conditionals_returns.py.
"""

from __future__ import annotations

import collections
import dataclasses

import jax
import jax.numpy as jnp
import pytest
from support import STAGED_CHOICE, assert_equivalent, assert_same
from test_conditionals import F32, _jit_with_python_leaves, _staged

import autograph_lite

# --- values carried by a staged if ------------------------------------------------------------------


def weak_scalar_in_one_branch(x):
    if x > 0:
        y = 0
    else:
        y = x * 2.0
    return y


def weak_scalar_in_other_branch(x):
    if x > 0:
        y = x * 2.0
    else:
        y = 1
    return y


@pytest.mark.parametrize("fn", [weak_scalar_in_one_branch, weak_scalar_in_other_branch])
@pytest.mark.parametrize("x", [3.0, -3.0])
def test_weak_python_scalar_unifies_with_float_branch(fn, x):
    assert_equivalent(fn, F32(x))
    out = autograph_lite.jit(fn)(F32(x))
    assert out.dtype == jnp.float32


def int_array_and_python_int(n):
    if n > 2:
        k = n * 3
    else:
        k = 7
    return k


@pytest.mark.parametrize("n", [5, 1])
def test_weak_int_unifies_with_int32(n):
    assert_equivalent(int_array_and_python_int, jnp.int32(n))
    assert autograph_lite.jit(int_array_and_python_int)(jnp.int32(n)).dtype == jnp.int32


def tuple_output(x):
    if x > 0:
        pair = (x, x * 2)
    else:
        pair = (-x, x + 1)
    return pair


def dict_output(x):
    if x > 0:
        d = {"a": x, "b": jnp.stack([x, x])}
    else:
        d = {"a": -x, "b": jnp.stack([x, -x])}
    return d


Point = collections.namedtuple("Point", "x y")


def namedtuple_output(x):
    p = Point(x, x)
    if x > 0:
        p = Point(p.x * 2, p.y)
    else:
        p = Point(p.x, p.y - 3)
    return p


def nested_pytree_output(x):
    state = {"pos": (x, x + 1), "vel": [x * 2]}
    if x < 1:
        state = {"pos": (x - 1, x), "vel": [x * 3]}
    return state


@pytest.mark.parametrize("fn", [tuple_output, dict_output, namedtuple_output, nested_pytree_output])
@pytest.mark.parametrize("x", [2.0, -2.0])
def test_pytrees_as_branch_outputs(fn, x):
    result = assert_equivalent(fn, F32(x))
    assert _staged(fn, F32(x)) & STAGED_CHOICE
    assert jax.tree_util.tree_structure(autograph_lite.jit(fn)(F32(x))) == jax.tree_util.tree_structure(result)


def python_constant_kept_through_cond(x):
    label = "unit"
    if x > 0:
        y = x * 2
    else:
        y = x
    return y, label


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_python_values_not_assigned_in_branches_pass_through(x):
    y, label = _jit_with_python_leaves(python_constant_kept_through_cond, F32(x))
    assert label == "unit"
    assert_same(y, python_constant_kept_through_cond(F32(x))[0])


def same_python_value_in_both_branches(x):
    if x > 0:
        y, tag = x, "same"
    else:
        y, tag = -x, "same"
    return y, tag


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_equal_python_values_in_both_branches_are_fine(x):
    y, tag = _jit_with_python_leaves(same_python_value_in_both_branches, F32(x))
    assert tag == "same"
    assert_same(y, same_python_value_in_both_branches(F32(x))[0])


def branch_local_temporary(x):
    if x > 0:
        tmp = x * 3
        y = tmp + 1
    else:
        y = x
    return y


def test_branch_temporaries_are_not_carried():
    source = autograph_lite.to_source(branch_local_temporary)
    assert "'tmp'" not in source and "('y',)" in source
    assert_equivalent(branch_local_temporary, F32(2.0))
    assert_equivalent(branch_local_temporary, F32(-2.0))


def variable_only_defined_in_one_branch_but_dead(x):
    if x > 0:
        tmp = x * 2
        y = tmp
    else:
        y = x
    return y


def test_variable_assigned_in_one_branch_is_fine_when_dead_afterwards():
    assert_equivalent(variable_only_defined_in_one_branch_but_dead, F32(1.0))
    assert_equivalent(variable_only_defined_in_one_branch_but_dead, F32(-1.0))


def assigned_in_one_branch_concrete(x, flag):
    if flag:
        z = x * 2
    return z


def test_variable_assigned_in_one_branch_is_fine_when_the_predicate_is_concrete():
    assert_equivalent(assigned_in_one_branch_concrete, F32(2.0), True, static_argnums=1)


def test_reading_a_variable_a_concrete_if_left_unbound_raises_unbound_local_error():
    # Eager Python raises UnboundLocalError at `return z`; the converted function must not hand back
    # a stand-in object instead.
    with pytest.raises(UnboundLocalError):
        assigned_in_one_branch_concrete(F32(2.0), False)
    with pytest.raises(UnboundLocalError, match="'z'"):
        autograph_lite.convert(assigned_in_one_branch_concrete)(F32(2.0), False)


def array_shapes_in_branches(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = jnp.flip(x)
    return y


@pytest.mark.parametrize("x", [[1.0, 2.0, 3.0], [-1.0, -2.0, 0.5]])
def test_vector_values_with_a_reduced_predicate(x):
    assert_equivalent(array_shapes_in_branches, jnp.asarray(x, F32))


# --- names a branch rewrites but nobody reads after the `if` (issue #14, item 2) ---------------------


def rewrites_a_name_nobody_reads_after(c, t):
    if c > 0:
        y = t
    else:
        t = jnp.stack([t, t])
        y = jnp.sum(t)
    return y


def rewrites_a_name_that_may_be_unbound(c, flag):
    if flag:
        t = c * 2.0
    if c > 0:
        t = t + 1.0  # Python raises here when `flag` was false
        y = t
    else:
        y = c
    return y


@pytest.mark.parametrize("c", [1.0, -1.0])
def test_a_name_rewritten_in_a_branch_and_not_read_after_is_not_a_branch_output(c):
    """Eager 1.0 / 2.0; before, `t` was returned from both branches (f32[] vs f32[2]): a false
    StagingTypeError."""
    assert assert_equivalent(rewrites_a_name_nobody_reads_after, F32(c), F32(1.0)) == (1.0 if c > 0 else 2.0)
    assert "(t,), ('y',))" in autograph_lite.to_source(rewrites_a_name_nobody_reads_after)  # t in, y out


def test_an_input_only_name_that_may_be_unbound_raises_only_where_python_does():
    assert assert_equivalent(rewrites_a_name_that_may_be_unbound, F32(-1.0), True, static_argnums=1) == -1.0
    assert assert_equivalent(rewrites_a_name_that_may_be_unbound, F32(1.0), True, static_argnums=1) == 3.0
    with pytest.raises(UnboundLocalError):
        rewrites_a_name_that_may_be_unbound(1.0, False)
    with pytest.raises(UnboundLocalError):
        autograph_lite.convert(rewrites_a_name_that_may_be_unbound)(F32(1.0), False)
    assert autograph_lite.convert(rewrites_a_name_that_may_be_unbound)(F32(-1.0), False) == -1.0


# --- a Python value set in one branch only ------------------------------------------------------


def function_for_a_closure_in_one_branch(x):
    if x > 0:
        scale = lambda: x * 2.0  # a cell: the closure below reads it
        def doubled():
            return scale()
        x = doubled()
    return x


def function_in_one_branch_read_after(x):
    def use():
        return scale(x)  # read through the closure, after the `if`
    if x > 0:
        scale = lambda v: v * 2.0
    return use()


def test_a_function_set_in_one_branch_and_used_only_there_matches_eager():
    # The branch passes the closure's cell out of the `if`; no zeros can stand for a function in the
    # other branch, and no read after the `if` needs it: both branches return a stand-in.
    for x in (F32(1.5), F32(-1.5)):
        assert_equivalent(function_for_a_closure_in_one_branch, x)


def test_reading_a_function_set_in_one_branch_after_a_traced_if_is_located():
    with pytest.raises(autograph_lite.StagingTypeError) as excinfo:
        autograph_lite.jit(function_in_one_branch_read_after)(F32(1.5))
    message = str(excinfo.value)
    code = function_in_one_branch_read_after.__code__
    assert message.startswith(f"{code.co_filename}:{code.co_firstlineno + 3}: ")
    assert "'scale' is the function <lambda> after the `if` where its true branch ran, and unassigned" in message
    assert float(function_in_one_branch_read_after(F32(1.5))) == 3.0  # eager: a value where the branch ran


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class _Tagged:
    x: jax.Array
    mode: str = dataclasses.field(metadata={"static": True}, default="a")


def _retagged(x):
    s = _Tagged(x)
    if x > 0:
        s = dataclasses.replace(s, x=x * 2, mode="b")
    return s.x


def _text_in_branches(xs):
    msg = ""
    if xs[0] > 0:
        msg += f"{xs[0]:.1f},"
    else:
        msg += "neg,"
    return msg


def test_branches_that_differ_in_a_static_field_show_it():
    """Both sides were described alike ('a _Tagged of (f32[])'): the static data now tells them apart."""
    with pytest.raises(autograph_lite.StagingTypeError) as raised:
        autograph_lite.jit(_retagged)(jnp.float32(1.5))
    assert "[('b',)]" in str(raised.value) and "[('a',)]" in str(raised.value)


def test_text_formatted_from_a_traced_value_is_described_as_a_string():
    with pytest.raises(autograph_lite.StagingTypeError) as raised:
        autograph_lite.jit(_text_in_branches)(jnp.array([1.0, 2.0]))
    assert "'msg' is the text '{:.1f},' formatted from traced values (f32[])" in str(raised.value)
    assert "DeferredText" not in str(raised.value) and "Print the text in each branch" in raised.value.hint

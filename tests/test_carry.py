"""What a staged ``if`` or loop carries: one message policy for both (runtime/carry.py, carry_errors.py).

When carried values differ (between the branches of a traced ``if``, or before and after one
iteration of a staged loop), the error names every differing variable, shows both types as they
are, says whether the shape, the dtype or the Python structure differs, and gives a fix for that
difference. ``describe`` is the one description of a carried value's type, in errors and in
``explain``.
"""

from __future__ import annotations

import collections
import dataclasses

import jax
import jax.numpy as jnp
import pytest
from support import where

import autograph_lite
from autograph_lite import StagingTypeError
from autograph_lite.runtime.carry import describe
from autograph_lite.runtime.values import Undefined

F32, I32 = jnp.float32, jnp.int32


def staging_error(fn, *args) -> StagingTypeError:
    with pytest.raises(StagingTypeError) as excinfo:
        autograph_lite.jit(fn)(*args)
    return excinfo.value


# --- traced if ---------------------------------------------------------------------------------------


def two_names_differ(x):
    if x > 0:
        t = jnp.zeros(3, F32)
        y = jnp.int32(1)
    else:
        t = jnp.zeros((2, 3), F32)
        y = x * 2.0
    return t, y


def test_if_whose_branches_differ_in_two_names_names_both_with_their_fixes():
    error = staging_error(two_names_differ, F32(1.0))
    message = str(error)
    assert message.startswith(where(two_names_differ, "if x > 0:") + ": ")
    assert "'t' is f32[3] in the true branch of the `if` but f32[2,3] in the false branch (the shape differs)" in message
    assert "'y' is i32[] in the true branch of the `if` but f32[] in the false branch (the dtype differs)" in message
    hint = error.hint.splitlines()
    assert hint[0].startswith("Give 't' the same shape in both branches")
    assert hint[1].startswith("Give 'y' the same dtype in both branches, e.g. with jnp.asarray(..., jnp.float32)")
    assert error.__cause__ is not None  # JAX's own error is kept


def shape_only_differs(x):
    if x.sum() > 0:
        y = x
    else:
        y = x[:2]
    return y


def test_shape_only_difference_in_an_if_gets_a_shape_fix_not_a_dtype_fix():
    error = staging_error(shape_only_differs, jnp.ones(3, F32))
    assert "'y' is f32[3] in the true branch of the `if` but f32[2] in the false branch (the shape differs)" in str(error)
    assert error.hint.startswith("Give 'y' the same shape in both branches, e.g. by slicing, padding")
    assert "dtype" not in error.hint


def dtype_only_differs(x, k):
    if x > 0:
        y = k
    else:
        y = k.astype(jnp.int16) * 2
    return y


def test_dtype_only_difference_in_an_if_gets_a_dtype_fix_not_a_shape_fix():
    error = staging_error(dtype_only_differs, F32(1.0), I32(2))
    assert "'y' is i32[] in the true branch of the `if` but i16[] in the false branch (the dtype differs)" in str(error)
    # Both integers: the dtype eager arithmetic would give them, and no float literal.
    assert error.hint == "Give 'y' the same dtype in both branches, e.g. with jnp.asarray(..., jnp.int32)."


def shape_and_dtype_differ(x):
    if x > 0:
        y = jnp.zeros(2, I32)
    else:
        y = jnp.zeros(3, F32)
    return y


def test_shape_and_dtype_difference_in_an_if_gets_both_fixes():
    error = staging_error(shape_and_dtype_differ, F32(1.0))
    assert "'y' is i32[2] in the true branch of the `if` but f32[3] in the false branch (the shape and the dtype differ)" in str(error)
    assert error.hint.startswith("Give 'y' the same shape and dtype in both branches")
    assert "jnp.asarray(..., jnp.float32)" in error.hint


def structure_and_dtype_differ(x):
    if x > 0:
        label = None
        y = jnp.int32(1)
    else:
        label = (x, x)
        y = x
    return y, label


def test_python_structure_and_dtype_differences_are_named_together():
    error = staging_error(lambda x: structure_and_dtype_differ(x)[0], F32(1.0))
    message = str(error)
    assert message.startswith(where(structure_and_dtype_differ, "if x > 0:") + ": ")
    assert ("'label' is None in the true branch of the `if` but a tuple of (f32[], f32[]) in the false branch "
            "(the Python structure differs)") in message
    assert "'y' is i32[] in the true branch of the `if` but f32[] in the false branch (the dtype differs)" in message
    assert "Only arrays can differ between the branches of a lax.cond" in message
    assert "lax.cond needs one type per output." in message
    assert error.hint.splitlines() == [
        "Make 'label' an array of the same structure in both branches, or decide it with a condition that is not traced.",
        "Give 'y' the same dtype in both branches, e.g. with jnp.asarray(..., jnp.float32) or by starting from a float literal.",
    ]


def python_values_differ(x):
    if x > 0:
        tag = "positive"
    else:
        tag = "negative"
    return x, tag


def test_different_python_values_in_an_if_are_named_as_such():
    error = staging_error(lambda x: python_values_differ(x)[0], F32(1.0))
    assert ("'tag' is the string 'positive' in the true branch of the `if` but the string 'negative' in the false "
            "branch (a Python value differs)") in str(error)


def returns_differ(x):
    if x > 0:
        return jnp.zeros(2, F32)
    return jnp.zeros(3, F32)


def test_return_values_keep_their_wording_and_say_what_differs():
    error = staging_error(returns_differ, F32(1.0))
    line = int(where(returns_differ, "return jnp.zeros(2").rsplit(":", 1)[1])
    assert f"the function returns f32[2] at line {line} but f32[3] at line {line + 1} (the shape differs)" in str(error)
    assert error.hint.startswith("Return values of the same structure, dtype and shape on every path")


# --- staged loops ------------------------------------------------------------------------------------


def two_carried_change_in_traced_range(x, n):
    acc = jnp.int32(0)
    v = jnp.zeros(1, F32)
    for _ in range(n):
        acc = acc + x
        v = jnp.concatenate([v, v])
    return acc, v


def test_loop_where_two_carried_names_change_type_names_both():
    error = staging_error(two_carried_change_in_traced_range, F32(0.5), I32(3))
    message = str(error)
    assert message.startswith(where(two_carried_change_in_traced_range, "for _ in range(n):") + ": ")
    assert "'acc' is i32[] before the `for` loop but f32[] after one iteration (the dtype differs)" in message
    assert "'v' is f32[1] before the `for` loop but f32[2] after one iteration (the shape differs)" in message
    assert error.hint.splitlines() == [
        "Start it as a float: acc = 0.0, or jnp.asarray(acc, jnp.float32).",
        "Keep its shape fixed: the loop runs a number of times known only at run time, so its final shape is not "
        "known while tracing. Allocate 'v' at a static maximum size (a Python int or a static argument: "
        "static_argnums / static_argnames) with jnp.zeros((max_size, ...)) and write v = v.at[i].set(...), "
        "masking the unused part; or make the trip count static.",
    ]
    assert error.__cause__ is not None


def two_carried_change_in_while(x):
    count = jnp.int32(0)
    total = jnp.zeros(2, F32)
    while x > 0:
        count = count + x
        total = jnp.zeros(3, I32)
        x = x - 1.0
    return count, total


def test_while_where_two_carried_names_change_type_names_both_with_what_differs():
    error = staging_error(two_carried_change_in_while, F32(2.0))
    message = str(error)
    assert "'count' is i32[] before the `while` loop but f32[] after one iteration (the dtype differs)" in message
    assert ("'total' is f32[2] before the `while` loop but i32[3] after one iteration (the shape and the dtype "
            "differ)") in message
    assert ("Keep its shape and dtype fixed: the loop runs a number of times known only at run time, so its final "
            "shape is not known while tracing. Allocate 'total' at a static maximum size (a Python int or a static "
            "argument: static_argnums / static_argnames) with jnp.zeros((max_size, ...), jnp.int32) and write "
            "total = total.at[i].set(...), masking the unused part; or make the trip count static.") in error.hint
    assert "preallocate" not in error.hint


def two_python_structures_change_in_loop(xs):
    best = None
    pair = (xs[0],)
    for x in autograph_lite.stage(xs):
        best = x
        pair = (x, x)
    return best, pair


def test_loop_where_two_python_structures_change_names_both():
    error = staging_error(two_python_structures_change_in_loop, jnp.ones(3, F32))
    message = str(error)
    assert message.startswith(where(two_python_structures_change_in_loop, "for x in autograph_lite.stage(xs):") + ": ")
    assert "'best' is None before the staged loop but f32[] after one iteration (the Python structure differs)" in message
    assert ("'pair' is a tuple of (f32[]) before the staged loop but a tuple of (f32[], f32[]) after one iteration "
            "(the Python structure differs)") in message
    assert "Only arrays can be carried through a lax loop; Python values must stay the same." in message
    assert "Give 'best' its final structure before the loop" in error.hint
    assert "Give 'pair' its final structure before the loop" in error.hint


# --- describe ---------------------------------------------------------------------------------------


Item = collections.namedtuple("Item", "weight bias")


@pytest.mark.parametrize("value, text", [
    (jnp.zeros((2, 3), F32), "f32[2,3]"),
    (jnp.int32(1), "i32[]"),
    (1.0, "weakly typed f32[]"),
    (None, "None"),
    ("tag", "the string 'tag'"),
    (Undefined("y"), "undefined"),
    ((jnp.zeros(2, F32), 1), "a tuple of (f32[2], weakly typed i32[])"),
    ([jnp.zeros(2, F32)], "a list of (f32[2])"),
    ({"b": jnp.zeros(2, F32), "a": jnp.int32(1)}, "a dict of (i32[], f32[2])"),  # leaves in key order
    (Item(jnp.zeros(2, F32), jnp.zeros((), F32)), "an Item of (f32[2], f32[])"),
])
def test_describe_in_sentences(value, text):
    assert describe(value) == text


@pytest.mark.parametrize("value, text", [
    (jnp.zeros(3, F32), "f32[3]"),
    ((jnp.zeros(2, F32), jnp.int32(1)), "tuple of (f32[2], i32[])"),
    ({"a": jnp.int32(1)}, "dict of (i32[])"),
    (None, "NoneType of ()"),  # as explain has always listed it
])
def test_describe_as_explain_lists_carried_values(value, text):
    assert describe(value, article=False) == text


def carries_a_tuple(x):
    pair = (x, x)
    if x > 0:
        pair = (x * 2.0, x)
    return pair


def test_explain_lists_a_carried_tuple_without_an_article():
    text = str(autograph_lite.explain(carries_a_tuple, F32(1.0)))
    assert "carries pair: tuple of (f32[], f32[])" in text


@dataclasses.dataclass
class PlainState:
    a: object


@dataclasses.dataclass
class RegisteredState:
    a: object


jax.tree_util.register_dataclass(RegisteredState, data_fields=["a"], meta_fields=[])


def steps_plain(x):
    s = PlainState(x)
    if x > 0:
        s = PlainState(x + 1)
    return s.a


def steps_registered(x):
    s = RegisteredState(x)
    if x > 0:
        s = RegisteredState(x + 1)
    return s.a


def test_an_object_that_is_no_pytree_gets_the_fix_that_registers_its_class():
    # the fix said "make it an array"; registering the class is what works
    with pytest.raises(StagingTypeError, match="register the class as a pytree") as raised:
        autograph_lite.jit(steps_plain)(jnp.float32(3.0))
    assert "object of class PlainState" in str(raised.value)
    assert float(autograph_lite.jit(steps_registered)(jnp.float32(3.0))) == 4.0

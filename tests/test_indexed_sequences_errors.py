"""A Python list, tuple or range indexed by a traced integer: the errors, as eager Python's (issue #14, item 6).

What eager Python refuses, or what no single staged value can stand for, is an error: an index out of
range raises Python's ``IndexError`` when the program runs (never a clamped item), naming the user's
line; an empty sequence and a non-integer index fail as in eager Python; elements that cannot be
stacked (shapes or dtypes that differ, strings, a NumPy array) and functions whose results differ are
located errors with a hint. The values a traced index gives: tests/test_indexed_sequences_values.py.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import where
from test_indexed_sequences_values import F32, I32, moves, odd, step, torque

import autograph_lite

WORDS = ["left", "stay", "right"]


# --- errors --------------------------------------------------------------------------------------


def test_an_index_out_of_range_raises_at_run_time_and_is_never_clamped():
    with pytest.raises(IndexError, match="list index out of range"):
        torque(F32(1.0), I32(3))  # eager
    for bad in (3, -4, 100):
        with pytest.raises(IndexError) as excinfo:
            jax.block_until_ready(autograph_lite.jit(torque)(F32(1.0), I32(bad)))
        assert excinfo.value.args == ("list index out of range",)  # eager's exception, not JAX's
        path, line = where(torque, "TORQUES[a]").rsplit(":", 1)
        assert any(f"at {path}:{line})" in note for note in excinfo.value.__notes__)  # the user's line
        with pytest.raises(Exception, match="IndexError: list index out of range") as excinfo:
            jax.block_until_ready(jax.jit(autograph_lite.convert(torque))(F32(1.0), I32(bad)))
        assert f'File "{path}", line {line}' in str(excinfo.value)  # JAX's error names the user's line
    with pytest.raises(Exception, match="tuple index out of range"):
        jax.block_until_ready(autograph_lite.jit(step)(F32(1.0), I32(4)))
    with pytest.raises(Exception, match="range object index out of range"):
        jax.block_until_ready(autograph_lite.jit(odd)(I32(-7)))
    with pytest.raises(Exception, match="list index out of range"):
        jax.block_until_ready(autograph_lite.jit(moves)(F32(1.0), I32(4)))
    with pytest.raises(Exception, match="list index out of range"):
        jax.block_until_ready(autograph_lite.jit(torque)(F32(1.0), jnp.uint8(200)))


def test_an_empty_sequence_and_a_non_integer_index_fail_as_in_eager_python():
    with pytest.raises(IndexError, match="list index out of range"):
        autograph_lite.jit(lambda a: [][a])(I32(0))
    for index in (F32(1.0), jnp.bool_(True), jnp.array([1], I32)):
        with pytest.raises(TypeError, match="Only integer scalar arrays"):
            torque(F32(1.0), index)  # eager
        with pytest.raises(TypeError, match="Only integer scalar arrays"):
            autograph_lite.jit(torque)(F32(1.0), index)


def shapes_differ(a):
    rows = [jnp.zeros(2), jnp.zeros(3)]
    return rows[a]


def dtypes_differ(a):
    return (I32(1), F32(2.0))[a]


def word(a):
    return WORDS[a]


def letter(a):
    return WORDS[0][a]


def different_results(p, a):
    return [lambda p: p, lambda p: jnp.stack([p, p])][a](p)


def _staging_error(fn, *args):
    with pytest.raises(autograph_lite.StagingTypeError) as caught:
        autograph_lite.jit(fn)(*args)
    return caught.value


def test_elements_that_cannot_be_stacked_are_a_located_error():
    error = _staging_error(shapes_differ, I32(0))
    assert str(error.location) == where(shapes_differ, "return rows[a]")
    assert error.bare_message.startswith(
        "a Python list indexed by a traced value holds elements of different types: element 0 is f32[2] "
        "but element 1 is f32[3] (the shape differs)."
    )
    assert error.hint.startswith("Give every element one shape (slice, pad with jnp.pad, or broadcast them), "
                                 "or index with a concrete value")
    error = _staging_error(dtypes_differ, I32(0))
    assert "element 0 is i32[] but element 1 is f32[] (the dtype differs)" in error.bare_message
    assert "jnp.asarray(..., dtype)" in error.hint


def test_strings_are_a_located_error():
    error = _staging_error(word, I32(1))
    assert str(error.location) == where(word, "return WORDS[a]")
    assert ("element 0 is the string 'left' but element 1 is the string 'stay' (a Python value differs)"
            in error.bare_message)
    assert error.hint.startswith("Make every element an array, or a tuple / dict of arrays, of one structure")
    assert word(1) == "stay"  # concrete: Python's list lookup
    error = _staging_error(letter, I32(1))
    assert str(error.location) == where(letter, "return WORDS[0][a]")
    assert error.bare_message.startswith("a str indexed by a traced value: its characters are Python values")
    assert autograph_lite.convert(word)(1) == "stay"


NUMPY_TABLE = np.array([1.0, 2.0, 3.0])


def numpy_lookup(a):
    return NUMPY_TABLE[a]


def test_a_numpy_array_indexed_by_a_traced_value_is_a_located_error():
    """NumPy asks the index for a Python int: JAX's own error named no line of the user's."""
    assert numpy_lookup(I32(1)) == 2.0  # eager: NumPy's lookup with a concrete JAX index
    error = _staging_error(numpy_lookup, I32(1))
    assert str(error.location) == where(numpy_lookup, "return NUMPY_TABLE[a]")
    assert error.bare_message.startswith("a NumPy array indexed by a traced value")
    assert error.hint.startswith("Make it a JAX array first: jnp.asarray(table)[i]")
    assert autograph_lite.jit(numpy_lookup, static_argnums=0)(1) == 2.0


def numpy_lookup_truncated(a):
    return jnp.asarray(NUMPY_TABLE)[a.astype(int)]


def test_a_numpy_array_indexed_by_a_traced_float_raises_numpys_index_error():
    """Eager NumPy refuses a float index with an IndexError: a TypeError (the refusal of a traced int
    index above) would escape an `except IndexError` and point at a fix for another index."""
    with pytest.raises(IndexError) as eager:
        numpy_lookup(F32(1.0))
    with pytest.raises(IndexError) as converted:
        autograph_lite.jit(numpy_lookup)(F32(1.0))
    assert type(converted.value) is IndexError
    assert str(converted.value) == str(eager.value)
    note = converted.value.__notes__[0]
    assert where(numpy_lookup, "return NUMPY_TABLE[a]") in note
    assert "jnp.asarray(table)[i.astype(int)]" in note
    # the fix the note gives works, truncating as int() of the float does
    assert autograph_lite.jit(numpy_lookup_truncated)(F32(1.7)) == NUMPY_TABLE[int(F32(1.7))]


def numpy_lookup_or_default(a):
    try:
        v = NUMPY_TABLE[a]
    except IndexError:
        v = -1.0
    return v


def test_a_handler_of_index_error_catches_a_numpy_tables_float_index():
    assert numpy_lookup_or_default(F32(1.0)) == -1.0
    assert autograph_lite.jit(numpy_lookup_or_default)(F32(1.0)) == -1.0


def test_functions_whose_results_differ_are_a_located_error():
    error = _staging_error(different_results, F32(1.0), I32(0))
    assert str(error.location) == where(different_results, "return [lambda p")
    assert error.bare_message == (
        "the functions of a Python list indexed by a traced value return different types: element 0 (<lambda>) "
        "returns f32[] but element 1 (<lambda>) returns f32[2] (the shape differs). A traced index calls them "
        "as one lax.switch, which needs one type per output."
    )
    assert "Give every function result one shape" in error.hint

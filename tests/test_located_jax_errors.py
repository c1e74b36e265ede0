"""JAX's errors about traced values, raised while tracing converted code, are located (issue #16).

Each is re-raised as an ``autograph_lite.errors.TracedValueError`` that is also of JAX's (or Python's)
exception type, whose message starts at the user's ``file:line``, says why the value is traced when
that is known, and ends with a fix; JAX's error is its ``__cause__``. Generated branch and loop body
functions carry the user's names and lines into JAX's own messages, and a traceback printed by
``python script.py`` shows no frame of autograph_lite.
"""

import operator
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from support import assert_same, where

import autograph_lite
from autograph_lite.errors import ConversionError, StagingTypeError, TracedValueError

F32, I32 = jnp.float32, jnp.int32
XS = jnp.asarray([1.0, -2.0, 3.0], F32)


def located_error(fn, *args, expected=Exception, **jit_options) -> TracedValueError:
    """The error that jitting ``fn`` and calling it raises: a TracedValueError that is also ``expected``."""
    with pytest.raises(TracedValueError) as raised:
        autograph_lite.jit(fn, **jit_options)(*args)
    error = raised.value
    assert isinstance(error, expected)
    assert str(error).endswith("\n" + error.hint)
    return error


def masked_sum(x):
    return x[x > 0].sum()


def test_boolean_mask_is_located_with_a_fix_that_keeps_the_shape_static():
    error = located_error(masked_sum, XS, expected=jax.errors.NonConcreteBooleanIndexError)
    assert str(error).startswith(where(masked_sum, "x[x > 0]") + ": a boolean mask used as an index selects a "
                                 "number of elements known only at run time (JAX's NonConcreteBooleanIndexError)")
    assert "jnp.where(mask, x, 0)" in error.hint and "jnp.nonzero(mask, size=N" in error.hint
    assert type(error.__cause__) is jax.errors.NonConcreteBooleanIndexError
    assert isinstance(error, IndexError) and isinstance(error, ConversionError)
    fixed = autograph_lite.jit(lambda x: jnp.where(x > 0, x, 0).sum())(XS)
    assert_same(fixed, masked_sum(XS))


def masked_sum_in_branch(x):
    if x.sum() > 0:
        y = x[x > 0].sum()
    else:
        y = x.sum()
    return y


def test_boolean_mask_in_a_staged_branch_names_the_branch_and_the_if():
    error = located_error(masked_sum_in_branch, XS, expected=jax.errors.NonConcreteBooleanIndexError)
    message = str(error)
    assert message.startswith(where(masked_sum_in_branch, "y = x[x > 0]") + ": ")
    assert (f"it was raised in a branch of the `if` at {where(masked_sum_in_branch, 'if x.sum() > 0:')}, traced as "
            "a lax.cond because its condition is traced") in message


def head_sum(x, n):
    return x[:n].sum()


def test_slice_of_traced_size_is_located_and_a_static_argument_fixes_it():
    error = located_error(head_sum, XS, I32(2), expected=IndexError)
    assert str(error).startswith(where(head_sum, "x[:n]") + ": a slice with a traced start, stop or step")
    assert "lax.dynamic_slice(x, (start,), (size,)) with a static size" in error.hint
    assert "static_argnums" in error.hint
    assert type(error.__cause__) is IndexError and "Slice entries must be static integers" in str(error.__cause__)
    assert_same(autograph_lite.jit(head_sum, static_argnums=1)(XS, 2), head_sum(XS, 2))


def zeros_of_size(x, n):
    return jnp.zeros((n,)) + x


def test_shape_from_a_traced_argument_names_the_argument():
    error = located_error(zeros_of_size, F32(1.0), I32(3), expected=TypeError)
    assert str(error).startswith(where(zeros_of_size, "jnp.zeros((n,))") + ": an array shape computed from a "
                                 "traced value: shapes must be known while tracing (JAX's TypeError); it depends "
                                 "on the argument n\n")
    assert "static_argnums / static_argnames" in error.hint
    assert_same(autograph_lite.jit(zeros_of_size, static_argnums=1)(F32(1.0), 3), zeros_of_size(F32(1.0), 3))


def growing_rows(x, n):
    total = x
    for i in range(n):
        total = total + jnp.zeros(i).sum()
    return total


def test_a_value_traced_by_a_staged_loop_names_the_loop():
    error = located_error(growing_rows, F32(1.0), I32(3), expected=TypeError)
    message = str(error)
    assert message.startswith(where(growing_rows, "jnp.zeros(i)") + ": an array shape computed from a traced value")
    assert (f"it was raised in the body of the `for` loop at {where(growing_rows, 'for i in range(n):')}, staged "
            "as a lax loop, where its carried variables and its index are traced") in message
    assert "depends on the argument" not in message  # JAX's argument is the lax body's, not the user's


def positive_items(xs):
    return jnp.stack([v for v in xs if v > 0])


def test_bool_conversion_stays_a_concretization_error():
    error = located_error(positive_items, XS, expected=jax.errors.TracerBoolConversionError)
    assert isinstance(error, jax.errors.ConcretizationTypeError)
    assert str(error).startswith(where(positive_items, "if v > 0") + ": a traced value used as a Python bool")
    assert "it depends on the argument xs" in str(error)
    assert "jnp.where(condition, a, b)" in error.hint


def shifted(x, n):
    return x + operator.index(n)


def test_integer_conversion_is_located():
    error = located_error(shifted, F32(1.0), I32(2), expected=jax.errors.TracerIntegerConversionError)
    assert str(error).startswith(where(shifted, "operator.index(n)") + ": a traced value used as a Python int")
    assert "static_argnums" in error.hint


def through_numpy(x):
    return np.asarray(x) + 1


def test_numpy_conversion_is_located_with_jax_numpy_as_the_fix():
    error = located_error(through_numpy, XS, expected=jax.errors.TracerArrayConversionError)
    assert str(error).startswith(where(through_numpy, "np.asarray(x)") + ": a traced array passed to NumPy")
    assert "Use jax.numpy (jnp.*) instead of NumPy" in error.hint


def concatenating_fori(x):
    return lax.fori_loop(0, 3, lambda i, c: jnp.concatenate([c, c]), x)


def test_carry_type_error_of_a_direct_lax_loop_is_located():
    error = located_error(concatenating_fori, XS, expected=TypeError)
    assert str(error).startswith(where(concatenating_fori, "lax.fori_loop") + ": a lax control-flow function")
    assert error.hint.startswith("Keep each carried value's shape fixed")
    assert "dtype" not in error.hint  # the shapes differ: no dtype fix
    assert "carry input and carry output must have equal types" in str(error.__cause__)


def int_casting_scan(x):
    return lax.scan(lambda c, _: (c.astype(jnp.int32), None), x, None, length=3)


def branches_of_two_dtypes(x):
    return lax.cond(x.sum() > 0, lambda: x, lambda: x.astype(jnp.int32))


def test_carry_dtype_error_of_a_direct_lax_call_gets_a_dtype_fix_only():
    error = located_error(int_casting_scan, XS, expected=TypeError)
    assert str(error).startswith(where(int_casting_scan, "lax.scan") + ": ")
    assert error.hint.startswith("Give each carried value and branch output one dtype")
    assert "shape" not in error.hint  # the dtypes differ: no shape fix
    error = located_error(branches_of_two_dtypes, XS, expected=TypeError)
    assert str(error).startswith(where(branches_of_two_dtypes, "lax.cond") + ": ")
    assert "cond branches must have equal output types" in str(error.__cause__)
    assert error.hint.startswith("Give each carried value and branch output one dtype")


def doubling_while(x, n):
    i = 0
    while i < n:
        x = jnp.concatenate([x, x])
        i += 1
    return x


def test_our_own_errors_are_not_wrapped_again():
    with pytest.raises(StagingTypeError) as raised:
        autograph_lite.jit(doubling_while)(XS, I32(2))
    assert not isinstance(raised.value, TracedValueError)
    assert not isinstance(raised.value.__cause__, TracedValueError)


def inner_mask(x):
    return x[x > 0]


def outer_calling_inner(x):
    return inner_mask(x).sum() + 1.0


def test_a_nested_converted_call_is_translated_once_at_the_innermost_user_line():
    error = located_error(outer_calling_inner, XS, expected=jax.errors.NonConcreteBooleanIndexError)
    assert str(error).startswith(where(inner_mask, "x[x > 0]") + ": ")
    assert type(error.__cause__) is jax.errors.NonConcreteBooleanIndexError


def test_jax_jit_of_convert_and_vmap_of_convert_are_located_too():
    with pytest.raises(TracedValueError) as raised:
        jax.jit(autograph_lite.convert(masked_sum))(XS)
    assert str(raised.value).startswith(where(masked_sum, "x[x > 0]") + ": ")
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError) as raised:
        jax.vmap(autograph_lite.convert(masked_sum))(jnp.stack([XS, XS]))
    assert isinstance(raised.value, TracedValueError)


def sized_in_branch(x):
    if x.sum() > 0:
        y = jnp.zeros(int(x[0]))
    else:
        y = jnp.zeros(3)
    return y


def sized_in_while(x, n):
    i = 0
    while i < n:
        x = x + jnp.zeros(i).sum()
        i += 1
    return x


def test_jax_message_names_the_generated_branch_and_the_user_file():
    error = located_error(sized_in_branch, XS, expected=TypeError)
    true_line = where(sized_in_branch, "if x.sum() > 0:").rsplit(":", 1)[1]
    expected = f"while tracing the function _ag_if_true_L{true_line} at {where(sized_in_branch, 'if x.sum() > 0:')} for cond"
    assert expected in str(error.__cause__)
    assert f"(sized_in_branch.<locals>._ag_if_true_L{true_line})" in str(error.__cause__)
    assert "autograph_lite" not in str(error.__cause__)


def test_jax_message_names_the_generated_loop_body():
    error = located_error(sized_in_while, F32(1.0), I32(3), expected=TypeError)
    loop = where(sized_in_while, "while i < n:")
    assert f"while tracing the function _ag_while_body_L{loop.rsplit(':', 1)[1]} at {loop} for while_body" in str(error.__cause__)
    assert "autograph_lite" not in str(error.__cause__)


SCRIPT = """
import jax, jax.numpy as jnp
import autograph_lite

def masked(x):
    if x.sum() > 0:
        y = x[x > 0].sum()
    else:
        y = x.sum()
    return y

{call}
"""


@pytest.mark.parametrize("call", [
    "jax.jit(autograph_lite.convert(masked))(jnp.arange(3.0))",
    "jax.vmap(autograph_lite.convert(masked))(jnp.ones((2, 3)))",
])
def test_printed_traceback_shows_no_autograph_lite_frame(tmp_path, call):
    script = tmp_path / "model.py"
    script.write_text(textwrap.dedent(SCRIPT.format(call=call)))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    frames = [line for line in result.stderr.splitlines() if line.startswith('  File "')]
    assert result.returncode == 1
    assert f'  File "{script}", line 7, in _ag_if_true_L6' in frames
    assert not [line for line in frames if "autograph_lite" in line], result.stderr
    assert f"autograph_lite.runtime.jax_errors.TracedNonConcreteBooleanIndexError: {script}:7: " in result.stderr


# --- hints that fit the case (issue #16: never suggest what cannot work) -----------------------------


def concatenating_in_traced_range(x, n):
    v = jnp.ones(1)
    for _ in range(n):
        v = jnp.concatenate([v, v])
    return v + x


def concatenating_in_staged_static_range(x):
    v = jnp.ones(1)
    for _ in autograph_lite.stage(range(3)):
        v = jnp.concatenate([v, v * x])
    return v


def scalar_becoming_vector(x, n):
    acc = 0
    for _ in range(n):
        acc = acc + jnp.ones(3, I32)
    return acc + x


def scalar_started_as_vector(x, n):
    acc = jnp.zeros((3,), jnp.int32)
    for _ in range(n):
        acc = acc + jnp.ones(3, I32)
    return acc + x


def test_a_shape_growing_with_a_traced_trip_count_gets_no_preallocation_by_that_count():
    with pytest.raises(StagingTypeError) as raised:
        autograph_lite.jit(concatenating_in_traced_range)(F32(1.0), I32(2))
    hint = raised.value.hint
    assert hint == ("Keep its shape fixed: the loop runs a number of times known only at run time, so its final "
                    "shape is not known while tracing. Allocate 'v' at a static maximum size (a Python int or a "
                    "static argument: static_argnums / static_argnames) with jnp.zeros((max_size, ...)) and write "
                    "v = v.at[i].set(...), masking the unused part; or make the trip count static.")
    assert_same(autograph_lite.jit(concatenating_in_traced_range, static_argnums=1)(F32(1.0), 2),
                concatenating_in_traced_range(F32(1.0), 2))


def test_a_shape_growing_with_a_static_trip_count_keeps_the_preallocation_hint():
    with pytest.raises(StagingTypeError) as raised:
        autograph_lite.jit(concatenating_in_staged_static_range)(F32(2.0))
    assert raised.value.hint == ("Keep its shape fixed: preallocate 'v' at its final shape and update it with "
                                 "v.at[i].set(...).")


def test_a_shape_set_once_by_the_body_is_started_with_that_shape_and_dtype():
    with pytest.raises(StagingTypeError) as raised:
        autograph_lite.jit(scalar_becoming_vector)(I32(1), I32(2))
    assert raised.value.hint == ("Start it with the shape it has after one iteration: acc = jnp.zeros((3,), "
                                 "jnp.int32), or broadcast it with jnp.broadcast_to.")
    # The fix the hint gives, applied, stages and computes what eager computes.
    assert_same(autograph_lite.jit(scalar_started_as_vector)(I32(1), I32(2)), scalar_becoming_vector(I32(1), 2))


def scale_by_parity(x):
    scales = {0: 1.0, 1: 2.5}
    return scales[int(x) % 2] * x


def scale_by_parity_from_a_list(x):
    scales = {0: 1.0, 1: 2.5}
    return [scales[k] for k in range(2)][int(x) % 2] * x


@pytest.mark.parametrize("x", [F32(3.0), F32(4.0)])
def test_a_traced_dict_key_is_located_and_the_lookup_by_position_fixes_it(x):
    error = located_error(scale_by_parity, x, expected=TypeError)
    assert str(error).startswith(where(scale_by_parity, "scales[int(x) % 2]") + ": a traced value used as a dict key")
    assert "[table[k] for k in range(n)][i]" in error.hint
    assert_same(autograph_lite.jit(scale_by_parity_from_a_list)(x), scale_by_parity(x))
    assert_same(autograph_lite.jit(scale_by_parity, static_argnums=0)(float(x)), scale_by_parity(float(x)))


def widest_count(x, n):
    count = 0
    for _ in range(n):
        count += 1
    return x * count.bit_length()


def test_a_python_number_method_on_a_traced_count_is_located_and_a_static_bound_fixes_it():
    error = located_error(widest_count, F32(3.0), I32(5), expected=AttributeError)
    assert str(error).startswith(where(widest_count, "count.bit_length()") + ": a traced value has no attribute "
                                 "`.bit_length`, which Python's numbers have")
    assert "static_argnames" in error.hint
    assert_same(autograph_lite.jit(widest_count, static_argnames="n")(F32(3.0), 5), widest_count(F32(3.0), 5))


def test_an_attribute_no_python_number_has_is_left_as_jax_raised_it():
    def misspelled(x):
        return x.sumation()

    with pytest.raises(AttributeError) as raised:
        autograph_lite.jit(misspelled)(F32(1.0))
    assert not isinstance(raised.value, ConversionError)

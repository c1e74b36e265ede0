"""Every program of tests/bad_programs/catalogue.py is rejected clearly.

Each must raise an autograph_lite.ConversionError (a subclass that is also the matching built-in
exception) whose message starts at the user's `file.py:line` (the line marked `# error:`), contains
the marked text, and ends with a fix on a line of its own; never an internal error from our frames,
never a hang (each call runs under an alarm), never a result.
"""

import signal
import types
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from bad_programs import catalogue

import autograph_lite
from autograph_lite.errors import TracedValueError

F32, I32 = jnp.float32, jnp.int32
CATALOGUE = Path(catalogue.__file__)
XS = jnp.asarray([1.0, -2.0, 3.0], F32)


class State:
    count = 0


# name -> (exception class, arguments): every argument an array is traced by jit.
ENTRIES = {
    "traced_range_enumerated": (autograph_lite.StagingTypeError, (XS, I32(3))),
    "endless_count_with_traced_break": (autograph_lite.StagingTypeError, (F32(1.0),)),
    "held_iterator_with_traced_break": (autograph_lite.TracedPredicateError, (F32(1.0),)),
    "draw_after_traced_break": (autograph_lite.StagingTypeError, (XS,)),
    "one_branch_variable": (autograph_lite.StagingTypeError, (F32(1.0),)),
    "one_branch_in_elif": (autograph_lite.StagingTypeError, (F32(1.0),)),
    "dtype_change_in_branches": (autograph_lite.StagingTypeError, (F32(1.0),)),
    "shape_change_in_branches": (autograph_lite.StagingTypeError, (F32(1.0),)),
    "structure_change_in_branches": (autograph_lite.StagingTypeError, (F32(1.0),)),
    "none_versus_array_in_branches": (autograph_lite.StagingTypeError, (F32(1.0),)),
    "string_result_of_branches": (autograph_lite.StagingTypeError, (F32(1.0),)),
    "staged_range_past_int32": (autograph_lite.StagingTypeError, (F32(1.0),)),
    "function_result_of_branches": (autograph_lite.StagingTypeError, (F32(1.0),)),
    "inconsistent_returns": (autograph_lite.StagingTypeError, (F32(1.0),)),
    "tuple_versus_scalar_returns": (autograph_lite.StagingTypeError, (F32(1.0),)),
    "dtype_change_in_loop": (autograph_lite.StagingTypeError, (F32(1.5), I32(3))),
    "growing_shape_in_while": (autograph_lite.StagingTypeError, (F32(5.0),)),
    "none_turning_into_array_in_loop": (autograph_lite.StagingTypeError, (F32(1.0), I32(3))),
    "read_before_assigned_in_traced_loop": (autograph_lite.StagingTypeError, (F32(1.0), I32(3))),
    "append_in_traced_while": (autograph_lite.ConversionError, (F32(1.0), I32(3))),
    "append_in_traced_range": (autograph_lite.ConversionError, (F32(1.0), I32(3))),
    "append_under_traced_if": (autograph_lite.ConversionError, (XS,)),
    "generator_function": (autograph_lite.UnsupportedSyntaxError, (F32(1.0),)),
    "walrus_in_while": (autograph_lite.UnsupportedSyntaxError, (F32(1.0),)),
    "walrus_after_and": (autograph_lite.UnsupportedSyntaxError, (F32(1.0),)),
    "del_in_branch": (autograph_lite.UnsupportedSyntaxError, (F32(1.0),)),
    "global_write_in_loop": (autograph_lite.UnsupportedSyntaxError, (F32(1.0),)),
    "nonlocal_write_in_branch": (autograph_lite.UnsupportedSyntaxError, (F32(1.0),)),
    "locals_read_after_branch": (autograph_lite.UnsupportedSyntaxError, (F32(1.0),)),
    "effect_call_in_traced_if": (autograph_lite.ConversionError, (F32(1.0),)),
    "vector_predicate_if": (autograph_lite.TracedPredicateError, (XS,)),
    "vector_predicate_while": (autograph_lite.TracedPredicateError, (XS,)),
    "vector_predicate_ternary": (autograph_lite.TracedPredicateError, (XS,)),
    "vector_not": (autograph_lite.TracedPredicateError, (XS,)),
    "vector_and": (autograph_lite.TracedPredicateError, (XS, F32(1.0))),
    "one_element_or_scalar": (autograph_lite.TracedPredicateError, (jnp.ones(1, F32), F32(2.0))),
    "default_of_or": (autograph_lite.StagingTypeError, (F32(1.0),)),
    "unroll_traced_range": (autograph_lite.ConversionError, (F32(1.0), I32(3))),
    "factorial": (autograph_lite.ConversionError, (I32(5),)),
    "sequence_pattern_on_traced_subject": (autograph_lite.TracedPredicateError, (XS,)),
    "min_of_matrix": (autograph_lite.TracedPredicateError, (jnp.ones((2, 2), F32),)),
    "bool_of_vector": (autograph_lite.TracedPredicateError, (XS,)),
    "float_range_bound": (autograph_lite.StagingTypeError, (F32(2.0),)),
    "bool_carry_read_as_a_bool": (autograph_lite.StagingTypeError, (I32(3),)),
    "max_key_over_items_of_two_shapes": (autograph_lite.StagingTypeError, (XS,)),
    "min_key_of_rows": (autograph_lite.TracedPredicateError, (jnp.ones((2, 2), F32),)),
    "vector_in_tuple": (autograph_lite.TracedPredicateError, (XS,)),
    "traced_key_in_dict": (autograph_lite.TracedPredicateError, (I32(1),)),
    "stale_read_of_an_updated_dict": (autograph_lite.ConversionError, (F32(1.5), I32(1))),
    "clamp_rows_through_loop_views": (autograph_lite.ConversionError, (jnp.asarray([[1.0, 2.0], [-1.0, 3.0]], F32),)),
    "len_of_a_traced_range": (autograph_lite.StagingTypeError, (I32(3),)),
    "traced_dict_key": (TracedValueError, (F32(3.0),)),
    "number_method_on_traced_count": (TracedValueError, (F32(3.0), I32(5))),
    "list_repeated_by_a_traced_count": (TracedValueError, (F32(3.0),)),
    "sum_until_negative": (autograph_lite.StagingTypeError, (XS,)),
    "history_after_traced_break": (autograph_lite.ConversionError, (F32(1.0),)),
}
# These take a Python object that jit cannot trace: it is closed over instead.
WITH_STATE = {"attribute_write_in_traced_if", "attribute_write_in_traced_while"}


def marked(name):
    """(line number, expected text) of the `# error:` mark inside the function ``name``."""
    function = getattr(catalogue, name)
    lines = CATALOGUE.read_text().splitlines()
    start = function.__code__.co_firstlineno
    for number in range(start, len(lines) + 1):
        text = lines[number - 1]
        if "# error: " in text:
            return number, text.split("# error: ", 1)[1]
    raise LookupError(name)


def run_with_alarm(call, seconds=60):
    def timed_out(*_):
        raise TimeoutError("hung")

    previous = signal.signal(signal.SIGALRM, timed_out)
    signal.alarm(seconds)
    try:
        return call()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def attempt(name):
    function = getattr(catalogue, name)
    if name in WITH_STATE:
        state = State()
        return lambda: autograph_lite.jit(lambda x: autograph_lite.convert(function)(state, x))(F32(1.0))
    _, arguments = ENTRIES[name]
    return lambda: autograph_lite.jit(function)(*arguments)


@pytest.mark.parametrize("name", sorted(ENTRIES) + sorted(WITH_STATE))
def test_bad_program_is_rejected_with_a_located_message_and_a_fix(name):
    expected_class = ENTRIES[name][0] if name in ENTRIES else autograph_lite.ConversionError
    line, expected_text = marked(name)
    with pytest.raises(autograph_lite.ConversionError) as excinfo:
        result = run_with_alarm(attempt(name))
        pytest.fail(f"{name} gave a result instead of an error: {result!r}")
    error = excinfo.value
    assert isinstance(error, expected_class), f"{name}: {type(error).__name__}: {error}"
    message = str(error)
    assert message.startswith(f"{CATALOGUE}:{line}: "), f"{name}: not located at line {line}: {message}"
    assert expected_text in message, f"{name}: {message}"
    assert error.hint and len(message.splitlines()) >= 2, f"{name}: no fix in: {message}"


def test_the_catalogue_has_at_least_thirty_programs():
    functions = [v for k, v in vars(catalogue).items() if isinstance(v, types.FunctionType)]
    assert len(functions) >= 30
    assert {f.__name__ for f in functions} == set(ENTRIES) | WITH_STATE


def test_a_function_without_source_is_rejected_with_its_name():
    namespace = {}
    exec("def built_from_a_string(x):\n    return x\n", namespace)
    with pytest.raises(autograph_lite.SourceUnavailableError, match="built_from_a_string") as excinfo:
        autograph_lite.convert(namespace["built_from_a_string"])
    assert isinstance(excinfo.value, OSError) and excinfo.value.hint


def test_async_def_is_rejected(tmp_path):
    from support import load_source

    module = load_source("async def fetch(x):\n    return x\n", tmp_path)
    with pytest.raises(autograph_lite.UnsupportedSyntaxError, match=r"(?s):1: 'async def fetch'.*synchronous"):
        autograph_lite.convert(module.fetch)


def test_converted_programs_leak_no_tracers():
    from bad_programs import catalogue as c  # noqa: F401  (the same module; the good programs below)

    def search(xs):
        found = -1
        for i in range(xs.shape[0]):
            if xs[i] > 0:
                found = i
                break
        return found

    with jax.checking_leaks():
        for function, arguments in [(search, (XS,)), (catalogue.factorial, (5,))]:
            autograph_lite.jit(function, static_argnums=() if function is search else (0,))(*arguments)

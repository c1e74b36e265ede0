"""f-strings, ``print``'s own arguments (sep, end, file) and ``print`` under vmap and grad, against eager Python.

Same comparisons as tests/test_print.py (see tests/print_support.py): stdout and stderr of the eager,
converted and jitted runs, on every call.
"""

import io
import sys

import jax
import jax.numpy as jnp
import pytest
from print_support import assert_prints_like_eager, captured, staged_as
from test_print import branch_prints, concrete_then_traced, fstring_in_a_staged_loop

import autograph_lite

F32, I32 = jnp.float32, jnp.int32


# --- f-strings ----------------------------------------------------------------------------------


def fstrings(x, n, v):
    print(f"{x:.3f}|{n:d}|{n:>4}|{x!r}|{x!s}|{x=}|{v}|{v!r}")
    print(f"{x:{6}.{2}f}|{{literal}}|{x:>8.2e}")
    print(v, (x, "tag"), [n, 1])
    return x


def test_fstrings_with_specs_conversions_and_vectors():
    v = jnp.asarray([0.5, 1.25, 2.0], F32)
    x, n = F32(5.76), I32(3)
    eager = captured(fstrings, x, n, v)[0]
    assert "5.760|3|   3|Array(5.76, dtype=float32)|5.76|x=Array(5.76, dtype=float32)|[0.5  1.25 2.  ]" in eager
    assert_prints_like_eager(fstrings, x, n, v, expected=eager)
    with jax.checking_leaks():  # the callback keeps the concrete parts only, never a tracer
        captured(autograph_lite.jit(fstrings), x, n, v)


def spec_d_of_a_float(x):
    print(f"{x:d}")


def spec_of_a_vector(v):
    print(f"{v:.3f}")


@pytest.mark.parametrize(
    "function, value, error",
    [(spec_d_of_a_float, F32(1.5), ValueError), (spec_of_a_vector, jnp.ones(3, F32), TypeError)],
)
def test_a_spec_that_eager_rejects_raises_the_same_error_while_tracing(function, value, error):
    with pytest.raises(error) as eager:
        function(value)
    with pytest.raises(error) as traced:
        autograph_lite.jit(function)(value)
    assert str(traced.value) == str(eager.value)
    print_line = function.__code__.co_firstlineno + 1
    assert any(entry.lineno + 1 == print_line and entry.path.name == "test_print_fstrings.py" for entry in traced.traceback)


def fstring_carried_through_a_branch(x):
    if x > 0:
        message = f"value {x:.2f}"
    else:
        message = f"value {-x:.2f}"
    print(message, f"[{message}]")
    return x


def test_an_fstring_of_a_traced_value_can_be_kept_in_a_variable_and_printed_later():
    assert_prints_like_eager(fstring_carried_through_a_branch, F32(-2.0), expected="value 2.00 [value 2.00]\n")


def fstring_carried_by_a_staged_loop(xs):
    message = f"at {xs[0]}"
    for i in range(3):
        message = f"at {xs[i] * 2}"
    print("last", message)
    return xs


def test_an_fstring_of_a_traced_value_is_carried_by_a_staged_loop():
    xs = jnp.arange(3.0)
    assert "lax.scan" in staged_as(fstring_carried_by_a_staged_loop, xs)
    assert_prints_like_eager(fstring_carried_by_a_staged_loop, xs, expected="last at 4.0\n")


def traced_width(x, n):
    print(f"{x:{n}}")


def test_a_format_spec_computed_from_a_traced_value_is_a_located_error():
    with pytest.raises(autograph_lite.ConversionError, match=r"test_print_fstrings.py:\d+: the format spec '\{\}'"):
        autograph_lite.jit(traced_width)(F32(1.0), I32(6))
    assert_prints_like_eager(traced_width, F32(1.0), n=6, static_argnames="n", expected="   1.0\n")


def concatenates(x):
    text = f"value {x}"
    return text + "!"


def uses_as_key(x):
    return {f"{x}": 1}


def raises_with(x):
    raise ValueError(f"bad value {x}")


@pytest.mark.parametrize(
    "function, use, line_text",
    [
        (uses_as_key, "is used as a str", '{f"{x}": 1}'),
        (raises_with, "is an exception message", "raise ValueError"),
    ],
)
def test_an_fstring_of_a_traced_value_used_as_a_str_is_a_located_error(function, use, line_text):
    with pytest.raises(autograph_lite.ConversionError, match=f"test_print_fstrings.py:[0-9]+: .*{use}") as error:
        autograph_lite.jit(function)(F32(1.0))
    line = error.value.location.lineno
    assert line_text in open(__file__).read().splitlines()[line - 1]  # the user's line that uses the text


def test_an_fstring_of_a_traced_value_concatenates_into_text_known_at_run_time():
    # jit hands the text back as a pytree of its values, whose text exists once they are known
    assert str(autograph_lite.jit(concatenates)(F32(1.0))) == concatenates(F32(1.0)) == "value 1.0!"


def test_rewritten_source_reads_like_the_fstring():
    source = autograph_lite.to_source(fstrings)
    assert "_ag.format_string('{:.3f}|{:d}|{:>4}|{!r}|{!s}|x={!r}|{}|{!r}', x, n, n, x, x, x, v, v)" in source
    assert "_ag.format_string('{:{}.{}f}|{{literal}}|{:>8.2e}', x, 6, 2, x)" in source
    # A raise's message stays deferred text: a run-time check formats it (tests/test_runtime_checks.py).
    assert "raise _ag.raise_(ValueError(_ag.format_string('bad value {}', x)))" in autograph_lite.to_source(raises_with)


# --- print's own arguments ----------------------------------------------------------------------


def separators(x):
    print(x, "a", x + 1, sep=", ", end=" <\n")
    print("no newline", end="")
    print(" then one", x, sep=None, end=None)
    print("to stderr", x, file=sys.stderr)
    print()
    return x


def test_sep_end_and_stderr():
    assert_prints_like_eager(separators, F32(1.5), expected="1.5, a, 2.5 <\nno newline then one 1.5\n\n")
    assert captured(autograph_lite.jit(separators), F32(1.5))[1] == "to stderr 1.5\n"


def bad_separator(x):
    print(x, sep=3)


def test_a_non_string_separator_is_pythons_type_error():
    with pytest.raises(TypeError, match="sep must be None or a string, not int"):
        autograph_lite.jit(bad_separator)(F32(1.0))


def writes_to(x, sink):
    print("value", x, file=sink)
    return x


def test_print_to_a_file_object_writes_there_on_every_call():
    sink = io.StringIO()
    converted = autograph_lite.convert(writes_to)
    jitted = jax.jit(lambda x: converted(x, sink))
    jitted(F32(1.0))
    jitted(F32(2.0))
    jax.effects_barrier()
    assert sink.getvalue() == "value 1.0\nvalue 2.0\n"


def test_a_cached_program_prints_to_the_stdout_of_the_moment_it_runs():
    jitted = autograph_lite.jit(concrete_then_traced)
    assert captured(jitted, F32(1.0))[0] == "x is [0 1 2]\ny is 1.0\n"
    assert captured(jitted, F32(2.0))[0] == "x is [0 1 2]\ny is 2.0\n"


class Recorder:
    def __init__(self):
        self.chunks = []

    def write(self, text):
        self.chunks.append(text)

    def flush(self):
        pass


def test_outside_any_trace_print_is_the_builtin_run_at_once():
    eager, converted = Recorder(), Recorder()
    writes_to(F32(1.0), eager)
    autograph_lite.convert(writes_to)(F32(1.0), converted)
    assert converted.chunks == eager.chunks == ["value", " ", "1.0", "\n"]  # the builtin writes piece by piece


# --- transformations ----------------------------------------------------------------------------


def prints_a_value(x):
    print("x", x)
    return x * x


def test_vmap_prints_one_line_per_example():
    output, _ = captured(jax.vmap(autograph_lite.convert(prints_a_value)), jnp.asarray([1.0, 2.0], F32))
    assert output == "x 1.0\nx 2.0\n"


def test_vmap_of_a_batched_traced_if_does_not_crash_and_prints_each_examples_branch():
    output, _ = captured(jax.vmap(autograph_lite.convert(branch_prints)), jnp.asarray([1.0, -1.0], F32))
    assert "positive 1.0\n" in output and "not positive [0 1 2]\n" in output


@pytest.mark.parametrize("function, x", [(prints_a_value, F32(3.0)), (fstring_in_a_staged_loop, jnp.arange(3.0))])
def test_grad_prints_the_primal_values_once(function, x):
    eager = captured(function, x)
    grad = autograph_lite.convert(function)
    assert captured(jax.grad(lambda v: jnp.sum(grad(v))), x) == eager
    assert captured(jax.jit(jax.grad(lambda v: jnp.sum(grad(v)))), x) == eager


def mixed_numbering(x):
    if x > 0:
        print("{} {0}".format(x))  # noqa: F525 (the point of the test)
    return x


def field_past_the_arguments(x):
    if x > 0:
        print("{} {}".format(x))  # noqa: F524 (the point of the test)
    return x


def missing_keyword(x):
    print("{a} {b}".format(a=x))  # noqa: F524 (the point of the test)
    return x


def too_few_for_percent(x):
    assert x > -100.0
    if x > 0:
        print("%s %s" % (x,))  # noqa: F507, UP031 (the point of the test)
    return x


def unknown_percent_conversion(x):
    print("%y" % x)  # noqa: F509 (the point of the test)
    return x


@pytest.mark.parametrize("function", [mixed_numbering, field_past_the_arguments, missing_keyword,
                                      too_few_for_percent, unknown_percent_conversion])
def test_a_template_python_refuses_raises_its_error_with_a_traced_value(function):
    """``str.format`` of a traced value looked its fields up itself: mixed numbering printed, silently,
    and a field past the arguments raised IndexError with another message than Python's. ``%`` of one
    formatted only when the program ran: its error came from JAX's callback, as a JaxRuntimeError with
    JAX's traceback on stderr. Both raise Python's error where eager raises it."""
    with pytest.raises(Exception) as eager:
        function(jnp.float32(1.5))
    with pytest.raises(Exception) as staged:
        autograph_lite.jit(function)(jnp.float32(1.5))
    assert type(staged.value) is type(eager.value) and str(staged.value) == str(eager.value)


def formatted_from_a_mapping(x):
    print("{a:.1f} and {b}".format_map({"a": x, "b": "text"}))
    return x


def test_format_map_of_a_traced_value_prints_eagers_text():
    """It formatted the tracer while tracing (``TypeError: unsupported format string passed to
    DynamicJaxprTracer.__format__``, unlocated), as ``str.format`` did before its own fix."""
    assert_prints_like_eager(formatted_from_a_mapping, jnp.float32(1.5), expected="1.5 and text\n")


def printed_casts(x):
    y = float(x)
    k = int(x * 10)
    print(y, repr(y), f"{y}", (k, 1), [y])
    return x


def test_float_and_int_of_a_traced_value_print_as_python_numbers():
    """float(x) of a float32 is a Python float eagerly (0.10000000149011612), and int(x) in a tuple a
    bare int: they printed as float32 (0.1) and as Array(1, dtype=int32, weak_type=True)."""
    expected = "0.10000000149011612 0.10000000149011612 0.10000000149011612 (1, 1) [0.10000000149011612]\n"
    assert_prints_like_eager(printed_casts, jnp.float32(0.1), expected=expected)

"""``print`` and f-strings in converted code print what eager Python prints, in order, on every call.

Each equivalence test runs the function eagerly on jax arrays (the reference), converted on the same
concrete values (no trace: the builtin print), and under ``autograph_lite.jit`` twice (the second
call runs the cached program, which must print again), and compares stdout and stderr exactly.
"""

import contextlib
import io
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograph_lite

F32, I32 = jnp.float32, jnp.int32
TABLE = np.arange(3)
LAYERS = [1.0, 2.0, 3.0]


def captured(function, *args, **kwargs) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        function(*args, **kwargs)
        jax.effects_barrier()
    return out.getvalue(), err.getvalue()


def assert_prints_like_eager(function, *args, expected: str, static_argnames=(), **kwargs) -> None:
    """Eager, converted and jit (first and cached second call) print ``expected``, eager's text."""
    eager = captured(function, *args, **kwargs)
    assert eager[0] == expected, "the test's expectation is not what eager Python prints"
    assert captured(autograph_lite.convert(function), *args, **kwargs) == eager, "convert, no trace"
    jitted = autograph_lite.jit(function, static_argnames=static_argnames)
    assert captured(jitted, *args, **kwargs) == eager, "jit, first call"
    assert captured(jitted, *args, **kwargs) == eager, "jit, second (cached) call"


def staged_as(function, *args, **kwargs) -> str:
    return str(autograph_lite.explain(function, *args, **kwargs))


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
    assert any(entry.lineno + 1 == print_line and entry.path.name == "test_print.py" for entry in traced.traceback)


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
    with pytest.raises(autograph_lite.ConversionError, match=r"test_print.py:\d+: the format spec '\{\}'"):
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
        (concatenates, "is used as a str", 'text + "!"'),
        (uses_as_key, "is used as a str", '{f"{x}": 1}'),
        (raises_with, "is an exception message", "raise ValueError"),
    ],
)
def test_an_fstring_of_a_traced_value_used_as_a_str_is_a_located_error(function, use, line_text):
    with pytest.raises(autograph_lite.ConversionError, match=f"test_print.py:[0-9]+: .*{use}") as error:
        autograph_lite.jit(function)(F32(1.0))
    line = error.value.location.lineno
    assert line_text in open(__file__).read().splitlines()[line - 1]  # the user's line that uses the text


def test_rewritten_source_reads_like_the_fstring():
    source = autograph_lite.to_source(fstrings)
    assert "_ag.format_string('{:.3f}|{:d}|{:>4}|{!r}|{!s}|x={!r}|{}|{!r}', x, n, n, x, x, x, v, v)" in source
    assert "_ag.format_string('{:{}.{}f}|{{literal}}|{:>8.2e}', x, 6, 2, x)" in source
    assert "_ag.format_message('bad value {}', x)" in autograph_lite.to_source(raises_with)


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

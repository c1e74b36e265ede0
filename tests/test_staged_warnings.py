"""``warnings.warn`` in staged code against eager Python: the location a ``stacklevel`` names, a warning
that the filters make an error, and a message that is a Warning (or an exception's argument that is an
exception) built from traced values."""

import warnings

import jax
import jax.numpy as jnp
import pytest

import autograph_lite

F32 = jnp.float32


def warns_when_big(x):
    if x > 1.0:
        warnings.warn("maxiter reached", RuntimeWarning, stacklevel=2)
    return x


def calls_the_warning_helper(x):
    y = warns_when_big(x) * 2
    return y


def calls_it_in_a_staged_branch(x):
    if x > 0.0:
        x = warns_when_big(x) + 1
    return x


def warned(run, x, simplefilter="always"):
    """What ``run(x)`` warned (category, message, file, line), or the exception it raised."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter(simplefilter)
        try:
            jax.block_until_ready(run(x))
            jax.effects_barrier()
        except Exception as error:  # compared with eager's
            return type(error), str(error).splitlines()[0]
    return [(w.category, str(w.message), w.filename, w.lineno) for w in seen]


@pytest.mark.parametrize("caller", [calls_the_warning_helper, calls_it_in_a_staged_branch])
@pytest.mark.parametrize("x", [3.0, 0.5])
def test_stacklevel_two_names_the_callers_line(caller, x):
    """The helper's frame and the generated branch it runs were counted as two levels: the warning
    named the helper's own line, not its caller's (a filter by line, "once per location", differ)."""
    expected = warned(caller, F32(x))
    assert warned(autograph_lite.jit(caller), F32(x)) == expected
    assert warned(autograph_lite.convert(caller), x) == warned(caller, x)  # concrete: Python's warn at once


def warns_its_callers_line(x):
    if x > 1.0:
        warnings.warn("not converged", RuntimeWarning, stacklevel=2)
    return x


def test_stacklevel_past_the_compiled_function_is_a_located_error():
    """It named the line of the call that traced, for every later call from any other line."""
    with pytest.raises(autograph_lite.ConversionError, match="stacklevel=2.*outside the converted code") as raised:
        autograph_lite.jit(warns_its_callers_line)(F32(3.0))
    assert raised.value.location.lineno == warns_its_callers_line.__code__.co_firstlineno + 2


def converged(x):
    return x, x > 1.0


compiled_core = autograph_lite.jit(converged)


def warns_its_callers_line_fixed(x):  # the error's fix: warn in the caller, outside the compiled function
    x, slow = compiled_core(x)
    if slow:
        warnings.warn("not converged", RuntimeWarning, stacklevel=2)
    return x


@pytest.mark.parametrize("x", [3.0, 0.5])
def test_the_fix_of_a_stacklevel_past_the_compiled_function_warns_as_eager(x):
    assert warned(warns_its_callers_line_fixed, F32(x)) == warned(warns_its_callers_line, F32(x))


def warns_in_a_loop(x):
    for _ in range(3):
        if x > 1.0:
            warnings.warn("no convergence", RuntimeWarning, stacklevel=1)
        x = x * 0.5
    return x


def reaches_a_warning(x):
    return warns_in_a_loop(x) + 1


@pytest.mark.parametrize("function", [warns_in_a_loop, reaches_a_warning])
@pytest.mark.parametrize("x", [3.0, 0.5])
def test_a_warning_that_the_filters_make_an_error_is_raised_itself(function, x):
    """It came back as JAX's JaxRuntimeError, which ``except RuntimeWarning`` does not catch."""
    expected = warned(function, F32(x), simplefilter="error")
    assert warned(autograph_lite.jit(function), F32(x), simplefilter="error") == expected
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if x > 1.0:
            with pytest.raises(RuntimeWarning) as raised:
                autograph_lite.jit(function)(F32(x))
            assert raised.value.args == ("no convergence",)


def warns_a_warning(x, form):
    if x > 1.0:
        if form == 0:
            warnings.warn(RuntimeWarning(f"still {x:.2f}"), stacklevel=1)
        if form == 1:
            warnings.warn(UserWarning("x=" + str(x)), stacklevel=1)
        if form == 2:
            warnings.warn(DeprecationWarning(f"{x}", "and more"), stacklevel=1)
    return x


@pytest.mark.parametrize("form", [0, 1, 2])
@pytest.mark.parametrize("x", [3.0, 0.5])
def test_a_warning_instance_with_a_message_from_traced_values(form, x):
    """Its deferred text was left inside the Warning's args: the program failed when it ran, with an
    error located in JAX's code."""
    expected = warned(lambda v: warns_a_warning(v, form), F32(x))
    jitted = autograph_lite.jit(warns_a_warning, static_argnums=1)
    assert warned(lambda v: jitted(v, form), F32(x)) == expected


def raises_an_exception_of_an_exception(x):
    if x > 1.0:
        raise RuntimeError(ValueError(f"{x:.1f}"), "outer")
    return x


@pytest.mark.parametrize("x", [3.0, 0.5])
def test_an_exception_among_a_raised_exceptions_args_gets_its_text(x):
    try:
        expected = raises_an_exception_of_an_exception(F32(x))
    except RuntimeError as error:
        with pytest.raises(RuntimeError) as raised:
            autograph_lite.jit(raises_an_exception_of_an_exception)(F32(x))
        inner, outer = raised.value.args
        assert (type(inner), inner.args, outer) == (ValueError, error.args[0].args, error.args[1])
    else:
        assert autograph_lite.jit(raises_an_exception_of_an_exception)(F32(x)) == expected

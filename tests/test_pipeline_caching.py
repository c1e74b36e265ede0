"""Caching of conversions, tracebacks that point at the user's lines, and functions without source.

Converting is cached per function (and shared by functions with one code object), thread-safe, and a
jitted call after the first runs no autograph_lite code. Exceptions raised in converted code show the
user's file and line, never a generated temporary file.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import threading
import traceback

import jax
import jax.numpy as jnp
import pytest

import autograph_lite
import autograph_lite.source
from autograph_lite import ConversionError, SourceUnavailableError

F32 = jnp.float32


def line_of(fn, text: str) -> int:
    import inspect

    lines, start = inspect.getsourcelines(fn)
    return next(start + index for index, line in enumerate(lines) if text in line)


# --- caching -------------------------------------------------------------------------------------------


def converted_twice(x):
    if x > 0:
        return x
    return -x


def made_by_factory():
    def product(x):
        if x > 0:
            return x * 2
        return x

    return product


def test_converting_twice_returns_the_same_object_without_parsing_again(monkeypatch):
    calls = []
    real_parse = autograph_lite.source.parse_function

    def counting_parse(fn):
        calls.append(fn.__name__)
        return real_parse(fn)

    monkeypatch.setattr(autograph_lite.source, "parse_function", counting_parse)
    first = autograph_lite.convert(converted_twice)
    parses_after_first = len(calls)
    second = autograph_lite.convert(converted_twice)
    assert second is first
    assert len(calls) == parses_after_first <= 1


def test_functions_sharing_code_are_parsed_once(monkeypatch):
    calls = []
    real_parse = autograph_lite.source.parse_function
    monkeypatch.setattr(autograph_lite.source, "parse_function", lambda fn: calls.append(fn) or real_parse(fn))
    first, second = made_by_factory(), made_by_factory()
    converted_first, converted_second = autograph_lite.convert(first), autograph_lite.convert(second)
    assert converted_first is not converted_second  # each keeps its own closure and globals
    assert converted_first.__code__ is converted_second.__code__
    assert len(calls) <= 1


def test_static_loops_options_give_different_converted_functions():
    assert autograph_lite.convert(converted_twice, static_loops="unroll") is not autograph_lite.convert(converted_twice)
    assert autograph_lite.convert(converted_twice, static_loops="unroll") is autograph_lite.convert(
        converted_twice, static_loops="unroll")


def traced_once(x):
    TRACES.append(1)
    if x > 0:
        return x
    return -x


TRACES: list[int] = []


def test_jit_twice_shares_jax_compilation_cache():
    # autograph_lite.jit(f)(x) written inline (as one writes jax.jit(f)(x)) must not retrace f on
    # every call: the converted function, and with it jax.jit's cache, must outlive the wrapper.
    TRACES.clear()
    autograph_lite.jit(traced_once)(F32(1.0))
    autograph_lite.jit(traced_once)(F32(-1.0))
    assert len(TRACES) == 1


def traced_for_the_cache_test(x):
    TRACES.append(1)
    if x > 0:
        return x
    return -x


def test_a_jitted_call_after_the_first_runs_no_autograph_lite_code(monkeypatch):
    # The cache-hit path must be jax.jit's own: the object is jax.jit's, and once traced, calling
    # it again reaches neither the converter nor the converted Python function.
    jitted = autograph_lite.jit(traced_for_the_cache_test)
    assert type(jitted) is type(jax.jit(traced_for_the_cache_test))
    TRACES.clear()
    assert float(jitted(F32(2.0))) == 2.0
    monkeypatch.setattr(autograph_lite.conversion, "convert_function", None)
    monkeypatch.setattr(autograph_lite.source, "parse_function", None)
    for value in (3.0, -4.0, 5.0):
        assert float(jitted(F32(value))) == abs(value)
    assert len(TRACES) == 1


def test_identical_functions_in_two_files_keep_their_own_file(tmp_path):
    # Code objects compare equal by content, file name aside: the cache must still tell them apart,
    # so that each converted function reports its own file in tracebacks.
    text = "def twin(x):\n    if x > 0:\n        return x\n    return -x\n"
    converted = []
    for name in ("first_twin", "second_twin"):
        path = tmp_path / f"{name}.py"
        path.write_text(text)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        converted.append(autograph_lite.convert(module.twin))
    assert [c.__code__.co_filename for c in converted] == [str(tmp_path / "first_twin.py"), str(tmp_path / "second_twin.py")]


def converted_from_threads(x):
    if x > 0:
        return x + 1
    return x - 1


def test_conversion_from_eight_threads_gives_one_object():
    barrier = threading.Barrier(8)
    results, errors = [None] * 8, []

    def worker(index):
        try:
            barrier.wait()
            results[index] = autograph_lite.convert(converted_from_threads)
        except Exception as error:
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert all(result is results[0] for result in results)
    assert float(results[0](F32(1.0))) == 2.0


# --- tracebacks point at the user's lines -------------------------------------------------------------


def raises_in_branch(x, flag):
    if flag:
        y = x + 1
        raise RuntimeError("raised in a branch")
    return x


def raises_in_traced_branch(x):
    # Both branches raise JAX's TypeError while traced, so the `if` does while tracing (had only one
    # of them, it would be a run-time check: tests/test_python_errors_in_skipped_code.py).
    if x > 0:
        y = jnp.ones(3) + jnp.ones(4)
    else:
        y = jnp.ones(2) + jnp.ones(5)
    return y


def _user_frames(error: BaseException) -> list[tuple[str, int]]:
    return [(frame.filename, frame.lineno) for frame in traceback.extract_tb(error.__traceback__)]


def test_traceback_of_an_exception_in_a_converted_branch_shows_the_users_line():
    with pytest.raises(RuntimeError) as excinfo:
        autograph_lite.convert(raises_in_branch)(F32(1.0), True)
    assert (__file__, line_of(raises_in_branch, "raise RuntimeError")) in _user_frames(excinfo.value)


def test_traceback_under_jit_shows_the_users_line():
    with pytest.raises(RuntimeError) as excinfo:
        autograph_lite.jit(raises_in_branch, static_argnums=1)(F32(1.0), True)
    assert (__file__, line_of(raises_in_branch, "raise RuntimeError")) in _user_frames(excinfo.value)


def test_traceback_of_a_jax_error_in_a_traced_branch_shows_the_users_line():
    with pytest.raises(TypeError) as excinfo:
        autograph_lite.jit(raises_in_traced_branch)(F32(1.0))
    assert (__file__, line_of(raises_in_traced_branch, "jnp.ones(3) + jnp.ones(4)")) in _user_frames(excinfo.value)


def reshapes_wrongly(x):
    y = x + 1
    z = jnp.reshape(y, (5,))
    return z


def test_traceback_under_jit_shows_the_statement_not_the_def():
    # JAX's filter rebuilds each kept frame from its last instruction, which the converted function's
    # own handler of JAX's errors moves: placed at the def line, that handler made traceback.extract_tb
    # (IPython, pdb) show the def for the statement that raised.
    frames = {}
    for name, jitted in (("jax.jit", jax.jit(reshapes_wrongly)), ("autograph_lite.jit", autograph_lite.jit(reshapes_wrongly))):
        with pytest.raises(TypeError, match="cannot reshape") as excinfo:
            jitted(jnp.ones(3))
        frames[name] = [line for filename, line in _user_frames(excinfo.value) if filename == __file__]
    statement = line_of(reshapes_wrongly, "jnp.reshape(y, (5,))")
    assert frames["autograph_lite.jit"][-1] == statement, frames
    assert frames["autograph_lite.jit"] == frames["jax.jit"], frames


def test_traceback_under_jit_hides_autograph_lite_frames():
    # JAX filters the frames of registered libraries from errors raised while tracing under jit.
    package = os.path.dirname(autograph_lite.__file__) + os.sep
    with pytest.raises(TypeError) as excinfo:
        autograph_lite.jit(raises_in_traced_branch)(F32(1.0))
    frames = _user_frames(excinfo.value)
    assert frames and not [f for f, _ in frames if f.startswith(package)], frames


def test_traceback_has_no_generated_temp_files():
    with pytest.raises(RuntimeError) as excinfo:
        autograph_lite.convert(raises_in_branch)(F32(1.0), True)
    for filename, _ in _user_frames(excinfo.value):
        assert not filename.startswith("<"), filename


# --- source availability and opting out --------------------------------------------------------------


def test_function_without_source_raises_source_unavailable_naming_it():
    namespace: dict = {}
    exec("def built_from_a_string(x):\n    if x > 0:\n        return x\n    return -x\n", namespace)
    with pytest.raises(SourceUnavailableError) as excinfo:
        autograph_lite.convert(namespace["built_from_a_string"])
    message = str(excinfo.value)
    assert "'built_from_a_string'" in message
    assert "Define the function in a .py file" in message
    assert isinstance(excinfo.value, ConversionError) and isinstance(excinfo.value, OSError)


def test_lambda_without_source_raises_source_unavailable():
    fn = eval("lambda x: x if x > 0 else -x")
    with pytest.raises(SourceUnavailableError, match="<lambda>"):
        autograph_lite.convert(fn)


def opted_out(x):
    return x * 2


def test_do_not_convert_returns_the_function_itself():
    marked = autograph_lite.do_not_convert(opted_out)
    assert marked is opted_out
    assert autograph_lite.convert(opted_out) is opted_out
    assert float(autograph_lite.jit(opted_out)(F32(2.0))) == 4.0


def test_do_not_convert_on_a_callee_runs_it_as_written():
    @autograph_lite.do_not_convert
    def raw(x):
        return jax.lax.cond(x > 0, lambda v: v, lambda v: -v, x)

    def caller(x):
        return raw(x) + 1

    assert float(autograph_lite.jit(caller)(F32(-2.0))) == 3.0


def test_to_source_of_a_converted_or_jitted_function_is_the_originals():
    text = autograph_lite.to_source(converted_twice)
    assert text == autograph_lite.to_source(autograph_lite.convert(converted_twice))
    assert text == autograph_lite.to_source(autograph_lite.jit(converted_twice))
    assert text == autograph_lite.to_source(functools.partial(autograph_lite.jit(converted_twice), 1.0))
    assert text.startswith("def converted_twice(x):")
    assert "_ag.if_stmt" in text

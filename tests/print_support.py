"""What the print tests compare: stdout and stderr of eager, converted and jitted runs of one function."""

import contextlib
import io

import jax

import autograph_lite


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

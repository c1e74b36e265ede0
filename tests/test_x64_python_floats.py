"""With 64-bit types on, a Python float beside a float32 in a staged choice is judged as one beside a
float16 is with them off (runtime/narrow_numbers.py): jit keeps the Python float a float64, so
float32 is the narrower dtype, and a number it does not hold is a located StagingTypeError.

Before, ``x if c else 1e300`` was silently the float32 ``inf`` (``1e-50``: ``0.0``; ``0.1``:
0.10000000149011612) where eager Python returns the Python float; the hint for the int
counterpart (``n_i32 if c else 2**40``) offered ``jnp.int32(...)``, which cannot hold the number.
The tests run in a subprocess: the suite runs with 64-bit types off (tests/conftest.py).
"""

from __future__ import annotations

from support import run_program

X64_PROGRAM = '''
import jax, jax.numpy as jnp, autograph_lite
jax.config.update("jax_enable_x64", True)

def cap(x):
    if x > 0:
        y = x
    else:
        y = 1e300
    return y

def tiny(x):
    return x if x > 0 else 1e-50

def cap_or(x):
    return x or 1e300

def entering(x, k):
    y = 1e300
    for i in range(k):
        y = x
    return y

def tenth(x):
    return x if x > 0 else 0.1

def big(n):
    return n if n > 0 else 2**40

def refused(fn, *args, hint):
    try:
        autograph_lite.jit(fn)(*args)
    except autograph_lite.StagingTypeError as error:
        assert hint in str(error), str(error)
        return
    raise AssertionError(f"{fn.__name__} was not refused")

x, zero = jnp.float32(-1.0), jnp.float32(0.0)
refused(cap, x, hint="jnp.float64(...) for the number and jnp.asarray(..., jnp.float64) for the float32 value")
refused(tiny, x, hint="it would be 0.0")
refused(cap_or, zero, hint="jnp.float64(...)")
refused(entering, x, jnp.int32(0), hint="start it as jnp.float64(...)")
refused(tenth, x, hint="it would be 0.10000000149011612")
refused(big, jnp.int32(-1), hint="jnp.int64(...) for the number and jnp.asarray(..., jnp.int64) for the int32 value")

def cap_fixed(x):
    if x > 0:
        y = jnp.asarray(x, jnp.float64)
    else:
        y = jnp.float64(1e300)
    return y

def big_fixed(n):
    return jnp.asarray(n, jnp.int64) if n > 0 else jnp.int64(2**40)

assert float(autograph_lite.jit(cap_fixed)(x)) == cap(x) == 1e300
assert int(autograph_lite.jit(big_fixed)(jnp.int32(-1))) == big(jnp.int32(-1)) == 2**40

def half(x):
    return x if x > 0 else 0.5

got = autograph_lite.jit(half)(x)
assert float(got) == 0.5 and got.dtype == jnp.float32, got  # a float32 holds it: chosen as one
print("ok")
'''


def test_a_python_float_a_float32_does_not_hold_is_refused_under_x64(tmp_path) -> None:
    run_program(tmp_path, X64_PROGRAM, "x64_floats")

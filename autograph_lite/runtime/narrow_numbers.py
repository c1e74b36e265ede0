"""A Python number beside a narrower array in a staged choice: taken into its dtype only where it fits.

Eagerly, ``y = 70000.0`` on one path and ``y = v_f16`` on the other leave ``y`` a Python float or a
float16, and each computes as it is: ``y * 1.0`` is 70000.0 on the first path. A staged ``if``,
ternary, ``and`` / ``or`` or loop carry has one dtype per value, and the one eager arithmetic gives a
Python number beside a float16 is float16 (so that ``x * y`` after ``y = -10.0`` is float16 arithmetic,
as eagerly). Converting the number there is exact only where float16 holds it: 70000.0 becomes
``inf``, 0.1 becomes 0.0999755859375, 257 as a bfloat16 becomes 256. Integers follow the same rule:
a Python int beside a uint8 (int8, int16, uint16, uint32) takes that dtype, as in eager ``v_u8 + 3``,
and 256, -1 or 70000 would wrap there (0, 255, 112). No other dtype is eager's on every path either:
float32 or int32 would hold both values, but would compute ``x * y`` in float32 / int32 where eager
Python computes in float16 / uint8 (``v_u8 * 2`` wraps 255 to 254; an int32 made it 510). So such a
choice is a located ``StagingTypeError`` instead of a silent wrong value. With 64-bit types on, a
Python number is an int64 / float64 under ``jit``, so an int32 and a float32 are narrower too
(``x_f32 if c else 1e300`` would be ``inf``), judged by the same rule.

The number is checked where it is known while tracing: a Python scalar (a branch's ``y = 70000.0``,
a loop's entry value) or a concrete array. A weakly typed value computed by the program (the traced
result of ``c and 0.5``, a loop index, a Python number carried through a staged loop) has no value
until the program runs, so it cannot be shown to fit and is refused too; writing the number as an
array of the narrow dtype (``jnp.float16(0.5)``, ``jnp.uint8(3)``) chooses in that dtype as eager
arithmetic would.

A Python int beside a float follows the rule too, for float32 (float64 with 64-bit types on) as well:
``16777217 if c else 0.5`` or ``y = 16777217`` beside ``y = x_f32`` would choose in float32, which
holds no int past 2**24 (16777217 would be 16777216.0), where eager Python keeps the int. Such an
int is judged where it is known while tracing; one computed while the program runs (a loop index,
``int(x)``) is taken into the Python float's dtype unjudged (a documented limit: judging it would
refuse every loop index beside a float, while only one past 2**24 rounds).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import Location, StagingTypeError
from .carry_errors import Site
from .values import Split, is_traced, type_string


def python_number_dtype(kind: type) -> np.dtype:
    """The dtype ``jit`` makes of a Python ``int`` / ``float``: int32 / float32, int64 / float64 with
    ``jax_enable_x64`` on."""
    return np.dtype(jax.dtypes.canonicalize_dtype(np.int64 if kind is int else np.float64))


def is_narrow_float(dtype: Any) -> bool:
    """The floats narrower than a Python float under ``jit``: float16, bfloat16 (and JAX's float8
    types); float32 too with 64-bit types on, where a Python float is a float64 (``1e300`` is ``inf``
    as a float32, as ``70000.0`` is as a float16)."""
    return bool(jnp.issubdtype(dtype, jnp.floating) and jnp.dtype(dtype).itemsize < python_number_dtype(float).itemsize)


def a_dtype(dtype: Any) -> str:
    """The dtype's name with its article, as errors write it: ``a uint8``, ``an int8``, ``a float16``."""
    name = jnp.dtype(dtype).name
    return f"{'an' if name.startswith('int') else 'a'} {name}"


def _narrows(weak: Any, dtype: Any) -> bool:
    """Whether a weakly typed value of abstract type ``weak`` taking ``dtype`` is a conversion this module
    judges: into a narrow float, or a weakly typed int into another integer dtype (a uint8, an int16)."""
    if weak.dtype == jnp.dtype(dtype):
        return False
    return is_narrow_float(dtype) or bool(jnp.issubdtype(weak.dtype, jnp.integer) and jnp.issubdtype(dtype, jnp.integer))


def _int_into_float(weak: Any, dtype: Any) -> bool:
    """Whether a weakly typed value of abstract type ``weak`` is an int taking a float or complex dtype."""
    return bool(jnp.issubdtype(weak.dtype, jnp.integer) and jnp.issubdtype(dtype, jnp.inexact))


def cast_loses_value(value: Any, dtype: Any) -> bool:
    """Whether converting the weakly typed ``value`` to the narrower ``dtype`` may change it.

    Judged: a weakly typed value taking a narrow float or (a weakly typed int) another integer dtype
    or any float dtype (any other conversion is the carry checks' business). One known while tracing
    loses its value where that dtype does not hold the float32 / int32 that ``jit`` makes of it (a
    Python float is float32 under ``jit`` anyway); a traced one may, as nothing bounds it, except an
    int taking the Python float's dtype (the module's documented limit).
    """
    aval = jax.typeof(value)
    if not (aval.weak_type and (_narrows(aval, dtype) or _int_into_float(aval, dtype))):
        return False
    if is_traced(value):
        return _narrows(aval, dtype)
    as_staged, narrowed = _narrowed(value, dtype)
    if as_staged.dtype.kind in "iu":  # compared as ints: float64 would round an int64 past 2**53 alike
        with np.errstate(invalid="ignore"):
            back = np.real(narrowed).astype(as_staged.dtype) if narrowed.dtype.kind in "fc" else narrowed
        return not (np.array_equal(back, as_staged) and np.all(np.isfinite(narrowed)))
    return not np.array_equal(narrowed.astype(np.float64), as_staged.astype(np.float64), equal_nan=True)


def _narrowed(value: Any, dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    """A known weakly typed ``value`` as ``jit`` has it, and converted to ``dtype``."""
    with np.errstate(over="ignore", invalid="ignore"):  # 1e39 is inf as a float32: the number as jit has it
        as_staged = np.asarray(value, jax.typeof(value).dtype)
        return as_staged, as_staged.astype(dtype)


class Shown(NamedTuple):
    """A weakly typed value as an error names it (``what``), why a dtype may not hold it (``why``), and
    whether it is an int beside a float as wide as a Python float's (told how to choose between them:
    no fix that keeps both exists but float64)."""

    what: str
    why: str
    int_beside_float: bool = False


def shown(value: Any, dtype: Any) -> Shown:
    """A weakly typed value as an error names it, and why ``dtype`` may not hold it: the number and
    what it would become where it is known, else its type."""
    if is_traced(value):
        return Shown(f"a {type_string(value)} computed while the program runs",
                     "may not hold it (its value is known only then)")
    _, narrowed = _narrowed(value, dtype)
    beside_float = _int_into_float(jax.typeof(value), dtype) and not is_narrow_float(dtype)
    if isinstance(value, (int, float)):
        return Shown(f"the Python number {value!r}", f"does not hold it (it would be {narrowed.item()!r})", beside_float)
    return Shown(f"the {type_string(value)} {np.asarray(value).tolist()!r}",
                 f"does not hold it (it would be {narrowed.tolist()!r})", beside_float)


def _wide(dtype: Any) -> str | None:
    """The dtype that holds both a Python number and every value of the narrow ``dtype``: the Python
    float's (float32, float64 with 64-bit types on) for a narrow float, the Python int's for an integer
    it holds (none for a uint32, with 64-bit types off)."""
    wide = python_number_dtype(float if jnp.issubdtype(dtype, jnp.floating) else int)
    return wide.name if np.can_cast(dtype, wide, "safe") else None


def _both_kept(dtype: Any) -> str:
    """The start of a fix that keeps both values of a choice beside ``dtype``, where a dtype holds both."""
    wide = _wide(dtype)
    if wide is None:
        return ""
    return (f"jnp.{wide}(...) for the number and jnp.asarray(..., jnp.{wide}) for the "
            f"{jnp.dtype(dtype).name} value keep both (then the arithmetic after the choice is {wide}), or ")


def lossy_choice(subject: str, value: Shown, dtype: Any, where: str, location: Location | None) -> StagingTypeError:
    """The error for a staged choice between a weakly typed ``value`` (as :func:`shown` gives it) and a
    value of the narrower ``dtype`` that may not hold it; ``where`` says where each is
    (``"in the true branch of the `if`, and a float16 in the other"``)."""
    name = jnp.dtype(dtype).name
    what, why, int_beside_float = value
    if int_beside_float:
        return StagingTypeError(
            f"{subject} is {what} {where}: staged, the choice has one dtype, {name} (a Python int's beside a "
            f"float, as in eager arithmetic), which {why}, where eager Python keeps the int as it is",
            location, f"Choose the dtype yourself: {_int_choices(dtype)}.")
    return StagingTypeError(
        f"{subject} is {what} {where}: staged, the choice has one dtype, {name} "
        f"(eager arithmetic's for a Python number beside {a_dtype(dtype)}), which {why}, where eager Python keeps "
        "the number as it is",
        location,
        f"Choose the dtype yourself: {_both_kept(dtype)}write the number as "
        f"jnp.{name}(...) to choose in {name} as eager arithmetic beside it would.",
    )


def _int_choices(dtype: Any) -> str:
    """The ways to choose between a Python int and a float that ``dtype`` (the Python float's or a
    wider one) cannot keep both of: there is no dtype that holds the int and the float but float64."""
    name = jnp.dtype(dtype).name
    x64 = ("; or turn on jax_enable_x64, where the choice is a float64, which holds every int up to 2**53"
           if name == "float32" else "")
    return (f"write the int as jnp.{name}(...) where a {name} is meant (the choice is then {name}, rounded as "
            f"eager {name} arithmetic rounds it), or make every value of the choice an int where an int is meant{x64}")


def lossy_entry(name: str, value: Shown, dtype: Any, construct: str, location: Location | None) -> StagingTypeError:
    """The error for a loop carry that enters as a weakly typed ``value`` (as :func:`shown` gives it) and
    that the body makes a value of the narrower ``dtype`` that may not hold it (eager Python keeps
    it after zero iterations)."""
    kind, described = jnp.dtype(dtype).name, a_dtype(dtype)
    what, why, int_beside_float = value
    if int_beside_float:
        return StagingTypeError(
            f"'{name}' enters the {construct} as {what} and one iteration makes it {described}: a staged loop "
            f"carries one dtype, so it would enter as {described}, which {why}, where eager Python keeps the int "
            "after zero iterations",
            location,
            f"Start it as {described} if that is meant from the start (jnp.{kind}(...)), or keep it an int in the "
            f"loop where an int is meant" + ("; or turn on jax_enable_x64, where a Python float is a float64, "
                                             "which holds every int up to 2**53" if kind == "float32" else "") + ".")
    wide = _wide(dtype)
    wider = (f"; or carry it as {wide} if {wide} arithmetic is meant (start it as jnp.{wide}(...) and assign "
             f"jnp.asarray(..., jnp.{wide}) in the body: the results are then {wide}'s, not eager's {kind})" if wide else "")
    return StagingTypeError(
        f"'{name}' enters the {construct} as {what} and one iteration makes it {described}: a staged loop carries "
        f"one dtype, so it would enter as {described}, which {why}, where eager Python keeps the number after "
        "zero iterations",
        location,
        f"Start it as {described} if that is meant from the start (jnp.asarray(...).astype(jnp.{kind}), the value "
        f"eager's first iteration computes with){wider}.",
    )


def refuse_lossy_entries(entry: Split, after: Split, site: Site) -> None:
    """Raise :func:`lossy_entry` for the first carried array that enters a staged loop weakly typed and
    that one iteration makes a narrower number which may not hold its entry value (``y = 70000.0``,
    then ``y = v_f16``: the loop would start it as ``inf``; ``y = 300``, then ``y = v_u8``: as 44)."""
    names = entry.array_names()
    for index, (before, later) in enumerate(zip(entry.arrays, after.arrays)):
        dtype = jax.typeof(later).dtype
        if cast_loses_value(before, dtype):
            raise lossy_entry(names[index], shown(before, dtype), dtype, site.construct, site.location)

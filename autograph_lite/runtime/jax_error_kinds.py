"""Which of JAX's errors about traced values an error raised while tracing converted code is.

JAX refuses some operations on a traced value (its Python truth value, int or NumPy array, a boolean
mask as an index, a slice or a shape of traced size, a hash) and ``lax`` control flow whose branches
or carry disagree; Python raises its own ``TypeError`` / ``AttributeError`` about a tracer (``x + "!"``),
which matters where eager Python runs that code only on some paths (a staged branch or loop body).
:func:`kind_of` names the refusal in the user's terms with a fix that works for it; :mod:`.jax_errors`
locates it. :func:`only_tracing_raises` says which of them a user's
``except`` must not catch: eager Python, on concrete values, does not raise them there.
"""

from __future__ import annotations

import dataclasses
import linecache
import math
import re
from typing import Any

import jax

from ..errors import ConversionError, Location
from .code_sets import CodeSet


@dataclasses.dataclass(frozen=True)
class Kind:
    """One kind of JAX error: what was refused, in the user's words, and a fix that works for it."""

    what: str
    hint: str
    raised_by: str = "JAX's"  # whose error it is, as the message names it: "JAX's TypeError"


MASK = Kind(
    "a boolean mask used as an index selects a number of elements known only at run time",
    "Keep the shape static: jnp.where(mask, x, 0) (then reduce it, e.g. .sum()), or "
    "x[jnp.nonzero(mask, size=N, fill_value=...)] with N a Python int (the rest is padding).",
)
SLICE = Kind(
    "a slice with a traced start, stop or step would have a size known only at run time",
    "Use lax.dynamic_slice(x, (start,), (size,)) with a static size (the start may be traced), mask "
    "with jnp.where(jnp.arange(len(x)) < n, x, 0), or make the bound static (static_argnums / static_argnames).",
)
SHAPE = Kind(
    "an array shape computed from a traced value: shapes must be known while tracing",
    "Make the size static (static_argnums / static_argnames), or allocate at a static maximum size "
    "and mask the unused part with jnp.where.",
)
BOOL = Kind(
    "a traced value used as a Python bool (in code that is not converted: a comprehension's `if`, a "
    "library function, bool(...) of an array)",
    "Compute both outcomes and choose with jnp.where(condition, a, b) or lax.cond, or make the value "
    "static (static_argnums / static_argnames).",
)
INTEGER = Kind(
    "a traced value used as a Python int (an index into a Python list or tuple, int(...), a count)",
    "Index an array instead (jnp.stack(items)[i]), use lax.dynamic_slice for a traced position, or "
    "make the value static (static_argnums / static_argnames).",
)
NUMPY = Kind(
    "a traced array passed to NumPy, which needs its values while tracing",
    "Use jax.numpy (jnp.*) instead of NumPy inside the function, or jax.pure_callback for host code.",
)
CONCRETE = Kind(
    "a traced value used where Python needs a concrete value",
    "Keep the computation in jax.numpy (jnp.where / lax.cond for a choice), or make the value static "
    "(static_argnums / static_argnames).",
)
HASH = Kind(
    "a traced value used as a dict key or a set member: it has no hash, since its value is known only at "
    "run time",
    "Look the value up by position instead: with integer keys 0..n-1, [table[k] for k in range(n)][i] "
    "(a Python list indexed by a traced integer is staged), or jnp.asarray(...)[i]; or make the key static "
    "(static_argnums / static_argnames).",
)
REPEAT = Kind(
    "a Python list, tuple or string repeated a traced number of times: its length would be known only "
    "at run time",
    "Keep the count a Python int: make the values it is computed from static (static_argnums / "
    "static_argnames); or build an array of a static size N and mask it "
    "(jnp.where(jnp.arange(N) < count, x, 0)).",
)
NUMBER_ATTRIBUTE = Kind(
    "a traced value has no attribute {name}, which Python's numbers have: a Python number that a staged "
    "loop or branch carries, or that is computed from an argument, is a traced JAX value here",
    "Keep the value a Python number: make the arguments it is computed from static (static_argnums / "
    "static_argnames); or compute what {name} gives with jax.numpy from the traced value.",
)
ROUNDING = Kind(
    "a traced value given to math.trunc (or floor / ceil / round), which asks it for __trunc__: JAX arrays "
    "define none, so eager math.trunc of a JAX array raises this TypeError too (of a Python number it is an int)",
    "Use jnp.trunc(x) (jnp.floor, jnp.ceil, jnp.round), a float array, with .astype(jnp.int32) where an int is "
    "meant; or int(x), which truncates toward zero too.",
)
# math's functions that need a Python number (given a traced value: JAX's ConcretizationTypeError, or
# ROUNDING's TypeError), and the jax.numpy call that computes each on the traced value.
_SAME_NAME_IN_JNP = ("floor", "ceil", "trunc", "sqrt", "exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos",
                     "tan", "sinh", "cosh", "tanh", "isnan", "isinf", "isfinite", "copysign", "hypot", "degrees",
                     "radians", "fmod", "ldexp", "frexp", "modf")
_MATH_IN_JNP: dict[Any, str] = {
    **{getattr(math, name): f"jnp.{name}(x)" for name in _SAME_NAME_IN_JNP},
    math.asin: "jnp.arcsin(x)", math.acos: "jnp.arccos(x)", math.atan: "jnp.arctan(x)", math.atan2: "jnp.arctan2(y, x)",
    math.pow: "jnp.power(x, y)", math.fabs: "jnp.abs(x)", complex: "jnp.asarray(x, jnp.complex64)",
}
_ROUNDED = (math.floor, math.ceil, math.trunc)  # an int eagerly; jnp's is a float array
_CARRY_WHAT = ("a lax control-flow function (cond, switch, while_loop, fori_loop, scan) got branch outputs or "
               "a carry of different types")
CARRY = Kind(
    _CARRY_WHAT,
    "Give each branch output and carried value one shape and dtype on every path: start a carry with "
    "its final shape and dtype, and convert outputs with .astype(...) or jnp.asarray(..., dtype).",
)
CARRY_SHAPE = Kind(
    _CARRY_WHAT,
    "Keep each carried value's shape fixed: a shape cannot grow in a lax loop, so preallocate at a static "
    "size and write with .at[i].set(...); give both branches of a cond the same shape (slice, pad or broadcast).",
)
CARRY_DTYPE = Kind(
    _CARRY_WHAT,
    "Give each carried value and branch output one dtype: start a carry with the dtype the body gives it "
    "(jnp.asarray(init, dtype)), or convert an output with .astype(...).",
)

_SLICE_MESSAGES = ("Slice entries must be static integers", "Array slice indices must have static")
_SHAPE_MESSAGE = "Shapes must be 1D sequences of concrete values"
_UNHASHABLE = re.compile(r"unhashable type: '\w*Tracer'$")
_REPEATED = re.compile(r"unsupported operand type\(s\) for \*=?: '(list|tuple|str|\w*Tracer)' and "
                       r"'(list|tuple|str|\w*Tracer)'$")
_MATH_CALL = re.compile(r"(?<![\w.])(math\.\w+|complex)\s*\(")
_NO_ROUNDING = re.compile(r"type \w*Tracer doesn't define __(trunc|floor|ceil|round)__ method$")
_NO_ATTRIBUTE = re.compile(r"\w*Tracer has no attribute (\w+)$")
_NUMBER_ATTRIBUTES = frozenset().union(*(dir(kind) for kind in (int, float, complex)))
_CARRY_MESSAGE = re.compile(r"must have (identical|equal|same) (output )?types?|must have same type structure")


def kind_of(error: BaseException) -> Kind | None:
    """The kind of ``error`` if it is one of JAX's errors about a traced value, else ``None``."""
    if isinstance(error, ConversionError):
        return None  # ours: already located
    if isinstance(error, jax.errors.NonConcreteBooleanIndexError):
        return MASK
    if isinstance(error, jax.errors.TracerBoolConversionError):
        return BOOL
    if isinstance(error, jax.errors.TracerIntegerConversionError):
        return INTEGER
    if isinstance(error, jax.errors.TracerArrayConversionError):
        return NUMPY
    if isinstance(error, jax.errors.ConcretizationTypeError):
        return CONCRETE
    if type(error) is AttributeError:
        return _number_attribute(str(error))
    if not isinstance(error, (IndexError, TypeError)):
        return None  # the others are never formatted: a user's exception passes through untouched
    message = str(error)
    if type(error) is TypeError and _UNHASHABLE.match(message):
        return HASH
    repeated = _REPEATED.match(message) if type(error) is TypeError else None
    if repeated and sorted(name.endswith("Tracer") for name in repeated.groups()) == [False, True]:
        return REPEAT
    if isinstance(error, IndexError) and message.startswith(_SLICE_MESSAGES):
        return SLICE
    if type(error) is TypeError and message.startswith(_SHAPE_MESSAGE):
        return SHAPE
    if type(error) is TypeError and _NO_ROUNDING.match(message):
        return ROUNDING
    if type(error) is TypeError and _CARRY_MESSAGE.search(message):
        return _carry_kind(message)
    return None


def _number_attribute(message: str) -> Kind | None:
    """JAX's "``<Tracer> has no attribute <name>``" where Python's numbers have ``name``
    (``k.bit_length()``, ``x.is_integer()``): the value is a Python number in eager Python only if
    nothing made it an array, so the message says both."""
    found = _NO_ATTRIBUTE.match(message)
    if found is None or found.group(1) not in _NUMBER_ATTRIBUTES:
        return None
    name = f"`.{found.group(1)}`"
    return Kind(NUMBER_ATTRIBUTE.what.format(name=name), NUMBER_ATTRIBUTE.hint.format(name=name))


def math_kind(location: Location) -> Kind | None:
    """The kind naming the jax.numpy call for each of math's functions (or ``complex``) that the user's
    line calls by name (``math.floor(x)``), when it calls any: such a call of a module's function runs
    as it is, with no frame of ours to say which one the traced value was given to."""
    called = dict.fromkeys(_MATH_CALL.findall(linecache.getline(location.filename, location.lineno)))
    functions = [function for function in (_math_function(name) for name in called) if function in _MATH_IN_JNP]
    if not functions:
        return None
    names = [f"{_math_name(function)}()" for function in functions]
    fixes = "; ".join(f"{_MATH_IN_JNP[function]} for {_math_name(function)}()" for function in functions)
    integer = " (a float array: .astype(jnp.int32) where an int is meant)" if set(functions) & set(_ROUNDED) else ""
    return Kind(f"a traced value given to {' or '.join(names)}, which needs a Python number: its value is known "
                "only when the program runs",
                f"Use {fixes}{integer}: jax.numpy computes it on the traced value.")


def _math_function(name: str) -> Any:
    return complex if name == "complex" else getattr(math, name.removeprefix("math."), None)


def _math_name(function: Any) -> str:
    return "complex" if function is complex else f"math.{function.__name__}"


def _carry_kind(message: str) -> Kind:
    """The fix for what JAX says differs: only shapes, only dtypes, or something else (structure, both)."""
    shapes, dtypes = "shapes do not match" in message, "dtypes do not match" in message
    if shapes and not dtypes:
        return CARRY_SHAPE
    if dtypes and not shapes:
        return CARRY_DTYPE
    return CARRY


_RAISED_EAGERLY_TOO = (CARRY, CARRY_SHAPE, CARRY_DTYPE)  # a lax call of the user's traces eagerly too
# The runtime's functions that trace a staged branch or loop body (jax_errors.py fills it: this module
# cannot import them, as the runtime's raises.py imports this one).
STAGING_CODES = CodeSet()
_TRACER_NAME = re.compile(r"'?\b\w*Tracer\b'?")


def kind_in_context(error: BaseException) -> Kind | None:
    """:func:`kind_of`, or, for Python's ``TypeError`` / ``AttributeError`` about a traced value (``x + "!"``,
    ``x.magnitude``) raised while tracing a staged branch or loop body, a kind of its own: eager Python
    raises it, for the JAX array, only where it takes that branch (or runs the body), and the trace
    runs it whatever the condition. Raised outside staged code, eager raises it too: no kind."""
    kind = kind_of(error)
    if kind is not None or type(error) not in (TypeError, AttributeError) or not _TRACER_NAME.search(str(error)):
        return kind
    if not _raised_while_staging(error):
        return None
    return Kind(f"{_as_eager(error)}: Python raises this for the traced value (a JAX array) whatever its value, "
                "where eager Python raises it only when the program takes this path",
                "Make the code valid for a JAX array, or decide the condition that leads to it with a value that "
                "is not traced (static_argnums / static_argnames), so that Python runs only the path it takes.",
                "Python's")


def _raised_while_staging(error: BaseException) -> bool:
    traceback = error.__traceback__
    while traceback is not None:
        if traceback.tb_frame.f_code in STAGING_CODES:
            return True
        traceback = traceback.tb_next
    return False


def _as_eager(error: BaseException) -> str:
    """``error``'s message as eager Python words it for the JAX array the tracer stands for."""
    with jax.ensure_compile_time_eval():  # a concrete array, also while tracing; made when worded, not at import
        array_class = type(jax.numpy.zeros(()))
    eager_name = f"'{array_class.__module__}.{array_class.__qualname__}'"
    missing = _NO_ATTRIBUTE.match(str(error))
    if missing:
        return f"{eager_name} object has no attribute '{missing.group(1)}'"
    return _TRACER_NAME.sub(eager_name, str(error))


def only_tracing_raises(error: BaseException) -> bool:
    """Whether ``error`` is one of JAX's refusals of a traced value that the same code raises only
    because it is traced: eager Python, holding a concrete value there, runs on (``math.sqrt(x)``,
    ``x.item()``, ``np.asarray(x)``, ``x[:n]``, ``{k: 1}[k]`` of a Python int). A user's ``except``
    around it would run a handler eager Python does not run. Where eager's value is an array that
    raises the same error (a JAX array has no hash either), the located error stands in for eager's
    handler: a refusal, never a silent change. So does Python's error about a traced value raised in a
    staged branch or loop body (:func:`kind_in_context`): eager runs that code only on some paths. Not
    the errors of a ``lax`` call of the user's, which eager Python traces too."""
    kind = kind_in_context(error)
    return kind is not None and kind not in _RAISED_EAGERLY_TOO

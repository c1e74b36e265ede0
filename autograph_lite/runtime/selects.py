"""A staged ``if`` whose branches are small, pure and gradient-neutral becomes selects, not a ``lax.cond``.

An expert writes ``jnp.where(score < 0.5, 1, 2)``, not a ``lax.cond``, for a choice between a few
scalars: a cond is a sub-computation that XLA compiles on its own and runs behind a branch, where a
select is one fused instruction. So the ``lax.cond`` is first staged into a jaxpr of its own (its
branches traced once, as ``lax.cond`` always traces them, with JAX's own checks and errors), and
when the choice is provably the same computation either way the outputs are ``lax.select_n`` of
both branches' values, bound from the branch jaxprs; otherwise that one ``cond`` equation is bound
as it is (no user code runs twice, and no branch equation is traced twice).

Running both branches is exact only when:

- neither branch has an effect (a print, a run-time check, a callback): a select runs both;
- every equation is a pure primitive from a known list, on small arrays (:data:`SMALL`): XLA's
  arithmetic never traps (an integer division by zero gives a value the select drops), and the
  branch not taken costs little;
- reverse mode gives the same gradient. A select sends a zero cotangent into the branch not taken,
  and a nonlinear primitive multiplies it by its derivative there, which may be infinite or NaN
  (``0 * inf`` is NaN: ``jnp.where(x > 0, jnp.sqrt(x), 0.0)`` has a NaN gradient at ``x = 0``, the
  cond does not). So a value computed from a floating-point input may flow only through primitives
  whose transpose reads no such value: sums, moves, selects, and products with a value known finite
  (:func:`_gradient_neutral`). XLA folds constant factors (``x * 1024.0 * 128.0``: one factor of
  131072, an infinity in float16) and divides by a constant as a product with its reciprocal, so the
  product of the factors along the way must stay finite in the value's dtype too (a bound, its
  "gain", is tracked). Integer and boolean values carry no gradient and are unrestricted.

Running the branch not taken still shows where a tool looks at every operation, as ``jnp.where``
does: ``checkify`` reports its errors, and a zero gradient's sign may change (``-0.0 + 0.0``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.extend import core as jex_core

from .weak_types import converted

COND, SELECT = "lax.cond", "lax.select_n"
# Why explain says a choice is a select.
SELECT_REASON = "the condition is traced; both branches are small, pure and gradient-neutral: a select of their values"
# At most this many elements in any value the branches compute (the branch not taken is wasted work).
SMALL = 64
# At most this many elements in each output: a select of arrays runs over every element, where a cond
# skips the branch's work when it is not taken (shortest_route's `distance.at[v].set(...)` in a 12-node
# relaxation ran 1.10x the hand-written time as a select of the updated arrays, 0.92x as a cond).
SMALL_OUTPUT = 4
# At most this many equations in both branches together, those of nested ``jit``s included.
MAX_EQUATIONS = 24

# Pure primitives that never trap and run in time linear in their operands.
_PURE = frozenset({
    "abs", "acos", "add", "and", "argmax", "argmin", "asin", "atan", "atan2", "broadcast_in_dim",
    "ceil", "clamp", "concatenate", "convert_element_type", "copy", "copy_p", "cos", "cosh", "div",
    "dynamic_slice", "dynamic_update_slice", "eq", "exp", "exp2", "expm1", "floor", "gather", "ge", "gt",
    "integer_pow", "iota", "is_finite", "le", "log", "log1p", "logistic", "lt", "max", "min", "mul", "ne",
    "neg", "nextafter", "not", "or", "pow", "reduce_and", "reduce_max", "reduce_min", "reduce_or",
    "reduce_sum", "rem", "reshape", "round", "rsqrt", "scatter", "scatter-add", "select_n",
    "shift_left", "shift_right_arithmetic", "shift_right_logical", "sign", "sin", "sinh", "slice",
    "sqrt", "square", "squeeze", "stack", "sub", "tan", "tanh", "transpose", "xor",
})
# Primitives that read only a few elements of their first operand, whatever its size.
_READS_PART = frozenset({"dynamic_slice", "gather", "slice"})
# Primitives through which a cotangent of zero stays zero whatever the values: their transpose reads
# no value computed from a floating-point input (``max`` / ``min`` choose by comparison only).
_LINEAR = frozenset({
    "add", "broadcast_in_dim", "clamp", "concatenate", "convert_element_type", "copy", "copy_p",
    "dynamic_slice", "dynamic_update_slice", "gather", "max", "min", "neg", "reduce_sum", "reshape",
    "scatter", "scatter-add", "select_n", "slice", "squeeze", "stack", "sub", "transpose",
})


def cond_or_select(predicate: jax.Array, true_fn: Callable[[], list[Any]], false_fn: Callable[[], list[Any]],
                   may_select: Callable[[], bool]) -> tuple[list[Any], str]:
    """The outputs of ``lax.cond(predicate, true_fn, false_fn)``, as selects where that is exact, and
    the primitive that chose (``SELECT`` or ``COND``, as ``explain`` names it).

    ``may_select`` is asked after both traces (a branch that raises at run time keeps the cond).
    A failure of ``lax.cond`` (outputs that do not agree) is raised as ``lax.cond`` raises it.
    """
    staged = jax.make_jaxpr(lambda: lax.cond(predicate, true_fn, false_fn))()
    conds = [equation for equation in staged.jaxpr.eqns if equation.primitive.name == "cond"]
    if len(conds) == 1 and may_select() and selectable(conds[0].params["branches"]):
        return _as_arrays(_bound(staged, conds[0], predicate)), SELECT
    return _as_arrays(jex_core.jaxpr_as_fun(staged)()), COND


def _as_arrays(values: list[Any]) -> list[Any]:
    """What ``lax.cond`` returns: a value that both branches pass through is a jaxpr constant, possibly
    the user's own NumPy array, which ``lax.cond`` hands back as a JAX array (an in-place ``+=`` on it
    after the ``if`` must not change the user's array)."""
    return [value if isinstance(value, jax.Array | jax.core.Tracer) else jnp.asarray(value) for value in values]


def selectable(branches: Sequence[jex_core.ClosedJaxpr]) -> bool:
    """Whether selecting between the outputs of a cond's branches (jaxprs of the same operands)
    computes exactly what the cond computes."""
    first = [(aval.shape, aval.dtype) for aval in branches[0].out_avals]
    if any(int(np.prod(shape, dtype=np.int64)) > SMALL_OUTPUT for shape, _ in first):
        return False
    for branch in branches:
        if branch.effects or [(a.shape, a.dtype) for a in branch.out_avals] != first:
            return False
    if sum(_equation_count(branch.jaxpr) for branch in branches) > MAX_EQUATIONS:
        return False
    return all(_gradient_neutral(branch.jaxpr, [1.0 if _floating(const) else None for const in branch.consts],
                                 [1.0 if _floating_type(v.aval) else None for v in branch.jaxpr.invars]) is not None
               for branch in branches)


def _bound(staged: jex_core.ClosedJaxpr, cond: jex_core.JaxprEqn, predicate: jax.Array) -> list[Any]:
    """The staged ``lax.cond``'s outputs, its ``cond`` equation bound as selects of the branches'
    values (``branches`` is ``(false, true)``), every other equation that they still need as it is
    (not the predicate's conversion to the cond's index)."""
    values: dict[Any, Any] = dict(zip(staged.jaxpr.constvars, staged.consts))

    def read(var: Any) -> Any:
        return var.val if isinstance(var, jex_core.Literal) else values[var]

    for equation in _needed(staged.jaxpr, cond):
        if equation is cond:
            operands = [read(var) for var in equation.invars[1:]]
            on_false, on_true = [zip(jex_core.jaxpr_as_fun(branch)(*operands), branch.out_avals)
                                 for branch in equation.params["branches"]]
            outputs = [_select(predicate, true, false) for true, false in zip(on_true, on_false)]
        else:
            outputs = equation.primitive.bind(*[read(var) for var in equation.invars], **equation.params)
            outputs = outputs if equation.primitive.multiple_results else [outputs]
        values.update(zip(equation.outvars, outputs))
    return [read(var) for var in staged.jaxpr.outvars]


def _needed(jaxpr: jex_core.Jaxpr, cond: jex_core.JaxprEqn) -> list[jex_core.JaxprEqn]:
    """The equations of ``jaxpr`` whose outputs the outputs need once ``cond`` reads no index."""
    needed = {var for var in jaxpr.outvars if isinstance(var, jex_core.Var)}
    kept = []
    for equation in reversed(jaxpr.eqns):
        reads = equation.invars[1:] if equation is cond else equation.invars
        if equation is cond or needed.intersection(equation.outvars):
            needed.update(var for var in reads if isinstance(var, jex_core.Var))
            kept.append(equation)
    return kept[::-1]


def _select(predicate: jax.Array, on_true: tuple[Any, Any], on_false: tuple[Any, Any]) -> Any:
    """One output: ``(value, aval)`` of each branch, selected; strongly typed unless both are weak
    (what ``conditionals.strongly_typed_where_a_branch_is`` makes of the cond's output)."""
    if on_true[0] is on_false[0]:
        return on_true[0]  # the branches pass the same value through
    weak = on_true[1].weak_type and on_false[1].weak_type
    cases = [_as_typed(value, aval.dtype, weak) for value, aval in (on_false, on_true)]
    return lax.select_n(predicate, *cases)


def _as_typed(value: Any, dtype: Any, weak: bool) -> Any:
    """``value`` (an array, or a jaxpr literal's number) as an array of ``dtype``, weakly typed or not."""
    array = value if isinstance(value, jax.Array | jax.core.Tracer) else jnp.asarray(value, dtype)
    if jax.typeof(array).weak_type != weak:
        array = converted(array, dtype, weak=weak)
    return array


def _equation_count(jaxpr: jex_core.Jaxpr) -> int:
    return sum(1 + sum(_equation_count(sub.jaxpr) for sub in _nested_jaxprs(equation)) for equation in jaxpr.eqns)


def _nested_jaxprs(equation: jex_core.JaxprEqn) -> list[jex_core.ClosedJaxpr]:
    return [value for value in equation.params.values() if isinstance(value, jex_core.ClosedJaxpr)]


def _floating(value: Any) -> bool:
    """Whether a value the branch reads may carry a gradient (a floating-point array of any origin)."""
    return _floating_type(jax.typeof(value))


def _floating_type(aval: Any) -> bool:
    return bool(jnp.issubdtype(aval.dtype, jnp.inexact))


def _gradient_neutral(jaxpr: jex_core.Jaxpr, const_gains: list[float | None],
                      input_gains: list[float | None]) -> list[float | None] | None:
    """For each output of ``jaxpr``: ``None`` where it carries no gradient, else a bound on the factor
    by which it scales the cotangents of the floating-point constants and inputs it depends on (whose
    own gain is given, ``None`` for none). ``None`` in all where some equation is not pure and small,
    or where a zero cotangent could become NaN on its way back (see the module's docstring)."""
    gains: dict[Any, float] = {v: g for v, g in zip(jaxpr.constvars, const_gains) if g is not None}
    gains.update((v, g) for v, g in zip(jaxpr.invars, input_gains) if g is not None)
    bounds: dict[Any, float] = {}  # values known finite (integers converted), by the largest magnitude
    for equation in jaxpr.eqns:
        outputs = _equation_gains(equation, gains, bounds)
        if outputs is None:
            return None
        gains.update((v, g) for v, g in zip(equation.outvars, outputs) if g is not None)
        bound = _integer_bound(equation)
        if bound is not None:
            bounds[equation.outvars[0]] = bound
    return [None if isinstance(v, jex_core.Literal) else gains.get(v) for v in jaxpr.outvars]


def _equation_gains(equation: jex_core.JaxprEqn, gains: dict[Any, float],
                    bounds: dict[Any, float]) -> list[float | None] | None:
    """The gains of ``equation``'s outputs (``None``: no gradient); ``None`` where it is not allowed."""
    reads = [None if isinstance(v, jex_core.Literal) else gains.get(v) for v in equation.invars]
    if not _small(equation):
        return None
    name = equation.primitive.name
    if name in ("jit", "pjit"):
        inner = equation.params["jaxpr"]
        return _gradient_neutral(inner.jaxpr, [1.0 if _floating(c) else None for c in inner.consts], reads)
    if name not in _PURE:
        return None
    floating_out = [_floating_type(v.aval) for v in equation.outvars]
    if all(gain is None for gain in reads) or not any(floating_out):
        return [None] * len(floating_out)  # no gradient reaches a floating input through it
    gain = _scaled_gain(equation, reads, bounds)
    if gain is None and name in _LINEAR:
        gain = sum(g for g in reads if g is not None)  # each operand's cotangent, at most summed
    if gain is None or any(out and not gain <= _largest(v.aval) for out, v in zip(floating_out, equation.outvars)):
        return None  # nonlinear, or constants whose product XLA may fold into an infinity
    return [gain if out else None for out in floating_out]


def _scaled_gain(equation: jex_core.JaxprEqn, reads: list[float | None], bounds: dict[Any, float]) -> float | None:
    """The gain of a product with, or a quotient by, a value known finite that carries no gradient
    (to divide: a literal of normal magnitude, whose reciprocal XLA may take); ``None`` otherwise."""
    name, operands = equation.primitive.name, equation.invars
    flagged = [g is not None for g in reads]
    if name == "mul" and flagged.count(True) == 1:
        factor = _magnitude(operands[flagged.index(False)], bounds)
        gain = reads[flagged.index(True)]
        return None if factor is None or gain is None else gain * factor
    if name == "div" and flagged == [True, False] and isinstance(operands[1], jex_core.Literal):
        divisor = np.abs(np.asarray(operands[1].val, np.float64))
        result: Any = equation.outvars[0].aval
        tiny = float(jnp.finfo(result.dtype).tiny)
        if np.all(np.isfinite(divisor)) and np.all(divisor >= tiny) and reads[0] is not None:
            return reads[0] / float(divisor.min())
    return None


def _largest(aval: Any) -> float:
    """The largest finite value of a floating-point (or complex) aval's dtype."""
    return float(jnp.finfo(aval.dtype).max)


def _magnitude(operand: Any, bounds: dict[Any, float]) -> float | None:
    """The largest magnitude ``operand`` may have: a finite literal's, an integer's converted."""
    if isinstance(operand, jex_core.Literal):
        value = np.abs(np.asarray(operand.val, np.float64))
        return float(value.max(initial=0.0)) if np.all(np.isfinite(value)) else None
    return bounds.get(operand)


def _integer_bound(equation: jex_core.JaxprEqn) -> float | None:
    """The largest magnitude of an integer (or bool) converted to a float by ``equation``; ``None``
    for any other equation, or a float too narrow to hold every such integer."""
    if equation.primitive.name != "convert_element_type":
        return None
    operand: Any = equation.invars[0].aval
    source, target = operand.dtype, equation.params["new_dtype"]
    if not jnp.issubdtype(target, jnp.floating) or jnp.issubdtype(source, jnp.inexact):
        return None
    widest = 1.0 if source == np.bool_ else float(np.iinfo(source).max)
    return widest if float(jnp.finfo(target).max) > widest else None


def _small(equation: jex_core.JaxprEqn) -> bool:
    read = equation.invars[1:] if equation.primitive.name in _READS_PART else equation.invars
    return all(_size(v) <= SMALL for v in (*read, *equation.outvars))


def _size(var: Any) -> int:
    return int(np.prod(getattr(var.aval, "shape", ()), dtype=np.int64))

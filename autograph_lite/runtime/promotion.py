"""Whether a staged loop may start a carried bool as the number its body turns it into.

Eagerly, ``flag = x > 0`` is a bool and ``flag = flag - 1`` in a loop body makes it an int; from the
second iteration on, the body runs on that int. A staged loop keeps one type per carried value, so it
carries the int from the start: the bool enters converted (``True`` is 1). The first iteration then
reads ``1`` where eager Python read ``True``, which gives the same values only if it reads the bool as
the number it stands for. ``~flag`` does not (it is ``False`` for ``True`` but ``-2`` for ``1``), nor
does a comparison of two bools whose result stays a bool.

So the first iteration (the body, and a ``while`` loop's test) is traced once aside with the entry
types, and the start is allowed when every use of such a bool there converts it to a number, or is
the predicate of a select (``jnp.where``, which reads any number by its truth), directly or inside the
``lax.cond`` / ``jit`` call it is passed to. Otherwise the loop keeps the ``StagingTypeError`` that
names both dtypes. A weakly typed entry value (a Python ``0``) needs none of this: JAX starts it
with the dtype the body gives it, as eager arithmetic promotes a Python scalar, where that dtype
holds its value (:mod:`.narrow_numbers`: ``y = 300``, then ``y = v_uint8``, is refused).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
from jax.extend import core as jex_core

from . import appends, report
from .values import Split

# Uses of a bool that read it as the number it stands for (True is 1), at any operand position.
_NUMERIC_READS = frozenset({"convert_element_type"})


def reads_bools_as_numbers(readers: Sequence[Callable[..., Any]], entry: tuple, split: Split,
                           slots: Sequence[int]) -> bool:
    """Whether each of ``readers``, traced on the entry types, uses the bool leaves ``slots`` as numbers.

    ``readers`` take the carried values (what one iteration reads first); ``entry`` is the state they
    stand for (so that effect checks see through the copies). A reader that cannot be traced aside
    (an effect refused in the trial, an error) counts as reading them otherwise.
    """
    abstract = split.abstract().arrays
    for reader in readers:
        def first_iteration(*arrays: Any, reader: Callable[..., Any] = reader) -> tuple[()]:
            with appends.inside(appends.Collector(trial=True)):
                values = split.rebuild(arrays)
                appends.carry_entered(values, entry)
                reader(*values)
            return ()

        try:
            with report.paused():  # a trial: what it decides is not the program's
                closed = jax.make_jaxpr(first_iteration)(*abstract)
        except Exception:  # any failure of the trial means: not shown to be exact
            return False
        if not all(_read_as_number(closed.jaxpr, closed.jaxpr.invars[slot]) for slot in slots):
            return False
    return True


def _read_as_number(jaxpr: jex_core.Jaxpr, var: jex_core.Var) -> bool:
    """Whether every use of ``var`` in ``jaxpr`` (and in the sub-jaxprs it is passed to) is numeric."""
    for equation in jaxpr.eqns:
        for position, operand in enumerate(equation.invars):
            if operand is not var:
                continue
            name = equation.primitive.name
            if name in _NUMERIC_READS or (name == "select_n" and position == 0):
                continue
            inner = _inner_variables(equation, position)
            if inner is None or not all(_read_as_number(j, v) and v not in j.outvars for j, v in inner):
                return False
    return True


def _inner_variables(equation: Any, position: int) -> list[tuple[jex_core.Jaxpr, Any]] | None:
    """The variables that operand ``position`` of a ``cond`` or ``jit`` equation binds inside it."""
    params = equation.params
    if equation.primitive.name == "cond" and position > 0:
        return [(branch.jaxpr, branch.jaxpr.invars[position - 1]) for branch in params["branches"]]
    inner = params.get("jaxpr")
    inner = getattr(inner, "jaxpr", inner)
    if isinstance(inner, jex_core.Jaxpr) and len(inner.invars) == len(equation.invars):
        return [(inner, inner.invars[position])]
    return None

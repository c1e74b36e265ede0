"""Values JAX refuses when they are traced, in generated programs (feature ``jax_refusals``, issue #16).

A boolean mask as an index (``jnp.sum(v[v > 0])``), a slice whose bound is an int expression
(``jnp.sum(v[:k])``), a dict looked up with ``int(k) % 2`` (a traced key has no hash), a Python
int's method (``int(k).bit_length()``), a list repeated ``int(k) % 3`` times and math's functions of a
number (``math.floor(s)``, ``math.trunc(float(s))``) run eagerly, and under ``convert`` on concrete inputs. Under
``jit`` the mask's array, the slice's bound or ``k`` is usually traced: then JAX refuses it, and the
converted function must
raise the located ``TracedValueError`` (runtime/jax_errors.py) at that statement's line, wherever the
statement sits (a staged branch or loop body, a loop kept in Python, nested blocks); a bound that
stays concrete under ``jit`` simply agrees with eager. With ``with_try``, a ``try`` may start with
the statement and have a handler that catches JAX's error (``except TypeError`` / ``Exception`` /
bare ``except``, program_with_try.py): eager Python never runs that handler, so under ``jit`` the
error must pass it, to the same located error.
"""

from __future__ import annotations

import linecache
import re

from hypothesis import strategies as st
from program_model import VECTORS, Block, Ctx, Scope, Var

# Every generated refusal ends with this comment: the located error must point at such a line.
MARK = "# refused by JAX when traced"
REFUSAL = re.compile(r"^(?P<file>\S+\.py):(?P<line>\d+): (a boolean mask used as an index|a slice with a traced "
                     r"start, stop or step|a traced value used as a dict key|a traced value has no attribute|"
                     r"a Python list, tuple or string repeated|a traced value given to math\.\w+)")
# math's functions of a number, given a traced value (the form "math"): each with the factor its result
# may multiply a bound by. math.trunc of a JAX array raises eagerly too (JAX arrays define no
# __trunc__): drawn of a Python float (float(s)), or in a ternary's arm that eager runs only past a bound.
MATH_FORMS = (("math.floor({s})", 2), ("math.ceil({s})", 2), ("math.isnan({s})", 1), ("math.isinf({s})", 1),
              ("math.trunc(float({s}))", 2), ("(math.trunc({s}) if {s} > 1000 else 0)", 2))


def located_at_a_refusal(match: re.Match[str], constructs: object, mode: str) -> bool:
    """A documented limitation under ``jit`` when the message names a line the generator marked."""
    return mode.startswith("jit") and MARK in linecache.getline(match.group("file"), int(match.group("line")))


class JaxRefusals:
    """The ``jax_refusal`` statement kind; a mixin of the program builder."""

    def extra_statements(self, scope: Scope, ctx: Ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        if self.has("jax_refusals") and self.visible(scope, VECTORS):
            kinds += ["jax_refusal"]
        return kinds

    def stmt_jax_refusal(self, scope: Scope, ctx: Ctx) -> Block:
        self.used.add("jax_refusals")
        vector = self.pick(self.visible(scope, VECTORS))
        text = self.variable(scope, vector).text
        form = self.draw(st.sampled_from(["mask", "slice", "dict_key", "number_method", "repeat", "math"]))
        value, factor = f"jnp.sum({text})", 1
        if form == "mask":
            value = f"jnp.sum({text}[{text} > 0])"
        elif form == "slice":
            value = f"jnp.sum({text}[:{self.expr('i', scope).text}])"
        elif form == "dict_key":  # a dict looked up with a traced key: it has no hash
            value, factor = f"{value} * {{0: 1, 1: -2}}[int({self.expr('i', scope).text}) % 2]", 2
        elif form == "number_method":  # a Python int's method on what is traced under jit
            value, factor = f"{value} * int({self.expr('i', scope).text}).bit_length()", 32
        elif form == "math":  # math's function of a value that is traced under jit: it needs a Python number
            self.module_parts["import_math"] = "import math"
            template, factor = self.pick(MATH_FORMS)
            value = f"{value} * {template.format(s=value)}"
        else:  # a list repeated a number of times that is traced under jit
            value, factor = f"{value} * len([0] * (int({self.expr('i', scope).text}) % 3))", 2
        length = 4  # the longest vector the programs use
        name = self.fresh("v")
        scalar = "f" if vector.type == "vf" else "i"
        new_scope = scope.copy()
        new_scope.define(Var(name, scalar, vector.bound * length * factor))
        return Block([f"{name} = {value}  {MARK}"], new_scope)

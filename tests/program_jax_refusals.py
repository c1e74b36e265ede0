"""Values JAX refuses when they are traced, in generated programs (feature ``jax_refusals``, issue #16).

A boolean mask as an index (``jnp.sum(v[v > 0])``) and a slice whose bound is an int expression
(``jnp.sum(v[:k])``) run eagerly, and under ``convert`` on concrete inputs. Under ``jit`` the mask's
array, or the slice's bound, is usually traced: then JAX refuses it, and the converted function must
raise the located ``TracedValueError`` (runtime/jax_errors.py) at that statement's line, wherever the
statement sits (a staged branch or loop body, a loop kept in Python, nested blocks); a bound that
stays concrete under ``jit`` simply agrees with eager. Not drawn with ``with_try``: a generated
``except`` around the statement would catch JAX's error before the function re-raises it located.
"""

from __future__ import annotations

import linecache
import re

from hypothesis import strategies as st
from program_model import VECTORS, Block, Ctx, Scope, Var

# Every generated refusal ends with this comment: the located error must point at such a line.
MARK = "# refused by JAX when traced"
REFUSAL = re.compile(r"^(?P<file>\S+\.py):(?P<line>\d+): (a boolean mask used as an index|a slice with a traced "
                     r"start, stop or step)")


def located_at_a_refusal(match: re.Match[str], constructs: object, mode: str) -> bool:
    """A documented limitation under ``jit`` when the message names a line the generator marked."""
    return mode.startswith("jit") and MARK in linecache.getline(match.group("file"), int(match.group("line")))


class JaxRefusals:
    """The ``jax_refusal`` statement kind; a mixin of the program builder."""

    def extra_statements(self, scope: Scope, ctx: Ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        if self.has("jax_refusals") and not self.has("with_try") and self.visible(scope, VECTORS):
            kinds += ["jax_refusal"]
        return kinds

    def stmt_jax_refusal(self, scope: Scope, ctx: Ctx) -> Block:
        self.used.add("jax_refusals")
        vector = self.pick(self.visible(scope, VECTORS))
        text = self.variable(scope, vector).text
        if self.draw(st.booleans()):
            selected = f"{text}[{text} > 0]"
        else:
            selected = f"{text}[:{self.expr('i', scope).text}]"
        length = 4  # the longest vector the programs use
        name = self.fresh("v")
        scalar = "f" if vector.type == "vf" else "i"
        new_scope = scope.copy()
        new_scope.define(Var(name, scalar, vector.bound * length))
        return Block([f"{name} = jnp.sum({selected})  {MARK}"], new_scope)

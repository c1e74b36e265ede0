"""``any(...)`` / ``all(...)`` of conditions, in the generated programs: over a list comprehension or
a generator expression on a vector's elements, or over a list / tuple display of scalar conditions;
and ``min(...)`` / ``max(...)`` of a generator expression on a vector's elements (a number leaf).

Python takes each element's truth in order and stops at the first that decides; a traced element's
truth is known at run time only, so the converter takes the elements after it too and combines their
truths at run time. With the ``print`` feature an element may call ``shown(k)``, which prints: in a
generator expression eager Python prints only for the elements it draws, and so must the converted
code (a list comprehension prints for every element, eagerly too).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from program_model import VECTORS, E

ANY_ALL_KINDS = ("any_of", "all_of")


class AnyAll:
    """``min(e ... for e in v)`` / ``max(...)``: Python draws every element of the generator, then
    compares them in order (a traced element's comparison is known at run time only)."""

    def extra_leaves(self, t: str, scope: Any) -> list:
        options = super().extra_leaves(t, scope)
        vectors = self.visible(scope, ("v" + t,)) if self.has("any_all") and t in ("f", "i") else []
        if vectors:
            options.append(lambda: self.extreme_of_elements(self.pick(vectors), scope))
        return options

    def extreme_of_elements(self, var: Any, scope: Any) -> E:
        element = self.fresh("e")
        shift = self.draw(st.integers(-2, 2))
        name = self.pick(["min", "max"])
        text = f"{name}({element} + {shift} for {element} in {self.use(scope, var)})"
        return self.using("any_all", E(text, var.bound + 2, var.type == "vf"))


def any_all_test(builder: Any, kind: str, scope: Any, depth: int) -> E:
    """``any(...)`` (``kind`` "any_of") or ``all(...)`` of conditions; ``builder`` draws (an ``Expressions``)."""
    name = kind[:3]
    vectors = builder.visible(scope, VECTORS)
    if vectors and builder.chance(60):
        var = builder.pick(vectors)
        element = builder.fresh("e")
        bound = builder.expr(var.type[1:], scope, depth)
        operator = builder.pick([">", "<", ">=", "!="])
        test = f"{element} {operator} {bound.text}"
        if builder.has("print") and builder.chance(30):
            test = f"({test}) == ({builder.shown_leaf().text} > 1)"
        # a generator expression as the argument, or a list comprehension, made whole first
        source = f"{test} for {element} in {builder.use(scope, var)}"
        return builder.using("any_all", E(f"{name}({source})" if builder.chance(70) else f"{name}([{source}])", 1, False))
    conditions = [builder.condition_expr(scope, depth, pure=True).text for _ in range(builder.pick([1, 2, 3]))]
    inner = ", ".join(conditions)
    display = f"[{inner}]" if builder.chance(50) else f"({inner},)"
    return builder.using("any_all", E(f"{name}({display})", 1, False))

"""Module-level helpers with a traced ``if`` handed to library functions in generated programs
(feature ``transform_arguments``).

A helper passed from converted code to ``jax.grad``, ``map``, ``functools.reduce`` or
``jax.tree_util.tree_map`` is converted before the call (runtime/function_arguments.py), so its ``if``
on a traced value stages under ``jit``; eagerly it runs as Python (``jax.grad`` on a concrete number
traces with a concrete primal, so the ``if`` still reads a value). These four keep the eager
reference valid; ``jax.vmap`` / ``lax.scan`` of such a helper would raise eagerly (the case would be
discarded), so they are covered by tests/test_transform_arguments.py instead, as are module-level
``@jax.vmap`` / ``@jax.checkpoint`` / ``@jax.jit`` helpers called from converted code
(tests/test_wrapped_helpers.py). A module-level ``@jax.custom_jvp`` helper runs its function on
concrete values eagerly, so its ``if`` reads a value; called from converted code under ``jit`` it is
refused at the call, naming the wrapper (a custom_jvp cannot be rebuilt around the converted function).

Bounds: a helper maps ``v`` to ``v * a`` or ``v * b + c`` with ``|a|, |b| <= 2`` and ``|c| <= 3``, so its
result is at most ``2 * |v| + 3``; its argument is clipped to :data:`CLIP`, its slope is at most 2.
"""

from __future__ import annotations

from hypothesis import strategies as st
from program_model import CLIP, SCALARS, E, Scope

_SCALES = {"i": ("2", "-1", "1"), "f": ("2.0", "-1.0", "0.5", "1.5")}
_SHIFTS = {"i": ("0", "1", "-3", "3"), "f": ("0.0", "1.0", "-2.5", "3.0")}


class TransformArguments:
    """``jax.grad(H)(x)``, ``sum(map(H, ...))``, ``functools.reduce(R, ...)`` and ``tree_map(H, ...)``
    leaves; a mixin of the program builder."""

    def extra_leaves(self, t: str, scope: Scope) -> list:
        options = super().extra_leaves(t, scope)
        if self.has("transform_arguments") and t in SCALARS and not getattr(self, "inside_transform", False):
            options += [lambda: self.without_transform_nesting(t, scope)]
        return options

    def without_transform_nesting(self, t: str, scope: Scope) -> E:
        """A transform leaf whose arguments hold none of their own (each would draw another)."""
        self.inside_transform = True
        try:
            kinds = ["map", "reduce", "tree_map"] + (["grad", "custom_jvp"] if t == "f" else [])
            return getattr(self, "transform_" + self.pick(kinds))(t, scope)
        finally:
            self.inside_transform = False

    def helper(self, t: str) -> str:
        """A new module-level ``def H(v)`` with an ``if`` on ``v``, keeping ``v``'s type; its name."""
        self.module_parts.setdefault("jax", "import jax")
        name = self.fresh("HELPER")
        threshold = self.draw(st.integers(-4, 4)) / (4 if t == "f" else 1)
        threshold_text = str(threshold if t == "f" else int(threshold))
        self.module_parts[name] = (
            f"def {name}(v):\n    if v > {threshold_text}:\n        return v * {self.pick(_SCALES[t])}\n"
            f"    return v * {self.pick(_SCALES[t])} + {self.pick(_SHIFTS[t])}"
        )
        return name

    def helper_argument(self, t: str, scope: Scope) -> E:
        return self.small(self.floated(self.expr(t, scope, self.draw(st.integers(0, 2))), t), CLIP)

    def transform_grad(self, t: str, scope: Scope) -> E:
        argument = self.helper_argument(t, scope)
        return self.using("transform_arguments", E(f"jax.grad({self.helper(t)})({argument.text})", 2, True))

    def transform_custom_jvp(self, t: str, scope: Scope) -> E:
        """``H(x)`` of a module-level ``@jax.custom_jvp`` helper with an ``if`` on its argument."""
        name = self.helper(t)
        rule = f"{name}_jvp"
        self.module_parts[name] = (
            "@jax.custom_jvp\n" + self.module_parts[name] + f"\n\n\n@{name}.defjvp\ndef {rule}(primals, tangents):\n"
            f"    (v,), (t,) = primals, tangents\n    return {name}(v), t"
        )
        argument = self.helper_argument(t, scope)
        return self.using("transform_arguments", E(f"{name}({argument.text})", 2 * argument.bound + 3, True))

    def transform_map(self, t: str, scope: Scope) -> E:
        arguments = [self.helper_argument(t, scope) for _ in range(self.draw(st.integers(1, 3)))]
        bound = sum(2 * a.bound + 3 for a in arguments)
        texts = ", ".join(a.text for a in arguments)
        return self.using("transform_arguments", E(f"sum(map({self.helper(t)}, [{texts}]))", bound, t == "f"))

    def transform_reduce(self, t: str, scope: Scope) -> E:
        """``functools.reduce(R, [...], start)`` with a module-level ``def R(total, v)`` holding an ``if``."""
        self.module_parts.setdefault("functools", "import functools")
        name = self.fresh("REDUCER")
        threshold = self.draw(st.integers(-4, 4)) / (4 if t == "f" else 1)
        threshold_text = str(threshold if t == "f" else int(threshold))
        self.module_parts[name] = (
            f"def {name}(total, v):\n    if v > {threshold_text}:\n        return total + v * {self.pick(_SCALES[t])}\n"
            f"    return total + {self.pick(_SHIFTS[t])}"
        )
        arguments = [self.helper_argument(t, scope) for _ in range(self.draw(st.integers(1, 3)))]
        bound = sum(2 * a.bound + 3 for a in arguments) + 1
        texts = ", ".join(a.text for a in arguments)
        start = "1.0" if t == "f" else "1"
        return self.using("transform_arguments", E(f"functools.reduce({name}, [{texts}], {start})", bound, t == "f"))

    def transform_tree_map(self, t: str, scope: Scope) -> E:
        first, second = self.helper_argument(t, scope), self.helper_argument(t, scope)
        index = self.draw(st.integers(0, 1))
        bound = 2 * max(first.bound, second.bound) + 3
        text = f"jax.tree_util.tree_map({self.helper(t)}, ({first.text}, {second.text}))[{index}]"
        return self.using("transform_arguments", E(text, bound, t == "f"))

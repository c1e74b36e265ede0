"""Helpers that update arrays in place, in generated programs (feature ``array_helpers``).

``a[i] = a[i] + 1.0`` in a helper changes the caller's NumPy array; on a JAX array the converter
can only rebind ``a`` inside the helper, which the caller never sees (issue #13). The generator
defines module-level helpers (:data:`HELPERS`) that update their array argument in place, return
it, return an updated copy, or read the updated element back, and calls them on ``f``'s float
array arguments and on copies and aliases of them (*buffers*). The check (program_check.py) then
runs eager ``f`` and ``convert(f)`` on NumPy copies of the inputs and compares the arguments after
the call too; ``jit(f)`` must agree or refuse the update with the documented error.

A buffer is read elsewhere only through a copy (``a.copy()``, see ``Expressions.variable``): a view
(``a[::-1]``) or a second name bound to it would follow later updates in NumPy and not in JAX, a
difference of NumPy, not of the converter. Buffers hold floats, whose bounds guard against nothing
(only int32 can overflow), so updates do not track them.
"""

from __future__ import annotations

from hypothesis import strategies as st
from program_model import CLIP, Block, E, Scope, Var

STEP = 4.0  # |x| of what one update adds
HELPERS = {
    "bump": "def bump(a, k, x):\n    a[k] = a[k] + x",
    "bump_read": "def bump_read(a, k, x):\n    a[k] += x\n    return a[k]",
    "bump_returned": "def bump_returned(a, k, x):\n    a[k] = a[k] + x\n    return a",
    "bumped": "def bumped(a, k, x):\n    b = a.copy()\n    b[k] = b[k] + x\n    return b",
    "halve_all": "def halve_all(a):\n    for j in range(len(a)):\n        a[j] = a[j] * 0.5",
}


class ArrayHelpers:
    """Buffers, and the calls of the helpers that update them."""

    def parameter_types(self, types: list[str]) -> list[str]:
        types = super().parameter_types(types)
        if self.has("array_helpers") and self.has("vectors") and "vf" not in types:
            types = types[:2] + ["vf"]  # something to update in place
        return types

    def parameter(self, name: str, t: str) -> Var:
        if self.has("array_helpers") and t == "vf":
            return Var(name, t, CLIP, "buffer")
        return super().parameter(name, t)

    def buffers(self, scope: Scope) -> list[Var]:
        return [v for v in scope.defined.values() if v.kind == "buffer"]

    def buffer(self, scope: Scope) -> str:
        return self.pick(self.buffers(scope)).name

    def extra_statements(self, scope: Scope, ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        if self.has("array_helpers") and self.buffers(scope):
            # (once: under jit most in-place updates are refused, which ends the check of the program)
            kinds += ["helper_update", "buffer_copy", "buffer_alias"]
        return kinds

    def prelude_kinds(self) -> list[str]:
        return super().prelude_kinds() + (["buffer_copy"] if self.has("array_helpers") else [])

    def helper_call(self, helper: str, buffer: str, scope: Scope) -> str:
        """``helper(buffer, k, x)``: the helper's definition goes into the module."""
        self.used.add("array_helpers")
        self.module_parts[helper] = HELPERS[helper]
        if helper == "halve_all":
            return f"halve_all({buffer})"
        step = self.small(self.floated(self.expr("f", scope, self.draw(st.integers(0, 1))), "f"), STEP)
        return f"{helper}({buffer}, {self.draw(st.integers(-1, self.length - 1))}, {step.text})"

    def extra_leaves(self, t: str, scope: Scope) -> list:
        options = super().extra_leaves(t, scope)
        if self.has("array_helpers") and self.buffers(scope):
            if t == "f":
                options.append(lambda: E(self.helper_call("bump_read", self.buffer(scope), scope), CLIP + STEP, True))
            if t == "vf":
                options.append(lambda: E(self.helper_call("bumped", self.buffer(scope), scope), CLIP + STEP, True))
        return options

    def stmt_helper_update(self, scope: Scope, ctx) -> Block:
        """A helper that updates a buffer in place, called for its effect (or rebinding the buffer)."""
        helper, buffer = self.pick(["bump_returned", "bump", "halve_all"]), self.buffer(scope)
        call = self.helper_call(helper, buffer, scope)
        return Block([f"{buffer} = {call}" if helper == "bump_returned" else call], scope)

    def stmt_buffer_copy(self, scope: Scope, ctx) -> Block:
        """``w = a.copy()``: a buffer of ``f``'s own."""
        if not self.buffers(scope):
            return Block([], scope)
        return self.new_buffer(scope, ".copy()")

    def stmt_buffer_alias(self, scope: Scope, ctx) -> Block:
        """``w = a``: a second name for a buffer; an update through one shows through the other."""
        return self.new_buffer(scope, "")

    def new_buffer(self, scope: Scope, suffix: str) -> Block:
        name, source = self.fresh("w"), self.buffer(scope)
        scope = scope.copy()
        scope.define(Var(name, "vf", CLIP, "buffer"))
        return Block([f"{name} = {source}{suffix}"], scope)

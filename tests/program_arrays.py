"""Helpers that update arrays in place, in generated programs (feature ``array_helpers``).

``a[i] = a[i] + 1.0`` in a helper changes the caller's NumPy array; on a JAX array the converter
can only rebind ``a`` inside the helper, which the caller never sees (issue #13). The generator
defines module-level helpers (:data:`HELPERS`) that update their array argument in place, return
it, return an updated copy, or read the updated element back, and calls them on ``f``'s float
array arguments and on copies and aliases of them (*buffers*). The check (program_check.py) then
runs eager ``f`` and ``convert(f)`` on NumPy copies of the inputs and compares the arguments after
the call too; ``jit(f)`` must agree or refuse the update with the documented error.

Some helpers store through a second way to their argument, which NumPy updates too: a view (a
slice, ``.reshape(-1)``, the rows a ``for`` loop draws from ``a.reshape(-1, 1)``, the right-hand side
of ``a[:1], a[-1:] = a[-1:], a[:1]``, which NumPy reads after the first store) or a second name for
it (an unpacking ``b, c = a, a``, a ternary ``a if x > 0.0 else a``, an item of a list ``[a]``, a
``for`` target over a tuple holding it, an item read off a list or dict the helper is given that holds
it: ``b = box[0]`` in ``bump_held([a], k, x)``). Converted, the store rebinds only the name it goes through,
so ``jit`` must refuse it with the documented error (docs/semantics.md, "Argument mutation and
aliases"). ``f`` itself reads a buffer only through a copy (``a.copy()``, see
``Expressions.variable``), so that its own reads stay plain. Buffers hold floats, whose bounds guard
against nothing (only int32 can overflow), so updates do not track them.

Some helpers exercise what NumPy's in-place store computes beyond ``a[k] = v``: an augmented store
through an index array with repeats (one update per distinct index), an augmented store into an int
copy (the result cast back to int32: ``c[k] /= 2`` truncates), and a store past the end (NumPy's
``IndexError``, which the converted program must raise too: :func:`is_store_past_end`).
"""

from __future__ import annotations

import dataclasses
import re

from hypothesis import strategies as st
from program_model import CLIP, Block, E, Scope, Var

STEP = 4.0  # |x| of what one update adds
HELPERS = {
    "bump": "def bump(a, k, x):\n    a[k] = a[k] + x",
    "bump_read": "def bump_read(a, k, x):\n    a[k] += x\n    return a[k]",
    "bump_returned": "def bump_returned(a, k, x):\n    a[k] = a[k] + x\n    return a",
    "bumped": "def bumped(a, k, x):\n    b = a.copy()\n    b[k] = b[k] + x\n    return b",
    "halve_all": "def halve_all(a):\n    for j in range(len(a)):\n        a[j] = a[j] * 0.5",
    # through a view or a second name of the argument (see above)
    "bump_view": "def bump_view(a, k, x):\n    v = a[::-1]\n    v[k] = v[k] + x",
    "bump_view_returned": "def bump_view_returned(a, k, x):\n    v = a.reshape(-1)\n    v[k] = v[k] + x\n"
                          "    return a",
    "halve_rows": "def halve_rows(a):\n    for row in a.reshape(-1, 1):\n        if row[0] > 0.0:\n"
                  "            row[0] = row[0] * 0.5\n    return a",
    "swap_ends": "def swap_ends(a):\n    a[:1], a[-1:] = a[-1:], a[:1]\n    return a",
    "bump_pair": "def bump_pair(a, k, x):\n    b, c = a, a\n    b[k] = c[k] + x\n    return c",
    "bump_either": "def bump_either(a, k, x):\n    b = a if x > 0.0 else a\n    b[k] = b[k] + x\n    return a",
    "bump_boxed": "def bump_boxed(a, k, x):\n    box = [a]\n    b = box[0]\n    b[k] = b[k] + x\n    return a",
    "bump_each": "def bump_each(a, k, x):\n    for b in (a, a[::-1]):\n        b[k] = b[k] + x\n    return a",
    # NumPy's augmented store through an index array is one update per distinct index, not one per repeat
    "bump_picked": "def bump_picked(a, k, x):\n    a[np.array([k, k, 0])] += x\n    return a",
    "scale_picked": "def scale_picked(a, k, x):\n    a[np.array([0, k, k])] *= x\n    return a",
    # NumPy's store casts the result back to the array's dtype: the quotient and the root are truncated
    "halve_int": ("def halve_int(a, k, x):\n    c = a.clip(0, 1000).astype(np.int32)\n    c[k] /= 2\n"
                  "    c[k] **= 0.5\n    a[k] = c[k] + x\n    return a"),
    # the same on a copy of its own, read back: the caller's buffer is untouched, so jit runs it
    "halved_int": ("def halved_int(a, k, x):\n    c = a.clip(0, 1000).astype(np.int32)\n    c[k] /= 2\n"
                   "    c[k] **= 0.5\n    return a[k] + c[k].astype(np.float32)"),
    # a store past the end raises NumPy's IndexError (for k > 0), after the stores before it
    "fill_past": "def fill_past(a, k, x):\n    for j in range(len(a) + k):\n        a[j] = x\n    return a",
    # given a list / dict holding the buffer: the item is the buffer itself (see above)
    "bump_held": "def bump_held(box, k, x):\n    b = box[0]\n    b[k] = b[k] + x\n    return box",
    "bump_entry": "def bump_entry(d, k, x):\n    b = d['a']\n    b[k] = b[k] + x",
}
# helpers given the buffer inside a container: how the call wraps it, and reads it back from the result
HELD = {"bump_held": ("[{}]", "[0]"), "bump_entry": ("{{'a': {}}}", "")}
VIEW_HELPERS = ("bump_view", "bump_view_returned", "halve_rows", "swap_ends", "bump_pair", "bump_either",
                "bump_boxed", "bump_each", "bump_held", "bump_entry")
UNARY = frozenset({"halve_all", "halve_rows", "swap_ends"})  # helpers of the buffer alone
# helpers that return their argument, called as `buffer = helper(buffer, ...)`
RETURNING = ("bump_returned", "bump_view_returned", "halve_rows", "swap_ends", "bump_pair", "bump_either",
             "bump_boxed", "bump_each", "bump_held")
NUMPY_HELPERS = frozenset({"bump_picked", "scale_picked", "halve_int", "fill_past"})  # (they return the buffer)
PAST_END = re.compile(r"index -?\d+ is out of bounds for axis \d+ with size \d+")


def is_store_past_end(error: BaseException) -> bool:
    """Whether ``error`` is NumPy's for an index past the end (``fill_past``): the converted program
    must raise it too."""
    return type(error) is IndexError and PAST_END.fullmatch(str(error)) is not None


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
            kinds += ["helper_update", "buffer_copy", "buffer_alias", "view_update"]
        return kinds

    def prelude_kinds(self) -> list[str]:
        return super().prelude_kinds() + (["buffer_copy"] if self.has("array_helpers") else [])

    def helper_call(self, helper: str, buffer: str, scope: Scope) -> str:
        """``helper(buffer, k, x)``: the helper's definition goes into the module."""
        self.used.add("array_helpers")
        if helper in NUMPY_HELPERS or helper == "halved_int":
            self.module_parts.setdefault("numpy", "import numpy as np")
        self.module_parts[helper] = HELPERS[helper]
        if helper in UNARY:
            return f"{helper}({buffer})"
        wrap, unwrap = HELD.get(helper, ("{}", ""))
        step = self.small(self.floated(self.expr("f", scope, self.draw(st.integers(0, 1))), "f"), STEP)
        return f"{helper}({wrap.format(buffer)}, {self.draw(st.integers(-1, self.length - 1))}, {step.text}){unwrap}"

    def returning_only(self) -> bool:
        """Whether this program's helpers all return the buffer they update, drawn once per program:
        ``jit`` refuses an update the caller cannot see, which ends the check of a program before
        the stores of its other helpers are compared."""
        if not hasattr(self, "_returning_only"):
            self._returning_only = self.draw(st.booleans())
        return self._returning_only

    def extra_leaves(self, t: str, scope: Scope) -> list:
        options = super().extra_leaves(t, scope)
        if self.has("array_helpers") and self.buffers(scope) and t == "f" and not self.has("special_floats"):
            options.append(lambda: E(self.helper_call("halved_int", self.buffer(scope), scope), CLIP + 32, True))
        if self.has("array_helpers") and self.buffers(scope) and not self.returning_only():
            if t == "f":
                options.append(lambda: E(self.helper_call("bump_read", self.buffer(scope), scope), CLIP + STEP, True))
            if t == "vf":
                options.append(lambda: E(self.helper_call("bumped", self.buffer(scope), scope), CLIP + STEP, True))
        return options

    def stmt_helper_update(self, scope: Scope, ctx) -> Block:
        """A helper that updates a buffer in place, called for its effect (or rebinding the buffer)."""
        # helpers whose update jit can run; a NaN input makes NumPy's cast to int warn (special_floats)
        helpers = ["bump_returned", *sorted(NUMPY_HELPERS - ({"halve_int"} if self.has("special_floats") else set()))]
        if not self.returning_only():
            helpers += [*RETURNING[1:], "bump", "halve_all", "bump_view"]
        helper, buffer = self.pick(helpers), self.buffer(scope)
        call = self.helper_call(helper, buffer, scope)
        returned = helper in RETURNING or helper in NUMPY_HELPERS  # (the caller rebinds: jit can run it)
        return Block([f"{buffer} = {call}" if returned else call], scope)

    def stmt_view_update(self, scope: Scope, ctx) -> Block:
        """A helper that stores through a view or a second name of a buffer, then the buffer's sum added
        to a float the program returns (mostly; an int one, in quarters, where it has no float), so that
        a lost store changes the result."""
        helper, buffer = self.pick(VIEW_HELPERS), self.buffer(scope)
        call = self.helper_call(helper, buffer, scope)
        lines = [f"{buffer} = {call}" if helper in RETURNING else call]
        floats = [v for v in scope.defined.values() if v.kind == "local" and v.type in ("f", "vf")]
        ints = [v for v in scope.defined.values() if v.kind == "local" and v.type in ("i", "vi")]
        if not floats and not ints:
            return Block(lines, scope)
        target, total = self.returned_first(floats or ints), f"jnp.sum({buffer}.copy())"
        if not floats:  # in quarters, rounded: the buffers hold multiples of 1/4
            total = f"jnp.round({total} * 4.0).astype(jnp.int32)"
        value = self.clip(E(f"({target.name} + {total})", target.bound + CLIP * self.length * 8, bool(floats)), CLIP)
        scope = scope.copy()
        scope.define(dataclasses.replace(target, bound=max(target.bound, value.bound), weak=False))
        return Block(lines + [f"{target.name} = {value.text}"], scope)

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

"""Integers past float32's exact range, and values of two dtypes, in generated programs.

Two features close the generator's dtype blind spot (the check compares dtypes too: program_dtypes.py):

- ``big_ints``: int constants and an int argument (type ``"I"``, never a loop bound) beyond 2**24,
  where float32 stops holding every integer, so that an int32 computed as float32 shows in its value
  (16777217 becomes 16777216.0). Assignments keep values up to :data:`BIG_CLIP_ABOVE` unclipped.
- ``mixed_dtypes``: the constructs the converter unifies types in, given operands of two of int /
  float / bool (a traced int32, a Python number, a comparison): ternaries, value ``and`` / ``or`` and
  ``max`` / ``min`` as leaves of float expressions, an ``if`` whose branches assign one new variable two dtypes, and a
  loop whose carry enters with one dtype and leaves with another. Such a variable is a float variable
  that may hold an int or a bool (``Var.weak``): no float witness, as ``acc = 0`` is not.

Under ``jit`` a staged choice between two dtypes has one: eager's where the types unify as
docs/semantics.md documents (a Python number takes the other's dtype, a bool becomes a number),
otherwise a located ``StagingTypeError`` (program_check.py accepts it for these programs only).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from hypothesis import strategies as st
from program_model import CLIP, CLIP_ABOVE, FLOAT_ARG, FLOAT_CONSTANTS, Block, E, Scope, Var

EXACT = 1 << 24  # float32 holds every integer up to this one, and not 2**24 + 1
BIG_INTS = (EXACT + 1, EXACT + 3, 2 * EXACT - 1, -(EXACT + 1), 20_000_001)
BIG_ARG = 1 << 25  # the int argument of type "I" lies in [-BIG_ARG, BIG_ARG]
BIG_CLIP_ABOVE = 1 << 26  # with big_ints, an assignment outside loops is clipped only past this
MIXED_TYPES = ("i", "f", "b")  # what a mixed value's operands are drawn from (two different ones)


# What Python's int() raises for a float it cannot make an int of, and int() / float() for a complex
# JAX array (which has no real value: Python's TypeError): a converted cast of a traced value must
# raise them too, where the program runs (int_of_float and float_of_complex draw such casts).
INT_CAST_ERRORS = (("ValueError", "cannot convert float NaN to integer"),
                   ("OverflowError", "cannot convert float infinity to integer"),
                   ("TypeError", "int() argument must be a string, a bytes-like object or a real number, not 'complex'"),
                   ("TypeError", "float() argument must be a string or a real number, not 'complex'"))


def is_int_cast_error(error: BaseException) -> bool:
    """Whether ``error`` is what ``int()`` of a NaN or an infinity raises."""
    return (type(error).__name__, str(error)) in INT_CAST_ERRORS


def big_int_values() -> st.SearchStrategy:
    """Values of the ``"I"`` argument: mostly past 2**24 (odd ones are not float32 integers), some small."""
    big = st.integers(EXACT + 1, BIG_ARG) | st.integers(-BIG_ARG, -(EXACT + 1))
    return st.one_of(big, st.integers(-6, 6)).map(np.int32)


class MixedDtypes:
    """Big integers and values of two dtypes; a mixin of the program builder."""

    @property
    def clip_above(self) -> float:
        """The largest bound an assignment outside loops keeps unclipped."""
        return BIG_CLIP_ABOVE if self.has("big_ints") else CLIP_ABOVE

    def const(self, t: str) -> E:
        if t == "i" and self.has("big_ints") and self.chance(15):
            self.used.add("big_ints")
            value = self.pick(BIG_INTS)
            return E(str(value) if value >= 0 else f"({value})", abs(value), False)
        return super().const(t)

    def parameter_types(self, types: list[str]) -> list[str]:
        types = super().parameter_types(types)
        if self.has("big_ints") and self.chance(50):
            self.used.add("big_ints")
            types = types[:2] + ["I"]
        return types

    def parameter(self, name: str, t: str) -> Var:
        if t == "I":  # kind "big": read as an int, never a range bound or a while limit (kind "arg")
            return Var(name, "i", BIG_ARG, "big")
        return super().parameter(name, t)

    def extra_leaves(self, t: str, scope: Scope) -> list[Callable[[], E]]:
        leaves = super().extra_leaves(t, scope)
        if t == "f" and self.has("mixed_dtypes"):
            leaves.append(lambda: self.mixed_value(scope))
        floats = [var for var in self.visible(scope, ("f",)) if var.kind == "arg"]
        if t == "i" and self.has("special_floats") and floats:
            leaves.append(lambda: self.int_of_float(scope, floats))
        if t == "f" and self.has("special_floats") and floats and self.chance(20):
            leaves.append(lambda: self.float_of_complex(scope, floats))
        return leaves

    def int_of_float(self, scope: Scope, floats: list[Var]) -> E:
        """``int(x)`` of a float argument, which may be NaN or infinite (special_floats), where Python
        raises ValueError / OverflowError: a cast of a traced float must raise them too, on the path
        that reaches it. Sometimes ``int(jnp.complex64(x))``: Python's TypeError, a complex has no int."""
        self.used.add("special_floats")
        value = self.use(scope, self.pick(floats))
        return E(f"int({self.pick([value] * 4 + [f'jnp.complex64({value})'])})", FLOAT_ARG, False)

    def float_of_complex(self, scope: Scope, floats: list[Var]) -> E:
        """``float(jnp.complex64(x))``: Python's TypeError, where the program reaches it (a cast of the
        traced complex would drop the imaginary part)."""
        self.used.add("special_floats")
        return E(f"float(jnp.complex64({self.use(scope, self.pick(floats))}))", FLOAT_ARG, True)

    def prelude_kinds(self) -> list[str]:
        # a mixed value at the top level, before the control flow: visible where the function returns,
        # so that its dtype (max(k, 0.5): eager's int32 k as it is) is compared, not hidden by arithmetic
        kinds = super().prelude_kinds()
        return kinds + ["mixed_assign"] if self.has("mixed_dtypes") else kinds

    def extra_statements(self, scope: Scope, ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        if self.has("mixed_dtypes"):
            kinds += ["mixed_assign"]
            if self.budget > 0:
                kinds += ["mixed_if", "mixed_carry"] * (2 if ctx.depth == 0 else 1)
        return kinds

    # --- values of two dtypes -------------------------------------------------------------------

    def two_types(self) -> tuple[str, str]:
        first = self.pick(MIXED_TYPES)
        second = self.pick([t for t in MIXED_TYPES if t != first])
        return first, second

    def typed_operand(self, t: str, scope: Scope, depth: int = 0) -> E:
        """An operand of type ``t``: bools include the literals, numbers their Python constants."""
        if t == "b":
            if self.chance(20):
                return E(self.pick(["True", "False"]), 1, False)
            return self.condition_expr(scope, depth, pure=True)
        if t == "f" and self.chance(20):
            return E(self.pick(FLOAT_CONSTANTS), 3, True)
        if t == "i" and self.has("big_ints") and self.chance(25):  # a Python int float32 does not hold
            self.used.add("big_ints")
            value = self.pick(BIG_INTS)
            return E(str(value) if value >= 0 else f"({value})", abs(value), False)
        return self.small(self.expr(t, scope, depth), self.clip_above)

    def mixed_value(self, scope: Scope) -> E:
        """``(x if c else y)``, ``(x or y)``, ``(x and y)``, ``max(x, y)`` / ``min(x, y)`` (or of the list
        ``[x, y]``: Python returns the winner as it is, in its own dtype) with ``x`` and ``y`` of two dtypes."""
        self.used.add("mixed_dtypes")
        first, second = self.two_types()
        x, y = self.typed_operand(first, scope), self.typed_operand(second, scope)
        kind = self.pick(["ternary", "or", "and", "max", "min"] + (["table"] * 2 if self.has("indexing") else []))
        if kind == "table":  # a Python list of ints and floats indexed by an int expression (program_indexing.py)
            return self.mixed_table(scope)
        if kind in ("max", "min"):
            text = self.pick([f"{kind}({x.text}, {y.text})", f"{kind}([{x.text}, {y.text}])"])
        elif kind == "ternary":
            text = f"({x.text} if {self.condition(scope, 0).text} else {y.text})"
        else:
            text = f"({x.text} {kind} {y.text})"
        return E(text, max(x.bound, y.bound, 1), False)

    def weak_var(self, name: str, *values: E) -> Var:
        """The variable that holds one of ``values`` (of two dtypes): a float that may be no float."""
        return Var(name, "f", max(max(v.bound for v in values), 1), weak=True)

    def returned_as_is(self, t: str, scope: Scope) -> str | None:
        """Now and then a mixed value returned as it is for a float result, so that the value itself is
        compared (a Python int past 2**24 that a float choice would round; a variable holding one is
        mostly computed with further, or multiplied by 1.0 where a float is expected)."""
        if not (t == "f" and self.has("mixed_dtypes") and self.chance(30)):
            return None  # a state variable or an expression, as usual (program_generator.py)
        self.used.add("mixed_dtypes")
        return (self.mixed_table if self.has("indexing") and self.chance(50) else self.mixed_value)(scope).text

    def stmt_mixed_assign(self, scope: Scope, ctx) -> Block:
        name, value = self.fresh("v"), self.mixed_value(scope)
        scope = scope.copy()
        scope.define(self.weak_var(name, value))
        return Block([f"{name} = {value.text}"], scope)

    def stmt_mixed_if(self, scope: Scope, ctx) -> Block:
        """``if c: v = x`` / ``else: v = y``, ``x`` and ``y`` of two dtypes."""
        self.used.add("mixed_dtypes")
        name = self.fresh("v")
        first, second = self.two_types()
        x, y = self.typed_operand(first, scope, 1), self.typed_operand(second, scope, 1)
        lines = [f"if {self.condition(scope).text}:", f"    {name} = {x.text}", "else:", f"    {name} = {y.text}"]
        scope = scope.copy()
        scope.define(self.weak_var(name, x, y))
        return Block(lines, scope)

    def stmt_mixed_carry(self, scope: Scope, ctx) -> Block:
        """``v = x`` before a loop whose body assigns ``v`` a value of another dtype (maybe from ``v``)."""
        self.used.add("mixed_dtypes")
        name = self.fresh("v")
        first, second = self.two_types()
        x = self.typed_operand(first, scope)
        inside = scope.copy()
        inside.define(self.weak_var(name, x))
        y = self.typed_operand(second, inside)
        if second != "b" and self.chance(30):
            y = E(f"({name} + {self.small(y, CLIP).text})", CLIP, False)
        y = self.small(y, CLIP) if second != "b" else y
        header, first_lines = self.carry_loop(scope)
        lines = [f"{name} = {x.text}"] + header + [f"    {line}" for line in first_lines + [f"{name} = {y.text}"]]
        scope = scope.copy()
        scope.define(self.weak_var(name, x, y))
        return Block(lines, scope)

    def carry_loop(self, scope: Scope) -> tuple[list[str], list[str]]:
        """A loop header (lines before the body included) and the first lines of its body: a static
        range, a traced one (an int argument), or a ``while`` on a counter; zero trips possible."""
        bounds = [v.name for v in self.visible(scope, ("i",)) if v.kind == "arg"]
        kind = self.pick(["static", "while"] + (["traced"] if bounds else []))
        index = self.fresh("i")
        if kind == "static":
            return [f"for {index} in {self.pick(['range(3)', 'range(1)', 'range(0)'])}:"], []
        limit = self.pick(bounds) if bounds else str(self.draw(st.integers(0, 3)))
        if kind == "traced":
            return [f"for {index} in range({limit}):"], []
        counter = self.fresh("w")
        return [f"{counter} = 0", f"while {counter} < {limit}:"], [f"{counter} = {counter} + 1"]

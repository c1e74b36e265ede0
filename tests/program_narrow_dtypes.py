"""Narrow dtypes beside Python numbers in generated programs (feature ``narrow_dtypes``).

The other features draw int32 / float32 / bool values only, so they never see what a staged choice
does to a value of a narrower dtype beside a Python number: ``lax.cond`` / ``jnp.where`` / a ``lax``
loop carry need one dtype, and the one JAX's promotion gives (a Python float beside a float16 is a
float16) may not hold the Python number (``70000.0`` is ``inf`` as a float16, ``300`` wraps to 44 as
a uint8, ``0.1`` is 0.0999755859375 as a float16), where eager Python returns the number as it is.

A program of this feature has one parameter of a narrow type (:data:`NARROW_DTYPES`: float16,
bfloat16, uint8, int8, int16, uint16; float32 with 64-bit types on, AUTOGRAPH_LITE_FUZZ_X64=1), whose inputs include its dtype's extremes, and variables of
that type (returned, so the check compares them: values and dtypes). They are set by traced
``if`` / ``elif`` chains, ternaries, ``and`` / ``or``, ``max`` / ``min`` and loop carries whose operands are the narrow
value and Python constants near and past the dtype's limits (:data:`CONSTANTS`), in either order
(a loop entering with the Python number and its body giving the narrow value, and the reverse; a
Python int count that the body makes a Python float, then multiplied with the narrow value),
or the index of a loop beside the narrow value (a Python int known only when the program runs, where
the loop is staged), or a Python bool joined with a Python number first (``g = True if c else 1``), and used in arithmetic with a small Python number after the choice (float16 arithmetic stays
float16 eagerly), and ``sum`` of a vector of the narrow value (Python adds its elements one by one,
in the dtype), or a Python int that a helper returns from inside a loop. A narrow variable never enters the other features' expressions, whose bounds
assume int32 / float32.

Under ``jit`` such a choice has eager's value in one dtype, or is a located ``StagingTypeError``
(program_check.py accepts it for the programs that use this feature, as for ``mixed_dtypes``).
A bfloat16 input is passed as the float32 of the same value and cast on entry (NumPy has no bfloat16
scalar type to write a regression file's inputs with).
"""

from __future__ import annotations

import jax
import numpy as np
from hypothesis import strategies as st
from program_model import Block, E, Scope, Var

# type code -> the dtype's name in `jnp.` (the parameter's type, and its variables')
NARROW_DTYPES = {"h16": "float16", "bf16": "bfloat16", "u8": "uint8", "i8": "int8", "i16": "int16", "u16": "uint16",
                 "w32": "float32"}
# the narrow floats: float32 ("w32") is one only with 64-bit types on, where jit keeps a Python float a float64
NARROW_FLOATS = ("h16", "bf16", "w32")

# Python constants beside a value of each type: ones it holds, and ones near and past its limits (none
# past float32's: a Python float is the float32 jit makes of it, ``1e39`` is ``inf`` with no choice made)
CONSTANTS = {
    "h16": ("(-10.0)", "0.5", "3", "65504.0", "70000.0", "(-70000.0)", "0.1", "70000", "1e-08"),
    "bf16": ("(-10.0)", "0.5", "3", "0.1", "257.0", "3e+38", "3.4e+38", "257", "1e-08"),
    "u8": ("0", "3", "255", "256", "300", "(-1)", "70000", "2.5"),
    "i8": ("0", "(-3)", "127", "128", "(-129)", "300", "0.5"),
    "i16": ("0", "(-3)", "32767", "40000", "(-32769)", "70000", "0.5"),
    "u16": ("0", "3", "65535", "65536", "70000", "(-1)", "2.5"),
    "w32": ("(-10.0)", "0.5", "3", "0.1", "1e+300", "(-1e+300)", "1e-50", "3.4e+38", "16777217"),
}

# inputs of each type: small values, and values at the dtype's limits
INPUTS = {
    "h16": (0.0, 1.5, -2.25, 0.0999755859375, 1000.0, 60000.0, 65504.0, -65504.0),
    "bf16": (0.0, 1.5, -2.25, 256.0, 3.3895313892515355e38, -1.0e30),
    "u8": (0, 1, 3, 200, 255),
    "i8": (0, 1, -3, 127, -128),
    "i16": (0, 1, -3, 32767, -32768),
    "u16": (0, 1, 3, 65535, 40000),
    "w32": (0.0, 1.5, -2.25, 3.4028234663852886e38, 1e-38),
}

# Python numbers that a Python bool is joined with before it meets a narrow value (a program's ``g``):
# a float only beside a narrow float (``2.5 * v_u8`` is float32 where ``True * v_u8`` is uint8, eagerly)
GATE_NUMBERS = ("0", "1", "2")
GATE_FLOATS = ("0.5", "(-1.5)")

# a helper returning a Python int from inside a loop (or -1 after it)
FIRST_AT_LEAST = ("def first_at_least(v, t):\n    for i in range(v.shape[0]):\n        if v[i] >= t:\n"
                  "            return i\n    return -1")

# a small Python number that a narrow value is multiplied by after a choice: eager arithmetic in its dtype
FACTORS = {"h16": ("2", "0.5", "1.1"), "bf16": ("2", "0.5", "1.1"), "u8": ("2", "3"), "i8": ("2", "3"),
           "i16": ("2", "3"), "u16": ("2", "3"), "w32": ("2", "0.5", "1.1")}


def narrow_values(t: str) -> st.SearchStrategy:
    """Inputs of the narrow parameter of type ``t`` (a bfloat16's as float32: cast on entry)."""
    dtype = np.float32 if t == "bf16" else np.dtype(NARROW_DTYPES[t]).type
    return st.sampled_from(INPUTS[t]).map(dtype)


class NarrowDtypes:
    """Narrow-dtype parameters and the choices between them and Python numbers; a mixin of the builder."""

    narrow_type: str | None = None  # the type of the program's narrow parameter, once drawn
    narrow_parameter: str | None = None

    def parameter_types(self, types: list[str]) -> list[str]:
        types = super().parameter_types(types)
        if self.has("narrow_dtypes") and self.chance(80):
            wide = jax.config.jax_enable_x64 and self.chance(50)  # then mostly float32, the new narrow float
            self.narrow_type = "w32" if wide else self.pick([t for t in NARROW_DTYPES if t != "w32"])
            types = types[:2] + [self.narrow_type]
        return types

    def parameter(self, name: str, t: str) -> Var:
        if t in NARROW_DTYPES:
            self.narrow_parameter = name
            return Var(name, t, 1, "arg")
        return super().parameter(name, t)

    def entry_lines(self) -> list[str]:
        lines = super().entry_lines()
        if self.narrow_type == "bf16":
            lines = [f"{self.narrow_parameter} = jnp.asarray({self.narrow_parameter}, jnp.bfloat16)"] + lines
        return lines

    def extra_types(self) -> list[str]:
        types = super().extra_types()
        # mostly among the returned types (and so compared): a choice is checked where it is returned
        return types + [self.narrow_type] * 6 if self.narrow_type else types

    def prelude_kinds(self) -> list[str]:
        kinds = super().prelude_kinds()
        # first, at the top level, where the choice's condition is an argument (traced under jit)
        return kinds + ["narrow_if", "narrow_choice", "narrow_carry", "narrow_count", "narrow_arithmetic", "narrow_gate"] \
            if self.narrow_type else kinds

    def extra_statements(self, scope: Scope, ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        if self.narrow_type:
            # at the top level mostly: where the choice's condition is the function's argument
            kinds += ["narrow_choice", "narrow_arithmetic", "narrow_found"] * (4 if ctx.depth == 0 else 1)
            kinds += ["narrow_gate"] * (8 if ctx.depth == 0 else 1)
            if self.budget > 0:
                kinds += ["narrow_if", "narrow_carry"] * (4 if ctx.depth == 0 else 1)
                kinds += ["narrow_count"] * (8 if ctx.depth == 0 else 1)
                kinds += ["narrow_index"] * (2 if ctx.depth == 0 else 1)
        return kinds

    def expr(self, t: str, scope: Scope, depth: int | None = None, stable: bool = False) -> E:
        if t in NARROW_DTYPES:
            return self.narrow_operand(t, scope, constant=self.chance(30))
        return super().expr(t, scope, depth, stable)

    # --- operands and statements ----------------------------------------------------------------

    def narrow_operand(self, t: str, scope: Scope, constant: bool) -> E:
        """A narrow variable of type ``t`` (the parameter, or a local), or a Python constant beside it."""
        self.used.add("narrow_dtypes")
        variables = self.visible(scope, (t,))
        if constant or not variables:
            return E(self.pick(CONSTANTS[t]), 1, False)
        return E(self.use(scope, self.pick(variables)), 1, False)

    def traced_condition(self, scope: Scope) -> str:
        """A comparison of an argument with a constant (traced under ``jit``), or any condition."""
        arguments = [v for v in self.visible(scope, ("i", "f") + tuple(NARROW_DTYPES)) if v.kind == "arg"]
        if not arguments or self.chance(25):
            return self.condition(scope).text
        return f"({self.pick(arguments).name} {self.pick(['>', '==', '<='])} {self.pick(['0', '1', '3'])})"

    def two_operands(self, scope: Scope) -> tuple[E, E]:
        """A narrow variable and a Python constant, in either order."""
        t = self.narrow_type
        pair = (self.narrow_operand(t, scope, False), self.narrow_operand(t, scope, True))
        return pair if self.draw(st.booleans()) else (pair[1], pair[0])

    def narrow_var(self, name: str) -> Var:
        return Var(name, self.narrow_type, 1)

    def defined_as(self, scope: Scope, name: str, lines: list[str]) -> Block:
        scope = scope.copy()
        scope.define(self.narrow_var(name))
        return Block(lines, scope)

    def stmt_narrow_choice(self, scope: Scope, ctx) -> Block:
        """``n = (a if c else b)``, ``n = ((c and a) or b)``, ``n = (a or b)``, ``n = (a and b)``,
        ``n = max(a, b)`` / ``min(a, b)``, or ``n = sum(jnp.full((k,), m))``."""
        name, (a, b) = self.fresh("n"), self.two_operands(scope)
        kind = self.pick(["ternary", "and_or", "or", "and", "min_max", "sum"])
        if kind == "min_max":  # Python's choice of one operand: the number as it is where it wins
            text = f"{self.pick(['max', 'min'])}({a.text}, {b.text})"
        elif kind == "sum":  # Python adds the rows one by one, each sum rounded / wrapped in the dtype
            narrow = self.narrow_operand(self.narrow_type, scope, constant=False)
            text = f"sum(jnp.full(({self.pick(['3', '40', '300'])},), {narrow.text}))"
        elif kind == "ternary":
            text = f"({a.text} if {self.traced_condition(scope)} else {b.text})"
        elif kind == "and_or":
            text = f"(({self.traced_condition(scope)} and {a.text}) or {b.text})"
        else:
            text = f"({a.text} {kind} {b.text})"
        return self.defined_as(scope, name, [f"{name} = {text}"])

    def stmt_narrow_if(self, scope: Scope, ctx) -> Block:
        """``if c: n = a`` / [``elif d: n = e``] / ``else: n = b``: a narrow value and Python constants."""
        name, (a, b) = self.fresh("n"), self.two_operands(scope)
        lines = [f"if {self.traced_condition(scope)}:", f"    {name} = {a.text}"]
        if self.chance(35):
            middle = self.narrow_operand(self.narrow_type, scope, constant=self.chance(60))
            lines += [f"elif {self.traced_condition(scope)}:", f"    {name} = {middle.text}"]
        lines += ["else:", f"    {name} = {b.text}"]
        return self.defined_as(scope, name, lines)

    def stmt_narrow_carry(self, scope: Scope, ctx) -> Block:
        """``n = a`` before a loop whose body assigns ``n = b`` (a Python constant entering and the
        narrow value from the body, or the reverse), maybe ``n = (n * k)`` after it in the body."""
        name, (a, b) = self.fresh("n"), self.two_operands(scope)
        header, first_lines = self.carry_loop(scope)
        body = first_lines + [f"{name} = {b.text}"]
        if self.chance(30):
            body.append(f"{name} = ({name} * {self.pick(FACTORS[self.narrow_type])})")
        lines = [f"{name} = {a.text}"] + header + [f"    {line}" for line in body]
        return self.defined_as(scope, name, lines)

    def stmt_narrow_count(self, scope: Scope, ctx) -> Block:
        """``c = 0`` before a loop whose body adds ``0.1`` to it (a Python int that the first iteration
        makes a Python float), then ``n = (t * c)``: eager's float16 / bfloat16 arithmetic beside a
        Python float, which a staged loop's carry must keep weakly typed. The loop also carries ``t``, the
        narrow value, so that it is staged (a loop that carries Python values only runs as Python)."""
        if self.narrow_type not in NARROW_FLOATS:
            return self.stmt_narrow_carry(scope, ctx)
        narrow_locals = [v.name for v in self.visible(scope, (self.narrow_type,)) if v.kind == "local"]
        # mostly into a variable already there (a returned one among them): the product is then compared
        name = self.pick(narrow_locals) if narrow_locals and self.chance(70) else self.fresh("n")
        count, carried = self.fresh("c"), self.fresh("t")
        header, first_lines = self.carry_loop(scope)
        start = self.float_safe_operand(scope)
        body = first_lines + [f"{count} = {count} + {self.pick(['0.1', '0.3'])}", f"{carried} = ({carried} * 1)"]
        lines = [f"{count} = {self.pick(['0', '1', '3'])}", f"{carried} = {start.text}"] + header
        lines += [f"    {line}" for line in body]
        return self.defined_as(scope, name, lines + [f"{name} = ({carried} * {count})"])

    def float_safe_operand(self, scope: Scope) -> E:
        """The narrow parameter, an array, where a traced Python number multiplies the operand: a local
        may hold a Python float (``3e+38``), whose product with a traced count or gate is plain
        ``jax.jit``'s float32 ``inf`` where eager Python keeps a Python float (the documented form of a
        Python number made traced, docs/semantics.md)."""
        arguments = [v for v in self.visible(scope, (self.narrow_type,)) if v.kind == "arg"]
        return E(self.use(scope, self.pick(arguments)), 1, False) if arguments else \
            self.narrow_operand(self.narrow_type, scope, False)

    def stmt_narrow_index(self, scope: Scope, ctx) -> Block:
        """``n = m`` before a loop whose body chooses between its index and ``n`` (``n = (i if c else n)``
        or ``n = ((c and i) or n)``): a Python int beside the narrow value, known while tracing where the
        loop runs as Python (a static range) and only when the program runs where it is staged."""
        name, index = self.fresh("n"), self.fresh("i")
        start = self.narrow_operand(self.narrow_type, scope, constant=False)
        bounds = [v.name for v in self.visible(scope, ("i",)) if v.kind == "arg"]
        condition = self.traced_condition(scope)
        choice = self.pick([f"({index} if {condition} else {name})", f"(({condition} and {index}) or {name})"])
        lines = [f"{name} = {start.text}", f"for {index} in range({self.pick(bounds + ['3'])}):", f"    {name} = {choice}"]
        return self.defined_as(scope, name, lines)

    def stmt_narrow_gate(self, scope: Scope, ctx) -> Block:
        """``g = (True if c else 1)`` (an ``if``, ``and`` / ``or``, or a loop carry entering as the bool and
        set to the number in the body; or a comparison in place of ``True``), then ``n = ((g * m) + m)``:
        a bool is the lowest dtype, and a Python bool a Python number (``True`` is 1), so ``g`` beside the
        narrow ``m`` computes in ``m``'s dtype on every path, eagerly."""
        narrow_locals = [v.name for v in self.visible(scope, (self.narrow_type,)) if v.kind == "local"]
        # mostly into a variable already there (a returned one among them): the product is then compared
        name = self.pick(narrow_locals) if narrow_locals and self.chance(70) else self.fresh("n")
        gate = self.fresh("g")
        numbers = GATE_NUMBERS + (GATE_FLOATS if self.narrow_type in NARROW_FLOATS else ())
        # a Python bool, or a traced one (a comparison: as eager's bool beside a number, it computes in m's dtype)
        flag, number = self.pick(["True", "False", self.traced_condition(scope)]), self.pick(numbers)
        first, second = (flag, number) if self.draw(st.booleans()) else (number, flag)
        kind = self.pick(["ternary", "if", "and_or", "carry"])
        condition = self.traced_condition(scope)
        if kind == "ternary":
            lines = [f"{gate} = ({first} if {condition} else {second})"]
        elif kind == "if":
            lines = [f"if {condition}:", f"    {gate} = {first}", "else:", f"    {gate} = {second}"]
        elif kind == "and_or":
            lines = [f"{gate} = (({condition} and {first}) or {second})"]
        else:
            header, first_lines = self.carry_loop(scope)
            body = first_lines + ([f"if {condition}:", f"    {gate} = {second}"] if self.chance(50) else [f"{gate} = {second}"])
            lines = [f"{gate} = {first}"] + header + [f"    {line}" for line in body]
        operand = self.float_safe_operand(scope) if self.narrow_type in NARROW_FLOATS else \
            self.narrow_operand(self.narrow_type, scope, constant=False)
        lines.append(f"{name} = (({gate} * {operand.text}) + {operand.text})")
        return self.defined_as(scope, name, lines)

    def stmt_narrow_found(self, scope: Scope, ctx) -> Block:
        """``n = (m + first_at_least(v, t))``: a Python int returned from inside a loop (or after it),
        weakly typed as eager's, so that the sum computes in ``m``'s dtype."""
        vectors = [v.name for v in self.visible(scope, ("vf", "vi")) if v.kind == "arg"]
        if not vectors:
            return self.stmt_narrow_arithmetic(scope, ctx)
        self.module_parts["first_at_least"] = FIRST_AT_LEAST
        name, operand = self.fresh("n"), self.narrow_operand(self.narrow_type, scope, constant=False)
        found = f"first_at_least({self.pick(vectors)}, {self.pick(['0', '2', '-1'])})"
        return self.defined_as(scope, name, [f"{name} = ({operand.text} + {found})"])

    def stmt_narrow_arithmetic(self, scope: Scope, ctx) -> Block:
        """``n = (m * k)``: eager arithmetic in ``m``'s dtype (float16 rounding, uint8 wrapping), or
        Python's where ``m`` is still the Python number a choice gave it. ``k`` may be a Python number
        that a cast of an argument makes (``float(a)``, ``int(a) % 3``), known only when the program
        runs under ``jit``: still a Python number beside ``m``, so ``m``'s dtype computes."""
        name = self.fresh("n")
        operand = self.narrow_operand(self.narrow_type, scope, constant=False)
        arguments = [v.name for v in self.visible(scope, ("i", "f")) if v.kind == "arg"]
        factor = self.pick(FACTORS[self.narrow_type])
        if arguments and self.chance(40):
            cast = f"float({self.pick(arguments)})" if self.narrow_type in NARROW_FLOATS else f"(int({self.pick(arguments)}) % 3)"
            factor = self.pick([cast, f"({cast} * 0 + {factor})"])
        return self.defined_as(scope, name, [f"{name} = ({operand.text} * {factor})"])

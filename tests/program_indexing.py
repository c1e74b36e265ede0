"""A Python list indexed by an int expression in generated programs (feature ``indexing``).

``TABLE0[(n % 3)]`` with a traced ``n`` cannot call ``list.__getitem__``: the converter picks the
number from a constant array (weakly typed, as the Python scalar it stands for), and
``MOVES0[(n % 3)](x)`` calls the lambda the index picks as one ``lax.switch``. The lists are module
constants (a global read by ``f``); the index is any int expression folded into the list's range,
``e % n`` (Python's ``%`` by a positive divisor is never negative) and, now and then, the same
counted from the end, ``e % n - n``, so that negative indices occur. The lambdas of one list keep
their argument's type (an int stays an int, a float a float), as the branches of one ``lax.switch``
must. Now and then the index is a constant one past the end (``TABLE0[3]`` of three numbers): eager
Python raises ``IndexError`` wherever it evaluates it (an input set on which it does is discarded),
and where it does not (a branch, an arm or a loop body it skips on those inputs) the converted
program must not raise either, though it traces them (docs/semantics.md, "Python errors in code that
eager Python skips").

With ``mixed_dtypes``, a list may mix Python ints and floats (:meth:`Indexing.mixed_table`): eager
returns the int as it is, staged the two share a float, exact only where it holds the int, so with
``big_ints`` some ints lie past 2**24 (float32 has no 16777217); and with both, an int list or a
``range`` holds ints past int32's, which no staged int of a Python int holds, read as ``(... % 7)``.

Bounds: a number is at most :data:`LARGEST` in magnitude (a big int of the mixed tables aside); a lambda at most doubles its argument
and adds at most 3, so the argument is clipped to keep the result under the builder's guard.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st
from program_mixed_dtypes import BIG_INTS
from program_model import CLIP, SCALARS, E, Scope

LARGEST = 6
INT_LAMBDAS = ("lambda v: v * 2", "lambda v: v - 1", "lambda v: -v", "lambda v: v + 3", "lambda v: v // 2")
PAST_INT32 = (1 << 31, 3 * (1 << 31) + 5, -(1 << 31) - 1, (1 << 40) + 3)  # Python ints no int32 holds
RANGES_PAST_INT32 = ("range(0, 2 ** 40, 2 ** 38)", "range(2 ** 31, 2 ** 31 + 9, 3)", "range(-(2 ** 33), 0, 2 ** 31)")
FLOAT_LAMBDAS = ("lambda v: v * 0.5", "lambda v: v - 1.5", "lambda v: -v", "lambda v: v + 2.0", "lambda v: v * 2.0")


class Indexing:
    """``TABLE[index]`` leaves and ``MOVES[index](value)`` calls, from module-level lists."""

    def extra_leaves(self, t: str, scope: Scope) -> list:
        options = super().extra_leaves(t, scope)
        if self.has("indexing") and t in SCALARS and not getattr(self, "inside_index", False):
            options += [lambda: self.without_nesting(self.indexed_number, t, scope),
                        lambda: self.without_nesting(self.indexed_call, t, scope)]
        return options

    def without_nesting(self, draw_leaf: Callable[[str, Scope], E], t: str, scope: Scope) -> E:
        """``draw_leaf(t, scope)``, whose index and argument hold no list lookup of their own (each
        would draw another with some chance, without end)."""
        self.inside_index = True
        try:
            return draw_leaf(t, scope)
        finally:
            self.inside_index = False

    def list_index(self, length: int, scope: Scope) -> str:
        """An int expression in ``[-length, length)``: folded with ``%``, sometimes counted from the end;
        or, rarely, the constant ``length``, past the end (often in the body of a ``try`` that catches
        it: program_with_try.py)."""
        if self.chance(30 if getattr(self, "index_bait", 0) else 4):
            return str(length)
        inner = self.small(self.expr("i", scope, self.draw(st.integers(0, 2))), CLIP)
        folded = f"({inner.text} % {length})"
        return f"({folded} - {length})" if self.chance(25) else folded

    def indexed_number(self, t: str, scope: Scope) -> E:
        if t == "i" and self.has("big_ints") and self.has("mixed_dtypes") and self.chance(15):
            return self.past_int32_item(scope)
        length = self.draw(st.integers(1, 4))
        if t == "i":
            numbers = [str(self.draw(st.integers(-LARGEST, LARGEST))) for _ in range(length)]
        else:
            numbers = [f"{self.draw(st.integers(-4 * LARGEST, 4 * LARGEST)) / 4}" for _ in range(length)]
        brackets = "[]" if self.draw(st.booleans()) else "()"
        table = f"{brackets[0]}{', '.join(numbers)}{',' if length == 1 and brackets == '()' else ''}{brackets[1]}"
        name = self.module_constant("TABLE", table)
        return self.using("indexing", E(f"{name}[{self.list_index(length, scope)}]", LARGEST, t == "f"))

    def mixed_table(self, scope: Scope) -> E:
        """``TABLE[index]`` of a list / tuple mixing Python ints (past 2**24 with ``big_ints``) and floats:
        eager returns the int itself, which a float32 choice holds only up to 2**24."""
        length = self.draw(st.integers(2, 4))
        numbers = [f"{self.draw(st.integers(-4 * LARGEST, 4 * LARGEST)) / 4}" for _ in range(length)]
        for slot in self.draw(st.sets(st.integers(0, length - 1), min_size=1, max_size=length - 1)):
            if self.has("big_ints") and self.chance(60):
                self.used.add("big_ints")
                numbers[slot] = str(self.pick(BIG_INTS))
            else:
                numbers[slot] = str(self.draw(st.integers(-LARGEST, LARGEST)))
        brackets = self.pick(["[]", "()"])
        name = self.module_constant("TABLE", f"{brackets[0]}{', '.join(numbers)}{brackets[1]}")
        bound = max(abs(float(number)) for number in numbers)
        return self.using("indexing", E(f"{name}[{self.list_index(length, scope)}]", max(bound, 1), False))

    def past_int32_item(self, scope: Scope) -> E:
        """``(TABLE[index] % 7)`` of ints one of which no int32 holds, or of a ``range`` past int32's:
        eager Python reads the int exactly; a staged read of it has no dtype that holds it."""
        self.used.update({"big_ints", "mixed_dtypes"})
        if self.chance(40):
            sequence, length = self.pick(RANGES_PAST_INT32), 4
        else:
            length = self.draw(st.integers(2, 3))
            numbers = [str(self.draw(st.integers(-LARGEST, LARGEST))) for _ in range(length)]
            numbers[self.draw(st.integers(0, length - 1))] = str(self.pick(PAST_INT32))
            sequence = self.module_constant("TABLE", "[" + ", ".join(numbers) + "]")
        return self.using("indexing", E(f"({sequence}[{self.list_index(length, scope)}] % 7)", 7, False))

    def lookup_test(self, counter: str, scope: Scope) -> str:
        """A ``while`` test's comparison of a table entry at the loop's counter, which is a run-time check
        in the staged test (each iteration reads another entry, so examples under ``vmap`` stop apart)."""
        length = self.draw(st.integers(2, 5))
        numbers = [f"{self.draw(st.integers(-4 * LARGEST, 4 * LARGEST)) / 4}" for _ in range(length)]
        name = self.module_constant("TABLE", "[" + ", ".join(numbers) + "]")
        index = str(counter) if self.chance(30) else f"({counter} % {length})"  # past the end: eager's IndexError
        arguments = [v.name for v in self.visible(scope, SCALARS) if v.kind == "arg"]  # traced: the loop is staged
        if arguments and self.chance(70):
            other = self.pick(arguments)
        else:
            other = self.small(self.expr(self.pick(SCALARS), scope, self.draw(st.integers(0, 1))), CLIP).text
        return self.using("indexing", E(f"({name}[{index}] {self.pick(['<', '<=', '>'])} {other})", 1, False)).text

    def indexed_call(self, t: str, scope: Scope) -> E:
        pool = INT_LAMBDAS if t == "i" else FLOAT_LAMBDAS
        length = self.draw(st.integers(1, 4))
        lambdas = [self.pick(pool) for _ in range(length)]
        name = self.module_constant("MOVES", "[" + ", ".join(lambdas) + "]")
        argument = self.small(self.floated(self.expr(t, scope, self.draw(st.integers(0, 2))), t), CLIP)
        index = self.list_index(length, scope)
        return self.using("indexing", E(f"{name}[{index}]({argument.text})", 2 * argument.bound + 3, t == "f"))

    def module_constant(self, prefix: str, text: str) -> str:
        """A new module-level ``NAME = text``; its name."""
        name = self.fresh(prefix)
        self.module_parts[name] = f"{name} = {text}"
        return name

"""``print`` in generated programs (feature ``print``).

The converted function must print what eager Python prints, in the same order, on every call:
``convert(f)`` on concrete inputs, ``jit(f)`` on its first call (which traces) and on later calls
(which run the cached program and trace nothing, so a ``print`` that ran only while tracing prints
nothing then). The check captures stdout (program_check.py). Prints go everywhere a statement can:
in branches, in loops over static and traced ranges, in ``while`` loops; they print plain values,
strings, f-strings with and without format specs (``{x:.3f}``, ``{n}``, ``{v}`` for a vector), Python
numbers made by ``float()`` / ``int()`` of a value (``float(x * 0.1)``, ``(int(x), 0)``; not ``x / 3``,
which XLA computes as ``x * (1 / 3)``, a last digit off eager's quotient under plain ``jax.jit`` too), text made
by ``str`` / ``format`` / ``str.format`` / ``format_map`` / ``%`` / ``join`` / ``+`` (now and then a ``str.format`` template
that Python refuses: manual and automatic numbering mixed, a field past the arguments; the check takes
its error for a generated check's, program_raises.py), several values at once, with ``sep=``
and ``end=``; a logger's ``info`` / ``warning`` (its handler prints); and a helper that prints, called in expressions
(``shown(2)``), also as a lazy operand of ``and`` / ``or``, and as a statement of its own.

Format specs apply to int and float scalars only (a NumPy array and a bool have no ``.3f``).
F-strings are single-quoted: in Python 3.11 a replacement field may not reuse the string's quote,
and a dict's key in an expression (``d["a"]``) is double-quoted.
"""

from __future__ import annotations

from hypothesis import strategies as st
from program_model import NUMERIC, SCALARS, Block, E, Scope

WORDS = ('"x ="', '"step"', '"->"', '""')
SPECS = ("", ".3f", ".2f", "")  # applied to int and float scalars
SHOWN = "def shown(k):\n    print('shown', k)\n    return k"
# A logger whose handler prints (the check captures stdout): a logging call logs when the program runs.
LOGGER = ("import logging\n\n\nclass ToStdout(logging.Handler):\n    def emit(self, record):\n"
          "        print(self.format(record))\n\n\nLOG = logging.getLogger('generated')\n"
          "LOG.handlers[:] = [ToStdout()]\nLOG.setLevel(logging.INFO)\nLOG.propagate = False")
KEYWORDS = ("", "", ', sep=", "', ', sep=""', ', end=""', ', end=";\\n"', ', sep="|", end="!\\n"')


class Printing:
    """The ``print`` statement."""

    def extra_statements(self, scope: Scope, ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        return kinds + (["print", "print"] if self.has("print") else [])

    def extra_leaves(self, t: str, scope: Scope) -> list:
        """``shown(k)``: a helper that prints and returns ``k``, an int leaf anywhere an expression
        goes: as a lazy operand of ``and`` / ``or`` after a traced one, it prints only where eager
        Python evaluates it."""
        options = super().extra_leaves(t, scope)
        if self.has("print") and t == "i":
            options.append(self.shown_leaf)
        return options

    def shown_leaf(self) -> E:
        self.module_parts["shown"] = SHOWN
        k = self.draw(st.integers(0, 3))
        return E(f"shown({k})", k, False)

    def value_type(self) -> str:
        return self.pick(list(NUMERIC if self.has("vectors") else SCALARS) + ["b"])

    def print_item(self, scope: Scope) -> str:
        """A string, a value, an f-string of one or two values, or text made another way."""
        kind = self.pick(["value", "fstring", "word", "value", "fstring", "text", "cast"])
        if kind == "word":
            return self.pick(WORDS)
        if kind == "cast":  # a Python number eagerly: float's text is double's, an int in a tuple is bare
            value = self.expr("f", scope, self.draw(st.integers(0, 1))).text
            return self.pick([f"float({value} * 0.1)", f"(int({value}), 0)"])
        if kind == "value":
            return self.expr(self.value_type(), scope, self.draw(st.integers(0, 1))).text
        if kind == "text":
            return self.text_item(scope)
        fields = []
        for _ in range(self.draw(st.integers(1, 2))):
            t = self.value_type()
            spec = self.pick(SPECS) if t in SCALARS else ""
            text = self.expr(t, scope, self.draw(st.integers(0, 1))).text
            label = self.pick(["", "n=", "v: ", " "])
            fields.append(f"{label}{{{text}{':' + spec if spec else ''}}}")
        quote = '"' if any("'" in field for field in fields) else "'"  # Python 3.11: no reuse of the quote inside
        return f"f{quote}" + "".join(fields) + quote

    def text_item(self, scope: Scope) -> str:
        """Text made from a value by ``str`` / ``format`` / ``str.format`` / ``%`` / ``join`` / ``+``, each
        of which formatted a tracer's name while tracing (``repr`` is left out: eager NumPy scalars
        have their own)."""
        t = self.value_type()
        value = self.expr(t, scope, self.draw(st.integers(0, 1))).text
        spec = self.pick(SPECS) if t in SCALARS and t != "b" else ""
        forms = [f'"v=" + str({value})', f'str({value}) + "."', f'"{{}}".format({value})',
                 f'"{{a}}".format_map({{"a": {value}}})',
                 f'"%s" % ({value},)', f'", ".join(["v", str({value})])']
        if spec:
            forms += [f'"{{:{spec}}}".format({value})', f'format({value}, "{spec}")', f'"%{spec}" % {value}']
        return self.pick(forms)

    def refused_template(self, scope: Scope) -> str:
        """``"{} {0}".format(v)`` or ``"{} {}".format(v)``: a template ``str.format`` refuses (Python's
        ValueError / IndexError), which must be raised whether ``v`` is traced or not."""
        value = self.expr(self.value_type(), scope, 0).text
        return self.pick([f'"{{}} {{0}}".format({value})', f'"{{}} {{}}".format({value})'])

    def stmt_print(self, scope: Scope, ctx) -> Block:
        """A ``print``, or a call of the helper that prints made for its effect (``shown(n)`` as a
        statement: the same effect as ``print``, one call deeper)."""
        self.used.add("print")
        if self.chance(20):
            self.module_parts["shown"] = SHOWN
            return Block([f"shown({self.expr('i', scope, self.draw(st.integers(0, 1))).text})"], scope)
        if self.chance(10):
            self.module_parts["LOG"] = LOGGER
            value = self.expr(self.value_type(), scope, self.draw(st.integers(0, 1))).text
            return Block([self.pick([f'LOG.info("v %s", {value})', f"LOG.warning(f'w {{{value}}}')"])], scope)
        items = [self.print_item(scope) for _ in range(self.draw(st.integers(1, 3)))]
        if self.chance(6):
            items.append(self.refused_template(scope))
        return Block([f"print({', '.join(items)}{self.pick(KEYWORDS)})"], scope)

"""``print`` and f-strings in converted code: eager Python's text, in program order, on every call.

Outside any JAX trace ``print`` is the builtin, run at once. Under a trace (``jit``, ``grad``,
``vmap``, a staged branch or loop body, a trial trace of the static-loop policy) nothing is printed
while tracing: each ``print`` becomes one ordered ``jax.debug.callback`` that writes its text when
the compiled program runs. Concrete parts (strings, Python numbers, NumPy arrays, static arguments)
are formatted into the text at trace time; traced values travel to the callback and are formatted
there, as jax arrays, exactly as eager code formats them. So a print happens on every call of a
cached program, in program order, only on the paths the program takes (the branch ``lax.cond`` did
not take prints nothing), and a trace that is thrown away (a trial, a retraced branch) prints nothing.

An f-string is evaluated before ``print`` sees it, so the rewriter turns it into
:func:`format_string`: a plain ``str`` when every value is concrete, otherwise a
:class:`DeferredText` that ``print`` writes at run time and that refuses, with a located error, to
be used as a ``str`` anywhere else while it holds traced values.
"""

from __future__ import annotations

import builtins
import itertools
import string
from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import ConversionError
from . import cleanups, python_numbers, redirected_streams
from .locations import caller_location
from .paths import callback_staged, output_staged, print_condition
from .values import any_traced, inside_a_trace, is_traced

_PARSER = string.Formatter()


@jax.tree_util.register_pytree_node_class
class DeferredText:
    """The text of an f-string with traced values: ``template.format(*values)``, known at run time.

    A pytree (its values are the children), so it can be carried through a staged branch or loop
    and returned from ``jit``. Used as a ``str`` (``str()``, concatenation, a dict key, ``len``, a
    str method, a comparison) it gives its text once no value in it is traced, and otherwise raises
    a located ``ConversionError``: while tracing there is no text yet, and a placeholder would be a
    silently wrong string.
    """

    __slots__ = ("template", "values")

    def __init__(self, template: str, values: tuple[Any, ...]) -> None:
        self.template = template
        self.values = values

    def tree_flatten(self) -> tuple[tuple[Any, ...], str]:
        return self.values, self.template

    @classmethod
    def tree_unflatten(cls, template: str, values: Any) -> DeferredText:
        return cls(template, tuple(values))

    def text(self, use: str = "is used as a str") -> str:
        if any_traced(self.values):
            raise _no_text_yet(self.template, use)
        return self.template.format(*(_realized(value) for value in self.values))

    def __add__(self, other: Any) -> Any:
        """Concatenation: text known at run time too (a ``str`` once every value is known)."""
        if isinstance(other, str):
            other = DeferredText(escaped(other), ())
        if not isinstance(other, DeferredText):
            return NotImplemented
        left, right = _as_format(self), _as_format(other)
        joined = DeferredText(left.template + right.template, left.values + right.values)
        return joined if any_traced(joined.values) else joined.text()

    def __radd__(self, other: Any) -> Any:
        return DeferredText(escaped(other), ()) + self if isinstance(other, str) else NotImplemented

    def __bool__(self) -> bool:
        return bool(self.text())

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or not hasattr(str, name):
            raise AttributeError(name)
        return getattr(self.text(), name)


@jax.tree_util.register_pytree_node_class
class PercentText(DeferredText):
    """The text of ``template % values`` with traced values (``"loss %.3f" % loss``), known at run time,
    formatted there by ``%`` itself (whose conversions are not ``str.format``'s: ``%d`` of a float
    truncates). ``single``: the right operand was one value, not a tuple."""

    __slots__ = ("single",)

    def __init__(self, template: str, values: tuple[Any, ...], single: bool = False) -> None:
        super().__init__(template, values)
        self.single = single

    def tree_flatten(self) -> tuple[tuple[Any, ...], tuple[str, bool]]:  # type: ignore[override]
        return self.values, (self.template, self.single)

    @classmethod
    def tree_unflatten(cls, aux: tuple[str, bool], values: Any) -> PercentText:  # type: ignore[override]
        return cls(aux[0], tuple(values), aux[1])

    def text(self, use: str = "is used as a str") -> str:
        if any_traced(self.values):
            raise _no_text_yet(self.template, use)
        values = tuple(_realized(value) for value in self.values)
        return self.template % (values[0] if self.single else values)


def _as_format(text: DeferredText) -> DeferredText:
    """``text`` as a ``str.format`` template and its values (a :class:`PercentText`: one field that ``%``
    formats), so that texts concatenate."""
    return DeferredText("{!s}", (text,)) if isinstance(text, PercentText) else text


def percent_format(template: str, values: Any) -> Any:
    """``template % values`` where ``template`` is a string literal: a :class:`PercentText` where a value
    is traced (a mapping of them is refused: its keys pick the values, as only a run-time check could)."""
    if not any_traced(values):
        return template % values
    if isinstance(values, dict):
        raise ConversionError(
            f"'%'-formatting {template!r} with a dict that holds traced values: its text exists only when the "
            "compiled program runs", caller_location(), "Use an f-string instead: f\"...{d['key']}...\".")
    # Python's error now, where eager's would be (too few values, an unknown conversion, %d of a
    # vector): the template formats zeros of each traced value's shape and dtype, as concrete arrays
    with jax.ensure_compile_time_eval():
        template % jax.tree_util.tree_map(_zeros_like_traced, values, is_leaf=lambda v: isinstance(v, DeferredText))
    return PercentText(template, values, False) if isinstance(values, tuple) else PercentText(template, (values,), True)


def _zeros_like_traced(leaf: Any) -> Any:
    return "" if isinstance(leaf, DeferredText) else jnp.zeros(jax.typeof(leaf).shape, jax.typeof(leaf).dtype) \
        if is_traced(leaf) else leaf


def _as_str_method(name: str) -> Callable[..., Any]:
    def method(self: DeferredText, *args: Any) -> Any:
        args = tuple(arg.text() if isinstance(arg, DeferredText) else arg for arg in args)
        return getattr(self.text(), name)(*args)

    method.__name__ = name
    return method


for _name in (
    "__str__", "__repr__", "__format__", "__hash__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__",
    "__ge__", "__mul__", "__rmul__", "__mod__", "__len__", "__iter__", "__getitem__",
    "__contains__",
):
    setattr(DeferredText, _name, _as_str_method(_name))


def _realized(value: Any) -> Any:
    """``value`` with every DeferredText in it replaced by its text; a dict keeps its keys' order
    (``tree_map`` would sort them)."""
    kind = type(value)
    if kind is DeferredText:
        return value.text()
    if kind is dict:
        return {key: _realized(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return kind(_realized(item) for item in value)
    is_text = lambda leaf: isinstance(leaf, DeferredText)
    return jax.tree_util.tree_map(lambda leaf: leaf.text() if is_text(leaf) else leaf, value, is_leaf=is_text)


def _no_text_yet(template: str, use: str) -> ConversionError:
    return ConversionError(
        f"a string formatted from a traced value (template {template!r}) {use}; its text "
        "exists only when the compiled program runs, and while tracing only print(...) can show it",
        caller_location(),
        "Pass it to print(...) as it is, or build strings used otherwise from concrete values only "
        "(static arguments, shapes, Python numbers).",
    )


# --- f-strings ----------------------------------------------------------------------------------


def format_string(template: str, *values: Any) -> Any:
    """An f-string: ``template`` is its text as a ``str.format`` template, one field per value.

    The rewriter writes ``f"loss {loss:.3f}"`` as ``format_string('loss {:.3f}', loss)``; a nested
    field of a format spec takes the value after its field's own (``f"{x:{width}}"`` is
    ``format_string('{:{}}', x, width)``). With concrete values the result is the f-string's str.
    """
    if not any_traced(values):
        return template.format(*values)
    kept_template: list[str] = []
    kept: list[Any] = []
    remaining = iter(values)
    for literal, field, spec, conversion in _PARSER.parse(template):
        kept_template.append(escaped(literal))
        if field is None:
            continue
        value = next(remaining)
        spec = _resolved_spec(spec or "", remaining)
        if any_traced(value):
            _check_spec(value, conversion, spec)
            kept_template.append("{" + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}")
            kept.append(value)
        else:
            kept_template.append(escaped(format(_converted(value, conversion), spec)))
    return DeferredText("".join(kept_template), tuple(kept))


def format_message(template: str, *values: Any) -> str:
    """An f-string in a ``raise`` or an ``assert`` message: an exception needs its text now."""
    text = format_string(template, *values)
    return text.text("is an exception message") if isinstance(text, DeferredText) else text


def _resolved_spec(spec: str, remaining: Iterator[Any]) -> str:
    """The spec with its own fields (``{}`` in ``:{width}``) filled from the next values."""
    fields = sum(1 for _, name, _, _ in _PARSER.parse(spec) if name is not None)
    if not fields:
        return spec
    nested_values = tuple(itertools.islice(remaining, fields))
    if any_traced(nested_values):
        raise ConversionError(
            f"the format spec {spec!r} of an f-string field takes a traced value, and the spec decides "
            "the text's layout while tracing",
            caller_location(),
            "Compute the width or precision from concrete values (static arguments, shapes).",
        )
    return spec.format(*nested_values)


def _check_spec(value: Any, conversion: str | None, spec: str) -> None:
    """Raise now the error eager Python would raise for this spec (``:d`` of a float, ``:.3f`` of a vector).

    The spec is tried on a stand-in of zeros with the traced value's dtype and number of dimensions:
    whether formatting fails depends on those only (jax arrays format through NumPy).
    """
    if not spec:
        return

    def stand_in(leaf: Any) -> Any:
        if isinstance(leaf, DeferredText):
            return ""
        if not is_traced(leaf):
            return leaf
        aval = jax.typeof(leaf)
        zeros = np.zeros((0,) * aval.ndim, aval.dtype)
        return zeros[()] if aval.ndim == 0 else zeros

    is_text = lambda leaf: isinstance(leaf, DeferredText)
    format(_converted(jax.tree_util.tree_map(stand_in, value, is_leaf=is_text), conversion), spec)


_CONVERSIONS: dict[str, Callable[[Any], str]] = {"r": repr, "s": str, "a": ascii}


def _converted(value: Any, conversion: str | None) -> Any:
    """``value`` after an f-string field's ``!r`` / ``!s`` / ``!a``, if it has one."""
    return _CONVERSIONS[conversion](value) if conversion else value


def escaped(text: str) -> str:
    """``text`` as literal text of a ``str.format`` template."""
    return text.replace("{", "{{").replace("}", "}}")


# --- print --------------------------------------------------------------------------------------


def print_(*args: Any, sep: Any = " ", end: Any = "\n", file: Any = None, flush: bool = False) -> None:
    """The builtin ``print`` in converted code: at once outside a trace, at run time under one."""
    if not inside_a_trace():
        # No jax.effects_barrier() first: called from a host callback it would wait for itself.
        builtins.print(*args, sep=sep, end=end, file=file, flush=flush)
        return
    if not output_staged():
        return
    between, after = _separator("sep", sep, " "), _separator("end", end, "\n")
    template: list[str] = []
    values: list[Any] = []
    for index, value in enumerate(args):
        if index:
            template.append(between[0])
            values.extend(between[1])
        template.append("{!s}")
        values.append(value)
    template.append(after[0])
    values.extend(after[1])
    _write_at_run_time(format_string("".join(template), *values), redirected_streams.print_stream(file), flush)


def _separator(name: str, separator: Any, default: str) -> tuple[str, tuple[Any, ...]]:
    """``sep`` or ``end`` as a piece of template and its values; Python's TypeError for a non-string."""
    if separator is None:
        return escaped(default), ()
    if isinstance(separator, str):
        return escaped(separator), ()
    if isinstance(separator, DeferredText):
        return "{!s}", (separator,)
    raise TypeError(f"{name} must be None or a string, not {type(separator).__name__}")


def _write_at_run_time(text: Any, stream: Callable[[], Any], flush: bool) -> None:
    """Write ``text`` (a str or a DeferredText) when the program runs, in program order (in a lazy
    operand of ``and`` / ``or``, only where eager Python evaluates it: :func:`.paths.print_condition`)."""
    at_run_time(text, lambda rendered: builtins.print(rendered, end="", file=stream(), flush=flush),
                when=print_condition())


def at_run_time(value: Any, use: Callable[[Any], None], when: Any = None) -> None:
    """Call ``use(value)`` on the host when the program runs: one ordered debug callback, ``value``'s
    traced leaves filled in and every DeferredText in it turned to its text.

    Only the traced leaves are operands; everything else is kept here, so no tracer outlives the
    trace. NumPy's print options are those of the trace, as with ``jax.debug.print``. With ``when``
    (a traced bool), only if it holds: the callback sits behind ``lax.cond``, so the host is not
    reached otherwise; under ``vmap`` that cond runs every lane (as a select), and the call is skipped
    where ``when`` does not hold in any lane.
    """
    callback_staged()
    leaves, tree = jax.tree_util.tree_flatten(_keeping_order(value))
    traced_at = [index for index, leaf in enumerate(leaves) if is_traced(leaf)]
    numbers_at = python_numbers.among(leaves, traced_at)  # eagerly a Python int or float: shown as one
    kept = [None if is_traced(leaf) else leaf for leaf in leaves]
    operands = [leaves[index] for index in traced_at]
    options = np.get_printoptions()

    def call(traced: tuple[Any, ...]) -> None:
        filled = list(kept)
        for index, leaf in zip(traced_at, traced):
            filled[index] = leaf.item() if index in numbers_at else leaf
        with np.printoptions(**options):
            realized = _realized(jax.tree_util.tree_unflatten(tree, filled))
        use(realized)

    cleanups.note_effect(None if operands or when is not None else lambda: call(()))
    if when is None:
        jax.debug.callback(lambda *traced: call(traced), *operands, ordered=_ordered())
        return

    def call_if(holds: Any, *traced: Any) -> None:
        if np.any(holds):
            call(traced)

    lax.cond(when, lambda *values: jax.debug.callback(call_if, *values, ordered=_ordered()),
             lambda *values: None, when, *operands)


@jax.tree_util.register_pytree_node_class
class _InOrder:
    """A dict on its way to the host: JAX's pytree of a dict sorts its keys, and a printed dict shows
    them in insertion order. Its values are the children; it comes back as the dict it was."""

    def __init__(self, keys: tuple[Any, ...], values: tuple[Any, ...]) -> None:
        self.keys, self.values = keys, values

    def tree_flatten(self) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        return self.values, self.keys

    @classmethod
    def tree_unflatten(cls, keys: tuple[Any, ...], values: Any) -> dict[Any, Any]:
        return dict(zip(keys, values))


def _keeping_order(value: Any) -> Any:
    """``value`` with each dict in it (through lists, tuples and deferred text) as an :class:`_InOrder`."""
    kind = type(value)
    if kind is dict:
        return _InOrder(tuple(value), tuple(_keeping_order(item) for item in value.values()))
    if kind is list or kind is tuple:
        return kind(_keeping_order(item) for item in value)
    if kind is DeferredText:
        return DeferredText(value.template, tuple(_keeping_order(item) for item in value.values))
    return value


def _ordered() -> bool:
    """Ordered callbacks keep program order; JAX cannot lower them in a program that spans several
    devices, so a process that sees more than one device prints unordered (each print still runs
    at run time on every call)."""
    return jax.device_count() == 1

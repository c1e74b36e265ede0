"""Text made from traced values by ``str`` / ``repr`` / ``format`` and the ``str.format`` / ``str.join`` methods.

While tracing, a traced value has no digits yet: ``str(x)`` of a tracer is ``JitTracer(float32[])``,
which eager code never prints (``print("loss " + str(loss))`` printed it, silently). As an f-string
does (:func:`.printing.format_string`), each of these gives the text itself where its values are
concrete, and otherwise a :class:`.printing.DeferredText` whose text exists when the program runs:
``print`` writes it there, an exception message or a staged branch carries it, and using it as a
``str`` while tracing (a dict key, ``len``) is a located error instead of a wrong string. Concatenation
with ``+`` joins texts (:class:`.printing.DeferredText` handles it).
"""

from __future__ import annotations

import builtins
import string
from collections.abc import Callable
from typing import Any

from .printing import DeferredText, escaped, format_string
from .values import any_traced

_FORMATTER = string.Formatter()


def str_(*args: Any, **kwargs: Any) -> Any:
    """``str(x)``: ``'{!s}'`` of a traced ``x`` (``str(b, encoding)`` and the rest as the builtin)."""
    if len(args) != 1 or kwargs or not any_traced(args[0]):
        return builtins.str(*args, **kwargs)
    return args[0] if isinstance(args[0], DeferredText) else format_string("{!s}", args[0])


def repr_(value: Any) -> Any:
    """``repr(x)``: ``'{!r}'`` of a traced ``x``."""
    return builtins.repr(value) if not any_traced(value) else format_string("{!r}", value)


def ascii_(value: Any) -> Any:
    """``ascii(x)``: ``'{!a}'`` of a traced ``x``."""
    return builtins.ascii(value) if not any_traced(value) else format_string("{!a}", value)


def format_(value: Any, spec: Any = "") -> Any:
    """``format(x, spec)``: ``'{:spec}'`` of a traced ``x``, the spec checked as an f-string's is."""
    if not any_traced(value) or not isinstance(spec, str):
        return builtins.format(value, spec)
    return format_string("{:" + spec + "}" if spec else "{}", value)


def bound_text_method(function: Any) -> Callable[..., Any] | None:
    """The version of ``template.format`` / ``format_map`` / ``separator.join`` for a bound method of a
    ``str``, or ``None``."""
    receiver = getattr(function, "__self__", None)
    if type(receiver) is not str:
        return None
    name = getattr(function, "__name__", None)
    if name == "format":
        return lambda *args, **kwargs: _format_method(receiver, args, kwargs)
    if name == "format_map":  # a plain dict's items are the keyword arguments (a subclass keeps its own lookup)
        return lambda mapping: (_format_method(receiver, (), mapping) if type(mapping) is dict
                                else receiver.format_map(mapping))
    if name == "join":
        return lambda items: _join(receiver, items)
    return None


def _format_method(template: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``template.format(*args, **kwargs)``: each field's value looked up as ``str.format`` does (``{0}``,
    ``{name}``, ``{p.x}``, ``{xs[1]}``, automatic numbering), then formatted as an f-string's fields, a
    field of a spec (``{:{}}``, a width) as the value after its field's own (:func:`.printing.format_string`)."""
    if not any_traced((args, kwargs)):
        return template.format(*args, **kwargs)
    # Python's own errors for the template itself (automatic and manual numbering mixed, a field past
    # the arguments), which the lookups below would not raise or raise with another message
    template.format(*(_BLANK if any_traced(arg) else arg for arg in args),
                    **{key: _BLANK if any_traced(value) else value for key, value in kwargs.items()})
    pieces: list[str] = []
    values: list[Any] = []
    automatic = iter(range(len(args) + 1))

    def add_fields(text: str, inner: bool) -> None:
        for literal, field, spec, conversion in _FORMATTER.parse(text):
            pieces.append(literal if inner else escaped(literal))
            if field is None:
                continue
            values.append(_FORMATTER.get_field(field or str(next(automatic)), args, kwargs)[0])
            pieces.append("{" + (f"!{conversion}" if conversion else ""))
            if spec:
                pieces.append(":")
                add_fields(spec, inner=True)
            pieces.append("}")

    add_fields(template, inner=False)
    return format_string("".join(pieces), *values)


class _Blank:
    """A traced argument while :func:`_format_method` checks the template: any field of it, any item
    and any format spec give nothing (its text exists at run time; its spec is checked there)."""

    def __format__(self, spec: str) -> str:
        return ""

    def __getattr__(self, name: str) -> _Blank:
        return self

    def __getitem__(self, key: Any) -> _Blank:
        return self


_BLANK = _Blank()


def _join(separator: str, items: Any) -> Any:
    """``separator.join(items)``, where an item may be text known at run time."""
    items = list(items)
    if not any(isinstance(item, DeferredText) for item in items):
        return separator.join(items)
    joined: Any = ""
    for index, item in enumerate(items):
        if not isinstance(item, (str, DeferredText)):
            raise TypeError(f"sequence item {index}: expected str instance, {type(item).__name__} found")
        joined = item if index == 0 else joined + separator + item
    return joined

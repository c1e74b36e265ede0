"""Find and parse the source of a function, keeping the user's line numbers.

The source comes from ``inspect`` over ``linecache``, which also holds IPython cells. We read it from
the function's *code object*, never from the function: ``inspect`` would follow ``__wrapped__`` and
hand back the source of a different function than the one whose globals and closure we keep.
"""

from __future__ import annotations

import dataclasses
import inspect
import types

import gast

from .errors import Location, SourceUnavailableError, UnsupportedSyntaxError

# Indented source (a method, a nested def) is parsed inside this one-line header, so that the text is
# never dedented by hand: dedenting can change the value of a multi-line string literal.
_INDENT_HEADER = "if True:\n"


@dataclasses.dataclass(frozen=True)
class ParsedFunction:
    """The gast node of one function (a ``FunctionDef`` or a ``Lambda``) and where it came from."""

    node: gast.AST
    filename: str

    def location(self, node: gast.AST) -> Location:
        return Location(self.filename, getattr(node, "lineno", 1))


def parse_function(fn: types.FunctionType) -> ParsedFunction:
    """Return the parsed definition of ``fn``, with decorators removed."""
    code = fn.__code__
    filename = code.co_filename
    try:
        lines, first_line = inspect.getsourcelines(code)
    except (OSError, TypeError) as error:
        raise SourceUnavailableError(
            f"cannot read the source of {fn.__qualname__!r} (code from {filename!r}): {error}",
            Location(filename, code.co_firstlineno),
            "autograph_lite rewrites source text. Define the function in a .py file or a notebook "
            "cell, or mark it with autograph_lite.do_not_convert to run it unconverted.",
        ) from error

    text = "".join(lines)
    line_offset = first_line - 1
    if lines and lines[0][:1] in (" ", "\t"):
        text = _INDENT_HEADER + text
        line_offset -= 1
    try:
        module = gast.parse(text)
    except SyntaxError as error:
        raise SourceUnavailableError(
            f"the source found for {fn.__qualname__!r} does not parse: {error.msg}",
            Location(filename, code.co_firstlineno),
            "The file may have changed since it was imported; reload it.",
        ) from error

    _shift_lines(module, line_offset)
    parsed = ParsedFunction(module, filename)
    node = _find_lambda(module, code) if code.co_name == "<lambda>" else _find_def(module)
    if node is None:
        raise SourceUnavailableError(
            f"cannot locate the definition of {fn.__qualname__!r} in its source",
            Location(filename, code.co_firstlineno),
            "Put the lambda on its own line, or define the function with def.",
        )
    if isinstance(node, gast.AsyncFunctionDef):
        raise UnsupportedSyntaxError(
            f"'async def {node.name}' cannot be converted",
            parsed.location(node),
            "jax.jit traces synchronous code only; make it a plain def.",
        )
    if isinstance(node, gast.FunctionDef):
        node.decorator_list = []
    return dataclasses.replace(parsed, node=node)


def _shift_lines(tree: gast.AST, offset: int) -> None:
    """Make every node's line the line in the user's file, so all later work speaks in real lines."""
    for node in gast.walk(tree):
        if getattr(node, "lineno", None) is not None:
            node.lineno += offset
        if getattr(node, "end_lineno", None) is not None:
            node.end_lineno += offset


def _find_def(module: gast.Module) -> gast.AST | None:
    for node in gast.walk(module):
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            return node
    return None


def _find_lambda(module: gast.Module, code: types.CodeType) -> gast.Lambda | None:
    """Pick the lambda that compiled to ``code``: on its line, with its parameter names, and among
    those (lambdas nest: ``lambda: f(lambda x: x)``) the innermost one whose body holds the
    position of the code's first instruction."""
    parameters = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    candidates = [
        n for n in gast.walk(module)
        if isinstance(n, gast.Lambda) and n.lineno == code.co_firstlineno and _parameter_names(n) == parameters
    ]
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    for line, _, column, _ in code.co_positions():
        if line is None or column is None:
            continue
        holding = [n for n in candidates
                   if n.body.lineno == line and n.body.col_offset <= column <= _end_col(n.body, line)]
        if holding:
            return max(holding, key=lambda n: n.body.col_offset)
    return None


def _parameter_names(node: gast.Lambda) -> tuple[str, ...]:
    arguments = node.args
    return tuple(a.id for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs)


def _end_col(node: gast.AST, line: int) -> int:
    if node.end_lineno is not None and node.end_lineno == line:
        return node.end_col_offset
    return 1 << 30

"""Find and parse the source of a function, keeping the user's line numbers.

The source comes from ``linecache``, which also holds IPython cells. We read it from the function's
*code object*, never from the function: ``inspect`` would follow ``__wrapped__`` and hand back the
source of a different function than the one whose globals and closure we keep.
"""

from __future__ import annotations

import ast
import codecs
import dataclasses
import inspect
import linecache
import os
import re
import types

import gast

from .errors import Location, SourceUnavailableError, UnsupportedSyntaxError
from .gast_translation import to_gast

# Indented source (a method, a nested def) is parsed inside this one-line header, so that the text is
# never dedented by hand: dedenting can change the value of a multi-line string literal.
_INDENT_HEADER = "if True:\n"
# The names of the code objects of list, set and dict comprehensions, which run where they stand (a
# generator expression's code may run later, when it is drawn: it counts as nested code).
_COMPREHENSION_CODE_NAMES = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>"})
# A string prefix holding f (f"", rf'', Fr""): where the text has none, the function has no f-string.
# An f-string prefix, or a string literal's end followed by `%` (`"loss %.3f" % x`).
_FORMATTED_STRING = re.compile(r"(?<![\w.])[rRbB]?[fF][rRbB]?['\"]|['\"]\s*%")
# A call of a builtin that reads the calling function's locals by name (passes/validate.py refuses it).
_FRAME_READ = re.compile(r"\b(locals|vars|eval|exec)\s*\(")


@dataclasses.dataclass(frozen=True)
class ParsedFunction:
    """The gast node of one function (a ``FunctionDef`` or a ``Lambda``) and where it came from."""

    node: gast.AST
    filename: str
    # From the code object's flags: whether the function's own scope holds a `yield`.
    is_generator: bool = False
    # Whether the source text has `:=` anywhere (in a string, maybe): without it, no walrus.
    may_have_walrus: bool = True
    # Whether the compiled function holds the code of a def, lambda, class or generator expression (maybe
    # inside a comprehension's): without it, no nested def or lambda, and no code that runs later.
    may_nest: bool = True
    # Whether the source text has a string prefix with f, or a string literal's end before `%` (in a comment,
    # maybe): without either, no f-string and no %-formatting of a literal.
    may_format: bool = True
    # Whether the source text has `locals(`, `vars(`, `eval(` or `exec(` (in a comment, maybe): without
    # them, no read of the function's locals by name.
    may_read_frame: bool = True

    def location(self, node: gast.AST) -> Location:
        return Location(self.filename, getattr(node, "lineno", 1))


def parse_function(fn: types.FunctionType) -> ParsedFunction:
    """Return the parsed definition of ``fn``, with decorators removed."""
    code = fn.__code__
    filename = code.co_filename
    file_lines = _file_lines(fn)
    first_line = code.co_firstlineno
    if not 0 < first_line <= len(file_lines):
        raise SourceUnavailableError(
            f"cannot read the source of {fn.__qualname__!r} (code from {filename!r}): no such source lines",
            Location(filename, first_line),
            "autograph_lite rewrites source text. Define the function in a .py file or a notebook "
            "cell, or mark it with autograph_lite.do_not_convert to run it unconverted.",
        )
    following = file_lines[first_line - 1:]
    block = _indented_block(following)
    try:
        module = _parse_indented(block, first_line)
    except SyntaxError:
        block = inspect.getblock(following)  # the quick cut fell inside a bracket or a string
        try:
            module = _parse_indented(block, first_line)
        except SyntaxError as error:
            hint = "The file may have changed since it was imported; reload it."
            if code.co_name == "<lambda>":  # its line is read on its own, which may not be a whole statement
                hint = ("Give the lambda a line of its own (`step = lambda v: ...` on the line before), or define "
                        "the function with def; if the file changed since it was imported, reload it.")
            raise SourceUnavailableError(
                f"the source found for {fn.__qualname__!r} does not parse: {error.msg}",
                Location(filename, first_line), hint,
            ) from error

    node = _find_lambda(module, code) if code.co_name == "<lambda>" else _find_def(module)
    if node is None:
        raise SourceUnavailableError(
            f"cannot locate the definition of {fn.__qualname__!r} in its source",
            Location(filename, code.co_firstlineno),
            "Put the lambda on its own line, or define the function with def.",
        )
    text = "".join(block)  # no `:=` or string prefix spans lines: the whole text is searched at once
    parsed = ParsedFunction(
        node, filename,
        is_generator=bool(code.co_flags & inspect.CO_GENERATOR),
        may_have_walrus=":=" in text,
        may_nest=_holds_functions(code),
        may_format=_FORMATTED_STRING.search(text) is not None,
        may_read_frame=_FRAME_READ.search(text) is not None,
    )
    if isinstance(node, gast.AsyncFunctionDef):
        raise UnsupportedSyntaxError(
            f"'async def {node.name}' cannot be converted",
            parsed.location(node),
            "jax.jit traces synchronous code only; make it a plain def.",
        )
    if isinstance(node, gast.FunctionDef):
        _refuse_another_definition(node, fn, filename)
        node.decorator_list = []
    return parsed


def _refuse_another_definition(node: gast.FunctionDef, fn: types.FunctionType, filename: str) -> None:
    """The file is read as it is now, which may not be what the function was compiled from: edited
    since its module was imported, and not reloaded, it may hold another definition at the code's
    first line (a function added above), or this one changed. Converting that text would run other
    code than eager Python runs, so a definition of another name or other parameters, or one that
    ends before the code's last line, is refused. (An edit that keeps all three goes unnoticed.)"""
    code = fn.__code__
    arguments = node.args
    parameters = [name.id for name in arguments.posonlyargs + arguments.args + arguments.kwonlyargs]
    expected = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    last_line = max((line for _, _, line in code.co_lines() if line is not None), default=code.co_firstlineno)
    if node.name == code.co_name and parameters == expected and last_line <= getattr(node, "end_lineno", last_line):
        return
    raise SourceUnavailableError(
        f"the source of {fn.__qualname__!r} in {filename!r} is not the code Python runs for it (found "
        f"'def {node.name}({', '.join(parameters)})' at line {node.lineno}): the file changed since its module "
        "was imported",
        Location(filename, code.co_firstlineno),
        "Reload the module (importlib.reload, or %autoreload in IPython) so that the function is the one "
        "in the file, then convert it again.",
    )


def _holds_functions(code: types.CodeType) -> bool:
    """Whether ``code`` holds the code of a def, lambda, class or generator expression, directly or
    inside a comprehension's (which Python may compile as a function of its own). A list, set or dict
    comprehension alone is no nested scope to rewrite and reads no cell later: the walks looking for
    those are spared."""
    return any(
        isinstance(constant, types.CodeType)
        and (constant.co_name not in _COMPREHENSION_CODE_NAMES or _holds_functions(constant))
        for constant in code.co_consts
    )


def _file_lines(fn: types.FunctionType) -> list[str]:
    """The lines of the function's file as they are now (an edited file is read again)."""
    filename = fn.__code__.co_filename
    linecache.checkcache(filename)
    entry = linecache.cache.get(filename)
    if entry is not None and len(entry) != 1:
        return entry[2]
    lines = _read_plain_file(filename)
    return lines if lines is not None else linecache.getlines(filename, fn.__globals__)


def _read_plain_file(filename: str) -> list[str] | None:
    """What ``linecache.getlines`` reads and caches for a UTF-8 file with ``\\n`` line ends and no
    encoding declaration (the common file), read more directly: ``tokenize.open``'s encoding
    detection and line-buffered text wrapper cost more than the read itself, and a function's first
    conversion pays for them. ``None`` for any other file: ``linecache`` reads it (BOM, coding
    cookie, ``\\r``, other line separators, no such path, an IPython cell or a zip import)."""
    try:
        descriptor = os.open(filename, os.O_RDONLY)
    except (OSError, ValueError):
        return None
    try:
        stat = os.fstat(descriptor)
        data = chunk = os.read(descriptor, stat.st_size + 1)
        while chunk:  # a file that grew, or a short read
            chunk = os.read(descriptor, 1 << 16)
            data += chunk
    except OSError:
        return None
    finally:
        os.close(descriptor)
    second_line_end = data.find(b"\n", data.find(b"\n") + 1)
    head = data if second_line_end < 0 else data[:second_line_end]  # where a coding cookie may be
    if b"coding" in head or data.startswith(codecs.BOM_UTF8) or b"\r" in data:
        return None
    try:
        text = data.decode()
    except UnicodeDecodeError:
        return None
    lines = text.splitlines(True)
    if len(lines) != text.count("\n") + (bool(text) and not text.endswith("\n")):
        return None  # a separator that is no line end to Python's reader (form feed, U+2028, ...)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    linecache.cache[filename] = (stat.st_size, stat.st_mtime, lines, filename)
    return lines


def _indented_block(lines: list[str]) -> list[str]:
    """The first line and the lines after it indented deeper (blank and comment lines included).

    This is where a ``def`` ends, found without tokenizing. The cut is wrong only when a later
    line of the function starts further left inside a bracket, a string or after a backslash; the
    text then ends inside that construct and does not parse, and the caller falls back to
    ``inspect.getblock``. A lambda's line may end inside a bracket opened before it; then too.
    """
    indent = _indentation(lines[0])
    end = 1
    for number in range(1, len(lines)):
        stripped = lines[number].strip()
        if not stripped or stripped.startswith("#"):
            continue
        if _indentation(lines[number]) <= indent:
            break
        end = number + 1
    return lines[:end]


def _indentation(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _parse_indented(lines: list[str], first_line: int) -> gast.Module:
    """Parse a block of lines taken from ``first_line`` of a file; nodes get the file's lines.

    Blank lines in front put the block at its own line numbers: cheaper than shifting every node.
    """
    if lines and lines[0][:1] in (" ", "\t"):
        return _gast_parse("\n" * (first_line - 2) + _INDENT_HEADER + "".join(lines))
    return _gast_parse("\n" * (first_line - 1) + "".join(lines))


def _gast_parse(text: str) -> gast.Module:
    """``gast.parse(text)``, which is ``ast.parse`` and gast's translation (``gast_translation``)."""
    return to_gast(ast.parse(text))


def _find_def(module: gast.Module) -> gast.AST | None:
    """The first definition breadth first. That is the block's one statement (or the one inside the
    indentation header) when it is a definition, as it is unless the file changed: no walk then."""
    first = module.body[0] if len(module.body) == 1 else None
    if isinstance(first, gast.If) and first.body:
        first = first.body[0]  # the header's test is a constant, visited first and no definition
    if isinstance(first, (gast.FunctionDef, gast.AsyncFunctionDef)):
        return first
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

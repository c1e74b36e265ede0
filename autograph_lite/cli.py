"""``autograph-lite show``: print what the converter makes of one function, without running it.

The converted source is what actually runs under ``jax.jit``; seeing it (or its diff against the
original) is the quickest way to understand why a variable is carried, which branch helper a JAX
error points at, or why a construct is rejected. Nothing is traced: the command only imports the
function's module and rewrites the function.

Exit codes are part of the interface, so that scripts and CI can tell a conversion problem in the
user's code (1) from a typo in the command line (2). Finding the function that a TARGET names is
:mod:`.cli_targets`'s job.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import inspect
import os
import sys
import textwrap
import types
from collections.abc import Callable, Sequence
from typing import Any

from .cli_arguments import callable_for_explain, check_arity, parse_arguments, parse_static_argnums
from .cli_targets import Target, UsageError, load_target, nested_source

EXIT_OK = 0
EXIT_CONVERSION_ERROR = 1
EXIT_USAGE = 2  # also what argparse itself uses for a malformed command line

_TARGETS = """\
targets:
  FILE.py::FUNC        a function in a Python file, imported as a module (so
                       its `if __name__ == "__main__":` block does not run);
                       in a package (__init__.py files), as the package's
                       module, so that its relative imports work
  package.module:FUNC  a function in an importable module (the current
                       directory is importable, as with `python -m`)
  FUNC may be a dotted qualified name, e.g. Model.__call__, or a function
  defined inside another, outer.inner or outer.<locals>.inner (show only)
"""

_EXIT_CODES = """\
exit codes:
  0  success
  1  the function cannot be converted (the message names file:line)
  2  usage error, or the file, module or name was not found or failed to import
"""

_COLOUR = """\
colour (--color, show only):
  auto     the default: colour when stdout is a terminal, NO_COLOR is unset or
           empty, and Pygments is installed (pip install 'autograph-lite[cli]');
           plain text otherwise
  always   colour even when piped (NO_COLOR does not apply to an explicit flag);
           without Pygments this is a usage error (exit code 2)
  never    plain text
"""

_SHOW_EXAMPLES = """\
  autograph-lite show examples/quickstart.py::conditional_double
  autograph-lite show --diff examples/quickstart.py::count_halvings
  autograph-lite show --color always examples/quickstart.py::piecewise | less -R
  autograph-lite show mypackage.model:Model.__call__"""

_EPILOG = f"""\
commands:
  show     print the rewritten source of a function (--diff: against the original;
           --color auto|always|never: Pygments colours, by default on a terminal)
  explain  trace it on example argument types and say what each statement became

{_TARGETS}
examples:
{_SHOW_EXAMPLES}
  autograph-lite explain examples/quickstart.py::geometric_sum --args "f32[], i32[]"
  python -m autograph_lite show examples/quickstart.py::clipped_sum

{_EXIT_CODES}"""

_SHOW_EPILOG = f"""\
{_TARGETS}
examples:
{_SHOW_EXAMPLES}

{_COLOUR}
{_EXIT_CODES}"""

_EXPLAIN_EPILOG = f"""\
{_TARGETS}
examples:
  autograph-lite explain examples/quickstart.py::conditional_double --args "f32[], f32[]"
  autograph-lite explain examples/quickstart.py::geometric_sum --args "f32[], 5" --static-argnums 1

argument types: f32[3], i32[], bool[], bf16[2,2] (or full dtype names: float32[3]);
Python literals (4, 0.5, True) are passed as they are. A method, Model.__call__,
is called on an instance made with no arguments, Model(); --args are the
arguments after self.

{_EXIT_CODES}"""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``autograph-lite`` script and of ``python -m autograph_lite``."""
    parser = _parser()
    arguments = parser.parse_args(argv)
    if arguments.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    return arguments.run(arguments)


def _parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="autograph-lite",
        description="Show how autograph_lite rewrites a function's Python control flow into lax calls.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    show = commands.add_parser(
        "show",
        help="print the rewritten source of a function",
        description="Print autograph_lite.to_source(FUNC): the source that runs when the function is converted.",
        epilog=_SHOW_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    show.add_argument("target", metavar="TARGET", help="FILE.py::FUNC or package.module:FUNC")
    show.add_argument(
        "--diff", action="store_true", help="print a unified diff of the original source against the rewritten one"
    )
    show.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto",
        help="syntax colouring with Pygments (the 'cli' extra): auto = only on a terminal, and not when "
        "NO_COLOR is set; always without Pygments is a usage error (default: auto)",
    )
    show.set_defaults(run=_show)
    explain = commands.add_parser(
        "explain",
        help="trace a function on example argument types and report what each statement became",
        description="Trace FUNC once with abstract arguments and list, per if / while / for with its\n"
        "file:line, the lax primitive it was staged as or why it stayed Python, and what it carries.",
        epilog=_EXPLAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    explain.add_argument("target", metavar="TARGET", help="FILE.py::FUNC or package.module:FUNC")
    explain.add_argument(
        "--args", default="", metavar="SPECS",
        help='comma-separated argument types like "f32[3], i32[]", or Python literals such as 4',
    )
    explain.add_argument(
        "--static-argnums", default="", metavar="N[,N...]", help="positions of arguments to treat as static"
    )
    explain.set_defaults(run=_explain)
    return parser


def _show(arguments: argparse.Namespace) -> int:
    from .errors import ConversionError

    try:
        target = load_target(arguments.target)
    except UsageError as error:
        return _fail(str(error), EXIT_USAGE)
    try:
        rewritten = _rewritten_source(target.function)
        if target.nested:
            rewritten = nested_source(rewritten, target.nested)
    except ConversionError as error:
        return _fail(str(error), EXIT_CONVERSION_ERROR)
    except UsageError as error:
        return _fail(str(error), EXIT_USAGE)
    text = "".join(_diff(target, rewritten, arguments.target)) if arguments.diff else rewritten
    try:
        sys.stdout.write(_coloured(text, "diff" if arguments.diff else "python", arguments.color))
    except UsageError as error:
        return _fail(str(error), EXIT_USAGE)
    return EXIT_OK


def _rewritten_source(function: Callable[..., Any]) -> str:
    """``to_source(function)``; what it refuses, refused with ``convert``'s message when ``convert`` refuses
    it too (library code: the message names the file and says what to convert instead)."""
    from . import convert, to_source
    from .errors import ConversionError

    try:
        return to_source(function)
    except ConversionError:
        convert(function)
        raise


def _coloured(text: str, language: str, mode: str) -> str:
    """``text`` with terminal colours when ``mode`` asks for them (``auto``: a terminal, no NO_COLOR).

    With colour, the text is unchanged apart from the escape sequences: no newline is added or
    stripped, and empty text (a diff of a function with nothing to rewrite) stays empty.
    """
    wanted = mode == "always" or (mode == "auto" and _is_terminal(sys.stdout) and not os.environ.get("NO_COLOR"))
    if not wanted or not text:
        return text
    try:
        import pygments
        import pygments.formatters
        import pygments.lexers
    except ImportError:
        if mode == "always":
            raise UsageError("--color always needs Pygments: pip install 'autograph-lite[cli]'") from None
        return text
    lexer = pygments.lexers.get_lexer_by_name(language, stripnl=False, ensurenl=False)
    return pygments.highlight(text, lexer, pygments.formatters.TerminalFormatter())


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # replaced by an object without isatty, or closed
        return False


def _explain(arguments: argparse.Namespace) -> int:
    from . import explain
    from .errors import ConversionError

    try:
        example_arguments = parse_arguments(arguments.args)
        target = load_target(arguments.target)
        function = callable_for_explain(target)
        check_arity(function, target.qualname, example_arguments)
        static = parse_static_argnums(arguments.static_argnums, example_arguments)
    except UsageError as error:
        return _fail(str(error), EXIT_USAGE)
    try:
        report = explain(function, *example_arguments, static_argnums=static)
    except ConversionError as error:
        return _fail(str(error), EXIT_CONVERSION_ERROR)
    print(report)
    return EXIT_OK


def _fail(message: str, code: int) -> int:
    # One line, so that the message reads well in CI logs and can be grepped; the hint stays in it.
    first, *rest = [part.strip() for part in message.splitlines() if part.strip()] or ["unknown error"]
    hint = f" (hint: {' '.join(rest)})" if rest else ""
    print(f"autograph-lite: error: {first}{hint}", file=sys.stderr)
    return code


# --- the diff -------------------------------------------------------------------------------------


def _diff(target: Target, rewritten: str, target_text: str) -> list[str]:
    code = target.nested_code or _plain_function(target.function).__code__
    # Dedented like the rewritten source (ast.unparse prints a method at column 0), so the diff shows the
    # rewrite, not the indentation; and from the `def` line on, since the converter drops the decorators
    # (they wrap the function from outside, e.g. @autograph_lite.jit itself). A nested function is shown
    # as the outer function's rewrite prints it: decorators included, since they run inside it.
    original = textwrap.dedent(inspect.getsource(code))
    skipped = 0 if target.nested_code is not None else _decorator_lines(original)
    original = "".join(original.splitlines(keepends=True)[skipped:])
    first_line = code.co_firstlineno + skipped
    return list(
        difflib.unified_diff(
            original.splitlines(keepends=True),
            rewritten.splitlines(keepends=True),
            fromfile=f"{code.co_filename}:{first_line} (original)",
            tofile=f"{target_text} (converted)",
        )
    )


def _decorator_lines(source: str) -> int:
    """How many lines the decorators (and any comments among them) take before the ``def`` line."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:  # a lambda's line, cut out of a larger expression
        return 0
    first = tree.body[0] if tree.body else None
    if isinstance(first, (ast.FunctionDef, ast.AsyncFunctionDef)) and first.decorator_list:
        return first.lineno - 1
    return 0


def _plain_function(function: Any) -> types.FunctionType:
    """The user's own function behind a bound method, ``functools.partial`` or decorator wrapper."""
    while True:
        if isinstance(function, types.MethodType):
            function = function.__func__
        elif isinstance(function, functools.partial):
            function = function.func
        elif hasattr(function, "__wrapped__"):
            function = function.__wrapped__
        else:
            return function

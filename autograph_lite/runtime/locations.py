"""Where a staged statement is in the user's source.

The rewriter gives every helper function the line of the statement it comes from, and compiles it with
the user's file name, so the helper's code object is the statement's location.
"""

from __future__ import annotations

import dis
import inspect
import os
import sys
import sysconfig
import types
from collections.abc import Callable
from typing import Any, TypeVar, cast

import jax
import jaxlib

from ..errors import Location
from ..generated_names import PREFIX
from .code_sets import CodeSet

W = TypeVar("W", bound=Callable[..., Any])

# Every code object of converted code (a converted function's and the helpers generated in it), noted
# by codegen (through :func:`.jax_errors.register`): a frame running one runs the user's lines.
CONVERTED_CODES = CodeSet()


def presenting(wrapper: W, generated: Callable[..., Any]) -> W:
    """``wrapper``, a runtime function that JAX traces in place of the ``generated`` branch or loop
    body it calls, named as that function, so that JAX's messages say ``true_fun is _ag_if_true_L9 at
    model.py:9`` rather than naming the runtime's code.

    JAX reads a traced function's name and ``__code__`` through ``__wrapped__`` (``inspect.unwrap``);
    its argument names come from ``inspect.signature``, which would follow ``__wrapped__`` too, so
    the wrapper keeps its own signature (cached per wrapper code: closures of one code share it).
    """
    target = inspect.unwrap(generated)
    code = cast(types.FunctionType, wrapper).__code__
    signature = _signatures.get(code)
    if signature is None:
        signature = _signatures[code] = inspect.signature(wrapper)
    wrapper.__signature__ = signature  # type: ignore[attr-defined]
    wrapper.__name__ = getattr(target, "__name__", wrapper.__name__)
    wrapper.__qualname__ = getattr(target, "__qualname__", wrapper.__qualname__)
    wrapper.__wrapped__ = generated  # type: ignore[attr-defined]
    return wrapper


_signatures: dict[types.CodeType, inspect.Signature] = {}  # per runtime wrapper's code: a handful


def location_of(helper: Callable[..., Any]) -> Location:
    code = helper.__code__
    return Location(code.co_filename, code.co_firstlineno)


# The autograph_lite package directory: frames in it are ours, not the user's.
PACKAGE_DIRECTORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def caller_location() -> Location | None:
    """Where the user's code called into autograph_lite: the innermost frame outside this package.

    Converted code runs in frames with the user's file name and lines, so that frame is the user's
    statement. Used only to locate errors raised by operators that are not given a helper.
    """
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(PACKAGE_DIRECTORY):
        frame = frame.f_back
    return None if frame is None else Location(frame.f_code.co_filename, frame.f_lineno)


_STORES = frozenset({"STORE_FAST", "STORE_NAME", "STORE_DEREF", "STORE_GLOBAL"})


def assigned_by_caller() -> str | None:
    """The variable that the user's statement calling into autograph_lite now assigns the call's result
    to (``label = "a" if c else "b"`` -> ``label``), for an error to name it rather than the expression;
    None if the result goes elsewhere (an operand, a ``return``) or to a name of the converter's. Read
    from the bytecode: the instruction after the running call stores its result."""
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(PACKAGE_DIRECTORY):
        frame = frame.f_back
    if frame is None:
        return None
    # the first instruction past the call's (f_lasti may point into the call's inline cache)
    following = next((i for i in dis.get_instructions(frame.f_code) if i.offset > frame.f_lasti), None)
    name = following.argval if following is not None and following.opname in _STORES else None
    return name if isinstance(name, str) and not name.startswith(PREFIX) else None


# JAX's own directories: its frames are not the user's (nor shown in located errors: jax_errors.py).
JAX_DIRECTORIES = tuple(os.path.dirname(os.path.abspath(module.__file__ or "")) + os.sep for module in (jax, jaxlib))
# Where frames that are not the user's code live: JAX's, the standard library's, installed packages'.
_NOT_USERS = tuple({*JAX_DIRECTORIES, *(os.path.abspath(sysconfig.get_paths()[key]) + os.sep
                                        for key in ("stdlib", "platstdlib", "purelib", "platlib"))})


def raised_at(error: BaseException) -> Location | None:
    """The innermost line of the user's code that ``error``'s traceback passes through (converted code
    runs with the user's file and lines): where eager Python would raise it, as far as the user's code
    goes; None if no frame outside this package, JAX and the installed libraries is in it."""
    found = None
    traceback = error.__traceback__
    while traceback is not None:
        filename = os.path.abspath(traceback.tb_frame.f_code.co_filename)
        if not filename.startswith(PACKAGE_DIRECTORY) and not filename.startswith(_NOT_USERS):
            found = Location(traceback.tb_frame.f_code.co_filename, traceback.tb_lineno)
        traceback = traceback.tb_next
    return found


def stored_lines(helper: Callable[..., Any], name: str) -> list[int]:
    """The lines where ``helper``, or a helper nested in it, assigns ``name``."""
    lines: set[int] = set()
    pending = [helper.__code__]
    while pending:
        code = pending.pop()
        for instruction in dis.get_instructions(code):
            line = instruction.positions.lineno if instruction.positions else None
            if instruction.opname.startswith("STORE") and instruction.argval == name and line is not None:
                lines.add(line)
        pending.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return sorted(lines)

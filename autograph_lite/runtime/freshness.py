"""Whether a container was created inside the staged trace now in progress.

Mutating a list or dict inside a staged branch or loop body is wrong when the caller (or the next
iteration, or the other branch) can see it: the mutation would happen once while tracing. A
container the traced code built itself, by a display such as ``parts = [x]`` or ``{}``, is private
to that trace, and mutating it while tracing is exactly what Python does: a helper that builds a
list and ``extend``s it works inside a ``lax.cond`` branch as it does outside.

There is no creation time on Python objects, so the proof is by frames: a frame that started
inside the trace, holding the container in a variable that it only ever binds to a fresh display
(read from the bytecode), holds a container created inside the trace. Anything else (a parameter,
even ``**kwargs``, whose new dict may hold the caller's containers; a closure variable, an attribute,
a name bound to a call's result) counts as not created inside: the checks then stay on the safe side
(a display of plain values stored into an attribute is noted made by the store: ``appends.fresh``).
"""

from __future__ import annotations

import dis
import functools
import inspect
import sys
import types
from collections.abc import Iterator
from typing import Any

from ..generated_names import RUNTIME

# The instructions that leave a new display on the stack, immediately before the store of it.
_BUILDS = frozenset({
    "BUILD_LIST", "BUILD_MAP", "BUILD_SET", "BUILD_CONST_KEY_MAP", "LIST_EXTEND", "SET_UPDATE", "DICT_UPDATE",
})
_PLAIN_STORES = frozenset({"STORE_FAST", "STORE_DEREF", "STORE_NAME"})
_SUSPENDABLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
# The runtime's staged statements, whose results converted code unpacks into the names they carry.
_STATEMENTS = frozenset({"if_stmt", "switch_stmt", "while_stmt", "for_stmt"})
# The runtime's item stores, which hand back the container they were given: ``x = _ag.setitem(x, ...)``.
_ITEM_STORES = frozenset({"setitem", "setitem_nested"})


def created_inside(value: Any, boundary: types.FrameType | None) -> bool:
    """Whether ``value`` is provably a display built by a frame called from ``boundary``.

    ``boundary`` is the frame that entered the staged trace; the frames between the caller and it
    run inside the trace.
    """
    if boundary is None:
        return False
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None and frame is not boundary:
        # A generator's frame may have started before the trace and only be resumed inside it.
        names = frozenset() if frame.f_code.co_flags & _SUSPENDABLE else _fresh_names(frame.f_code)
        if names:
            variables = frame.f_locals
            if any(variables.get(name) is value for name in names):
                return True
        frame = frame.f_back
    return False


@functools.lru_cache(maxsize=4096)
def _fresh_names(code: types.CodeType) -> frozenset[str]:
    """The variables ``code`` owns that every binding, its own or a nested function's, sets to a new display."""
    owned = (set(code.co_varnames) | set(code.co_cellvars)) - set(_parameters(code))
    stores: dict[str, bool] = {}
    instructions = list(dis.get_instructions(code))
    for index, instruction in enumerate(instructions):
        if not (_rebinds_through_setitem(instructions, index) or _rebinds_through_statement(instructions, index)):
            _note_store(instruction, instructions[index - 1] if index else None, owned, stores, nested=False)
    for nested in _nested_codes(code):
        for instruction in dis.get_instructions(nested):
            _note_store(instruction, None, owned, stores, nested=True)
    return frozenset(name for name, fresh in stores.items() if fresh)


def _rebinds_through_setitem(instructions: list[dis.Instruction], index: int) -> bool:
    """Whether instruction ``index`` stores ``x = _ag.setitem(x, ...)``: the rewrite of ``x[i] = v``,
    which hands back the same container (a list, dict or NumPy array), so it binds nothing new; so
    does ``x = _ag.setitem_nested(x, ...)``, the rewrite of ``x[i][j] = v`` (``runtime.nested_items``).

    The call's arguments hold no ``_ag.setitem`` of their own (an item assignment is a statement), so
    the nearest ``setitem`` (or ``setitem_nested``) attribute loaded off ``_ag`` before the store is that call's.
    """
    store = instructions[index]
    if store.opname not in _PLAIN_STORES or index == 0 or not instructions[index - 1].opname.startswith("CALL"):
        return False
    for position in range(index - 1, 0, -1):
        candidate = instructions[position]
        if candidate.opname in ("LOAD_ATTR", "LOAD_METHOD") and candidate.argval in _ITEM_STORES:
            owner, first_argument = instructions[position - 1], instructions[position + 1]
            return (owner.argval == RUNTIME and first_argument.opname.startswith("LOAD")
                    and first_argument.argval == store.argval)
    return False


def _rebinds_through_statement(instructions: list[dis.Instruction], index: int) -> bool:
    """Whether instruction ``index`` stores one of the values a staged statement hands back
    (``d, = _ag.if_stmt(...)``): a list or dict its code updated in place comes back as the object it
    was given (``kept_containers``), any other as one the runtime built inside the trace, so the
    binding makes nothing fresh stale. Its arguments hold no other statement (each is a statement of
    its own) and store nothing: the nearest ``*_stmt`` attribute loaded off ``_ag`` before the unpacked
    call, with no store between, is that call's."""
    position = index
    while position > 0 and instructions[position].opname in _PLAIN_STORES:
        position -= 1
    if position == index or instructions[position].opname != "UNPACK_SEQUENCE" or position == 0:
        return False
    if not instructions[position - 1].opname.startswith("CALL"):
        return False
    for candidate in range(position - 2, 0, -1):
        instruction = instructions[candidate]
        if "STORE" in instruction.opname:
            return False
        if instruction.opname in ("LOAD_ATTR", "LOAD_METHOD") and instruction.argval in _STATEMENTS:
            return instructions[candidate - 1].argval == RUNTIME
    return False


def _note_store(
    instruction: dis.Instruction, previous: dis.Instruction | None, owned: set[str], stores: dict[str, bool], nested: bool
) -> None:
    """Record whether a binding of an owned name stores a new display (a nested one never counts)."""
    if not ("STORE" in instruction.opname or "DELETE" in instruction.opname):
        return
    targets = instruction.argval if isinstance(instruction.argval, tuple) else (instruction.argval,)
    for name in owned.intersection(t for t in targets if isinstance(t, str)):
        if nested and instruction.opname not in ("STORE_DEREF", "DELETE_DEREF"):
            continue  # a nested function's own local of the same name
        fresh = (  # reached only by falling through from the display: no jump lands on the store
            not nested and instruction.opname in _PLAIN_STORES and not instruction.is_jump_target
            and previous is not None and previous.opname in _BUILDS
        )
        stores[name] = stores.get(name, True) and fresh


def _parameters(code: types.CodeType) -> tuple[str, ...]:
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return code.co_varnames[:count]


def _nested_codes(code: types.CodeType) -> Iterator[types.CodeType]:
    pending = [c for c in code.co_consts if isinstance(c, types.CodeType)]
    while pending:
        nested = pending.pop()
        yield nested
        pending.extend(c for c in nested.co_consts if isinstance(c, types.CodeType))

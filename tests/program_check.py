"""Checking a generated program: eager Python against ``autograph_lite.convert`` and ``jit``.

``check_function`` runs ``f`` eagerly on each input set (the reference), then
``autograph_lite.convert(f)`` on the same concrete inputs, then ``autograph_lite.jit(f)`` with every
argument traced, on every device ``jax.devices()`` reports: twice on the first input set (the first
call traces, the second runs the cached program) and once on each other set. Each run must return
what eager Python returned, in eager's dtypes or their documented staged forms (program_dtypes.py:
a value check alone passes an int32 that came back as float32), and print exactly what it printed
(``jax.debug.print`` output included), or raise a documented, acceptable error
(:data:`program_limitations.DOCUMENTED_LIMITATIONS`); the answer is an :class:`Outcome`.

A set on which the eager run raises is discarded, except for ``UnboundLocalError``: a read (or a
``del``) of a name no path has bound is a fact of the program's text, which the converter promises to
keep (docs/semantics.md, "Variables that may be unbound"); and except for what a generated ``raise``
or ``assert`` raises (program_raises.py) and what ``int()`` of a NaN or an infinity raises
(program_mixed_dtypes.py), which the converter promises to raise at run time. On such a
set each run must raise it too, with Python's type and message, after printing what Python printed,
or a documented error; a run that returns a value is an ``exception`` mismatch, whatever it returns.
Under ``jit`` JAX's runtime error, ending with eager's type and message, stands for the exception only
where ``autograph_lite.jit`` keeps JAX's error: for a function with no check of its own.

A program whose helpers update arrays in place (``a[i] = v``, program_constructs.py) is run eagerly
and converted on NumPy copies of its float arrays, the only arrays Python can update in place, and
the arguments after the call, which the caller sees, must agree too. ``jit`` is compared on results
and output only: its arguments are JAX arrays, which no program can update in place, so an update
that Python would make in place must reach the caller as a returned value or be refused.

The state the program keeps in its own module (``COUNTER``, ``BAG``, a class's counter) must be
eager's after each converted run and after the ``jit`` call that traces (program_module_state.py):
a helper's effect that happens once while tracing is wrong there even where it never reaches the
result. Later ``jit`` calls run the cached program, which runs none of ``f``'s Python.

With the generator's ``vmap`` feature, ``jit(vmap(convert(f)))`` over the input sets stacked must give
each set eager's result too (program_vmap.py); with ``grad``, ``jit(grad(...))`` of the sum of the float
results must give eager ``grad``'s derivative with respect to the float arguments (program_grad.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import operator
import re
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from program_arrays import is_store_past_end
from program_constructs import Constructs, analyse
from program_dtypes import Kind, dtype_difference, kinds, rounded_int
from program_grad import MODE as GRAD_MODE
from program_grad import gradients, staged_gradient
from program_limitations import DOCUMENTED_LIMITATIONS
from program_mixed_dtypes import is_int_cast_error
from program_model import Case
from program_module_state import module_state, state_difference
from program_raises import is_generated_check
from program_rounding import FUSED_ROUNDING, explained_by_rounding
from program_vmap import MODE as VMAP_MODE
from program_vmap import RAISING_MODE, comparable, raised_unlike_eager, vmapped_lanes
from support import assert_same, load_source

import autograph_lite


@dataclasses.dataclass(frozen=True)
class Checked(Constructs):
    """What the source says (:class:`Constructs`), and what the generator says the program does on purpose."""

    dtype_changes: bool = False  # gives a variable or an operand two dtypes (feature mixed_dtypes)
    hidden_effects: bool = False  # calls that change hidden state: next(), rng draws, a helper's global store


@dataclasses.dataclass
class Outcome:
    kind: str  # "agree", "discarded", "limitation", "mismatch", "conversion_error", "exception"
    detail: str = ""  # the limitation, the normalised error, or what a mismatch is in: "" (the result's
    # values), "dtype (<kind> for <eager's kind>)" (program_dtypes.py), "stdout", "arguments" (after the
    # call) or "exception" (a value where eager raised UnboundLocalError)
    mode: str = ""  # "convert" (concrete inputs) or "jit[<platform>] <which call>"
    message: str = ""  # full text for reports
    inputs: tuple = ()
    eager: Any = None  # what eager Python returned (printed, left in the arguments), or raised
    converted: Any = None  # and what the converted function did instead

    @property
    def is_bug(self) -> bool:
        return self.kind in ("mismatch", "conversion_error", "exception")

    @property
    def signature(self) -> str:
        if self.kind in ("agree", "discarded"):
            return self.kind
        if self.kind == "mismatch":
            return f"{self.detail} mismatch {self.mode}".lstrip()
        return f"{self.kind}: {self.detail}"


def normalise_error(error: BaseException) -> str:
    """``Type: first line`` with locations, names and numbers abstracted, to group errors by kind."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    text = re.sub(r"\S+\.py:\d+(:\s*)?", "", text)
    text = re.sub(r"'[^']*'", "'_'", text)
    text = re.sub(r"\d+", "N", text)
    return f"{type(error).__name__}: {text[:150]}"


def _classify(error: BaseException, constructs: Constructs, mode: str) -> Outcome:
    message = "".join(traceback.format_exception(error))
    for name, limitation in DOCUMENTED_LIMITATIONS.items():
        match = limitation.pattern.search(str(error)) if isinstance(error, limitation.error) else None
        if match and limitation.accepts(match, constructs, mode):
            return Outcome("limitation", name, mode, message)
    if isinstance(error, autograph_lite.ConversionError):
        return Outcome("conversion_error", normalise_error(error), mode, message)
    return Outcome("exception", normalise_error(error), mode, message)


def _same(actual: Any, expected: Any) -> str | None:
    try:
        assert_same(actual, expected)
    except AssertionError as error:
        return str(error)
    return rounded_int(actual, expected)  # the values' tolerance would hide an int rounded as a float


@dataclasses.dataclass(frozen=True)
class _Reference:
    """One eager run: the input set, and the result, the output and the arguments it left, or the
    ``UnboundLocalError`` or generated check's exception it raised instead (and what it printed first)."""

    args: tuple
    result: Any
    stdout: str
    after: tuple
    error: Exception | None = None
    kinds: tuple[Kind | None, ...] = ()  # the kind of each leaf of the result, before the snapshot
    module_state: dict[str, Any] = dataclasses.field(default_factory=dict)  # program_module_state.py


class ItemMutableArray(np.ndarray):
    """A NumPy array that changes in place only through item assignment (``a[k] = v``).

    The reference semantics of a converted function on arrays that a helper updates in place: item
    assignment is NumPy's (the caller sees it), but ``x += v`` rebinds ``x`` to a new array, as it does
    for the JAX arrays the function is written for (plain NumPy would change the array in place, and
    a loop iterating over ``x`` would see that, which neither JAX nor the converter does).
    """


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor"):
    setattr(ItemMutableArray, f"__i{_name}__",
            lambda self, other, _operator=getattr(operator, f"__{_name}__"): _operator(self, other))  # noqa: B008 (bound per name)


def _arguments(args: tuple, numpy_inputs: bool) -> tuple:
    """Fresh arguments for one call: JAX arrays, or (``numpy_inputs``) item-mutable NumPy copies of
    the float arrays, which a helper may update in place, and JAX scalars and int arrays as usual."""
    if not numpy_inputs:
        return tuple(jnp.asarray(a) for a in args)
    return tuple(
        np.array(a).view(ItemMutableArray) if np.ndim(a) and np.issubdtype(np.asarray(a).dtype, np.floating)
        else jnp.asarray(a)
        for a in args
    )


def _snapshot(tree: Any) -> Any:
    """NumPy copies of the leaves: later in-place updates of the arrays do not reach them."""
    return jax.tree_util.tree_map(np.array, tree)


def _call(fn: Callable, args: tuple, out: io.StringIO) -> Any:
    """``fn(*args)``, printing into ``out``, ``jax.debug.print`` output included (flushed first, also
    when ``fn`` raises)."""
    with contextlib.redirect_stdout(out):
        try:
            return fn(*args)
        finally:
            jax.effects_barrier()


def raised_at_run_time(error: BaseException) -> bool:
    """Whether eager's ``error`` is one the converted program must raise too, where it runs: a generated check's,
    ``int()``'s of a NaN or an infinity (program_mixed_dtypes.py), a store's past the end (program_arrays.py)."""
    return is_generated_check(error) or is_int_cast_error(error) or is_store_past_end(error)


def _references(fn: Callable, inputs: Sequence[tuple], numpy_inputs: bool) -> list[_Reference]:
    references = []
    for args in inputs:
        call_args = _arguments(tuple(args), numpy_inputs)
        out = io.StringIO()
        try:
            result = _call(fn, call_args, out)
        except Exception as error:
            if isinstance(error, UnboundLocalError) or raised_at_run_time(error):
                references.append(_Reference(tuple(args), None, out.getvalue(), (), error))
            continue
        references.append(_Reference(tuple(args), _snapshot(result), out.getvalue(), _snapshot(call_args),
                                     kinds=tuple(kinds(result)), module_state=module_state(fn.__globals__)))
    return references


def _compare(reference: _Reference, mode: str, result: Any, stdout: str, after: tuple | None,
             state: dict[str, Any] | None = None) -> Outcome | None:
    """A mismatch of one run against the eager one, or None; ``after``: the arguments after the
    run, when the caller can see in-place updates (NumPy arrays); ``state``: the program module's
    state after the run (program_module_state.py), where the run executed ``f``'s Python."""
    difference = _same(result, reference.result)
    if difference is not None:
        return Outcome("mismatch", "", mode, difference, reference.args, reference.result, result)
    dtype = dtype_difference(result, list(reference.kinds), staged=mode.startswith("jit"))
    if dtype is not None:
        return Outcome("mismatch", f"dtype ({dtype.kinds})", mode, str(dtype), reference.args, reference.result, result)
    if stdout != reference.stdout:
        message = f"printed {stdout!r}\neager Python printed {reference.stdout!r}"
        return Outcome("mismatch", "stdout", mode, message, reference.args, reference.stdout, stdout)
    difference = None if after is None else _same(after, reference.after)
    if difference is not None:
        message = f"the arguments after the call differ from eager Python's: {difference}"
        return Outcome("mismatch", "arguments", mode, message, reference.args, reference.after, _snapshot(after))
    difference = None if state is None else state_difference(state, reference.module_state)
    if difference is not None:
        message = f"the module's state after the call differs from eager Python's: {difference}"
        return Outcome("mismatch", "module state", mode, message, reference.args, reference.module_state, state)
    return None


def _run(function: Callable, reference: _Reference, constructs: Constructs, mode: str,
         compare_arguments: bool, namespace: dict[str, Any] | None = None) -> Outcome | None:
    """Run ``function`` on fresh arguments; a mismatch, an error's outcome, or None when it agrees.

    ``namespace``: the program module's, where the run executes ``f``'s Python (converted; the call of
    ``jit`` that traces), so that the state it leaves there is eager's."""
    args = _arguments(reference.args, constructs.numpy_inputs)
    expected = reference.error
    out = io.StringIO()
    try:
        result = _call(function, args, out)
        stdout = out.getvalue()
    except Exception as error:
        # A staged read of an unbound name, and a raise on the concrete path under jit, raise while
        # tracing: the program never runs, so it prints nothing, and its checks cannot fire first.
        while_tracing = isinstance(expected, UnboundLocalError) or (mode.startswith("jit") and _raised_while_tracing(error))
        if expected is not None and _raised_as_eager(error, expected, function):
            return _compare(reference, mode, None, reference.stdout if while_tracing else out.getvalue(), None)
        eager = reference.result if expected is None else expected
        outcome = dataclasses.replace(_classify(error, constructs, mode), inputs=reference.args, eager=eager)
        if outcome.kind == "limitation" or isinstance(error, jax.errors.JaxRuntimeError) or not while_tracing:
            return outcome
        # (an error that names a tracer is no error of eager code's that came first: the converter's)
        if expected is not None and raised_at_run_time(expected) and "Tracer" not in str(error):
            return dataclasses.replace(outcome, kind="limitation",
                                       detail="an error while tracing comes before the run-time checks staged before it")
        if expected is None and is_generated_check(error) and _has_finally(function):
            return dataclasses.replace(outcome, kind="limitation",
                                       detail="a pending exception with a traced exit in `finally` is raised")
        return outcome
    if expected is not None:
        message = f"returned {result!r} where eager Python raised {expected!r}"
        return Outcome("mismatch", "exception", mode, message, reference.args, expected, result)
    state = None if namespace is None else module_state(namespace)
    return _compare(reference, mode, result, stdout, args if compare_arguments else None, state)


def _has_hidden_effects(function: Callable) -> bool:
    """Whether the program's module calls ``next`` (or ``sum`` / ``list`` of a held iterator or generator expression:
    program_iterators.py, program_closures.py) or draws from a NumPy Generator, or a helper of it stores into an item of a module-level container or an attribute of a module-level object, applies
    ``+=`` to a list or NumPy array it was given (or holds through a local alias), calls a library function
    that mutates a module-level container, or a property setter of the program's logs (program_helper_effects.py),
    or an ``__init__`` bumps a log or a class attribute (program_init_effects.py)."""
    return bool(re.search(r"\bnext\(|\b(sum|list)\((it|gen)\d+|\brng\.\w+\(|^    [A-Z_]+\[.*\] \S?=|^        self\.count \S?=|^    [A-Z_]+\.\w+ \S?=|^    [A-Z_]+\[.*\]\.\w+ \S?=|"
                          r"^    del [A-Z_]+\[|^    setattr\([A-Z_]+,|^    xs \+= |^    tank \+= |^ {8,}[A-Z_]+\[.*\] \S?=|"
                          r"^        [A-Z]\w*\.\w+ \S?=|^        type\(self\)\.\w+ \S?=|^    h\.items\[0\] \S?=|^    kw\['rows'\] \S?=|^    rows\[0\]\[1\] \S?=|^    xs\[0\] \S?=|"
                          r"^    (heapq\.heappush|bisect\.insort|operator\.setitem|list\.append|np\.copyto|np\.add|np\.multiply)\(|"
                          r"^    \(TANK \+ 1\)\.clip\(|^    held\['r'\] \S?=|^    a\.xs \S?=|^    Pools\(r=BAG\)\['r'\] \S?=",
                          Path(function.__code__.co_filename).read_text(), re.MULTILINE))


def _has_finally(function: Callable) -> bool:
    """Whether the program has a ``finally`` (which may exit, and so drop a pending exception)."""
    original = autograph_lite.conversion.original_of(function)
    return "finally:" in Path(original.__code__.co_filename).read_text()


def _raised_while_tracing(error: Exception) -> bool:
    """Whether ``error`` was raised while tracing, not by a run-time check (which adds a note)."""
    return not any(note.startswith("(raised when the compiled program ran") for note in getattr(error, "__notes__", ()))


def _raised_as_eager(error: Exception, expected: Exception, function: Callable) -> bool:
    """``error`` is eager's exception (type and message); or, from a ``jax.jit`` function that is not
    wrapped to raise it (no check of the function's own), JAX's runtime error reporting it."""
    if type(error) is type(expected) and str(error) == str(expected):
        return True
    reported = f"\n{type(expected).__name__}: {expected}"
    keeps_jax_error = not isinstance(function, autograph_lite.api.JitWithChecks)
    return keeps_jax_error and isinstance(error, jax.errors.JaxRuntimeError) and str(error).endswith(reported)


def check_function(fn: Callable, inputs: Sequence[tuple], maybe_used: frozenset[str] = frozenset(),
                   dtype_changes: bool = False, vmapped: bool = False, differentiated: bool = False) -> Outcome:
    """Compare ``fn`` eagerly, ``convert(fn)`` on concrete inputs and ``jit(fn)`` traced, on every device;
    with ``vmapped``, ``jit(vmap(convert(fn)))`` over the stacked inputs too (program_vmap.py); with
    ``differentiated``, ``jit(grad(...))`` of it against eager ``grad`` (program_grad.py).

    ``maybe_used``: the names ``fn`` reads where they may be unassigned; ``dtype_changes``: ``fn`` gives
    a variable or an operand two dtypes (documented limitations apply to both).
    """
    constructs = Checked(**vars(analyse(fn, maybe_used)), dtype_changes=dtype_changes,
                         hidden_effects=_has_hidden_effects(fn))
    references = _references(fn, inputs, constructs.numpy_inputs)
    if not references:
        return Outcome("discarded")
    try:
        converted = autograph_lite.convert(fn)
    except autograph_lite.ConversionError as error:  # refused before any call, as a `del` in a loop is
        return _classify(error, constructs, "convert")
    for reference in references:
        outcome = _run(converted, reference, constructs, "convert", compare_arguments=constructs.numpy_inputs,
                       namespace=fn.__globals__)
        if outcome is not None:
            return outcome
    jitted = autograph_lite.jit(fn)
    calls = [("first call", references[0]), ("second call", references[0])]
    calls += [("other inputs", reference) for reference in references[1:]]
    for device in jax.devices():
        with jax.default_device(device):
            for which, reference in calls:
                mode = f"jit[{device.platform}] {which}"
                traces = device == jax.devices()[0] and which == "first call"  # later calls run the cache
                outcome = _run_jitted(jitted, reference, constructs, mode, fn.__globals__ if traces else None)
                if outcome is not None:
                    return outcome
    outcome = _run_vmapped(fn, references, constructs) if vmapped else None
    if outcome or not (differentiated and comparable(references, constructs.hidden_effects, constructs.numpy_inputs)):
        return outcome or Outcome("agree")
    return _run_differentiated(fn, references, constructs) or Outcome("agree")


def _run_vmapped(fn: Callable, references: Sequence[_Reference], constructs: Constructs) -> Outcome | None:
    """Each lane of ``jit(vmap(convert(fn)))`` against eager's result; where eager raises, see program_vmap.py."""
    raising = not (constructs.hidden_effects or constructs.numpy_inputs) and any(r.error for r in references)
    if not raising and not comparable(references, constructs.hidden_effects, constructs.numpy_inputs):
        return None
    try:
        if raising:
            difference = raised_unlike_eager(fn, [r.args for r in references], [r.error for r in references])
            return difference and Outcome("mismatch", "exception", RAISING_MODE, difference, references[0].args)
        lanes = vmapped_lanes(fn, [reference.args for reference in references])
    except Exception as error:
        mode = RAISING_MODE if raising else VMAP_MODE
        return dataclasses.replace(_classify(error, constructs, mode), inputs=references[0].args)
    for reference, lane in zip(references, lanes):
        difference = _same(lane, reference.result)
        if difference is not None:
            return Outcome("mismatch", "vmap", VMAP_MODE, difference, reference.args, reference.result, lane)
    return None


def _run_differentiated(fn: Callable, references: Sequence[_Reference], constructs: Constructs) -> Outcome | None:
    """``jit(grad(...))`` of the converted function against eager's gradient, on each input set that has one."""
    for arguments, expected in gradients(fn, [reference.args for reference in references]):
        try:
            gradient = staged_gradient(fn, arguments)
        except Exception as error:
            return dataclasses.replace(_classify(error, constructs, GRAD_MODE), inputs=arguments)
        difference = _same(_snapshot(gradient), _snapshot(expected))
        if difference is not None:
            return Outcome("mismatch", "grad", GRAD_MODE, difference, arguments, expected, gradient)
    return None


def _run_jitted(jitted: Callable, reference: _Reference, constructs: Constructs, mode: str,
                namespace: dict[str, Any] | None) -> Outcome | None:
    """:func:`_run` under ``jit``, where values that differ only by XLA's rounding are no mismatch
    (program_rounding.py)."""
    outcome = _run(jitted, reference, constructs, mode, compare_arguments=False, namespace=namespace)
    if outcome is not None and outcome.kind == "mismatch" and not outcome.detail and explained_by_rounding(
            jitted, lambda: _arguments(reference.args, constructs.numpy_inputs), reference.result, _same):
        return dataclasses.replace(outcome, kind="limitation", detail=FUSED_ROUNDING)
    return outcome


def check_case(case: Case, directory: Path) -> Outcome:
    module = load_source(case.program.source, directory)
    try:
        two_dtypes = bool(case.program.used & {"mixed_dtypes", "narrow_dtypes"})  # on purpose: a staged choice may refuse
        return check_function(module.f, case.inputs, case.program.maybe_used, two_dtypes,
                              vmapped="vmap" in case.program.features, differentiated="grad" in case.program.features)
    finally:
        sys.modules.pop(module.__name__, None)

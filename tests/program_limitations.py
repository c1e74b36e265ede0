"""The documented limitations of staging, as the generated-program checker accepts them
(program_check.py): an error a converted program may raise instead of eager's result, each with the
programs it is acceptable for. A refusal the program gives no reason for is a bug like any other.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from program_constructs import Constructs
from program_jax_refusals import REFUSAL, located_at_a_refusal

import autograph_lite
from autograph_lite.errors import TracedValueError


@dataclasses.dataclass(frozen=True)
class Limitation:
    """A documented refusal, and the programs it is acceptable for: ``accepts(match, constructs, mode)``
    (a refusal the program gives no reason for is a bug like any other)."""

    error: type[BaseException]
    pattern: re.Pattern[str]
    accepts: Callable[[re.Match[str], Constructs, str], bool]


def _reads_maybe_unassigned(match: re.Match[str], constructs: Constructs, mode: str) -> bool:
    return match.group("name") in constructs.maybe_used


def _staged_append(match: re.Match[str], constructs: Constructs, mode: str) -> bool:
    return mode.startswith("jit") and any(callee.endswith(".append") for callee in constructs.staged_effects)


def _staged_mutation(match: re.Match[str], constructs: Constructs, mode: str) -> bool:
    return mode.startswith("jit") and constructs.staged_mutation


def _staged_effect(match: re.Match[str], constructs: Constructs, mode: str) -> bool:
    return mode.startswith("jit") and match.group("name") in constructs.staged_effects


def _nested_outer_write(match: re.Match[str], constructs: Constructs, mode: str) -> bool:
    return mode.startswith("jit") and match.group("name") in constructs.outer_writes


def _in_place_update(match: re.Match[str], constructs: Constructs, mode: str) -> bool:
    return mode.startswith("jit") and match.group("name") in constructs.in_place


def _in_place_while_iterated(match: re.Match[str], constructs: Constructs, mode: str) -> bool:
    """The message names no variable: any in-place update of the program's may be the one."""
    return mode.startswith("jit") and bool(constructs.in_place)


def _gives_two_dtypes(match: re.Match[str], constructs: Constructs, mode: str) -> bool:
    """Only staging needs one dtype, and only a program that gives a value two on purpose may lack it."""
    return mode.startswith("jit") and getattr(constructs, "dtype_changes", False)


def _hidden_effect(match: re.Match[str], constructs: Constructs, mode: str) -> bool:
    """A helper's store into a module-level container, ``next()``, a random draw (program_helper_effects.py)."""
    return mode.startswith("jit") and getattr(constructs, "hidden_effects", False)


def _staged(match: re.Match[str], constructs: Constructs, mode: str) -> bool:
    """Only a traced value reaches the wrapped function's ``if`` as a tracer."""
    return mode.startswith("jit")


def _differentiated(match: re.Match[str], constructs: Constructs, mode: str) -> bool:
    """Reverse mode through a ``lax.while_loop`` (docs/semantics.md, "Gradients and vmap")."""
    return mode == "jit[grad]"


def _deleted_in_control_flow(match: re.Match[str], constructs: Constructs, mode: str) -> bool:
    """Refused before any conversion, so on concrete inputs too."""
    return set(match.group("names").split(", ")) <= constructs.deleted_in_control_flow


# Errors that docs/semantics.md and the error messages document as limitations of staging. The
# first four need a read of the variable they name where it may be unassigned (the eager run may
# still succeed on the inputs that assign it); the third is not a ConversionError: runtime/values.py's
# ``Undefined`` raises "the UnboundLocalError that Python would have raised at the read", when a
# staged branch that eager Python never takes reads the name. The others refuse an effect that a
# staged statement cannot reproduce, acceptable only under jit (convert runs on concrete inputs,
# where nothing is staged) and only for a program with that effect (program_constructs.py): a call
# made for its effect (the README's "Not supported yet"), an append whose count depends on a traced
# value, a container mutated where a traced value may stage it, a nested function writing the
# nonlocal / global it names, an in-place update that another name would miss (an alias of a JAX
# array, or of a list or dict that staging copies) or that a helper's caller would miss. The last
# refuses a `del` of a name inside a branch or loop (docs/errors.md) in every mode, before converting.
DOCUMENTED_LIMITATIONS = {
    "reverse-mode gradient through a traced while (forward mode only)": Limitation(ValueError, re.compile(
        r"^Reverse-mode differentiation does not work for lax\.while_loop"), _differentiated),
    "assigned in one branch only, used after a traced if": Limitation(autograph_lite.ConversionError, re.compile(
        r"'(?P<name>\w+)' is assigned only in the (true|false) branch"), _reads_maybe_unassigned),
    "first assigned inside a staged loop, used after it": Limitation(autograph_lite.ConversionError, re.compile(
        r"'(?P<name>\w+)' is first assigned inside the staged loop"), _reads_maybe_unassigned),
    "unassigned variable read in a staged branch": Limitation(UnboundLocalError, re.compile(
        r"cannot access local variable '(?P<name>\w+)' where it is not associated with a value"),
        _reads_maybe_unassigned),
    "maybe-unassigned variable read in a branch of a traced if or ternary": Limitation(
        autograph_lite.ConversionError, re.compile(
            r"'(?P<name>\w+)' is read in the (true|false) branch of the .*, where it may be unassigned"),
        _reads_maybe_unassigned),
    "call made for its effect inside staged code": Limitation(autograph_lite.ConversionError, re.compile(
        r"(?:cannot be staged: its body calls |this call of )(?P<name>[\w.]+)\((?:\.\.\.)?\),? (?:made )?for its effect"),
        _staged_effect),
    "append whose count depends on a traced value": Limitation(autograph_lite.ConversionError, re.compile(
        r"a list built with \.append\(\.\.\.\) inside .*(the number of appends depends on a traced value|"
        r"a list's length cannot depend on which one does)"),
        _staged_append),
    "container mutated inside staged code": Limitation(autograph_lite.ConversionError, re.compile(
        r"which mutates a (list|dict|set|deque|bytearray)"), _staged_mutation),
    "effect hidden in a call inside staged code (a helper's store, next(), a random draw)": Limitation(
        autograph_lite.ConversionError, re.compile(
            r"which (mutates a (list|dict|set|deque|bytearray|NumPy array)|advances an iterator|changes the state of a "
            r"|changes an object of class \w+ that the staged code did not make|runs .+ \(the user's code, unconverted)"),
        _hidden_effect),
    "nested function assigns an outer variable inside staged code": Limitation(
        autograph_lite.ConversionError, re.compile(r"assigns to the (nonlocal|global) variable '(?P<name>\w+)'"),
        _nested_outer_write),
    # runtime/shared_memory.py: a store through a NumPy view (program_arrays.py, the view helpers).
    "in-place update of a JAX array that may be a NumPy view of another": Limitation(
        autograph_lite.ConversionError, re.compile(r"'(?P<name>\w+)' is updated in place, but it may share memory with "),
        _in_place_update),
    "in-place update of a JAX array that a list, tuple or dict holds as an item": Limitation(
        autograph_lite.ConversionError,
        re.compile(r"'(?P<name>\w+)' is updated in place, but it is an array that '\w+' holds as an item"),
        _in_place_update),
    "unpacking that stores a view of its own container after storing into it": Limitation(
        autograph_lite.ConversionError, re.compile(
            r"this assignment stores into '(?P<name>\w+)' more than once, and a value it stores later may be a NumPy view"),
        _in_place_update),
    "in-place update of an aliased JAX array": Limitation(autograph_lite.ConversionError, re.compile(
        r"'(?P<name>\w+)' is updated in place, but .* refer to the same JAX array"), _in_place_update),
    # runtime/kept_containers.py: inside a staged statement, a list or dict it updates is a copy.
    "list or dict a staged statement updates, read through a variable it does not carry": Limitation(
        autograph_lite.ConversionError, re.compile(
            r"'(?P<name>\w+)' reaches a (list|dict) whose items this .* updates through another variable"), _staged_mutation),
    "list or dict that two variables of a staged loop reach, updated in it": Limitation(
        autograph_lite.ConversionError, re.compile(r"'(?P<name>\w+)[^']*' and '[^']+' are one (list|dict), whose items"),
        _staged_mutation),
    "in-place update of a caller's JAX array": Limitation(autograph_lite.ConversionError, re.compile(
        r"'(?P<name>\w+)' is updated in place"), _in_place_update),
    # lax carries one structure per value: a dict that gains a key (or a list an item) in a traced
    # branch or a staged loop is a StagingTypeError naming it.
    "container whose keys change in a traced statement": Limitation(autograph_lite.StagingTypeError, re.compile(
        r"is a (dict|list) of .*(before the staged loop but|in the true branch of the .* but|where the .* is taken but"
        r"|after the code that follows the .* but) a (dict|list) of"),
        _staged_mutation),
    # A loop consuming an array from the front (s = s[1:]) that a traced `break` may leave: staged, the
    # shape would change each iteration (docs/supported-constructs.md); the error names the user's exit.
    "array consumed from the front by a loop with a traced exit": Limitation(autograph_lite.StagingTypeError, re.compile(
        r"'(?P<name>\w+)' is (weakly typed )?\S+ (where the .* is taken but (weakly typed )?\S+ after the code that follows|"
        r"after the code that follows the .* but (weakly typed )?\S+ where the .* is taken).* \(the shape differs\)"),
        lambda match, constructs, mode: mode.startswith("jit") and match.group("name") in constructs.shrinking),
    "in-place update of a JAX array a `for` loop iterates over": Limitation(autograph_lite.ConversionError, re.compile(
        r"an item of an array is updated in place while a `for` loop iterates over that array"), _in_place_while_iterated),
    # A raise (or a false assert) on the concrete path happens while tracing, when a traced value has no text.
    "exception message formatted from a traced value, raised while tracing": Limitation(
        autograph_lite.ConversionError, re.compile(r"a string formatted from a traced value \(template .*\) is an "
                                                   r"exception message"), lambda match, constructs, mode: mode.startswith("jit")),
    # A store through an outer container into one inside it (program_aliases.py, stored_through_list).
    "store through an outer container under a traced `if`": Limitation(autograph_lite.ConversionError, re.compile(
        r"cannot be staged: its body assigns to \w+\[\d+\]\["), lambda match, constructs, mode: mode.startswith("jit")),
    # runtime/kept_containers.py: a container updated in place and then replaced by another in one staged statement.
    "container updated in place, then replaced, in a staged statement": Limitation(autograph_lite.ConversionError,
        re.compile(r"is updated in place in this staged statement and then replaced by another"),
        lambda match, constructs, mode: mode.startswith("jit")),
    # A loop with a traced exit draws on past it: refused for an iterator someone else may hold or whose
    # draws run code, and a later draw from an iterator that such a loop left where only run time knows.
    "`for` loop with a traced exit over an iterator someone else may see": Limitation(
        autograph_lite.TracedPredicateError, re.compile(
            r"this `for` loop draws from a \w+ and stops at a `break` or `return` whose condition is traced"),
        lambda match, constructs, mode: mode.startswith("jit")),
    "draw from an iterator a loop left at a traced exit": Limitation(autograph_lite.StagingTypeError, re.compile(
        r"this \w+ was drawn from by the `for` loop at .*, which stops at a `break` or `return` whose condition "
        r"is traced"), lambda match, constructs, mode: mode.startswith("jit")),
    # A `finally` that may exit drops a pending exception, as an `except` catches one: around a check, refused.
    "a `try` around a raise under a traced condition": Limitation(autograph_lite.ConversionError, re.compile(
        r"is raised under a traced condition, .* but the `try` at .* would catch it"),
        lambda match, constructs, mode: mode.startswith("jit")),
    # JAX refuses a traced mask or slice bound: the located TracedValueError at a marked line (issue #16).
    "value JAX refuses when traced": Limitation(TracedValueError, REFUSAL, located_at_a_refusal),
    # A program of feature mixed_dtypes (program_mixed_dtypes.py) gives a variable or an operand two
    # dtypes; staged, the two must unify as docs/semantics.md says ("Weak types and type unification"),
    # else the choice is a located StagingTypeError naming both dtypes.
    "variable of two dtypes in a staged if, ternary or loop": Limitation(autograph_lite.StagingTypeError, re.compile(
        r"\((the dtype differs|the shape and the dtype differ)\)"), _gives_two_dtypes),
    "operands of `and` / `or` whose common dtype cannot hold both": Limitation(
        autograph_lite.StagingTypeError, re.compile(r"their common dtype cannot hold every value of both"),
        _gives_two_dtypes),
    "operands of max / min whose common dtype cannot hold each": Limitation(
        autograph_lite.StagingTypeError, re.compile(r"(max|min)\(\) returns one of its operands as it is, and here "
                                                    r"they are .*cannot hold every value of each"),
        _gives_two_dtypes),
    # A Python int past 2**24 beside a float in a staged choice or loop carry, or in a list of ints and
    # floats indexed by a traced value (program_indexing.py's mixed tables): float32 does not hold it.
    "Python int that a staged float choice does not hold": Limitation(
        autograph_lite.StagingTypeError, re.compile(r"\(a Python int's beside a float, as in eager arithmetic\)|"
                                                    r"where eager Python keeps the int after zero iterations"),
        _gives_two_dtypes),
    "Python number that a list indexed by a traced value stacks in a dtype that does not hold it": Limitation(
        autograph_lite.StagingTypeError, re.compile(r"indexed by a traced value holds .* among elements stacked as"),
        _gives_two_dtypes),
    "Python int past int32 in a list or range indexed by a traced value": Limitation(
        autograph_lite.StagingTypeError, re.compile(r"indexed by a traced value holds the Python int -?\d+, which no "
                                                    r"int\d+ holds"), _gives_two_dtypes),
    # A Python number beside a float16 / bfloat16 / (u)int8 / (u)int16 in a staged choice or loop carry takes
    # that dtype only where it holds the number (runtime/narrow_numbers.py); feature narrow_dtypes
    # (program_narrow_dtypes.py).
    "Python number that a staged narrow float / int choice may not hold": Limitation(
        autograph_lite.StagingTypeError, re.compile(r"staged, the choice has one dtype, \w+ \(eager arithmetic's "
                                                    r"for a Python number|a staged loop carries one dtype, so it would enter as"),
        _gives_two_dtypes),
    "`del` of a name inside a branch or loop": Limitation(autograph_lite.UnsupportedSyntaxError, re.compile(
        r"`del (?P<names>\w+(, \w+)*)` (inside a branch or loop|after a statement that may `return` early) "
        r"cannot be converted"), _deleted_in_control_flow),
    # A read of the function's locals through its frame misses what a helper assigned (docs/errors.md).
    "locals() / vars() / eval() / exec() in a converted function": Limitation(
        autograph_lite.UnsupportedSyntaxError, re.compile(
            r"`(locals|vars|eval|exec)\(\.*\)` reads the function's local variables by their names"),
        lambda match, constructs, mode: constructs.reads_the_frame),
    # A helper decorated with @jax.custom_jvp (program_transforms.py) keeps its function unconverted
    # (docs/errors.md, "A wrapper that cannot be rebuilt"); eager runs it on concrete values.
    "traced `if` in a function inside a jax.custom_jvp wrapper": Limitation(autograph_lite.ConversionError, re.compile(
        r"runs unconverted inside its jax\.custom_jvp wrapper"), _staged),
}

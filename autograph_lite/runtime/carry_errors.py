"""The errors about what a staged ``if`` or loop carries: one wording policy for both.

When two states of the carried names differ (the two branches of a traced ``if``; a staged loop's
state before and after one iteration), the error names every differing variable, shows both of its
types as they are, says what differs (the shape, the dtype, a Python structure or value) and gives
one fix per variable, for what differs in it: a shape is made equal or kept fixed, a dtype chosen
up front, a Python value decided outside the staged statement. A return value chosen by a traced
``if`` is named by the lines that return it. Kept apart from :mod:`.carry`, which decides *whether*
two states agree: this module only words the outcome.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import Location, StagingTypeError
from ..generated_names import RETURN_VALUE
from .locations import stored_lines
from .printing import DeferredText
from .raises import AssignedIfRan
from .values import type_string, with_article

SHAPE = "the shape differs"
DTYPE = "the dtype differs"
SHAPE_AND_DTYPE = "the shape and the dtype differ"
STRUCTURE = "the Python structure differs"
PYTHON_VALUE = "a Python value differs"

_RETURN_FIX = ("Return values of the same structure, dtype and shape on every path (a function that reaches "
               "its end without `return` returns None).")


@dataclasses.dataclass(frozen=True)
class Site:
    """A staged statement as messages name it: what construct (``"`if`"``, ``"`for` loop"``) and where.

    ``trip_count_known`` is false for a loop staged as a ``lax.while_loop`` (a traced condition, bound
    or exit): how often it runs is known at run time only, so a fix cannot size an array by it.
    """

    construct: str
    location: Location
    trip_count_known: bool = True
    # For an `if` one of whose branches holds the code after a `break` / `return` (the early-exit pass
    # put it there): that branch ("true" / "false") and the exits as written ("`break`").
    after_exit: tuple[str, str] | None = None

    def with_traced_trip_count(self) -> Site:
        return dataclasses.replace(self, trip_count_known=False)


@dataclasses.dataclass(frozen=True)
class Difference:
    """One carried name whose two states differ, as an error shows it."""

    name: str
    first: str  # its type in the first state (the true branch; before the loop)
    second: str  # and in the second (the false branch; after one iteration)
    what: str  # SHAPE, DTYPE, SHAPE_AND_DTYPE, STRUCTURE or PYTHON_VALUE
    leaves: tuple[Any, Any] | None = None  # the first two array leaves that differ (abstract types)
    opaque: str = ""  # the class of an object in it that is no pytree (a plain dataclass): JAX cannot carry it
    functions: bool = False  # a function in both states: what it returns can be carried, not itself


@dataclasses.dataclass(frozen=True)
class Sides:
    """How an error names the two states it compares, and why they must agree."""

    site: Site
    first: str  # "in the true branch of the `if`" / "before the `for` loop"
    second: str  # "in the false branch" / "after one iteration"
    first_python: str  # the same, for a Python structure or value ("before the staged loop")
    why_types: str
    why_python: str
    branches: tuple[Callable[..., Any], Callable[..., Any]] | None = None  # a cond's branch functions

    @classmethod
    def of_branches(cls, site: Site, true_fn: Callable[..., Any], false_fn: Callable[..., Any]) -> Sides:
        if site.after_exit is not None:
            return cls._after_exit(site, *site.after_exit, (true_fn, false_fn))
        first = f"in the true branch of the {site.construct}"
        return cls(
            site, first, "in the false branch", first, "lax.cond needs one type per output.",
            "Only arrays can differ between the branches of a lax.cond; Python values (None, strings, "
            "functions, containers of another shape) must agree.",
            (true_fn, false_fn),
        )

    @classmethod
    def _after_exit(cls, site: Site, rest: str, exits: str, branches: tuple[Callable[..., Any], Callable[..., Any]]) -> Sides:
        """The two branches in the user's terms: one is the exit taken, the other the code after it (the
        user wrote no `if` around that code, and maybe no `else`)."""
        taken, after = f"where the {exits} is taken", f"after the code that follows the {exits}"
        first, second = (after, taken) if rest == "true" else (taken, after)
        return cls(
            site, first, second, first,
            f"Past a {exits} on a traced condition the code that follows it is staged under that condition, "
            "as one branch of a lax.cond, which needs one type per variable, as a staged loop does in every "
            "iteration: a variable whose shape changes each iteration cannot be carried.",
            "Only arrays can differ between the branches of a lax.cond; Python values (None, strings, "
            "functions, containers of another shape) must agree.",
            branches,
        )

    @classmethod
    def of_loop(cls, site: Site) -> Sides:
        return cls(
            site, f"before the {site.construct}", "after one iteration", "before the staged loop",
            "A staged loop keeps one type per carried variable.",
            "Only arrays can be carried through a lax loop; Python values must stay the same.",
        )


def mismatch_error(found: Sequence[Difference], sides: Sides) -> StagingTypeError:
    """One error for every differing name: what differs in each, why that matters, a fix for each."""
    statements = "; ".join(_statement(difference, sides) for difference in found)
    whys = _unique(sides.why_types if difference.leaves else sides.why_python for difference in found)
    fixes = _unique(_fix(difference, sides) for difference in found)
    return StagingTypeError(f"{statements}. {' '.join(whys)}", sides.site.location, "\n".join(fixes))


def assigned_in_one_branch(name: str, branch: str, site: Site) -> StagingTypeError:
    """A name that only one branch of a traced ``if`` assigns, used after it."""
    subject = _subject(name)
    return StagingTypeError(
        f"{subject} is assigned only in the {branch} branch of the {site.construct}, and it is "
        "used after it. With a traced condition both branches run as one lax.cond, which must "
        "return a value for it either way.",
        site.location,
        f"Assign {subject} before the {site.construct} (for example `{name} = jnp.zeros_like(...)`), "
        "or in both branches.",
    )


def read_of_one_branch_value(name: str, value: str, branch: str, site: Site) -> StagingTypeError:
    """A read of a name that one branch of a traced ``if`` set to a Python value, the other not at all."""
    subject = _subject(name)
    return StagingTypeError(
        f"{subject} is {value} after the {site.construct} where its {branch} branch ran, and unassigned "
        "where the other ran; with a traced condition which one ran is known only when the program runs, "
        "and a Python value cannot be chosen then, so it cannot be read after it.",
        site.location,
        f"Use {subject} inside that branch only, or give it a value before the {site.construct} (or in both "
        "branches) that is the same Python value either way.",
    )


def first_assigned_in_loop(name: str, after: str, site: Site) -> StagingTypeError:
    """A name that a staged loop's body assigns first, used after the loop or in the next iteration."""
    return StagingTypeError(
        f"'{name}' is first assigned inside the staged loop, and it is used after the loop or in "
        "the next iteration. A staged loop needs a value for it before the first iteration.",
        site.location,
        f"Initialise '{name}' before the loop, with the type it has after one iteration ({after}).",
    )


def _statement(difference: Difference, sides: Sides) -> str:
    if difference.name == RETURN_VALUE and sides.branches is not None:
        true_fn, false_fn = sides.branches
        return (
            f"the function returns {difference.first} {_where_returned(true_fn)} but {difference.second} "
            f"{_where_returned(false_fn)} ({difference.what}), and the {sides.site.construct} that chooses "
            "between them has a traced condition"
        )
    first = sides.first if difference.leaves else sides.first_python
    return (f"{_subject(difference.name)} is {difference.first} {first} but {difference.second} {sides.second}"
            f"{_assigned_after_exit(difference.name, sides)} ({difference.what})")


def _assigned_after_exit(name: str, sides: Sides) -> str:
    """Where the code after an exit assigns ``name``: the change that the two branches disagree on."""
    if sides.site.after_exit is None or sides.branches is None:
        return ""
    rest = sides.branches[0 if sides.site.after_exit[0] == "true" else 1]
    lines = stored_lines(rest, name)
    return f" (assigned at line {', '.join(map(str, lines))})" if lines else ""


TEXT = "formatted from traced values"  # how a carried text known at run time is described (describe)


def describe(value: Any, *, article: bool = True) -> str:
    """A carried value's type: ``f32[3]``, ``None``, ``a tuple of (f32[], i32[])``.

    Errors use it inside sentences (``'y' is a dict of (...)``). ``explain`` lists carried values
    without the article (``article=False``), and there a ``None`` has always read as the empty
    container it is to JAX (``NoneType of ()``); its output stays as it was.
    """
    if isinstance(value, AssignedIfRan):  # its flag is plumbing: the user's value is what it holds
        return describe(value.value, article=article) + " (bound only if its loop ran)"
    if isinstance(value, DeferredText):  # an f-string's text, known at run time: no class of the user's
        return f"the text {value.template!r} {TEXT} ({', '.join(map(type_string, value.values))})"
    leaves = jax.tree_util.tree_leaves(value)
    if (len(leaves) == 1 and leaves[0] is value) or (article and value is None):
        return type_string(value)
    kind = type(value).__name__
    inner = ", ".join(type_string(leaf) for leaf in leaves)
    if not article:
        return f"{kind} of ({inner})"
    return f"{with_article(kind)} of ({inner})"


def described_apart(first: Any, second: Any) -> tuple[str, str]:
    """Two differing values as :func:`describe` shows them, made distinct where it shows both alike:
    two functions by where each is defined, two objects of one class by their contents (``repr``), a
    container by its static structure."""
    shown = describe(first), describe(second)
    if shown[0] != shown[1]:
        return shown
    apart = [_defined_at(first), _defined_at(second)]
    if apart[0] == apart[1] and not callable(first):  # a function's repr would show an address only
        apart = [_shortened(repr(first)), _shortened(repr(second))]
    if apart[0] == apart[1]:
        apart = [str(jax.tree_util.tree_structure(first)), str(jax.tree_util.tree_structure(second))]
    return f"{shown[0]} ({apart[0]})", f"{shown[1]} ({apart[1]})"


def _defined_at(value: Any) -> str:
    code = getattr(value, "__code__", None)
    return f"defined at line {code.co_firstlineno}" if code is not None else ""


def _shortened(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def opaque_class(value: Any) -> str:
    """The name of the class of an object in ``value`` that JAX holds as one Python leaf, not a pytree of
    arrays (an instance of a plain dataclass or class of the user's), or ""."""
    for leaf in jax.tree_util.tree_leaves(value):
        if not isinstance(leaf, (jax.Array, np.ndarray, np.generic, bool, int, float, complex, str, bytes)) \
                and hasattr(leaf, "__dict__") and not callable(leaf):
            return type(leaf).__name__
    return ""


def _fix(difference: Difference, sides: Sides) -> str:
    subject = _subject(difference.name)
    if difference.name == RETURN_VALUE and sides.branches is not None:
        return _RETURN_FIX
    if difference.opaque:
        return (f"JAX carries an object of class {difference.opaque} only as one Python value, the same on every path; register "
                f"the class as a pytree (jax.tree_util.register_dataclass for a dataclass, or "
                "register_pytree_node_class), so that its fields are carried as arrays.")
    if difference.leaves is None and sides.branches is None and not sides.site.trip_count_known:
        name = difference.name
        return (f"Give {subject} its final structure before the loop (for a value that may stay unset, an array "
                f"and a flag: `{name} = jnp.zeros(shape, dtype)`, `{name}_set = False`); a loop whose trip count is "
                "traced cannot run as Python.")
    if difference.leaves is None and sides.branches is None:
        return f"Give {subject} its final structure before the loop, or iterate over unroll(...) to keep the loop in Python."
    if difference.leaves is None and TEXT in difference.first + difference.second:
        return (f"Print the text in each branch rather than carry {subject} out of the `if` (print shows traced "
                "values when the program runs), or build it from one template on both paths, choosing its "
                "parts with a condition that is not traced.")
    if difference.leaves is None and difference.functions:
        return (f"Call {subject} inside each branch and use what it returns after the {sides.site.construct} (an "
                "array can be chosen at run time, a function cannot), or decide it with a condition that is not traced.")
    if difference.leaves is None:
        return (f"Make {subject} an array of the same structure in both branches, or decide it with a condition "
                "that is not traced.")
    if sides.branches is None:
        return _loop_type_fix(difference.name, difference.what, sides.site.trip_count_known, *difference.leaves)
    if sides.site.after_exit is not None and difference.what != DTYPE:
        return _shape_after_exit_fix(difference.name)
    return _branch_type_fix(subject, difference.what, *difference.leaves)


def _shape_after_exit_fix(name: str) -> str:
    """Padding one branch would not help: the code after the exit changes the shape each iteration (a
    loop consuming an array from the front), so the fix keeps the array and moves an index instead."""
    return (f"Keep one shape for '{name}' in every iteration. For an array consumed from the front "
            f"({name} = {name}[1:]), keep '{name}' whole and read it through a counter: k = 0 before the loop, "
            f"{name}[k] in place of {name}[0], k = k + 1 in place of the slice, and k < {name}.shape[0] in place "
            f"of {name}.shape[0] > 0. For one that grows, preallocate it at its final size and write into it "
            f"with {name} = {name}.at[k].set(...).")


def _loop_type_fix(name: str, what: str, trip_count_known: bool, before: Any, after: Any) -> str:
    """Start the variable with the type the body gives it; a shape that grows cannot be carried."""
    if what == DTYPE and before.dtype == np.bool_:
        return (f"Start it as a number: {name} = jnp.asarray({name}, {after.dtype.name!r}); a bool the first iteration "
                "reads as a bool (~, a comparison) is not converted for you, since True and 1 differ there.")
    if what == DTYPE and _is_float(after) and not _is_float(before):
        return f"Start it as a float: {name} = 0.0, or jnp.asarray({name}, jnp.{after.dtype.name})."
    if what == DTYPE:
        return f"Start it with the dtype it gets in the loop, e.g. {name} = jnp.asarray({name}, {after.dtype.name!r})."
    if not _grows(before, after):
        return (f"Start it with the shape {'' if what == SHAPE else 'and dtype '}it has after one iteration: "
                f"{name} = jnp.zeros({tuple(after.shape)}, jnp.{after.dtype.name}), or broadcast it with "
                "jnp.broadcast_to.")
    fixed = "Keep its shape fixed" if what == SHAPE else "Keep its shape and dtype fixed"
    if not trip_count_known:
        dtype = "" if what == SHAPE else f", jnp.{after.dtype.name}"
        return (f"{fixed}: the loop runs a number of times known only at run time, so its final shape is not "
                f"known while tracing. Allocate '{name}' at a static maximum size (a Python int or a static "
                f"argument: static_argnums / static_argnames) with jnp.zeros((max_size, ...){dtype}) and write "
                f"{name} = {name}.at[i].set(...), masking the unused part; or make the trip count static.")
    zeros = "" if what == SHAPE else f" with jnp.zeros(..., jnp.{after.dtype.name})"
    return f"{fixed}: preallocate '{name}' at its final shape{zeros} and update it with {name}.at[i].set(...)."


def _grows(before: Any, after: Any) -> bool:
    """Whether one iteration makes the array larger along its axes (an accumulation by concatenation),
    rather than giving it another shape once (a scalar that becomes a vector)."""
    same_rank = len(before.shape) == len(after.shape) > 0
    return same_rank and all(b <= a for b, a in zip(before.shape, after.shape))


def _branch_type_fix(subject: str, what: str, true: Any, false: Any) -> str:
    """Make both branches give the variable one dtype (the one eager arithmetic would) and one shape."""
    convert = f"jnp.asarray(..., jnp.{jnp.promote_types(true.dtype, false.dtype).name})"
    if what == DTYPE:
        literal = " or by starting from a float literal" if _is_float(true) != _is_float(false) else ""
        return f"Give {subject} the same dtype in both branches, e.g. with {convert}{literal}."
    if what == SHAPE:
        return (f"Give {subject} the same shape in both branches, e.g. by slicing, padding (jnp.pad) or "
                "broadcasting (jnp.broadcast_to) one of them.")
    return (f"Give {subject} the same shape and dtype in both branches: slice, pad or broadcast one of them, "
            f"and convert it with {convert}.")


def _is_float(leaf_type: Any) -> bool:
    return bool(np.issubdtype(leaf_type.dtype, np.floating))


def _where_returned(branch: Callable[..., Any]) -> str:
    lines = stored_lines(branch, RETURN_VALUE)
    if not lines:
        return "on the path that returned earlier"
    return "at line " + ", ".join(str(line) for line in lines)


def _subject(name: str) -> str:
    return name if name.startswith("<") else f"'{name}'"


def _unique(texts: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(texts))

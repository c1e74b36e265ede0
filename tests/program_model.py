"""The vocabulary of the generated-program fuzzer: bounds, variables, scopes, programs and cases.

Shared by the program builder (program_generator.py and the program_* modules that add constructs
to it), the check (program_check.py) and the regression files (program_regressions.py). A case's
text form (:func:`regression_text`) lives here too: it is what hypothesis prints for a failing
example and what tests/regressions/ stores.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import jax
import numpy as np
from hypothesis import strategies as st

if TYPE_CHECKING:
    from program_check import Outcome

# --- bounds --------------------------------------------------------------------------------------

INT_ARG = 6  # int scalar arguments and int array elements lie in [-INT_ARG, INT_ARG]
FLOAT_ARG = 8.0  # float arguments: multiples of 1/4 in [-FLOAT_ARG, FLOAT_ARG]
CLIP = 1000  # jnp.clip(x, -CLIP, CLIP) where a value could grow
CLIP_ABOVE = 100_000  # an assignment (outside loops) whose magnitude could exceed this is clipped
GUARD = 1 << 28  # no intermediate value may exceed this (int32 overflows at 2**31)
MAX_TRIPS = 6  # any one loop runs at most this many times
STABLE = 16  # loop-invariant leaves allowed on the right of an augmented assignment in a loop
AUG_PER_NEST = 4  # augmented assignments per outermost loop
AUG_BUDGET = AUG_PER_NEST * MAX_TRIPS**3 * 100  # what augmented assignments can add in one loop nest
MAX_DEPTH = 3  # nesting of compound statements

SCALARS = ("i", "f")
VECTORS = ("vi", "vf")
NUMERIC = SCALARS + VECTORS
FLOAT_CONSTANTS = ("1.0", "0.5", "2.0", "-1.5", "0.25", "3.0", "-0.5", "1.5")


def few_kinds(builder: Any, feature: str, leaves: Sequence[Any]) -> list[Any]:
    """The one or two of a feature's ``leaves`` that one program uses, drawn at its first leaf.

    Offered every kind of effect everywhere, a program met the refusal of one kind before the silent
    mismatch of another could show (``Pools(r=BAG)['r'] += [0]`` in a staged loop: 6,000 programs with
    no mismatch, every one with it held another refused effect); with few kinds each shows alone.
    """
    chosen = builder.leaf_kinds.get(feature)
    if chosen is None:
        chosen = builder.leaf_kinds[feature] = sorted(builder.draw(
            st.sets(st.integers(0, len(leaves) - 1), min_size=1, max_size=2)))
    return [leaves[index] for index in chosen]


@dataclasses.dataclass(frozen=True)
class Var:
    name: str
    type: str  # "i", "f", "vi", "vf" or "b"
    bound: float  # an upper bound of the magnitude of its value (of each element for arrays)
    kind: str = "local"  # "local" (assignable), "arg" or "target" (loop targets and counters: read-only)
    weak: bool = False  # a float variable that may still hold the Python int it was initialised with


class E(NamedTuple):
    """A generated expression."""

    text: str
    bound: float  # an upper bound of its magnitude
    flt: bool  # certainly a float (not a Python int or an int32 array): meaningful for "f" / "vf"


@dataclasses.dataclass
class Scope:
    defined: dict[str, Var]
    maybe: dict[str, Var]  # assigned on some paths only

    def copy(self) -> Scope:
        return Scope(dict(self.defined), dict(self.maybe))

    def define(self, var: Var) -> None:
        self.defined[var.name] = var
        self.maybe.pop(var.name, None)


@dataclasses.dataclass(frozen=True)
class Ctx:
    depth: int = 0
    loops: tuple[str, ...] = ()  # enclosing loops, outermost first: "for" / "while"


@dataclasses.dataclass(frozen=True)
class Block:
    lines: list[str]
    scope: Scope
    exits: bool = False  # no path falls through to the next statement
    returns: bool = False  # every path returns


def indent(lines: Sequence[str]) -> list[str]:
    return ["    " + line for line in lines]


def merge_scopes(before: Scope, falling: list[Scope]) -> Scope:
    """The scope after a statement whose paths end with the scopes in ``falling``.

    Names keep the order of ``falling[0]`` (not a set's, which depends on the hash seed), so that a
    seed names the same programs in every process.
    """
    names = [name for name in falling[0].defined if all(name in scope.defined for scope in falling[1:])]
    merged = Scope({}, dict(before.maybe))
    for name in names:
        versions = [s.defined[name] for s in falling]
        merged.defined[name] = dataclasses.replace(
            versions[0], bound=max(v.bound for v in versions), weak=any(v.weak for v in versions))
    for scope in falling:
        for name, var in {**scope.defined, **scope.maybe}.items():
            if name not in merged.defined:
                merged.maybe[name] = var
    for name in merged.defined:
        merged.maybe.pop(name, None)
    return merged


@dataclasses.dataclass(frozen=True)
class Program:
    source: str
    params: tuple[tuple[str, str], ...]  # (name, type)
    length: int
    features: frozenset[str]
    maybe_used: frozenset[str]  # names read where they may be unassigned
    used: frozenset[str] = frozenset()  # the optional features (program_features.OFF_BY_DEFAULT) it uses


@dataclasses.dataclass(frozen=True)
class Case:
    program: Program
    inputs: tuple[tuple[Any, ...], ...]

    def __repr__(self) -> str:  # what hypothesis prints for a falsifying example
        return "\n" + regression_text(self, header="") + "\n"


HEADER = "import jax.numpy as jnp\n\n\n"


def _literal(value: Any) -> str:
    array = np.asarray(value)
    dtype = f"np.{array.dtype.name}"
    if array.ndim == 0:
        return f"{dtype}({_number(array.item())})"
    return f"np.array([{', '.join(_number(item) for item in array.ravel().tolist())}], dtype={dtype})" \
        if array.ndim == 1 else f"np.array({array.tolist()!r}, dtype={dtype})"


def _number(item: Any) -> str:
    """A scalar as source text; NaN and the infinities (special_floats) as expressions that evaluate."""
    if isinstance(item, float) and not np.isfinite(item):
        return "np.nan" if np.isnan(item) else ("np.inf" if item > 0 else "-np.inf")
    return repr(item)


def _result_text(value: Any) -> str:
    """Arrays as lists; anything else (an exception eager Python raised, a converted function's
    ``Undefined`` marker, which refuses to become an array) as its repr."""
    def plain(leaf: Any) -> Any:
        return np.asarray(leaf).tolist() if isinstance(leaf, (jax.Array, np.ndarray, np.generic, int, float)) else leaf
    return repr(jax.tree_util.tree_map(plain, value))


def regression_text(case: Case, outcome: Outcome | None = None, header: str | None = None) -> str:
    """A module that replays ``case``: its function ``f``, ``INPUTS`` and ``STATUS``."""
    if header is None:
        header = '"""A program found by the generated-program fuzzer (tests/test_generated_programs.py).\n'
        if outcome is not None:
            header += f"\n{outcome.signature}\n"
            if outcome.inputs:
                header += f"on inputs {tuple(_literal(a) for a in outcome.inputs)}\n".replace("'", "")
                header += f"eager:     {_result_text(outcome.eager)}\n"
                if outcome.kind == "mismatch":
                    header += f"converted: {_result_text(outcome.converted)}\n"
        header += '"""\n\n'
    inputs = "".join(f"    ({''.join(_literal(a) + ', ' for a in args)}),\n" for args in case.inputs)
    return (
        header
        + "import numpy as np\n"
        + case.program.source
        + f"\n\nINPUTS = [\n{inputs}]\n"
        + (f"MAYBE_UNDEFINED = {tuple(sorted(case.program.maybe_used))!r}  # read where they may be unassigned\n"
           if case.program.maybe_used else "")
        + "STATUS = \"open\"  # \"fixed\" once tests/test_regressions.py passes on it (eager result, or a documented error)\n"
    )


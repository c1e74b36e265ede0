"""A ``for`` loop over a sequence written out non-empty binds its target on every path
(tests/regressions/inner_loop_target_in_traced_if_inside_static_loop.py; analysis/nonempty_loops.py).

The analyses took every loop to run maybe zero times, so after ``for i in range(3)`` the name ``i``
was maybe unbound: a read of it made each enclosing loop carry it from one iteration to the next,
and a traced ``if`` around the inner loop then had to return it from both branches (a false
``StagingTypeError``). Loops over anything else keep the conservative rule.
"""

from __future__ import annotations

import gast
import jax.numpy as jnp
import numpy as np
import pytest
from support import assert_equivalent

import autograph_lite
from autograph_lite.analysis import NameScanner
from autograph_lite.analysis.nonempty_loops import nonempty_loops

C = np.array([3.5, -4.25], dtype=np.float32)


def inner_range_in_traced_if(a, c):
    s = c
    for k in range(2):
        if a > 0:
            for i in range(3):
                s = s + 1.0
            s = s + i
    return s


def inner_range_in_traced_if_in_loop_over_array(a, c):
    s = c
    for x in c:
        if a > 0:
            for i in range(1, 7, 2):
                s = s + x
            s = s + i
    return s


def inner_tuple_with_break(a, c):
    s = c
    for k in range(2):
        if a > 0:
            for i in (2.0, 3.0):
                if s[0] > 100.0:
                    break
                s = s + i
            s = s * i
    return s


def inner_string(a, c):
    s = c
    for k in range(2):
        if a > 0:
            for ch in "xyz":
                s = s + 1.0
            s = s + len(ch)
    return s


def nested_ranges_in_traced_if(a, c):
    """Before: "'j' is assigned only in the true branch" (found by the generator, 5 in 4,000 programs): the
    outer ``range(3)`` runs its body, and so binds ``j``, at least once, but only its target counted."""
    s = c
    for x in c:
        if a > 0:
            for i in range(3):
                for j in range(2):
                    s = s + x
            s = s + j
    return s


def guarded_by_a_break(a, c):
    """A name the first iteration assigns only after a possible ``break`` stays maybe unbound."""
    s = c
    for k in range(2):
        if a > 0:
            for i in range(3):
                if s[0] > 0.0:
                    break
                t = s * 2.0
            s = s + i
        if a > 1:
            s = s + t
    return s


@pytest.mark.parametrize("fn", [inner_range_in_traced_if, inner_range_in_traced_if_in_loop_over_array,
                                inner_tuple_with_break, inner_string, nested_ranges_in_traced_if])
@pytest.mark.parametrize("a", [2, -2])
def test_the_target_of_an_inner_loop_stays_local_to_the_branch(fn, a: int) -> None:
    assert_equivalent(fn, np.int32(a), C)


def test_the_outer_loop_no_longer_carries_the_inner_target() -> None:
    source = autograph_lite.to_source(inner_range_in_traced_if)
    assert "_ag.for_stmt(_ag.call(range, 2), _ag_for_body_L27, (s,), ('s',))" in source
    assert "_ag.ld(i)" not in source


def empty_range(x):
    for i in range(0):
        x = x + 1
    return x + i


def empty_tuple(x):
    for i in ():
        x = x + 1
    return x + i


@pytest.mark.parametrize("fn", [empty_range, empty_tuple])
def test_an_empty_loop_leaves_its_target_unbound_as_eagerly(fn) -> None:
    with pytest.raises(UnboundLocalError, match="'i'"):
        fn(jnp.float32(1.0))
    with pytest.raises(UnboundLocalError, match="'i'"):
        autograph_lite.jit(fn)(jnp.float32(1.0))


def _loops_found(source: str) -> list[int]:
    function = gast.parse(source).body[0]
    return sorted(node.lineno for node in nonempty_loops(function, NameScanner()))


def test_only_sequences_written_out_non_empty_count() -> None:
    source = (
        "def f(n, xs):\n"
        "    for a in range(3): pass\n"          # 2: yes
        "    for b in range(n): pass\n"          # 3: a traced or unknown bound
        "    for c in range(5, 2): pass\n"       # 4: empty
        "    for d in range(5, 2, -1): pass\n"   # 5: yes
        "    for e in range(0, 3, 0): pass\n"    # 6: a step of zero raises
        "    for f in [1, *xs]: pass\n"          # 7: a starred item may be empty... and is not counted
        "    for g in [xs]: pass\n"              # 8: yes
        "    for h in '': pass\n"                # 9: empty
        "    for i in range(True): pass\n"       # 10: a bool is no int literal
        "    for j in xs: pass\n"                # 11: unknown length
    )
    assert _loops_found(source) == [2, 5, 8]


def test_a_range_the_function_binds_itself_is_not_the_builtin() -> None:
    source = "def f(xs):\n    range = lambda n: xs\n    for a in range(3): pass\n"
    assert _loops_found(source) == []


CARRY_EDGE_PROGRAMS = 25


def test_generated_programs_with_carry_edges_match_eager(tmp_path) -> None:
    """A bounded run of feature carry_edges (program_loop_carries.py), which draws both regressions'
    shapes (the long run: ``make fuzz FUZZ_FEATURES=+carry_edges``)."""
    import program_generator as generator
    from hypothesis import given, settings

    used: set[str] = set()

    @settings(max_examples=CARRY_EDGE_PROGRAMS)
    @given(case=generator.cases(generator.DEFAULT_FEATURES | {"carry_edges"}))
    def matches_eager(case: generator.Case) -> None:
        outcome = generator.check_case(case, tmp_path)
        used.update(case.program.used)
        assert not outcome.is_bug, f"{outcome.signature}\n\n{generator.regression_text(case, outcome)}\n{outcome.message}"

    matches_eager()
    assert "carry_edges" in used, f"none of the {CARRY_EDGE_PROGRAMS} programs used feature carry_edges"


def test_a_name_assigned_after_a_possible_break_is_still_carried() -> None:
    """``t`` is read by a later iteration's ``if`` where the first may have broken out before assigning
    it (eager raises UnboundLocalError here): a staged ``if`` must still return it, a located
    StagingTypeError as before. Taking the first iteration for one that surely assigns ``t`` would
    have dropped it from what the staged code carries."""
    with pytest.raises(UnboundLocalError, match="'t'"):
        guarded_by_a_break(np.int32(2), C)
    with pytest.raises(autograph_lite.ConversionError, match="'t' is assigned only in the (true|false) branch"):
        autograph_lite.jit(guarded_by_a_break)(np.int32(2), C)


def carried_from_before_a_never_skipped_loop(b, c):
    s = 0.25
    w = 0
    while w < b:
        w = w + 1
        for i in range(2):
            s = c[i]
        s = s * 0.5 + b
    s = w + 1.0  # what the while leaves in s is never read
    return s


def test_a_carried_name_bound_before_a_never_skipped_loop_stays_live() -> None:
    """The loop carries ``s``, which its body writes before reading, and the rewrite reads the carry's
    start before the loop: the first version of the liveness rule above took ``s`` for dead there, and
    the staged ``while`` body never received it (UnboundLocalError; generator init_effects seed 3)."""
    for b in (-3, 0, 2):
        assert_equivalent(carried_from_before_a_never_skipped_loop, np.int32(b), C)

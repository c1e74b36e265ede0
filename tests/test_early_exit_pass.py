"""The early-exit pass on its own: its output for small functions, and that the output, run as plain
Python, returns what the original returns.

A ``for`` loop with a ``break`` or a ``return`` gets a stop test that the pass hands over as a fact
(``ScopeFacts.stop_tests``) instead of writing it into the tree; the loop operator checks it after
taking each item and stops when it is false. To run the pass's output as plain Python, the test does
what the operator does: it puts ``if not <stop test>: break`` at the top of that loop's body.
"""

from __future__ import annotations

import ast
import contextlib
import itertools
import textwrap

import gast
import pytest
from golden.corpus import for_else_search

from autograph_lite import codegen, source
from autograph_lite.analysis import NameScanner
from autograph_lite.errors import Location
from autograph_lite.passes import early_exits
from autograph_lite.passes.facts import ScopeFacts, scope_facts


def facts_of(function: gast.AST, locate=lambda node: Location("<test>", node.lineno)) -> ScopeFacts:
    return scope_facts(function, names=NameScanner(), locate=locate, leave_call_as_is=lambda path: True)


def rewritten(text: str) -> tuple[str, dict[int, str]]:
    """The source the pass makes of the function in ``text``, and the stop tests by loop line."""
    function = gast.parse(textwrap.dedent(text)).body[0]
    facts = early_exits.transform(function, facts_of(function))
    stop_tests = {loop.lineno: codegen.source_of(test) for loop, test in facts.stop_tests.items()}
    return codegen.source_of(function) + "\n", stop_tests


# --- (a) the source the pass produces ----------------------------------------------------------------


def test_returns_in_branches_are_lifted_into_one_return_value():
    text, stop_tests = rewritten("""
        def f(x):
            if x > 0:
                if x > 10:
                    return 2
                x = -x
            return x
    """)
    assert text == textwrap.dedent("""\
        def f(x):
            if x > 0:
                if x > 10:
                    _ag_retval = 2
                else:
                    x = -x
                    _ag_retval = x
            else:
                _ag_retval = x
            return _ag_retval
    """)
    assert stop_tests == {}


def test_code_after_a_returning_branch_moves_into_the_other_branch():
    text, _ = rewritten("""
        def f(x):
            if x > 0:
                return 1
            y = x * 2
            return y
    """)
    assert text == textwrap.dedent("""\
        def f(x):
            if x > 0:
                _ag_retval = 1
            else:
                y = x * 2
                _ag_retval = y
            return _ag_retval
    """)


def test_break_and_continue_become_flags_and_a_stop_test():
    text, stop_tests = rewritten("""
        def f(xs):
            total = 0
            for x in xs:
                if x < 0:
                    continue
                if x > 9:
                    break
                total += x
            return total
    """)
    assert text == textwrap.dedent("""\
        def f(xs):
            total = 0
            _ag_break_L4 = False
            for x in xs:
                _ag_continue_L4 = False
                if x < 0:
                    _ag_continue_L4 = True
                elif x > 9:
                    _ag_break_L4 = True
                else:
                    total += x
            return total
    """)  # only the branch that does not exit reaches what follows an `if`: no guard
    assert stop_tests == {4: "not _ag_break_L4"}


def test_a_return_in_a_while_loop_sets_a_flag_that_the_test_checks():
    text, stop_tests = rewritten("""
        def f(n):
            i = 0
            while i < n:
                if i * i > n:
                    return i
                i += 1
            return -1
    """)
    assert text == textwrap.dedent("""\
        def f(n):
            _ag_returned = False
            i = 0
            while not _ag_returned and (not not i < n):
                if i * i > n:
                    _ag_retval = i
                    _ag_returned = True
                else:
                    i += 1
            if not _ag_returned:
                _ag_retval = -1
                _ag_returned = True
            return _ag_retval
    """)
    assert stop_tests == {}


def test_a_loop_else_runs_after_the_loop_unless_it_broke():
    text, stop_tests = rewritten("""
        def f(xs, target):
            for x in xs:
                if x == target:
                    found = True
                    break
            else:
                found = False
            return found
    """)
    assert text == textwrap.dedent("""\
        def f(xs, target):
            _ag_break_L3 = False
            for x in xs:
                if x == target:
                    found = True
                    _ag_break_L3 = True
            if not _ag_break_L3:
                found = False
            return found
    """)
    assert stop_tests == {3: "not _ag_break_L3"}


def test_a_function_without_early_exits_is_left_as_it_is():
    function = gast.parse("def f(x):\n    for i in x:\n        x = i\n    return x\n").body[0]
    before = codegen.source_of(function)
    facts = facts_of(function)
    assert early_exits.transform(function, facts) is facts
    assert codegen.source_of(function) == before


# --- (b) the output runs as the original -------------------------------------------------------------


def lifted_returns(x, y):
    if x > 0:
        if y > 0:
            return x + y
        x = x - y
    elif y < -2:
        return y
    z = x * 2
    return z - y


def falls_through_to_none(x):
    if x > 2:
        return x
    x += 1


def return_in_for(xs, target):
    for i, x in enumerate(xs):
        if x == target:
            return i
    return -1


def return_in_while(n, k):
    i = 0
    while i < n:
        if i * k > n:
            return i
        i += 1
    return -1


def break_and_continue(xs, low, high):
    total = 0
    for x in xs:
        if x < low:
            continue
        if x > high:
            break
        total += x
    return total


def while_else(n, k):
    i = 0
    steps = 0
    while i < n:
        i += 1
        if i % k == 0:
            continue
        steps += i
        if steps > 10:
            break
    else:
        steps = -steps
    return i, steps


def nested_loops_with_exits(xs, ys, limit):
    count = 0
    for x in xs:
        for y in ys:
            if y == x:
                continue
            if x + y > limit:
                break
            count += 1
        else:
            count -= 1
        if count > limit:
            return count, x
    return count, None


def return_from_inner_loop(xs, ys):
    for x in xs:
        if x < 0:
            continue
        for y in ys:
            if x * y == 6:
                return x, y
            if y > x:
                break
    return None


def exits_in_both_branches(n, k):
    total = 0
    while True:
        total += k
        if total > n:
            break
        elif total == n:
            return 0
        else:
            continue
    return total - n


def return_read_maybe_unbound(xs, limit):
    for x in xs:
        if x > limit:
            last = x
            break
    return last


def return_in_suppressing_with(x):
    with contextlib.suppress(ZeroDivisionError):
        if x > 3:
            return 6 // (x - 4)  # raises at x == 4: suppressed, the code after the `with` runs
        x = x + 10
    return x - 1


def exits_in_try_blocks(xs, limit):
    total = 0
    for v in xs:
        try:
            if v < 0:
                continue
            r = 6 // (v - 2)
        except ZeroDivisionError:
            if limit > 1:
                return -1
            break
        else:
            if r > limit:
                break
            total += r
        finally:
            total += 100
    return total


def exits_in_finally(xs, limit):
    total = 0
    for v in xs:
        try:
            if v == 3:
                return total
            total += 6 // (v - 2) if limit != 0 else v
        finally:
            if v < 0:
                continue  # noqa: B012 (it discards the pending exception: the point of the test)
            if v == limit:
                break  # noqa: B012
    return total


SMALL = range(-3, 6)
LISTS = [list(values) for length in range(4) for values in itertools.product([-1, 0, 2, 3], repeat=length)]
INPUTS = {
    lifted_returns: list(itertools.product(SMALL, SMALL)),
    falls_through_to_none: [(x,) for x in SMALL],
    return_in_for: list(itertools.product(LISTS, [-1, 0, 3])),
    return_in_while: list(itertools.product(range(12), range(4))),
    break_and_continue: list(itertools.product(LISTS, [0, 1], [1, 2])),
    for_else_search: list(itertools.product(LISTS, [0, 3])),
    while_else: list(itertools.product(range(9), range(1, 4))),
    nested_loops_with_exits: list(itertools.product(LISTS[::3], LISTS[::5], [1, 2, 4])),
    return_from_inner_loop: list(itertools.product(LISTS[::2], LISTS[::3])),
    exits_in_both_branches: list(itertools.product(range(9), range(1, 4))),
    return_read_maybe_unbound: list(itertools.product(LISTS, [0, 2])),
    return_in_suppressing_with: [(x,) for x in SMALL],
    exits_in_try_blocks: list(itertools.product(LISTS, [0, 1, 2])),
    exits_in_finally: list(itertools.product(LISTS, [-1, 0, 2, 3])),
}


def single_pass(function):
    """``function`` after the early-exit pass alone, compiled as plain Python in its own globals."""
    parsed = source.parse_function(function)
    facts = early_exits.transform(parsed.node, facts_of(parsed.node, parsed.location))
    for loop, stop_test in facts.stop_tests.items():
        keep_going = gast.UnaryOp(op=gast.Not(), operand=stop_test)
        loop.body.insert(0, gast.If(test=keep_going, body=[gast.Break()], orelse=[]))
    module = ast.Module(body=[codegen.to_python_ast(parsed.node)], type_ignores=[])
    namespace = dict(function.__globals__)
    exec(compile(ast.fix_missing_locations(module), parsed.filename, "exec"), namespace)
    return namespace[function.__name__]


def outcome(function, args):
    try:
        return "returns", function(*args)
    except Exception as error:
        return "raises", type(error)


@pytest.mark.parametrize("function", list(INPUTS), ids=lambda function: function.__name__)
def test_the_single_pass_output_returns_what_the_original_returns(function):
    rewritten_function = single_pass(function)
    assert rewritten_function.__code__ is not function.__code__
    for args in INPUTS[function]:
        assert outcome(rewritten_function, args) == outcome(function, args), args


def test_the_inputs_reach_every_exit():
    """Each function meets inputs that take its exits and inputs that do not (else the check is weak)."""
    assert all(len(inputs) >= 9 for inputs in INPUTS.values())
    assert {outcome(return_in_for, args)[1] for args in INPUTS[return_in_for]} >= {-1, 0, 1, 2}
    assert {outcome(for_else_search, args)[1] for args in INPUTS[for_else_search]} == {True, False}
    assert {outcome(return_read_maybe_unbound, args)[0] for args in INPUTS[return_read_maybe_unbound]} == {
        "returns", "raises"
    }
    assert {outcome(exits_in_both_branches, args)[1] == 0 for args in INPUTS[exits_in_both_branches]} == {True, False}
    assert {outcome(exits_in_finally, args)[0] for args in INPUTS[exits_in_finally]} == {"returns", "raises"}
    assert {outcome(exits_in_try_blocks, args)[1] for args in INPUTS[exits_in_try_blocks]} >= {-1, 0, 100, 200}
    assert {outcome(return_in_suppressing_with, args)[1] for args in INPUTS[return_in_suppressing_with]} >= {3, 6, 9}

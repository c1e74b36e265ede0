"""Closures see the latest binding of the names they read, as in eager Python (late binding).

A converted statement's body runs in generated helpers that receive the carried names as
parameters. A name that a nested ``def`` or ``lambda`` refers to is a cell: the helpers must keep it
in its cell, or a closure defined before the statement (or called after it) reads a stale value.
Each function is checked eagerly, with ``convert`` on concrete inputs, and with ``jit`` traced
(``support.assert_equivalent``), with static variants where a bound can be static; the staged
primitive is checked too, so that a test cannot pass by silently running Python.
"""

from __future__ import annotations

import gast
import jax.numpy as jnp
import pytest
from golden.corpus import closure_reads_loop_variable as closure_in_while
from support import STAGED_CHOICE, assert_equivalent, primitives

import autograph_lite
from autograph_lite.analysis.cells import cell_names

F32 = jnp.float32
I32 = jnp.int32


@pytest.mark.parametrize("n", [0, 1, 3])
def test_closure_defined_before_a_while_sees_each_iteration(n):
    assert closure_in_while(n) == 10 * sum(range(n))
    assert_equivalent(closure_in_while, I32(n))
    assert autograph_lite.convert(closure_in_while)(n) == closure_in_while(n)
    assert autograph_lite.jit(closure_in_while, static_argnums=0)(n) == closure_in_while(n)
    assert "while" in primitives(autograph_lite.convert(closure_in_while), I32(n))


def closure_over_branch(x, c):
    scale = 2.0
    h = lambda: x * scale
    if c > 0:
        scale = 20.0
    return h()


@pytest.mark.parametrize("c", [1, -1])
def test_closure_sees_the_value_a_branch_assigned(c):
    assert_equivalent(closure_over_branch, F32(1.0), I32(c))
    assert primitives(autograph_lite.convert(closure_over_branch), F32(1.0), I32(c)) & STAGED_CHOICE


def late_binding(n):
    fs = []
    for i in range(1, n + 1):
        fs.append(lambda: i)
    return [f() for f in fs]


def test_lambdas_made_in_a_loop_all_see_the_last_value():
    assert late_binding(3) == [3, 3, 3]
    assert autograph_lite.convert(late_binding)(3) == [3, 3, 3]
    assert autograph_lite.jit(late_binding, static_argnums=0)(3) == [3, 3, 3]


def branch_reads_closure_before_assigning(x, c):
    t = x
    get = lambda: t * 2.0
    if c > 0:
        t = get() + 1.0
    else:
        y = get()
        t = y - 1.0
    return t, get()


@pytest.mark.parametrize("c", [1, -1])
def test_each_traced_branch_starts_from_the_value_before_the_if(c):
    # Both branches assign t, but each reads it through the closure first: the false branch must
    # not see what the true branch's trace stored in the cell.
    assert_equivalent(branch_reads_closure_before_assigning, F32(1.5), I32(c))


def closure_in_scan(x):
    acc = x * 0.0
    scale = 1.0
    get = lambda: acc * scale
    for _ in range(4):
        acc = acc + x + get()
        scale = scale * 0.5
    return acc, get()


def test_closure_in_a_staged_static_loop():
    assert_equivalent(closure_in_scan, F32(1.5))
    assert "scan" in primitives(autograph_lite.convert(closure_in_scan), F32(1.5))


def closure_in_traced_range(x, n):
    acc = x * 0.0
    get = lambda: acc + 1.0
    for _ in range(n):
        acc = get() * x
    return acc


@pytest.mark.parametrize("n", [0, 1, 3])
def test_closure_in_a_loop_over_a_traced_range(n):
    assert_equivalent(closure_in_traced_range, F32(0.5), I32(n))
    assert autograph_lite.jit(closure_in_traced_range, static_argnums=1)(F32(0.5), n) == closure_in_traced_range(
        F32(0.5), n)


def closure_over_nested_loops(x, n):
    total = x * 0.0
    inner = x * 0.0
    peek = lambda: inner
    for _ in range(n):
        inner = x * 0.0
        j = 0
        while j < 3:
            inner = inner + x
            j += 1
        total = total + peek()
    return total


@pytest.mark.parametrize("n", [0, 2])
def test_closure_over_a_name_that_an_inner_loop_assigns(n):
    assert_equivalent(closure_over_nested_loops, F32(1.5), I32(n))


def closure_over_parameter(x, n):
    g = lambda: x * 2.0
    i = 0
    while i < n:
        x = x + 1.0
        i += 1
    return g()


@pytest.mark.parametrize("n", [0, 3])
def test_closure_over_a_parameter_the_loop_rebinds(n):
    assert_equivalent(closure_over_parameter, F32(1.5), I32(n))


def closure_first_assigned_in_loop(x):
    acc = x * 0.0
    for k in range(3):
        t = x * k
        g = lambda: t + 1.0
        acc = acc + g()
    return acc


def test_closure_over_a_name_first_assigned_in_a_staged_loop():
    assert_equivalent(closure_first_assigned_in_loop, F32(1.5))
    assert "scan" in primitives(autograph_lite.convert(closure_first_assigned_in_loop), F32(1.5))


def nonlocal_counter(x, n):
    count = 0

    def bump():
        nonlocal count
        count = count + 1

    k = 0
    while k < n:
        bump()
        k += 1
    return x * count


@pytest.mark.parametrize("n", [0, 3])
def test_nonlocal_writer_called_in_a_python_loop(n):
    assert_equivalent(nonlocal_counter, F32(1.5), n, static_argnums=1)


def nested_def_in_body(x):
    fs = []
    acc = 0.0
    for i in range(3):
        def h():
            return x * i
        acc = acc + h()
        fs.append(h)
    return acc, [f() for f in fs]


def test_functions_defined_in_a_loop_body_bind_late():
    assert autograph_lite.convert(nested_def_in_body)(1.0) == nested_def_in_body(1.0) == (3.0, [2.0, 2.0, 2.0])


def _parsed(source: str) -> gast.FunctionDef:
    return gast.parse(source).body[0]


def test_cell_names_are_the_locals_nested_scopes_refer_to():
    function = _parsed(
        "def f(a, b):\n"
        "    c = 1\n"
        "    d = [c for c in range(3)]\n"
        "    g = lambda: a + e\n"
        "    def h():\n"
        "        nonlocal c\n"
        "        c = 2\n"
        "        b = 3\n"
        "        return b\n"
        "    e = 0\n"
    )
    local_names = frozenset({"a", "b", "c", "d", "e", "g", "h"})
    # a and e are read by the lambda, c is assigned through nonlocal; h's own b and the
    # comprehension's c are theirs; d is read by no nested scope.
    assert cell_names(function, local_names) == {"a", "c", "e"}


def lambdas_made_over_rows(xs):
    fs = []
    for row in xs:
        fs.append(lambda: row * 2.0)
    return [f() for f in fs]


def test_lambdas_appended_in_a_loop_over_rows_run_as_python_and_bind_late():
    # A function is no scan output: the auto policy's trial refuses the append, the loop runs as Python.
    xs = jnp.arange(3.0)
    expected = lambdas_made_over_rows(xs)
    assert [float(v) for v in expected] == [4.0, 4.0, 4.0]
    for wrap in (autograph_lite.convert, autograph_lite.jit):
        assert [float(v) for v in wrap(lambdas_made_over_rows)(xs)] == [4.0, 4.0, 4.0]
    with pytest.raises(autograph_lite.ConversionError, match="cannot return as a per-iteration output"):
        autograph_lite.jit(lambdas_made_over_rows, static_loops="stage")(xs)


WEIGHTS = (1.0, 2.0)


def generator_over_branch(x):
    scale = 1.0
    terms = (w * scale for w in WEIGHTS)  # drawn by sum(), after the `if`: it sees scale = 10.0
    if x > 0:
        scale = 10.0
    return sum(terms)


def generator_drawn_partly_before_a_loop(x, n):
    scale = x
    terms = (w * scale for w in (1.0, 2.0, 3.0))
    first = next(terms)
    i = 0
    while i < n:  # traced n: a lax.while_loop; its body assigns scale without reading it
        i += 1
        scale = x * i
    return first + sum(terms)


def generator_over_a_dict_rebound(x):
    cfg = {"k": 1.0}
    terms = (w * cfg["k"] for w in WEIGHTS)
    if x > 0:
        cfg = {"k": 5.0}
    return sum(terms)


@pytest.mark.parametrize("function", [generator_over_branch, generator_over_a_dict_rebound])
@pytest.mark.parametrize("x", [1.5, -1.5])
def test_generator_expression_drawn_after_a_branch_sees_its_bindings(function, x):
    assert function(x) == autograph_lite.convert(function)(x)  # Python numbers: every statement stays Python
    assert_equivalent(function, F32(x))
    assert primitives(autograph_lite.convert(function), F32(x)) & STAGED_CHOICE


def test_generator_expression_drawn_after_a_staged_loop_sees_its_last_bindings():
    assert generator_drawn_partly_before_a_loop(1.5, 3) == 1.5 + 4.5 * 5
    assert autograph_lite.convert(generator_drawn_partly_before_a_loop)(1.5, 3) == 1.5 + 4.5 * 5
    assert_equivalent(generator_drawn_partly_before_a_loop, F32(1.5), I32(3))
    assert "while" in primitives(autograph_lite.convert(generator_drawn_partly_before_a_loop), F32(1.5), I32(3))


def local_class_method_over_branch(x):
    scale = 1.0

    class Lin:
        def __call__(self, v):
            return v * scale

    f = Lin()
    if x > 0:
        scale = 10.0
    return f(x)


@pytest.mark.parametrize("x", [1.5, -1.5])
def test_method_of_a_local_class_sees_the_value_a_branch_assigned(x):
    assert autograph_lite.convert(local_class_method_over_branch)(x) == local_class_method_over_branch(x)
    assert_equivalent(local_class_method_over_branch, F32(x))
    assert primitives(autograph_lite.convert(local_class_method_over_branch), F32(x)) & STAGED_CHOICE


def test_cell_names_count_what_runs_later_only():
    function = _parsed(
        "def f(a, b, c, d, e, k, j):\n"
        "    held = (x * a for x in b if x > c)\n"
        "    total = sum(x * d for x in e)\n"
        "    label = ', '.join(str(x + j) for x in e)\n"
        "    class K:\n"
        "        size = k\n"
        "        def get(self):\n"
        "            return e\n"
    )
    local_names = frozenset({"a", "b", "c", "d", "e", "k", "j", "held", "total", "label", "K"})
    # held's element and condition run when it is drawn; its source b where it stands. sum() and join
    # draw theirs at once (d, j are read there); the class body runs where it stands (k), its method later (e).
    assert cell_names(function, local_names) == {"a", "c", "e"}

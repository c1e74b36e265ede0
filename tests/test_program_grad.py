"""The generator's ``grad`` check (program_grad.py): ``jit(grad(...))`` of the converted function against
eager ``grad``, with respect to the float arguments."""

from __future__ import annotations

import numpy as np
from program_check import check_function
from support import load_source

LOOPS = """
def f(a, n):
    s = a * 0.0
    for i in range(3):
        if a[i] > 0:
            s = s + a * a
        else:
            break
    k = 0
    while k < n:
        k = k + 1
    return s, k
"""

# Differentiates otherwise when staged under grad (a test of the checker, not a program anyone writes):
# eager, jit and eager grad agree, the staged gradient does not.
STAGED_GRAD_AWARE = """
import autograph_lite


@autograph_lite.do_not_convert
def staged_tangent(x):
    if type(x).__name__ not in ("JVPTracer", "LinearizeTracer"):  # not differentiated
        return False
    try:
        bool(x > 0)
    except Exception:
        return True
    return False


def f(a):
    if staged_tangent(a):
        return a * 3.0
    return a * 2.0
"""


def test_gradients_that_agree_with_eager(tmp_path):
    module = load_source(LOOPS, tmp_path)
    inputs = [(np.array([1.0, -2.0, 3.0], np.float32), np.int32(2)), (np.array([0.5, 2.0, 3.0], np.float32), np.int32(0))]
    assert check_function(module.f, inputs, differentiated=True).kind == "agree"


def test_a_gradient_that_differs_is_a_grad_mismatch(tmp_path):
    module = load_source(STAGED_GRAD_AWARE, tmp_path)
    inputs = [(np.float32(1.5),)]
    assert check_function(module.f, inputs).kind == "agree"
    outcome = check_function(module.f, inputs, differentiated=True)
    assert (outcome.kind, outcome.detail, outcome.mode) == ("mismatch", "grad", "jit[grad]")
    assert np.allclose(outcome.converted, [3.0]) and np.allclose(outcome.eager, [2.0])


TRACED_WHILE = """
def f(a):
    while a < 10.0:
        a = a * 2.0
    return a
"""


def test_reverse_mode_through_a_traced_while_is_the_documented_limitation(tmp_path):
    module = load_source(TRACED_WHILE, tmp_path)
    outcome = check_function(module.f, [(np.float32(3.0),)], differentiated=True)
    assert (outcome.kind, outcome.detail) == ("limitation", "reverse-mode gradient through a traced while (forward mode only)")

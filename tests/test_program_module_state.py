"""The generator's checker compares the state a program leaves in its module (program_module_state.py):
an effect that runs once while tracing instead of once per iteration is a mismatch even where the
count never reaches ``f``'s result."""

from __future__ import annotations

import textwrap

import jax
import jax.numpy as jnp
from program_check import check_function
from program_module_state import module_state, state_difference
from support import load_source

# A helper kept out of the conversion (do_not_convert: "effects hidden in library code", documented)
# appends once per iteration eagerly, once while tracing the scanned loop under jit; f's result is the same.
LIBRARY_EFFECT = """
import autograph_lite

BAG = []


@autograph_lite.do_not_convert
def note(v):
    BAG.append(1)
    return v


def f(x):
    BAG.clear()
    s = x[0] * 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            s = s + 1
        s = note(s)
    return s
"""

STATE = """
import numpy as np

COUNTS = [0, {'k': (1, 2)}]
TANK = np.zeros(2, np.int64)


class Tally:
    made = 0

    def __init__(self):
        self.count = 3

    def bump(self):
        return self.count


TALLY = Tally()
"""


def test_a_different_module_state_is_a_mismatch_where_the_results_agree(tmp_path):
    module = load_source(LIBRARY_EFFECT, tmp_path)
    outcome = check_function(module.f, [(jnp.arange(3.0),)])
    assert (outcome.kind, outcome.detail, outcome.mode) == ("mismatch", "module state", "jit[cpu] first call")
    assert "BAG is ('list', [1]), eager Python left ('list', [1, 1, 1])" in outcome.message


def test_the_snapshot_holds_containers_arrays_objects_and_class_data(tmp_path):
    module = load_source(textwrap.dedent(STATE), tmp_path)
    before = module_state(vars(module))
    assert set(before) == {"COUNTS", "TANK", "TALLY", "Tally.<class>"}
    assert before["Tally.<class>"] == {"made": 0}
    module.COUNTS[1]["k"] = (1, 3)
    module.TANK[0] += 1
    module.TALLY.count += 1
    module.Tally.made += 1
    after = module_state(vars(module))
    assert state_difference(before, before) is None
    difference = state_difference(after, before)
    assert [part.split(" is ")[0] for part in difference.split("; ")] == ["COUNTS", "TALLY", "TANK", "Tally.<class>"]


def test_a_leaked_tracer_equals_no_eager_value():
    leaked = {}

    @jax.jit
    def keep(x):
        leaked["BAG"] = [x]
        return x

    keep(1.0)
    assert module_state(leaked) == {"BAG": ("list", ["<tracer>"])}
    assert state_difference(module_state(leaked), {"BAG": ("list", [1.0])}) is not None

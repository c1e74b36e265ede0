"""``x in items`` / ``x not in items`` of the generated programs: a scalar and a concrete container.

Python asks each item ``item == x`` and takes its truth, which a traced ``x`` has not at trace time:
the converter ORs the comparisons at run time (``range`` by its bounds). The containers are small
literals of the numbers the scalars of a program often hold, so that both answers occur; an empty
one is Python's constant False (True for ``not in``).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from program_model import E

MEMBERSHIP_OPERATORS = ["in", "not in"]


def membership_test(builder: Any, element: E, operator: str) -> E:
    """``(element in <container>)``; ``builder`` draws (an ``Expressions``)."""
    kind = builder.pick(["tuple", "list", "range", "empty"])
    if kind == "range":
        start = builder.draw(st.integers(-3, 3))
        stop = start + builder.draw(st.integers(0, 6))
        step = builder.pick(["", ", 2", ", -1"])
        bounds = f"{stop}, {start}, -1" if step == ", -1" else f"{start}, {stop}{step}"
        container = f"range({bounds})"
    elif kind == "empty":
        container = builder.pick(["()", "[]"])
    else:
        numbers = [str(builder.draw(st.integers(-3, 5))) for _ in range(builder.draw(st.integers(1, 4)))]
        if builder.chance(20):
            numbers.append(builder.pick(["0.5", "2.0", "'a'", "None"]))  # Python's == gives False for these
        inner = ", ".join(numbers)
        container = f"({inner},)" if kind == "tuple" else f"[{inner}]"
    return E(f"({element.text} {operator} {container})", 1, False)

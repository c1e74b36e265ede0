"""The qualified names of a converted function's code and of the helpers nested in it.

Tracebacks and JAX's messages name a staged branch or loop body by its code's ``co_qualname``
(``f.<locals>._ag_if_true_L9``). A module-level function is compiled under its own name (declared
global in the never-run factory), any other one under a neutral name and renamed after: both must
give every helper, at any depth, its parent's name plus ``.<locals>.`` plus its own.
"""

from __future__ import annotations

import types

import jax.numpy as jnp

import autograph_lite


def loops_in_branches(x, n):
    if x > 0:
        for i in range(n):
            if i > 1:
                x = x - 1
    else:
        while x < 0:
            x = x + 2
    return x


def countdown(n):
    """Calls itself by name: inside the converted code, ``countdown`` must still be the global."""
    if n <= 0:
        return 0
    return 1 + countdown(n - 1)


class Stepper:
    def step(self, x):
        while x > 3:
            if x > 6:
                x = x - 3
            else:
                x = x - 1
        return x


def make_closure(limit):
    def clipped(x):
        for _ in range(2):
            if x > limit:
                x = x - limit
        return x

    return clipped


def nested_code(code: types.CodeType) -> list[tuple[types.CodeType, types.CodeType]]:
    """Every (parent, child) pair of code objects inside ``code``, at any depth."""
    pairs, pending = [], [code]
    while pending:
        parent = pending.pop()
        for constant in parent.co_consts:
            if isinstance(constant, types.CodeType):
                pairs.append((parent, constant))
                pending.append(constant)
    return pairs


def assert_helpers_qualified(original, converted):
    assert converted.__code__.co_name == original.__code__.co_name
    assert converted.__code__.co_qualname == original.__code__.co_qualname
    pairs = nested_code(converted.__code__)
    assert any(child.co_name.startswith("_ag_") for _, child in pairs)
    for parent, child in pairs:
        assert child.co_qualname == f"{parent.co_qualname}.<locals>.{child.co_name}"


def test_module_level_function_helpers_at_every_depth():
    converted = autograph_lite.convert(loops_in_branches)
    assert_helpers_qualified(loops_in_branches, converted)
    depths = {child.co_qualname.count("<locals>") for _, child in nested_code(converted.__code__)}
    assert max(depths) >= 3  # the if inside the for inside the if
    assert converted(jnp.int32(5), 4) == loops_in_branches(5, 4)
    assert converted(jnp.int32(-3), 4) == loops_in_branches(-3, 4)


def test_method_and_closure_helpers_at_every_depth():
    method = autograph_lite.convert(Stepper.step)
    assert_helpers_qualified(Stepper.step, method)
    assert method(Stepper(), 10) == Stepper().step(10)
    clipped = make_closure(3)
    converted = autograph_lite.convert(clipped)
    assert_helpers_qualified(clipped, converted)
    assert converted.__code__.co_qualname == "make_closure.<locals>.clipped"
    assert converted(jnp.int32(8)) == clipped(8)


def test_module_level_function_calling_itself_by_name():
    converted = autograph_lite.convert(countdown)
    assert converted(4) == countdown(4) == 4
    codes = [converted.__code__] + [child for _, child in nested_code(converted.__code__)]
    assert any("countdown" in code.co_names for code in codes)  # read as a global
    assert not any("countdown" in code.co_freevars + code.co_cellvars for code in codes)  # not the factory's local

"""``match`` cases that Python's own ``match`` tests: class, sequence and mapping patterns, a capture
inside ``|``, a refutable pattern with both a capture and a guard.

The rewrite tests such a case in a generated helper and keeps its guard and body in the ``if``
chain. On a concrete subject each function is checked against eager Python (concrete, traced and
static inputs); a traced subject, or a traced part that the pattern compares, is a located
``TracedPredicateError`` naming the case's line; a concrete structure of traced parts may be taken
apart.
"""

from __future__ import annotations

import gast
import jax
import jax.numpy as jnp
import pytest
from support import assert_equivalent, assert_same, where

import autograph_lite
from autograph_lite.analysis import NameScanner

I32, F32 = jnp.int32, jnp.float32

@jax.tree_util.register_pytree_node_class
class Point:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x, self.y = x, y

    def tree_flatten(self):
        return (self.x, self.y), None

    @classmethod
    def tree_unflatten(cls, _, children):
        return cls(*children)


def class_pattern(shape, x):
    match shape:
        case Point(0, y):
            return x + y
        case Point(x=px, y=py):
            return x * px + py
        case _:
            return -x


def sequence_pattern(item, x):
    match item:
        case (0, scale):
            return x * scale
        case [first, *rest]:
            return x + first + len(rest)
        case _:
            return x


def mapping_pattern(config, x):
    match config:
        case {"mode": "scale", "by": by}:
            return x * by
        case {"mode": mode, **others}:
            return x + len(mode) + len(others)
        case _:
            return x


def capture_with_guard(a, x):
    match a:
        case (1 | 2) as n if n > 1:
            return x * n
        case _:
            return x


def class_pattern_with_exits(shapes, x):
    total = x
    for shape in shapes:
        match shape:
            case Point(0, _):
                continue
            case Point(1, y):
                return total + y
            case Point(2, _):
                break
            case _:
                total = total * 2
    return total


@pytest.mark.parametrize("shape", [(0, 2.0), (3, 1.0), (1, 2)])
def test_class_pattern_on_a_concrete_subject(shape):
    assert_equivalent(class_pattern, Point(*shape), F32(1.5), static_argnums=0)
    assert_equivalent(class_pattern, shape, F32(1.5), static_argnums=0)  # not a Point


@pytest.mark.parametrize("item", [(0, 3.0), (5, 6, 7), (4,), 12])
def test_sequence_pattern_on_a_concrete_subject(item):
    assert_equivalent(sequence_pattern, item, 1.5, static_argnums=0)


@pytest.mark.parametrize("config", [{"mode": "scale", "by": 3}, {"mode": "add", "a": 1, "b": 2}, {"x": 1}])
def test_mapping_pattern_on_a_concrete_subject(config):
    expected = mapping_pattern(config, F32(1.5))
    converted = autograph_lite.convert(mapping_pattern)
    assert_same(converted(config, F32(1.5)), expected)
    assert_same(jax.jit(lambda x: converted(config, x))(F32(1.5)), expected)  # a dict cannot be static


@pytest.mark.parametrize("a", [1, 2, 3])
def test_capture_with_guard_on_a_concrete_subject(a):
    assert_equivalent(capture_with_guard, a, F32(1.5), static_argnums=0)


@pytest.mark.parametrize("shapes", [[Point(0, 1), Point(5, 1), Point(1, 4.0)], [Point(2, 0), Point(1, 1)], [Point(7, 7)]])
def test_exits_in_cases_python_tests(shapes):
    assert_equivalent(class_pattern_with_exits, tuple(shapes), F32(1.5), static_argnums=0)


def taking_apart(params, x):
    match params:
        case {"w": w, "b": b}:
            return x * w + b
        case [w, b]:
            return x * w - b
        case Point(x=px):
            return x * px
        case _:
            return x


@pytest.mark.parametrize("params", [{"w": F32(2.0), "b": F32(1.0)}, [F32(2.0), F32(1.0)], Point(F32(3.0), I32(1))])
def test_taking_apart_traced_leaves_is_fine(params):
    # The structure (a dict, a list, a Point) is concrete; its traced parts are only captured.
    assert_equivalent(taking_apart, params, F32(1.5))


@pytest.mark.parametrize(("fn", "subject", "kind", "case_text"), [
    (class_pattern, I32(0), "a class pattern", "case Point(0, y):"),
    (sequence_pattern, I32(0), "a sequence pattern", "case (0, scale):"),
    (mapping_pattern, F32(1.0), "a mapping pattern", "case {\"mode\": \"scale\""),
    (capture_with_guard, I32(1), "a capture (`as`) together with a guard", "case (1 | 2) as n"),
])
def test_traced_subject_of_a_python_pattern_is_a_located_error(fn, subject, kind, case_text):
    with pytest.raises(autograph_lite.TracedPredicateError) as caught:
        autograph_lite.jit(fn)(subject, F32(1.5))
    message = str(caught.value)
    assert message.startswith(where(fn, case_text) + ": this `case` uses " + kind)
    assert "needs a concrete subject" in message
    assert "traced i32[] array" in message or "traced f32[] array" in message
    assert "static_argnames" in message and "literal patterns" in message


def test_traced_part_compared_by_a_pattern_is_a_located_error():
    with pytest.raises(autograph_lite.TracedPredicateError) as caught:
        autograph_lite.jit(class_pattern)(Point(I32(0), F32(1.0)), F32(1.5))
    assert str(caught.value).startswith(where(class_pattern, "case Point(0, y):"))
    with pytest.raises(autograph_lite.TracedPredicateError, match="a part of the `match` subject is a traced") as caught:
        autograph_lite.jit(sequence_pattern)((I32(0), F32(3.0)), F32(1.5))
    assert "case (kind, x) if kind == 0:" in str(caught.value)
    assert str(caught.value).startswith(where(sequence_pattern, "case (0, scale):"))


def kind_in_guard(item, x):
    match item:
        case (kind, scale) if kind == 0:
            return x * scale
        case (kind, _):
            return x + kind
        case _:
            return x


@pytest.mark.parametrize("kind", [0, 4])
def test_the_suggested_fix_stages(kind):
    assert_equivalent(kind_in_guard, (I32(kind), F32(3.0)), F32(1.5))


def capture_in_a_traced_branch(x, item):
    n = 0.0
    if x > 0:
        match item:
            case (_, n):  # the capture is carried out of the staged branch
                pass
    return n


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_capture_inside_a_traced_branch_is_carried(x):
    assert_equivalent(capture_in_a_traced_branch, F32(x), (I32(1), F32(5.0)))


def guarded_captures_in_a_loop(item, x):
    total = x
    for i in range(4):
        match item:
            case (a, b) if a > 0:
                total = total * a + b
            case {"k": k}:
                total = total - k
            case _:
                total = total + i
    return total


@pytest.mark.parametrize("item", [(I32(2), F32(1.0)), (I32(-2), F32(1.0)), {"k": F32(3.0)}, F32(5.0)])
def test_guarded_captures_in_a_staged_loop(item):
    converted = autograph_lite.convert(guarded_captures_in_a_loop, static_loops="stage")
    expected = guarded_captures_in_a_loop(item, F32(1.0))
    assert_same(jax.jit(lambda x: converted(item, x))(F32(1.0)), expected)  # a concrete subject
    if not isinstance(item, jax.Array):  # a traced array subject is the located error
        assert_same(jax.jit(converted)(item, F32(1.0)), expected)  # the parts traced, the structure not


def test_pattern_captures_count_as_writes_of_the_scope():
    """Captures are strings in the tree, not Name nodes: the name analysis must still see them bound."""
    source = ("match s:\n    case [first, *rest]: pass\n    case {'k': value, **others}: pass\n"
              "    case Point(x=0) as point: pass\n    case _: pass\n")
    assert NameScanner().writes(gast.parse(source).body) == {"first", "rest", "value", "others", "point"}


def kind_of_a_layer(w):
    layer = {"kind": w.astype(jnp.int32), "w": w}
    match layer:
        case {"kind": 0, "w": scale}:
            return scale * 2
        case _:
            return w


def kind_of_a_layer_in_a_guard(w):
    layer = {"kind": w.astype(jnp.int32), "w": w}
    match layer:
        case {"kind": kind, "w": scale} if kind == 0:
            return scale * 2
        case _:
            return w


def test_a_traced_part_of_a_mapping_pattern_gets_the_mapping_fix_which_works():
    """The fix showed the sequence syntax (`case (kind, x):`) for a mapping pattern."""
    with pytest.raises(autograph_lite.TracedPredicateError) as caught:
        autograph_lite.jit(kind_of_a_layer)(F32(0.0))
    assert 'case {"kind": kind, "w": w} if kind == 0:' in str(caught.value)
    for w in (F32(0.0), F32(3.0)):
        assert float(autograph_lite.jit(kind_of_a_layer_in_a_guard)(w)) == float(kind_of_a_layer(w))

"""Functions whose rewritten source (``autograph_lite.to_source``) is kept as golden files.

One function per construct; tests/test_golden.py compares each with ``<name>.py.txt`` next to this
file. Generated helper names carry line numbers, so editing this file changes the goldens: regenerate
them with ``UPDATE_GOLDEN=1`` and review the diff. ``EXAMPLES`` gives inputs that take every path, on
which each function is also checked against eager Python (``item_updates_and_appends`` has none:
eager Python cannot assign into a JAX array, which is the point of its rewrite).
"""

import jax.numpy as jnp

import autograph_lite


def if_else(x):
    if x > 0:
        y = x * 2
    else:
        y = -x
    return y


def elif_chain(x):
    if x > 1:
        y = x * 3
    elif x > -1:
        y = x + 10
    else:
        y = x - 10
    return y


def if_without_else_and_temporary(x):
    y = x + 1
    if x > 0:
        scale = 2.0
        y = y * scale
    return y


def returns_in_branches(x, y):
    if x > 0:
        if y > 0:
            return x + y
        return x - y
    z = x * y
    return z


def ternary_and_logic(x, y):
    small = x if x < y else y
    both = x > 0 and y > 0
    either = x > 0 or not y > 0
    return small, both, either


def chained_comparison(lo, x, hi):
    return lo < x <= hi


def while_loop(x):
    steps = 0
    while x > 1:
        x = x / 2
        steps += 1
    return x, steps


def for_over_range(n, x):
    acc = 0.0
    for i in range(n):
        acc = acc + x * i
    return acc


def for_over_rows(xs, ys):
    total = 0.0
    for i, (x, y) in enumerate(zip(xs, ys)):
        partial = x * y
        total = total + i * partial
    return total


def branch_in_loop(xs):
    positives = 0.0
    for x in xs:
        if x > 0:
            positives = positives + x
    return positives


def break_and_continue(xs, limit):
    total = 0.0
    for x in xs:
        if x < 0:
            continue
        if total > limit:
            break
        total = total + x
    return total


def for_else_search(xs, target):
    for x in xs:
        if x == target:
            found = True
            break
    else:
        found = False
    return found


def return_in_loop(x):
    while x < 100:
        if x > 10:
            return x * 2
        x = x * 3
    return -x


def item_updates_and_appends(xs):
    out = jnp.zeros(3)
    rows = []
    for i in range(3):
        out[i] = xs[i] * 2
        rows.append(out[i] + 1)
    return out, jnp.stack(rows)


def nested_function_and_lambda(x):
    def clip(v):
        if v > 1:
            v = 1.0
        return v

    negate = lambda v: -v if v > 0 else v  # noqa: E731
    return clip(x) + negate(x)


def explicit_loop_choices(x):
    for i in autograph_lite.unroll(range(2)):
        x = x + i
    for j in autograph_lite.stage(range(3)):
        x = x * 2 - j
    return x


def builtins_on_traced_values(x, y):
    biggest = max(x, y)
    if min(x, y) > 0:
        biggest = biggest + float(y)
    return biggest


def closure_reads_loop_variable(n):
    i = 0
    get = lambda: i * 10  # noqa: E731
    total = 0
    while i < n:
        total = total + get()
        i += 1
    return total


F32 = jnp.float32
I32 = jnp.int32
_ROWS = jnp.asarray([1.0, -2.0, 3.0], F32)

EXAMPLES = {
    "if_else": [(F32(2.0),), (F32(-2.0),)],
    "elif_chain": [(F32(3.0),), (F32(0.0),), (F32(-3.0),)],
    "if_without_else_and_temporary": [(F32(2.0),), (F32(-2.0),)],
    "returns_in_branches": [(F32(1.0), F32(2.0)), (F32(1.0), F32(-2.0)), (F32(-1.0), F32(2.0))],
    "ternary_and_logic": [(F32(1.0), F32(2.0)), (F32(-1.0), F32(-2.0)), (F32(3.0), F32(-1.0))],
    "chained_comparison": [(F32(0.0), F32(1.0), F32(2.0)), (F32(0.0), F32(3.0), F32(2.0)), (F32(0.0), F32(2.0), F32(2.0))],
    "while_loop": [(F32(0.5),), (F32(20.0),)],
    "for_over_range": [(I32(0), F32(1.5)), (I32(4), F32(1.5))],
    "for_over_rows": [(_ROWS, _ROWS * 2)],
    "branch_in_loop": [(_ROWS,)],
    "break_and_continue": [(_ROWS, F32(0.5)), (_ROWS, F32(10.0))],
    "for_else_search": [(_ROWS, F32(3.0)), (_ROWS, F32(5.0))],
    "return_in_loop": [(F32(0.5),), (F32(5.0),), (F32(200.0),)],
    "nested_function_and_lambda": [(F32(2.0),), (F32(0.5),), (F32(-1.0),)],
    "explicit_loop_choices": [(F32(1.0),)],
    "builtins_on_traced_values": [(F32(1.0), F32(2.0)), (F32(-1.0), F32(2.0))],
    "closure_reads_loop_variable": [(I32(0),), (I32(3),)],
}


import jax  # noqa: E402 (here, so that the lines of the functions above, and their goldens, stay as they are)


def return_in_with(x):
    with jax.named_scope("block"):
        if x > 0:
            return x * 2
        x = x + 1
    return -x


def exits_in_try(x, n):
    i = 0
    while i < n:
        try:
            if x < i:
                break
            i += 1
        except ZeroDivisionError:
            return x
        else:
            x = x + 1
        finally:
            x = x * 2
    return x + i


EXAMPLES["return_in_with"] = [(F32(3.0),), (F32(-3.0),)]
EXAMPLES["exits_in_try"] = [(F32(1.5), I32(5)), (F32(100.0), I32(3)), (F32(-1.0), I32(4))]


def match_literals(kind, x):
    match kind:
        case 0:
            y = x + 1
        case 1 | 2:
            y = x * kind
        case n if n > 5:
            y = x - n
        case _:
            y = -x
    return y


def match_structure(item, x):
    match item:
        case (kind, scale) if kind == 0:
            return x * scale
        case [first, *rest]:
            return x + first + len(rest)
        case _:
            return x


EXAMPLES["match_literals"] = [(I32(0), F32(2.0)), (I32(2), F32(2.0)), (I32(7), F32(2.0)), (I32(4), F32(2.0))]
EXAMPLES["match_structure"] = [
    ((I32(0), F32(3.0)), F32(1.5)), ((I32(4), F32(3.0)), F32(1.5)), ((F32(4.0), F32(5.0), F32(6.0)), F32(1.5)), ((), F32(1.5)),
]


TORQUES = [-1.0, 0.0, 1.0]


def indexed_sequences(p, a, xs, i):
    moves = [jnp.sin, lambda q: q * 2.0]
    p = moves[a % 2](p) + TORQUES[a] + TORQUES[-1]
    return p * xs[i] + xs[1:].sum(), xs.at[i].get()


EXAMPLES["indexed_sequences"] = [(F32(0.5), I32(a), _ROWS, I32(1)) for a in (-3, 0, 2)]


def checked_steps(x, n):
    assert x > 0, f"x must be positive, got {x}"
    total = x
    for i in range(n):
        if total > 100:
            raise OverflowError(f"total {total} passed 100 at step {i}")
        total = total * 2
    return total


EXAMPLES["checked_steps"] = [(F32(1.5), I32(3)), (F32(0.5), I32(0))]


def opcode_switch(op, x):
    if op == 0:
        y = x + 1.0
    elif op == 1:
        y = x * 2.0
    elif op == -1:
        return x
    else:
        match op:
            case 5:
                y = x - 1.0
            case 6 | 7:
                y = -x
            case 9:
                y = x * x
            case _:
                y = x
    return y


EXAMPLES["opcode_switch"] = [(I32(op), F32(1.5)) for op in (-2, -1, 0, 1, 5, 6, 7, 9, 10)]


def attribute_stores(model, x):
    model.calls += 1
    model.state.last, model.steps = x, model.steps + 1
    if x > 0:
        model.best = x
    del model.pending
    return x


def any_of_a_generator(xs, t, it):
    if any(x > t for x in xs):  # a generator written as the argument: its source may be private
        t = t + 1.0
    return all(v < t for v in it), t  # private if a container; an iterator (iter(...)) stays as it is


EXAMPLES["any_of_a_generator"] = [(F32([1.0, 4.0]), F32(t), ()) for t in (0.0, 2.0, 5.0)]


def plain_targets(state, xs, pairs):
    for state.last in xs:  # every store Python makes becomes an assignment of its own, in Python's order
        state.total = state.count = state.total + state.last
    rows, i = [0.0, 0.0], 0
    rows[i], i = state.last, 1
    for (state.first, *rest), k in pairs:
        rows[k] = rest[0]
    with state.opened() as state.handle, state.opened() as other:
        state.after = other
    return rows, i


def show(x):
    print("x is", x)


def call_for_effect_in_a_branch(x):
    if x > 0:
        show(x)  # decided where it runs: a function of the user's runs converted
    print("done")  # print stays a call, and so does a call outside any branch or loop
    return x

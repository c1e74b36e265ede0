"""Ill-formed or unsupported programs. Each is checked by tests/test_bad_program_catalogue.py: the
line marked `# error:` is where the message must point, and the text after it must appear in it."""

import itertools

import jax.numpy as jnp

import autograph_lite

LOG = []
COUNTER = 0


def one_branch_variable(x):
    if x > 0:  # error: 'y' is assigned only in the true branch
        y = x * 2
    return y


def one_branch_in_elif(x):
    if x > 1:
        z = 1.0
    elif x > 0:  # error: 'z' is assigned only in the false branch
        pass
    else:
        z = 2.0
    return z


def dtype_change_in_branches(x):
    if x > 0:  # error: 'y' is i32[] in the true branch of the `if` but f32[] in the false branch (the dtype differs)
        y = jnp.int32(1)
    else:
        y = x * 1.5
    return y


def shape_change_in_branches(x):
    if x > 0:  # error: 'y' is f32[2] in the true branch of the `if` but f32[3] in the false branch (the shape differs)
        y = jnp.ones(2)
    else:
        y = jnp.ones(3)
    return y


def structure_change_in_branches(x):
    if x > 0:  # error: 'y' is a tuple of
        y = (x, x)
    else:
        y = (x, x, x)
    return y


def none_versus_array_in_branches(x):
    y = None
    if x > 0:  # error: 'y' is None in the true branch
        pass
    else:
        y = x
    return y


def string_result_of_branches(x):
    if x > 0:  # error: 'label' is the string 'positive' in the true branch
        label = "positive"
    else:
        label = "negative"
    return x, label


def function_result_of_branches(x):
    if x > 0:  # error: 'pick' is the function sin in the true branch
        pick = jnp.sin
    else:
        pick = jnp.cos
    return pick(x)


def inconsistent_returns(x):
    if x > 0:  # error: the function returns
        return x
    return None


def tuple_versus_scalar_returns(x):
    if x > 0:  # error: the function returns
        return x, x
    return x


def dtype_change_in_loop(x, n):
    acc = jnp.int32(0)
    for i in range(n):  # error: 'acc' is i32[] before the `for` loop but f32[] after one iteration (the dtype differs)
        acc = acc + x
    return acc


def growing_shape_in_while(x):
    v = jnp.ones(1)
    while v.sum() < x:  # error: 'v' is f32[1] before the `while` loop but f32[2] after one iteration (the shape differs)
        v = jnp.concatenate([v, v])
    return v


def none_turning_into_array_in_loop(x, n):
    last = None
    for i in range(n):  # error: 'last' is None before the staged loop
        last = x * i
    return last


def read_before_assigned_in_traced_loop(x, n):
    while x < n:
        y = x = (x + y if x > 1.0 else x + 1.0)  # error: 'y' is read in the true branch of the conditional expression
    return y


def append_in_traced_while(x, n):
    ys = []
    i = 0
    while i < n:  # error: .append(...) inside a `while` loop
        ys.append(x)
        i = i + 1
    return ys


def append_in_traced_range(x, n):
    ys = []
    for i in range(n):  # error: .append(...) inside a `for` loop whose range has a traced bound
        ys.append(x * i)
    return ys


def append_under_traced_if(xs):
    ys = []
    for x in xs:
        if x > 0:  # error: .append(...) inside a branch of an `if` with a traced condition
            ys.append(x)
    return ys


def generator_function(x):
    yield x  # error: a generator (`yield`) cannot be converted


def walrus_in_while(x):
    while (y := x * 2) < 10:  # error: an assignment expression (`:=`) in the test of a `while` loop
        x = y
    return x


def walrus_after_and(x):
    return x > 0 and (y := x) > 1  # error: an assignment expression (`:=`) in an operand


def del_in_branch(x):
    y = x
    if x > 0:
        del y  # error: `del y` inside a branch or loop
    return x


def global_write_in_loop(x):
    global COUNTER
    for i in range(3):  # error: 'COUNTER' is declared global or nonlocal
        COUNTER = COUNTER + 1
    return x


def nonlocal_write_in_branch(x):
    total = 0

    def inner(v):
        nonlocal total
        if v > 0:  # error: 'total' is declared global or nonlocal
            total = 1
        return v

    return inner(x)


def attribute_write_in_traced_if(state, x):
    if x > 0:  # error: its body assigns to state.count
        state.count = 1
    return x


def attribute_write_in_traced_while(state, x):
    while x < 10:  # error: its body assigns to state.count
        state.count = 1
        x = x * 2
    return x


def effect_call_in_traced_if(x):
    if x > 0:
        LOG.append(1)  # error: this call of list.append(), which mutates a list
    return x


def vector_predicate_if(xs):
    if xs > 0:  # error: an array with more than one element has no single truth value
        xs = xs * 2
    return xs


def vector_predicate_while(xs):
    while xs > 0:  # error: an array with more than one element has no single truth value
        xs = xs - 1
    return xs


def vector_predicate_ternary(xs):
    return xs * 2 if xs > 0 else xs  # error: an array with more than one element has no single truth value


def vector_not(xs):
    return not xs  # error: a traced array of shape (3,) is used as a truth value


def vector_and(xs, flag):
    return xs and flag  # error: a traced array of shape (3,) is used as a truth value


def unroll_traced_range(x, n):
    for i in autograph_lite.unroll(range(n)):  # error: marked unroll(...), but its range has a traced bound
        x = x + i
    return x


def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)  # error: 'factorial' calls itself without end while tracing


def sequence_pattern_on_traced_subject(xs):
    ys = xs * 2
    match ys:
        case [first, *_]:  # error: this `case` uses a sequence pattern, which needs a concrete subject
            return first
        case _:
            return -ys


def min_of_matrix(m):
    return min(m)  # error: min() of a traced array of shape (2, 2)


def bool_of_vector(xs):
    return bool(xs)  # error: bool() of a traced array of shape (3,)


def one_element_or_scalar(v, x):
    return v or x  # error: the operands of `or` have shapes (1,) and ()


def float_range_bound(x):
    total = 0.0
    for i in range(x):  # error: range() takes integers (or bools), but a bound of this range is a traced float32 value
        total = total + i
    return total


def bool_carry_read_as_a_bool(x):
    flag = x > 0
    for i in range(x):  # error: 'flag' is bool[] before the `for` loop but weakly typed i32[] after one iteration
        flag = ~flag + 1
    return flag


def max_key_over_items_of_two_shapes(xs):
    return max(xs, xs[:2], key=lambda v: v[0])  # error: max() / min() with key= on traced keys must return one of its items


def min_key_of_rows(m):
    return min(m, key=lambda row: row * 2)  # error: min() with key= got a key of shape (2,)


def vector_in_tuple(xs):
    return xs in (1.0, 2.0)  # error: `in` compares the element with each item, and one comparison is a traced array of shape (3,)


def traced_key_in_dict(x):
    names = {1: "one", 2: "two"}
    if x in names:  # error: `in` on a dict hashes the element, and a traced JAX value has no hash
        return x * 2
    return x


def stale_read_of_an_updated_dict(w, c):
    layers = [{"w": w}]
    layer = layers[0]
    if c > 0:  # error: 'layers' reaches a dict whose items this branch of the `if` updates through another variable
        layer["w"] = layer["w"] * 2.0
        seen = layers[0]["w"]
    else:
        seen = w
    return seen


def len_of_a_traced_range(n):
    return len(range(n))  # error: len() of a range with a traced bound


def traced_range_enumerated(xs, n):
    total = 0.0
    for k, i in enumerate(range(1, n)):  # error: a range with a traced bound taken item by item outside a `for` loop's own header
        total = total + k * xs[i]
    return total


def endless_count_with_traced_break(x):
    for i in itertools.count():  # error: this `for` loop over an endless iterator (count) stops at a `break`
        x = x * 1.5
        if x > 10:
            break
    return x, i


def traced_dict_key(x):
    scales = {0: 1.0, 1: 2.5}
    return scales[int(x) % 2] * x  # error: a traced value used as a dict key or a set member


def number_method_on_traced_count(x, n):
    count = 0
    for _ in range(n):
        count += 1
    return x * count.bit_length()  # error: a traced value has no attribute `.bit_length`, which Python's numbers have


def list_repeated_by_a_traced_count(x):
    copies = 1
    if x > 0:
        copies = 2
    return sum([x] * copies)  # error: a Python list, tuple or string repeated a traced number of times


def held_iterator_with_traced_break(x):
    it = iter([1.0, 5.0, 4.0])
    total = x
    for v in it:  # error: this `for` loop draws from a list_iterator and stops at a `break` or `return` whose condition is traced
        total = total + v
        if total > 3:
            break
    return total, sum(it)


def draw_after_traced_break(xs):
    pairs = enumerate(xs)
    total = 0.0
    for _, v in pairs:
        total = total + v
        if total > 2:
            break
    return next(pairs, (0, 0.0))[1]  # error: was drawn from by the `for` loop at


def staged_range_past_int32(x):
    acc = x
    for i in autograph_lite.stage(range(0, 2**32, 2**30)):  # error: past the int32 of a staged loop's index
        acc = acc + i // 2**30
    return acc


def default_of_or(x):
    given = x or None  # error: 'given' is the left operand of `or` or the right one
    return given


def clamp_rows_through_loop_views(g):
    for row in g:
        if row[0] < 0:
            row[0] = 0  # error: 'row' is updated in place, but it may share memory with 'g'
    return g


def locals_read_after_branch(x):
    scale = 1.0
    if x > 0:
        scale = 10.0
    return x * locals()["scale"]  # error: `locals()` reads the function's local variables by their names


def sum_until_negative(x):
    tot = 0.0
    while x.shape[0] > 0:
        if x[0] < 0:  # error: 'x' is f32[3] where the `break` is taken but f32[2] after the code that follows the `break`
            break
        tot += x[0]
        x = x[1:]
    return tot


def history_after_traced_break(x):
    hist = []
    for _ in range(3):
        if x < 0.1:  # error: a list built with .append(...) inside a part of the code after a `break` on a traced condition
            break
        x = x / 2
        hist.append(x)
    return hist

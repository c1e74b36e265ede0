"""Functions whose analysis tests/test_analysis_golden.py records in the .txt files next to this one.

The file is parsed, never imported for the test, but it is plain importable Python. Each function is
small and shows one thing the analysis decides: what a statement carries, what is live after it,
and which carried names may still be unbound when it starts.
"""


def if_elif_else(x):
    if x > 0:
        sign = 1
    elif x < 0:
        sign = -1
    else:
        sign = 0
    return sign * x


def defined_on_one_path(x, flag):
    if flag:
        y = x + 1
        scratch = y * 2
        x = scratch - y
    return x, y


def while_break_else(n):
    i = 0
    found = -1
    while i < n:
        if i * i > n:
            found = i
            break
        i += 1
    else:
        found = n
    return found


def for_continue(xs):
    total = 0
    for x in xs:
        if x < 0:
            continue
        total += x
    return total


def while_continue(n):
    i = 0
    odd = 0
    while i < n:
        i += 1
        if i % 2 == 0:
            continue
        odd += i
    return odd


def early_return(x):
    if x < 0:
        return -x
    y = x * 2
    return y


def return_in_loop(xs, target):
    for i, x in enumerate(xs):
        if x == target:
            return i
    return -1


def return_from_nested_loop(grid, target):
    for row in grid:
        for value in row:
            if value == target:
                return True
    return False


def nested_loops(n, m):
    total = 0
    for i in range(n):
        j = 0
        while j < m:
            total += i * j
            j += 1
    return total


def temporary_in_loop_body(n):
    a, b = 0, 1
    for _ in range(n):
        t = a + b
        a = b
        b = t
    return a


def loop_target_read_after(xs):
    for x in xs:
        pass
    return x


def closure_reads_loop_variable(n):
    scale = 1

    def scaled(v):
        return v * scale

    total = 0
    for i in range(n):
        scale = i
        total += scaled(i)
    return total


def delete_after_loop(xs):
    total = 0
    for x in xs:
        step = x * 2
        total += step
    del step
    return total


def augmented_assignments(xs, limit):
    count = 0
    sums = [0, 0]
    for x in xs:
        if x > limit:
            count += 1
            sums[1] += x
        else:
            sums[0] += x
    return count, sums


def walrus_in_loop_body(xs):
    total = 0
    for x in xs:
        total = total + (half := x // 2)
        if half > 1:
            total += 1
    return total


def deleted_then_assigned_on_one_path(x):
    y = x + 1
    del y
    if x > 0:
        y = 2
    return y


def deleted_in_try_then_assigned_on_one_path(x):
    y = x + 1
    try:
        del y
    except NameError:
        pass
    if x > 0:
        y = 2
    return y


def branch_rewrites_a_name_nobody_reads_after(c, t):
    if c > 0:
        y = t
    else:
        t = (t, t)
        y = t[0] + t[1]
    return y


def exit_in_try_then_name_read_after_it(x):
    try:
        if x > 0:
            return x
        z = x * 2
    finally:
        x = x + 1
    return z + x


def traced_if_in_try_star(x):
    try:
        if x > 0:
            y = x
        else:
            y = -x
    except* ValueError:
        y = x * 0
    return y

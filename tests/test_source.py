"""Finding and parsing source: notebook cells, lambdas by position, methods, decorators, strings."""

import importlib
import linecache
import os

import pytest
from source_corpus import shapes
from support import assert_equivalent, load_source

import autograph_lite


def test_an_ipython_style_cell_is_read_through_linecache():
    # IPython keeps each cell's text in linecache under a pseudo file name and compiles with it.
    name = "<ipython-input-7-0123456789ab>"
    text = "def cell_function(x):\n    if x > 0:\n        return x * 3\n    return -x\n"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    namespace = {}
    exec(compile(text, name, "exec"), namespace)
    converted = autograph_lite.jit(namespace["cell_function"])
    assert float(converted(2.0)) == 6.0 and float(converted(-2.0)) == 2.0
    assert "_ag.if_stmt" in autograph_lite.to_source(namespace["cell_function"])


def test_code_built_from_a_string_without_source_is_a_clear_error():
    namespace = {}
    exec("def no_source(x):\n    return x\n", namespace)
    with pytest.raises(autograph_lite.SourceUnavailableError, match="(?s)no_source.*Define the function in a .py file"):
        autograph_lite.convert(namespace["no_source"])


@pytest.mark.parametrize("index", [0, 1])
@pytest.mark.parametrize("x", [2.0, -2.0])
def test_two_lambdas_on_one_line_are_told_apart(index, x):
    assert_equivalent(shapes.pair[index], x)


@pytest.mark.parametrize("x", [2.0, -2.0])
def test_a_lambda_spanning_lines(x):
    assert_equivalent(shapes.spread, x)


def test_the_decorator_line_is_dropped_and_the_function_still_jits():
    assert float(shapes.jitted_by_decorator(3.0)) == 6.0
    assert float(shapes.jitted_by_decorator(-3.0)) == -3.0
    assert "@" not in autograph_lite.to_source(shapes.jitted_by_decorator)


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_an_indented_method_with_a_less_indented_string_keeps_the_string(x):
    holder = shapes.Holder()
    assert float(autograph_lite.jit(holder.method)(x)) == pytest.approx(holder.method(x))


@pytest.mark.parametrize("x", [5.0, 0.5])
def test_a_closure_keeps_its_cell(x):
    assert_equivalent(shapes.outer(1.0), x)


def test_wrapped_functions_are_read_from_their_own_code_not_from___wrapped__():
    wrapped = shapes.decorated_elsewhere(shapes.outer(1.0))
    # The wrapper's own source is the `def wrapper` inside decorated_elsewhere, not inner's.
    assert "def wrapper(*args)" in autograph_lite.to_source(autograph_lite.convert(wrapped).__wrapped__)
    assert float(autograph_lite.jit(wrapped)(5.0)) == 4.0


@pytest.mark.parametrize(
    "function", [shapes.signature_over_lines, shapes.continued_at_column_zero, shapes.bound_by_walrus],
    ids=lambda f: f.__name__,
)
@pytest.mark.parametrize("x", [2.0, 0.25, -2.0])
def test_awkward_layouts_convert_and_agree(function, x):
    # The block is first cut by indentation; a cut inside brackets or a continuation falls back
    # to the tokenizer. A walrus binds in the enclosing scope, so it must be carried.
    assert_equivalent(function, x)


def test_a_block_ends_where_the_next_def_starts():
    source = autograph_lite.to_source(shapes.signature_over_lines)
    assert "defined_right_after" not in source
    assert float(autograph_lite.jit(shapes.defined_right_after)(2.0)) == 10.0


@pytest.mark.parametrize("edited", [
    "def helper(x):\n    return -x\n\ndef scaled(x):\n    if x > 0:\n        return x * 2\n    return x\n",  # a def added above
    "def scaled(y):\n    if y > 0:\n        return y * 2\n    return y\n",  # a parameter renamed
    "def scaled(x):\n    return x\n",  # shortened
])
def test_a_file_edited_after_import_is_refused_until_reloaded(tmp_path, monkeypatch, edited):
    name = f"edited_{tmp_path.name}"  # one module per case
    path = tmp_path / f"{name}.py"
    path.write_text("def scaled(x):\n    if x > 0:\n        return x * 2\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(name)
    path.write_text(edited)
    os.utime(path, (1, 1))  # another modification time, whatever the clock's resolution
    with pytest.raises(autograph_lite.SourceUnavailableError, match="the file changed since its module was imported"):
        autograph_lite.convert(module.scaled)
    module = importlib.reload(module)
    assert float(autograph_lite.jit(module.scaled)(3.0)) == float(module.scaled(3.0))


def test_a_lambda_on_a_line_that_is_no_whole_statement_gets_a_fix_that_works(tmp_path):
    module = load_source(
        "FOUND = []\n"
        "try: FOUND.append(lambda v: v * 2 if v > 0 else -v)\n"
        "except Exception: pass\n"
        "step = lambda v: v * 2 if v > 0 else -v\n", tmp_path)
    with pytest.raises(autograph_lite.SourceUnavailableError, match="a line of its own"):
        autograph_lite.convert(module.FOUND[0])
    assert float(autograph_lite.jit(module.step)(-3.0)) == 3.0

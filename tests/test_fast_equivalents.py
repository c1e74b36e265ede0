"""Conversion's faster stand-ins for gast's own functions must give exactly what gast's give: the
translators between Python's ``ast`` and gast (``autograph_lite.gast_translation``: ``to_gast`` and
``into_python`` reuse the nodes of the tree they are given, ``to_python`` copies them), node for node
and field for field, positions included; the tree walks (``analysis.blocks``: gast's walks, the same
nodes in the same order; ``statements_within``, the same statements as through ``blocks_of``); the
search for the parsed definition; the node builders of ``passes.nodes`` (gast's constructors); and
the rewrite where the search for placeholders is skipped."""

from __future__ import annotations

import ast
import inspect
import pathlib
import types
import warnings
from collections.abc import Iterator

import gast
import pytest

from autograph_lite import codegen, conversion, gast_translation, passes, source
from autograph_lite.analysis.assigned_before_read import assigned_before_every_read
from autograph_lite.analysis.blocks import SCOPES, blocks_of, child_nodes, statements_within, walk
from autograph_lite.dispatch import DispatchByClass
from autograph_lite.passes import nodes
from autograph_lite.passes.facts import ScopeFacts

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The package, the benchmark programs, the examples and the test programs: every statement and
# expression class that the project's own code and its test inputs use (match, try*, walrus, f-strings).
CORPUS = sorted(
    [*ROOT.glob("autograph_lite/**/*.py"), *ROOT.glob("bench/programs/*.py"), *ROOT.glob("examples/*.py"),
     *ROOT.glob("tests/program_*.py"), *ROOT.glob("tests/test_match*.py"), *ROOT.glob("tests/test_exits_in_with_try.py")]
)


def assert_same_tree(actual: object, expected: object, path: str = "tree") -> None:
    """The same classes, the same instance dicts (every field and position, as a mapping: the order
    in which a node's keys were set is no part of it) and the same values, all the way down; a
    context or operator may be a shared instance where gast makes a new one."""
    assert type(actual) is type(expected), f"{path}: {type(actual).__name__} != {type(expected).__name__}"
    if isinstance(expected, list):
        assert len(actual) == len(expected), path
        for index, (a, e) in enumerate(zip(actual, expected)):
            assert_same_tree(a, e, f"{path}[{index}]")
    elif isinstance(expected, ast.AST):
        assert vars(actual).keys() == vars(expected).keys(), f"{path}: {sorted(vars(actual))} != {sorted(vars(expected))}"
        for key, value in vars(expected).items():
            assert_same_tree(vars(actual)[key], value, f"{path}.{key}")
    else:
        assert actual == expected or (actual != actual and expected != expected), f"{path}: {actual!r} != {expected!r}"


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_translations_are_gasts_own(path):
    text = path.read_text()
    expected = gast.parse(text)
    translated = source._gast_parse(text)
    assert_same_tree(translated, expected)
    assert gast.dump(translated, include_attributes=True) == gast.dump(expected, include_attributes=True)
    expected_python = gast.gast_to_ast(expected)
    assert_same_tree(codegen.to_python_ast(translated), expected_python)
    assert_same_tree(translated, expected)  # the copying translation left its tree as it was
    assert_same_tree(gast_translation.into_python(translated), expected_python)
    assert [id(node) for node in walk(expected)] == [id(node) for node in gast.walk(expected)]
    assert all(child_nodes(node) == list(gast.iter_child_nodes(node)) for node in gast.walk(expected))


def test_the_parsers_shared_contexts_and_operators_are_never_changed():
    """CPython's parser makes one ``Load``, one ``Add``, ... for all its trees: ``to_gast`` reuses the
    other nodes of the tree it is given, but must leave those alone."""
    gast_translation.to_gast(ast.parse("x = y + z"))
    tree = ast.parse("a = b + c")
    assert type(tree.body[0].value.left.ctx) is ast.Load
    assert type(tree.body[0].value.op) is ast.Add
    assert eval(compile(ast.Expression(ast.parse("2 + 3").body[0].value), "<test>", "eval")) == 5


def test_a_node_held_at_two_places_translates_as_gast_translates_it():
    """A rewrite may put one node at two places: translated in place, it is translated once."""
    shared_name = gast.Name("x", gast.Load(), None, None, lineno=1, col_offset=0, end_lineno=1, end_col_offset=1)
    shared_sum = gast.BinOp(shared_name, gast.Add(), shared_name, lineno=1, col_offset=0, end_lineno=1, end_col_offset=5)
    module = gast.Module([gast.Expr(shared_sum, lineno=1, col_offset=0, end_lineno=1, end_col_offset=5),
                          gast.Expr(shared_sum, lineno=2, col_offset=0, end_lineno=2, end_col_offset=5)], [])
    expected = gast.gast_to_ast(module)
    assert_same_tree(gast_translation.into_python(module), expected)
    assert eval(compile(module, "<test>", "exec"), {"x": 2}) is None  # compiles, as the ast module it now is


def test_generated_nodes_without_positions_keep_gasts_translation():
    """``ast.copy_location``, which gast's ``Name`` and ``Assign`` translations use, copies no start
    position that is ``None`` but does copy an end that is; a generic node copies both."""
    name = gast.Name("x", gast.Store(), None, None, lineno=None, col_offset=None, end_lineno=None, end_col_offset=None)
    value = gast.Constant(1, None, lineno=None, col_offset=None, end_lineno=None, end_col_offset=None)
    statement = gast.Assign([name], value, None, lineno=3, col_offset=None, end_lineno=3, end_col_offset=None)
    expected = gast.gast_to_ast(statement)
    assert_same_tree(gast_translation.to_python(statement), expected)
    assert_same_tree(gast_translation.into_python(statement), expected)


def _corpus_functions() -> Iterator[types.FunctionType]:
    """Every function of the benchmark programs and the examples, and those nested in them."""
    from bench.programs import natural

    def nested(code: types.CodeType, namespace: dict) -> Iterator[types.FunctionType]:
        for constant in code.co_consts:
            if isinstance(constant, types.CodeType) and not constant.co_name.startswith("<"):
                if constant.co_flags & inspect.CO_OPTIMIZED:  # a function's code; a class body's holds methods
                    cells = tuple(types.CellType() for _ in constant.co_freevars)
                    yield types.FunctionType(constant, namespace, constant.co_name, None, cells)
                yield from nested(constant, namespace)

    for path in [pathlib.Path(natural.__file__), *ROOT.glob("examples/*.py")]:
        yield from nested(compile(path.read_text(), str(path), "exec"), {"__name__": path.stem})


def test_rewritten_trees_translate_as_gast_translates_them():
    """A rewritten tree holds generated nodes (shared contexts, helpers): the same translation, by
    ``to_python`` and, consuming a second rewrite, by ``into_python``."""
    functions = list(_corpus_functions())
    assert len(functions) > 40
    for function in functions:
        rewritten = conversion._rewritten(function, source.parse_function(function))
        expected = gast.gast_to_ast(rewritten)
        assert_same_tree(codegen.to_python_ast(rewritten), expected, function.__qualname__)
        again = conversion._rewritten(function, source.parse_function(function))
        assert_same_tree(gast_translation.into_python(again), expected, function.__qualname__)


def _returns_inside_with(path):
    with open(path) as handle:
        return handle.read()


def _returns_inside_try(x):
    try:
        return x + 1
    except TypeError:
        x = 0
    return x


def _without_control_flow(x, y):
    z = x * y
    return z + y


def test_the_placeholder_search_is_skipped_only_where_nothing_reads_its_result(monkeypatch):
    """``find_placeholders`` skips functions with no ``if`` / ``while`` / ``for`` that the early-exit
    pass cannot give one: the rewrite is the one the search would have given."""

    def always_searched(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
        if not isinstance(function, gast.FunctionDef):
            return facts
        return facts.with_placeholders(facts.placeholders | assigned_before_every_read(function, facts.names))

    functions = [*_corpus_functions(), _returns_inside_with, _returns_inside_try, _without_control_flow]
    skipping = [codegen.source_of(conversion._rewritten(f, source.parse_function(f))) for f in functions]
    order = tuple((always_searched if step is passes.find_placeholders else step, why) for step, why in passes.PASS_ORDER)
    monkeypatch.setattr(passes.run_passes, "__defaults__", (order,))
    searching = [codegen.source_of(conversion._rewritten(f, source.parse_function(f))) for f in functions]
    assert skipping == searching
    assert "_ag.if_stmt" in searching[-2]  # the early-exit pass guards the last `return` with an `if`


def test_the_definition_found_without_a_walk_is_the_one_the_walk_finds():
    texts = [
        "def f(x):\n    return x\n",
        "@decorator\ndef f(x):\n    def g():\n        pass\n    return g\n",
        "    def method(self):\n        return self\n",
        "async def f():\n    pass\n",
        "x = lambda: 1\n",
        "class C:\n    def f(self):\n        pass\n",
    ]
    for text in texts:
        module = source._parse_indented(text.splitlines(keepends=True), 7)
        walked = next((node for node in gast.walk(module) if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef))),
                      None)
        assert source._find_def(module) is walked, text


def _statements_through_blocks(statements: list) -> Iterator[gast.AST]:
    """``statements_within`` as it was written before: through ``blocks_of``."""
    pending = list(statements)
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, SCOPES):
            for block in blocks_of(node):
                pending.extend(block)


@pytest.mark.parametrize("path", CORPUS[:40], ids=lambda p: str(p.relative_to(ROOT)))
def test_statements_within_finds_what_blocks_of_finds(path):
    tree = gast.parse(path.read_text())
    for node in gast.walk(tree):
        if isinstance(node, (gast.FunctionDef, gast.Module)):
            found = [id(n) for n in statements_within(node.body)]
            assert found == [id(n) for n in _statements_through_blocks(node.body)]


def test_node_builders_make_what_gasts_constructors_make():
    def placed(node: gast.AST, line: int) -> gast.AST:
        node.lineno = node.end_lineno = line
        node.col_offset = node.end_col_offset = 0
        return node

    load, store = gast.Load(), gast.Store()
    pairs = [
        (nodes.name("x", 4), placed(gast.Name("x", load, None, None), 4)),
        (nodes.name("x", 4, store=True), placed(gast.Name("x", store, None, None), 4)),
        (nodes.constant(2.5, 4), placed(gast.Constant(2.5, None), 4)),
        (nodes.dotted_read(("self", "a"), 4),
         placed(gast.Attribute(placed(gast.Name("self", load, None, None), 4), "a", load), 4)),
        (nodes.names(("a", "b"), 4, store=True),
         placed(gast.Tuple([placed(gast.Name(n, store, None, None), 4) for n in "ab"], store), 4)),
        (nodes.runtime_call("if_stmt", [], 4),
         placed(gast.Call(placed(gast.Attribute(placed(gast.Name("_ag", load, None, None), 4), "if_stmt", load), 4),
                          [], []), 4)),
        (nodes.assign("y", nodes.constant(1, 4), 4),
         placed(gast.Assign([placed(gast.Name("y", store, None, None), 4)], placed(gast.Constant(1, None), 4), None), 4)),
    ]
    for built, expected in pairs:
        assert_same_tree(built, expected)
        assert ast.dump(gast.gast_to_ast(built), include_attributes=True) == ast.dump(
            gast.gast_to_ast(expected), include_attributes=True)


def test_a_visitor_with_a_pre_3_8_constant_method_still_gets_it():
    """``ast.NodeVisitor`` hands a constant to ``visit_Num`` / ``visit_Str`` / ... when a visitor has
    one (with a DeprecationWarning); the per-class table skips that step only for visitors without."""

    class Numbers(DispatchByClass, ast.NodeVisitor):
        def __init__(self) -> None:
            self.seen: list[object] = []

        def visit_Num(self, node: ast.Constant) -> None:
            self.seen.append(node.value)

    visitor = Numbers()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        visitor.visit(ast.parse("x = 1 + 'a' + 2.5"))
    assert visitor.seen == [1, 2.5]


@pytest.mark.parametrize("text", [
    "x = 1\ny = 2\n", "x = 1\ny = 2", "", "\n", "s = 'é'\n", "a = 1\x0cb = 2\n", "s = '\u2028'\n",
    "# -*- coding: utf-8 -*-\nx = 1\n", "x = 1\r\ny = 2\r\n", "x = 1\ry = 2\n", "\ufeffx = 1\n",
    "#!/usr/bin/env python\n# vim: set fileencoding=latin-1 :\nx = 'é'\n",
])
def test_a_file_is_read_as_linecache_reads_it(tmp_path, text):
    """``source._read_plain_file`` reads what ``linecache`` would, and caches it as ``linecache`` does
    (the same entry: size, time, lines, name), or leaves the file to ``linecache``."""
    import linecache

    path = tmp_path / "module.py"
    path.write_bytes(text.encode("latin-1" if "latin-1" in text else "utf-8"))
    name = str(path)
    expected = linecache.getlines(name)
    expected_entry = linecache.cache.pop(name, None)
    lines = source._read_plain_file(name)
    if lines is None:
        assert name not in linecache.cache
        assert "coding" in text or "\r" in text or text.startswith("\ufeff") or "\x0c" in text or "\u2028" in text
        return
    assert lines == expected
    assert linecache.cache.pop(name) == expected_entry


def test_a_missing_or_unreadable_file_is_left_to_linecache(tmp_path):
    assert source._read_plain_file(str(tmp_path / "absent.py")) is None
    assert source._read_plain_file(str(tmp_path)) is None  # a directory
    assert source._read_plain_file("<stdin>") is None
    (tmp_path / "bad.py").write_bytes(b"x = '\xff'\n")  # not UTF-8, and no declaration
    assert source._read_plain_file(str(tmp_path / "bad.py")) is None


def _scaffolding_as_constructed(body: list, line: int) -> ast.Try:
    """``codegen._reporting_jax_errors`` written with ast's constructors, then positions: the ``try`` and
    the raise of the located error at ``line``, the rest of the handler nowhere (-1)."""
    def placed(node, line):
        node.lineno = node.end_lineno = line
        node.col_offset = node.end_col_offset = 0 if line > 0 else -1
        return node

    def name(identifier, line):
        return placed(ast.Name(identifier, ast.Load()), line)

    def call(function, line):
        return placed(ast.Call(placed(ast.Attribute(name(codegen._ENTRY, line), function, ast.Load()), line),
                               [name(codegen._CAUGHT, line)], []), line)

    located = placed(ast.Raise(call("located", line), name(codegen._CAUGHT, line)), line)
    handler = ast.ExceptHandler(
        type=placed(ast.Attribute(name(codegen._ENTRY, -1), "caught", ast.Load()), -1), name=codegen._CAUGHT,
        body=[placed(ast.If(call("translates", -1), [located], []), -1), placed(ast.Raise(None, None), -1)],
    )
    return placed(ast.Try(body=body, handlers=[placed(handler, -1)], orelse=[], finalbody=[]), line)


def test_the_scaffolding_made_from_instance_dicts_compiles_as_the_constructed_one():
    body = [ast.parse("y = 1").body[0]]
    made, constructed = codegen._reporting_jax_errors(body, 5), _scaffolding_as_constructed(body, 5)
    assert ast.dump(made, include_attributes=True) == ast.dump(constructed, include_attributes=True)
    module = ast.Module(body=[made], type_ignores=[])
    expected = ast.Module(body=[constructed], type_ignores=[])
    first, second = compile(module, "<test>", "exec"), compile(expected, "<test>", "exec")
    assert (first.co_code, first.co_consts, first.co_names, first.co_linetable, first.co_exceptiontable) == (
        second.co_code, second.co_consts, second.co_names, second.co_linetable, second.co_exceptiontable)


def test_converted_code_is_compiled_as_with_gasts_translation(monkeypatch):
    """The code objects ``compile_rewritten`` makes (hand-written ``FunctionDef`` / ``arguments``
    translations, scaffolding made from instance dicts) equal those of the same rewrite compiled
    through gast's own translation, with the scaffolding made by ast's constructors."""
    def signature(code: types.CodeType) -> tuple:
        return (code.co_code, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars, code.co_linetable,
                code.co_exceptiontable, code.co_name, code.co_qualname, code.co_flags, code.co_firstlineno,
                tuple(signature(c) if isinstance(c, types.CodeType) else c for c in code.co_consts))

    def compiled(function: types.FunctionType) -> types.CodeType:
        parsed = source.parse_function(function)
        return codegen.compile_rewritten(parsed, conversion._rewritten(function, parsed), function).code

    functions = list(_corpus_functions())
    fast = [signature(compiled(function)) for function in functions]
    monkeypatch.setattr(codegen, "into_python", gast.gast_to_ast)
    monkeypatch.setattr(codegen, "_reporting_jax_errors", _scaffolding_as_constructed)
    assert fast == [signature(compiled(function)) for function in functions]


def test_facts_and_statement_infos_made_from_instance_dicts_are_the_dataclasses_own():
    """``scope_facts`` and ``analyze`` fill the instance dicts of their frozen dataclasses directly:
    the same fields, defaults included, as the dataclasses' own constructors give."""
    import dataclasses

    from autograph_lite.analysis import StatementInfo, analyze
    from autograph_lite.analysis.names import NameScanner
    from autograph_lite.passes.facts import scope_facts

    infos = 0
    for function in _corpus_functions():
        parsed = source.parse_function(function)
        facts = scope_facts(parsed.node, names=NameScanner(), locate=parsed.location, leave_call_as_is=lambda _: False)
        given = {field.name: getattr(facts, field.name) for field in dataclasses.fields(ScopeFacts) if field.init
                 and field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING}
        assert vars(facts) == vars(ScopeFacts(**given))
        for info in analyze(parsed.node).values():
            assert vars(info) == vars(StatementInfo(**vars(info)))
            infos += 1
    assert infos > 40

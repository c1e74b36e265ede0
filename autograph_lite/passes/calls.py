"""Calls become ``_ag.call(f, *args, **kwargs)``, except calls that need no conversion.

A call is left as written when its callee, looked up at conversion time, is library code reached
through a module attribute or a global name (``jnp.sin(x)``, ``lax.cond(...)``, ``math.sqrt(v)``) or a
class (constructors are not converted). The decision comes from the conversion layer as a predicate
over dotted names, so this pass stays pure AST work. Names bound in the function (or in an enclosing
converted function) are looked up at run time, since their values are unknown here.

A library call given ``out=`` (``np.add(a, 1, out=BUF)``) writes into that array: it goes through
``_ag.call`` too, whose effect checks see the array it would change (``runtime.library_mutators``).
The conversion layer's predicate sends the library functions that mutate an argument there already.

The source of a generator expression written as the argument of a builtin that draws it (``any`` /
``all``, ``sum``, ``list``, ...) or as a ``for`` loop's iterable becomes ``_ag.private_source(xs)``:
staged code draws it only when it is private (``runtime.private_iterators``).

Attribute reads become ``_ag.getattr(q, 'w')``: a property's getter, a ``cached_property`` or a
``__getattr__`` of the user's is code Python runs implicitly, which the runtime converts
(``runtime.attribute_loads``), and so does the owner of a method call (``t.helper.total()`` reads
``t.helper`` through it; the method itself is read by the call). Reads through a library module
(``np.pi``, ``jnp.linalg.norm(x)``), private names and a store target's chain (``a.b.c = v`` reads
``a.b`` as written; the store itself is the attribute-stores pass's) stay as written.
"""

from __future__ import annotations

from collections.abc import Callable

import gast

from ..analysis.cells import DRAINING_NAMES
from ..generated_names import RUNTIME
from . import effects, nodes
from .expressions import ExpressionTransformer
from .facts import ScopeFacts


def transform(function: gast.AST, facts: ScopeFacts) -> ScopeFacts:
    rewriter = _Calls(facts.leave_call_as_is, facts.local_names)
    rewriter.rewrite_scope(function)
    return facts


def dotted_name(node: gast.expr) -> tuple[str, ...] | None:
    """``a.b.c`` as ``("a", "b", "c")``; ``None`` for anything that is not a chain of names."""
    parts: list[str] = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name):
        return None
    parts.append(node.id)
    return tuple(reversed(parts))


class _Calls(ExpressionTransformer):
    def __init__(self, leave_as_is: Callable[[tuple[str, ...]], bool], local_names: frozenset[str]) -> None:
        self.leave_as_is = leave_as_is
        self.local_names = local_names
        self.within_branch_or_loop = 0  # how many `if` / `for` / `while` statements enclose the visit

    # Nested functions were rewritten on their own already.
    def visit_FunctionDef(self, node: gast.AST) -> gast.AST:
        return node

    visit_Lambda = visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Call(self, node: gast.Call) -> gast.expr:
        callee = node.func
        keep = self._keep(callee) and not _writes_out(node)
        if isinstance(callee, gast.Attribute):  # the method is read with its owner, by the call; the owner
            callee.value = self.visit(callee.value)  # as any read (a.b.c(...) reads a.b through the runtime)
            node.args = self._visit_list(node.args)
            node.keywords = self._visit_list(node.keywords)
        else:
            self.generic_visit(node)
        if keep:
            return node
        if _draws_a_generator(node):
            _mark_source(node.args[0])
        return nodes.runtime_call("call", [node.func] + node.args, node.lineno, node.keywords)

    def visit_If(self, node: gast.If | gast.For | gast.While) -> gast.AST:
        self.within_branch_or_loop += 1
        try:
            return self.generic_visit(node)
        finally:
            self.within_branch_or_loop -= 1

    visit_While = visit_If

    def visit_For(self, node: gast.For) -> gast.AST:
        """A ``for`` loop over a generator expression written in its header draws it there, as a builtin
        that takes every item does (:func:`_draws_a_generator`)."""
        node = self.visit_If(node)
        if isinstance(node.iter, gast.GeneratorExp):
            _mark_source(node.iter)
        return node

    def visit_Expr(self, node: gast.Expr) -> gast.Expr:
        """A call made for its effect in a branch or a loop (``if c: log_state(x)``) becomes
        ``_ag.call_for_effect('log_state', log_state, x)``. Such a statement made a staged ``if`` or
        loop refuse itself (passes/effects.py), whatever the callee; now the runtime decides: inside
        staged code it runs a function of the user's converted, its effects checked where they are
        written (as for ``y = log_state(x)``), and refuses any other callee, whose effect it cannot
        see. ``print`` stays a call: it is staged as an ordered callback. A statement outside any
        branch or loop stays a call, as before."""
        self.generic_visit(node)
        call = node.value
        if self.within_branch_or_loop and isinstance(call, gast.Call) and nodes.runtime_operator(
                call.func) == "call" and not (isinstance(call.args[0], gast.Name) and call.args[0].id == "print"):
            call.func.attr = "call_for_effect"
            call.args.insert(0, nodes.constant(effects.text(call.args[0]), call.lineno))
        return node

    def visit_withitem(self, node: gast.withitem) -> gast.withitem:
        """``with m:`` -> ``with _ag.context(m):``, which runs ``m.__enter__`` / ``__exit__`` converted where
        they are the user's (Python calls them implicitly), and watches a library's manager (one that a
        library call left as written makes too: ``with contextlib.redirect_stdout(buf):``) for a swap of
        ``sys.stdout`` that staged prints in its body would escape."""
        self.generic_visit(node)
        node.context_expr = nodes.runtime_call("context", [node.context_expr], node.context_expr.lineno)
        return node

    def visit_Attribute(self, node: gast.Attribute) -> gast.expr:
        """``q.w`` -> ``_ag.getattr(q, 'w')``, which runs a getter of the user's converted; not a read
        through a library module (``np.pi``), nor a store's target (``q.w = v``, whose chain the
        attribute-store check and the effect messages name), nor a private name (``self.__w``, which
        the code generator mangles as the class would)."""
        if not isinstance(node.ctx, gast.Load):
            return _visit_target_chain(self, node)
        self.generic_visit(node)
        if node.attr.startswith("__") and not node.attr.endswith("__"):
            return node
        path = dotted_name(node)
        if path is not None and path[0] not in self.local_names and (path[0] == RUNTIME or self.leave_as_is(path[:1])):
            return node
        return nodes.runtime_call("getattr", [node.value, nodes.constant(node.attr, node.lineno)], node.lineno)

    def visit_Subscript(self, node: gast.Subscript) -> gast.expr:
        if not isinstance(node.ctx, gast.Load):
            return _visit_target_chain(self, node)
        if isinstance(node.value, gast.Attribute) and node.value.attr == "at":  # x.at[i]: JAX's update helper,
            node.value.value = self.visit(node.value.value)  # which the subscripts pass recognises by its form
            node.slice = self.visit(node.slice)
            return node
        return self.generic_visit(node)

    def _keep(self, callee: gast.expr) -> bool:
        if isinstance(callee, gast.Name) and callee.id == "super":
            return True  # super() needs the frame it is called from; super().method(...) is converted
        path = dotted_name(callee)
        if path is None:
            return False
        if path[0] == RUNTIME:
            return True
        return path[0] not in self.local_names and self.leave_as_is(path)


def _visit_target_chain(rewriter: _Calls, node: gast.expr) -> gast.expr:
    """A store's or a deletion's target: the attributes it reads on the way stay as written, the
    calls and indices in it are rewritten (``a.b[f(i)].c = v``)."""
    if isinstance(node, gast.Attribute):
        node.value = _visit_target_chain(rewriter, node.value)
    elif isinstance(node, gast.Subscript):
        node.value = _visit_target_chain(rewriter, node.value)
        node.slice = rewriter.visit(node.slice)
    elif not isinstance(node, gast.Name):
        node = rewriter.visit(node)
    return node


def _draws_a_generator(call: gast.Call) -> bool:
    """``any(x > t for x in xs)``, ``sum(x * x for x in xs)``, ``sorted(...)``: a generator expression
    written as the argument of a builtin that draws it, which nothing else can hold (any / all: of one
    ``for``, as the fold of its elements takes them). Its source is marked where it is private
    (``runtime.private_iterators``), so that the draws may happen in staged code, and past a traced
    element of ``any`` / ``all``."""
    if not (isinstance(call.func, gast.Name) and call.args and isinstance(call.args[0], gast.GeneratorExp)):
        return False
    if call.func.id in ("any", "all"):
        return len(call.args) == 1 and not call.keywords and len(call.args[0].generators) == 1
    return call.func.id in DRAINING_NAMES


def _mark_source(generator: gast.GeneratorExp) -> None:
    """``_ag.private_source(xs)`` for the source of ``generator``'s first ``for``, saying whether the
    source is made in that place too (a call, a display or a comprehension, which nobody else holds)."""
    loop = generator.generators[0]
    written_here = isinstance(loop.iter, (gast.Call, gast.List, gast.Tuple, gast.Set, gast.Dict, gast.ListComp,
                                          gast.SetComp, gast.DictComp, gast.GeneratorExp))
    line = loop.iter.lineno
    loop.iter = nodes.runtime_call("private_source", [loop.iter] + [nodes.constant(True, line)] * written_here, line)


def _writes_out(call: gast.Call) -> bool:
    """Whether ``call`` passes ``out=`` to a callee other than the runtime's (a NumPy ufunc writes it)."""
    path = dotted_name(call.func)
    return (path is None or path[0] != RUNTIME) and any(keyword.arg == "out" for keyword in call.keywords)

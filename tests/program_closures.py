"""Closures in generated programs (features ``closures`` and ``nonlocal``).

A closure reads its free variables when it is called, not when it is defined: ``get = lambda: i * 10``
before a loop that advances ``i`` returns a different value in every iteration, a lambda appended in
a loop sees the loop variable's last value once the loop is over (late binding), and a nested
function that declares ``nonlocal c`` changes ``c`` for its caller. A converter that passes carried
variables to staged branch and loop bodies as values breaks exactly these readers and writers
(issue #13), which is why the generator draws them:

- ``closures``: a lambda or nested ``def`` reading variables that later statements may reassign,
  defined before the control flow or inside a branch or loop body (then called only there), called
  in expressions; and a list of lambdas built in a static loop, called after it.
  A closure may also be a method: an instance of a class defined in ``f`` whose ``__call__`` reads
  them. And a generator expression reads its elements' variables when it is drawn: one is made
  before an ``if`` or a loop (maybe drawn once with ``next`` there), and summed after it.
- ``nonlocal``: a nested ``def`` that adds to a counter of ``f`` (``nonlocal c; c += 1; return c``),
  called as a statement and in expressions.
- ``frame_reads``: a local read through ``locals()`` / ``vars()`` / ``eval()`` (a located refusal).

Bounds: a closure sees its variables' values at the call, which may exceed their bounds at the
definition, so its body is drawn as if every assignable variable were as large as :data:`LATE` (the
builder then clips operands of products) and its result is clipped to [-CLIP, CLIP]. A counter is
only ever changed by its writers, by at most 2 per call, so :data:`COUNTER` bounds it.
"""

from __future__ import annotations

import dataclasses

from hypothesis import strategies as st
from program_model import AUG_BUDGET, CLIP, GUARD, MAX_DEPTH, NUMERIC, SCALARS, VECTORS, Block, E, Scope, Var

LATE = GUARD // 64  # the magnitude a closure's body assumes of a variable that may be reassigned later
STEP = 100  # what one `x = x + g()` in a loop may add: an augmented assignment's share of AUG_BUDGET
COUNTER = AUG_BUDGET  # a bound of a nonlocal counter: far more calls than any program makes, times 2
_REASSIGNABLE = ("local", "cell")
# the types of the operands of a sum of type t (a float takes an int, a vector takes its scalar)
OPERANDS = {"i": ("i",), "f": ("f", "i"), "vi": ("vi", "i"), "vf": ("vf", "f", "vi", "i")}


class Closures:
    """Closure statements and the calls of closures in expressions."""

    def closure_types(self) -> list[str]:
        return list(NUMERIC if self.has("vectors") else SCALARS)

    def extra_statements(self, scope: Scope, ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        if self.has("closures"):
            kinds.append("closure")
            if ctx.depth < MAX_DEPTH and self.budget > 0:
                kinds.append("closure_list")
            if not ctx.depth and self.budget > 0:  # drawn after the next statement, at the top level
                kinds += ["late_generator"] * 4
        if self.has("frame_reads") and self.frame_readable(scope):
            kinds += ["frame_read"] * 2
        if self.has("nonlocal"):
            kinds.append("writer")
            if self.defined_of(scope, "fw:i"):
                kinds.append("call_writer")
        if self.update_targets(scope) and (not ctx.loops or self.aug_left > 0):
            kinds += ["call_update"] * 3
        return kinds

    def callables(self, scope: Scope, t: str) -> list[Var]:
        return [v for v in scope.defined.values() if v.type in (f"fn:{t}", f"fw:{t}", f"fns:{t}")]

    def update_targets(self, scope: Scope) -> list[tuple[Var, Var]]:
        """(state variable, callable) pairs for ``x = x + g()``: the callable's type fits the variable's."""
        return [(var, function) for var in scope.defined.values() if var.kind == "local" and var.type in OPERANDS
                for t in OPERANDS[var.type] for function in self.callables(scope, t)]

    def prelude_kinds(self) -> list[str]:
        late = ["late_generator"] if self.has("closures") and self.chance(40) else []
        return super().prelude_kinds() + (["closure"] if self.has("closures") else []) + late + (
            ["writer"] if self.has("nonlocal") else [])

    def extra_leaves(self, t: str, scope: Scope) -> list:
        options = super().extra_leaves(t, scope)
        for var in scope.defined.values():  # never a maybe-unbound name: calling it would raise
            feature = "nonlocal" if var.type.startswith("fw:") else "closures"
            if var.type in (f"fn:{t}", f"fw:{t}"):
                options += [lambda var=var, feature=feature: self.using(
                    feature, E(f"{var.name}()", var.bound, t in ("f", "vf")))] * 3
            elif var.type == f"fns:{t}":
                options.append(lambda var=var: self.using("closures", E(
                    f"{var.name}[{self.pick(['-1', '0'])}]()", var.bound, t in ("f", "vf"))))
        return options

    def closure_body(self, t: str, scope: Scope, late_percent: int = 80) -> E:
        """An expression of type ``t`` that is still bounded when the variables it reads have grown;
        mostly (``late_percent``) one that reads a variable a later statement may reassign (late binding
        matters)."""
        late = Scope({name: dataclasses.replace(var, bound=max(var.bound, LATE)) if var.kind in _REASSIGNABLE else var
                      for name, var in scope.defined.items()}, {})
        body = self.expr(t, late, self.draw(st.integers(0, 2)))
        reassignable = [var for var in late.defined.values() if var.kind in _REASSIGNABLE and var.type in OPERANDS[t]]
        if reassignable and self.chance(late_percent):
            read = self.variable(late, self.pick(reassignable))
            read, body = self.fit([read, body], lambda a, b: a + b)
            text = f"({read.text} {self.pick(['+', '-'])} {body.text})"
            body = E(text, read.bound + body.bound, read.flt or body.flt)
        return self.clip(self.floated(body, t))

    def stmt_closure(self, scope: Scope, ctx) -> Block:
        """``g = lambda: <expr>``, ``def g(): return <expr>`` or an instance of a local class whose
        ``__call__`` returns it."""
        name, t = self.fresh("g"), self.pick(self.closure_types())
        body = self.closure_body(t, scope)
        # (no class in a loop: a closure made in a staged loop and read by another one is a cell the loop
        # carries, a Python value that differs in every iteration, refused for a lambda too)
        kind = self.pick(["def", "lambda"] + ([] if ctx.loops else ["class"]))
        if kind == "def":
            lines = [f"def {name}():", f"    return {body.text}"]
        elif kind == "class":
            lines = [f"class {name.upper()}:", "    def __call__(self):", f"        return {body.text}",
                     f"{name} = {name.upper()}()"]
        else:
            lines = [f"{name} = lambda: {body.text}"]
        scope = scope.copy()
        scope.define(Var(name, f"fn:{t}", body.bound, "closure"))
        return Block(lines, scope)

    def stmt_closure_list(self, scope: Scope, ctx) -> Block:
        """``fs = []`` and a static loop that appends a lambda reading the loop variable (late binding)."""
        name, index, t = self.fresh("fs"), self.fresh("i"), self.pick(self.closure_types())
        vectors = self.visible(scope, VECTORS)
        if vectors and self.draw(st.booleans()):
            vector = self.pick(vectors)
            header = f"for {index} in {self.use(scope, vector)}:"
            target = Var(index, vector.type[1:], vector.bound, "target")
        else:
            iterable, bound = self.pick([("range(3)", 3), ("range(1, 4)", 4), ("range(4, 0, -1)", 4)])
            header, target = f"for {index} in {iterable}:", Var(index, "i", bound, "target")
        inside = self.loop_scope(scope)
        inside.define(target)
        body = self.closure_body(t, inside)
        block = self.loop([header], [target], scope, ctx, "for", first_lines=[f"{name}.append(lambda: {body.text})"])
        after = block.scope.copy()
        after.define(Var(name, f"fns:{t}", body.bound, "closure"))
        return Block([f"{name} = []"] + block.lines, after, block.exits, block.returns)

    def stmt_writer(self, scope: Scope, ctx) -> Block:
        """A counter and a nested function that adds to it: ``nonlocal c; c += 1; return c``."""
        counter, name, step = self.fresh("c"), self.fresh("inc"), self.draw(st.integers(1, 2))
        update = self.pick([f"{counter} += {step}", f"{counter} = {counter} + {step}"])
        lines = [f"{counter} = {self.draw(st.integers(0, 3))}", f"def {name}():", f"    nonlocal {counter}",
                 f"    {update}", f"    return {counter}"]
        scope = scope.copy()
        scope.define(Var(counter, "i", COUNTER, "cell"))
        scope.define(Var(name, "fw:i", COUNTER, "closure"))
        return Block(lines, scope)

    def stmt_call_update(self, scope: Scope, ctx) -> Block:
        """``s = s + g()`` (the common way a loop accumulates what a closure computes)."""
        target = self.returned_first(list({var.name: var for var, _ in self.update_targets(scope)}.values()))
        function = self.pick([function for var, function in self.update_targets(scope) if var.name == target.name])
        t = function.type.split(":")[1]
        call = self.small(self.pick(self.extra_leaves(t, Scope({function.name: function}, {})))(), STEP)
        if ctx.loops:
            self.aug_left -= 1
        value = self.floated(call, target.type) if target.weak else call
        text = self.pick([f"{target.name} = {target.name} + {value.text}", f"{target.name} += {value.text}"])
        scope = scope.copy()
        scope.define(dataclasses.replace(target, bound=target.bound + value.bound, weak=target.weak and not value.flt))
        return Block([text], scope)

    def stmt_call_writer(self, scope: Scope, ctx) -> Block:
        """A writer called for its effect only."""
        self.used.add("nonlocal")
        return Block([f"{self.pick(self.defined_of(scope, 'fw:i')).name}()"], scope)

    def stmt_late_generator(self, scope: Scope, ctx) -> Block:
        """``gen = (<expr> for w in <source>)``, maybe ``first = next(gen)``, then an ``if`` that reassigns
        what ``<expr>`` reads (or any ``if`` or loop), then ``s = s + sum(gen)``: Python evaluates each
        element when it is drawn, with the variables' bindings then (the source where it stands)."""
        gen, item = self.fresh("gen"), self.fresh("w")
        vectors = [v for v in self.visible(scope, ("vf",)) if v.name in scope.defined]
        if vectors and self.chance(40):
            vector = self.pick(vectors)
            source, count, item_bound = self.use(scope, vector), self.length, vector.bound
        else:
            source, count, item_bound = self.pick([("(1.0, 2.0)", 2, 2.0), ("[0.5, -1.5, 3.0]", 3, 3.0)])
        inside = scope.copy()
        inside.define(Var(item, "f", item_bound, "target"))
        late = [v for v in scope.defined.values() if v.kind == "local" and v.type in SCALARS]
        element = self.closure_body("f", inside, late_percent=0 if late else 100)
        if late:
            read = self.pick(late)
            element = self.clip(E(f"({read.name} + {element.text})", LATE + element.bound, element.flt))
        lines = [f"{gen} = ({element.text} for {item} in {source})"]
        drawn = "0"
        if self.chance(30):
            drawn = self.fresh("d")
            lines.append(f"{drawn} = next({gen})")
        control = self.rebinding(scope, ctx, read) if late and self.draw(st.booleans()) else \
            self.statement(scope, ctx, control_only=True)
        lines += control.lines
        if control.exits:
            return Block(lines, control.scope, True, control.returns)
        line, after = self.drawn_into_state(control.scope, gen, drawn, (count + 1) * element.bound)
        return Block(lines + [line], after)

    def rebinding(self, scope: Scope, ctx, var: Var) -> Block:
        """``if <condition>: <var> = <expr>``."""
        line, new = self.assignment(var.name, var.type, scope, ctx, fresh=False)
        after = scope.copy()
        after.define(dataclasses.replace(var, bound=max(var.bound, new.bound), weak=var.weak and new.weak))
        return Block([f"if {self.condition(scope).text}:", f"    {line}"], after)

    def drawn_into_state(self, scope: Scope, gen: str, drawn: str, bound: float) -> tuple[str, Scope]:
        """``s = jnp.clip(s + sum(gen) + first, ...)`` of a float state variable, so that what the elements
        saw shows in the result (else a new variable)."""
        after = scope.copy()
        state = [v for v in after.defined.values() if v.kind == "local" and v.type == "f" and v.name.startswith("s")]
        if state:
            target = self.pick(state)
            after.define(dataclasses.replace(target, bound=CLIP, weak=False))
            return f"{target.name} = jnp.clip({target.name} + sum({gen}) + {drawn}, -{CLIP}, {CLIP})", after
        total = self.fresh("r")
        after.define(Var(total, "f", bound))
        return f"{total} = sum({gen}) + {drawn}", after

    def frame_readable(self, scope: Scope) -> list[Var]:
        """The variables a ``locals()`` read may name: numbers assigned on every path."""
        return [v for v in scope.defined.values() if v.kind == "local" and v.type in SCALARS]

    def stmt_frame_read(self, scope: Scope, ctx) -> Block:
        """``r = locals()['s0']``, ``vars()['s0']`` or ``eval('s0')``: a read the converter cannot see."""
        self.used.add("frame_reads")
        var, name = self.returned_first(self.frame_readable(scope)), self.fresh("r")
        read = self.pick([f"locals()['{var.name}']", f"vars()['{var.name}']", f"eval('{var.name}')"])
        after = scope.copy()
        after.define(Var(name, var.type, var.bound, weak=var.weak))
        return Block([f"{name} = {read}"], after)

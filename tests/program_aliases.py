"""In-place updates of a dict or list that another reference also reaches (feature ``aliases``).

A staged statement (an ``if`` whose test is traced, a staged ``while``) carries a container by its
leaves, and the converter rebound the name it updated to a container rebuilt from the carried leaves
(when the generator learnt these statements). Python updates the one object in place, so every other
way to it sees the update: the list holding it, the caller that passed it to a helper, a second name
bound to it; the rebuilt object left those with the old values, a silent wrong value. The rebuilt
dict also had its keys sorted (a pytree's order) where Python keeps the order of insertion, so a read
in order (``list(d.values())``, ``for k in d:``) saw the values swapped. The generator draws:

- ``alias_list_loop``: a list of dicts and a static ``for`` over it whose body updates the loop
  variable's item under a traced ``if``, read back through the list;
- ``alias_helper``: a module-level helper (:data:`HELPERS`) that updates its dict or list argument
  under a traced ``if`` and returns it, called as a statement (its value ignored); the caller reads
  its own container;
- ``alias_second_name``: a second name bound to a container inside another container (or the
  other way round), updated through one under a traced ``if`` or in a staged ``while``, read
  through the other (a store through the outer one, ``boxes[0]["v"] = ...``, is refused with a
  located error: drawn seldom), or updated in one branch of a traced ``if`` and replaced by a new
  dict in the other;
- ``alias_key_order``: a dict whose keys were inserted out of alphabetical order, updated under a
  traced ``if``, read in order, weighted by position (a swap changes the value);
- ``alias_helper_in_if``: a dict updated under a traced ``if``, directly or by a module-level helper
  (:data:`STEPPERS`) called there for its effect (refused as a store from outside the staged code
  before the ``if`` carried such an argument), the ``if`` sometimes in a loop; the dict also holds a Python int that no branch
  changes, read after the ``if`` in arithmetic past int32's range (it came back an int32, which wraps);
- ``alias_grid``: a list of lists the function builds (a display, or a comprehension ``[[c] * 2 for _ in
  range(2)]``), one item updated through both subscripts (``grid[1][0] = ...``) under a traced ``if``
  or in a staged ``while`` (refused as an effect, though the list is the function's own, before nested
  stores into a fresh root were staged), read through the grid and through a row bound before;
- ``alias_logged_count``: a static loop whose traced ``if`` hands a traced value to a helper (the loop
  carries it, unchanged) beside a Python count of its trips read as a shape after it (the loop was
  staged, and the count traced).

The tests are the generator's conditions half the time, else a comparison of an argument's value
(the generator's may be static, ``len(a) <= 4``, and a Python ``if`` shows nothing); an ``if`` mostly
has an ``else`` that updates the item another way, so that the update happens whichever way the test
goes. Each statement builds its containers afresh from the program's float values (clipped to
[-ELEMENT, ELEMENT]) or constants, and adds what it reads, a position-weighted sum, to a numeric
variable (mostly a returned one: s0, s1, ...), so that the check compares it.
"""

from __future__ import annotations

import dataclasses

from hypothesis import strategies as st
from program_model import CLIP, MAX_DEPTH, MAX_TRIPS, NUMERIC, Block, Ctx, E, Scope, Var, indent

ELEMENT = 100  # the values put into the containers are clipped to [-ELEMENT, ELEMENT]
# Key sets in an order of insertion that is not alphabetical: a sorted rebuild reorders them.
KEY_ORDERS = (("vel", "pos"), ("w", "b"), ("vel", "pos", "acc"), ("y", "x"), ("scale", "bias", "offset"))
KINDS = ("alias_list_loop", "alias_helper", "alias_second_name", "alias_key_order", "alias_helper_in_if",
         "alias_logged_count", "alias_grid")
NOTE_VALUE = "def note_value(v):\n    return v * 2.0"  # reads its argument only; called for its effect
HELPERS = {
    "scale_entry": 'def scale_entry(state, flag):\n    if flag:\n        state["x"] = state["x"] * 2.0 + 1.0\n'
                   '    else:\n        state["y"] = state["y"] - 1.0\n    return state',
    "shift_first": "def shift_first(buf, level):\n    if level > 0.0:\n        buf[0] = buf[0] - level\n"
                   "    else:\n        buf[1] = buf[1] + 1.0\n    return buf",
    "move": 'def move(state, action):\n    if action > 0:\n        state["pos"] = state["pos"] + state["vel"]\n'
            '    else:\n        state["vel"] = state["vel"] * 0.5\n    return state',
    "cap_entry": 'def cap_entry(state, limit):\n    if state["x"] > limit:\n        state["x"] = limit\n'
                 "    return state",
}

STEPPERS = {  # helpers without an `if` of their own, called for their effect inside the caller's traced `if`
    "nudge": 'def nudge(state, amount):\n    state["x"] = state["x"] + amount',
    "halve": 'def halve(state, amount):\n    state["x"] = state["x"] * 0.5 - amount',
    # handed a module-level list and a module too: globals the caller's `if` must not carry
    "shift_by_table": 'def shift_by_table(state, table, module, amount):\n'
                      '    state["x"] = state["x"] + module.abs(amount) * table[0]',
}


class Aliases:
    """The ``alias_*`` statements; a mixin of the program builder."""

    def extra_statements(self, scope: Scope, ctx: Ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        if self.has("aliases") and ctx.depth < MAX_DEPTH and self.budget > 0 and self._alias_targets(scope):
            kinds += list(KINDS) * (3 if ctx.depth == 0 else 1)
        return kinds

    def prelude_kinds(self) -> list[str]:
        return super().prelude_kinds() + (["alias_any"] if self.has("aliases") else [])

    def stmt_alias_any(self, scope: Scope, ctx: Ctx) -> Block:
        """One of the statements, before the control flow (where most programs have room for one)."""
        if not self._alias_targets(scope):
            return Block([], scope)
        return getattr(self, "stmt_" + self.pick(KINDS))(scope, ctx)

    def _alias_targets(self, scope: Scope) -> list[Var]:
        return [v for v in scope.defined.values() if v.kind == "local" and v.type in NUMERIC]

    def _alias_value(self, scope: Scope) -> E:
        """A float value to put into a container: one of the program's, clipped to [-ELEMENT, ELEMENT],
        or a constant (a container of equal values would hide a lost update of one or a reordering)."""
        if self.chance(35):
            return self.const("f")
        return self.small(self.floated(self.expr("f", scope, self.draw(st.integers(0, 1))), "f"), ELEMENT)

    def _traced_value(self, scope: Scope) -> E:
        """A float value read from an argument (traced under jit), so that a test of it is traced:
        ``c``, ``a[1]``, ``jnp.max(a)``; a drawn value where ``f`` has no numeric argument."""
        args = [v for v in scope.defined.values() if v.kind == "arg" and v.type in NUMERIC]
        if not args:
            return self._alias_value(scope)
        arg = self.pick(args)
        if arg.type in ("vi", "vf"):
            text = self.pick([f"{arg.name}[{self.draw(st.integers(0, self.length - 1))}]", f"jnp.max({arg.name})"])
            return self.floated(E(text, arg.bound, arg.type == "vf"), "f")
        return self.floated(E(arg.name, arg.bound, arg.type == "f"), "f")

    def _alias_test(self, scope: Scope) -> str:
        """What an ``if`` / ``while`` here tests: the generator's condition, or (as often) a comparison
        of an argument's value, traced under jit (the generator's may be static: ``len(a) <= 4``)."""
        if self.chance(50):
            return self.condition(scope).text
        other = self.expr(self.pick(["i", "f"]), scope, self.draw(st.integers(0, 1)))
        return f"{self._traced_value(scope).text} {self.pick(['<', '>', '<=', '>='])} {other.text}"

    def _alias_if(self, test: str, item: str, scope: Scope) -> tuple[list[str], float]:
        """``if <test>: item = <update>``, mostly with an ``else`` that updates it another way
        (then every path updates it, whichever way the test goes); its lines and a bound of ``item``."""
        update = self._alias_update(item, ELEMENT, scope, looped=False)
        lines = [f"if {test}:", f"    {item} = {update.text}"]
        if not self.chance(60):
            return lines, update.bound
        other = self._alias_update(item, ELEMENT, scope, looped=False)
        return lines + ["else:", f"    {item} = {other.text}"], max(update.bound, other.bound)

    def _alias_update(self, item: str, bound: float, scope: Scope, looped: bool) -> E:
        """The new value of ``item`` (whose magnitude is at most ``bound``): in a loop body it moves by
        a loop-invariant amount per trip, so that it stays small over MAX_TRIPS trips."""
        step = self.small(self.floated(self.expr("f", scope, 0), "f"), 10)
        options = [E(f"{item} + {step.text}", bound + step.bound * (MAX_TRIPS if looped else 1), True),
                   E(f"{item} * 0.5 - 1.5", bound + 1.5, True)]
        if not looped:
            options += [E(f"{item} * 2.0 + 1.0", bound * 2 + 1, True), E(f"-{item}", bound, True)]
        return self.pick(options)

    def _weighted(self, reads: list[str], bound: float) -> E:
        """``reads`` summed with the weights 1.0, 2.0, ...: a swap of two of them changes the sum."""
        text = " + ".join(f"{read} * {index + 1}.0" for index, read in enumerate(reads))
        return E(f"({text})", bound * len(reads) * (len(reads) + 1) / 2, True)

    def _into_state(self, read: E, scope: Scope, ctx: Ctx) -> tuple[str, Scope]:
        """``target = target + read`` for a numeric variable (mostly a returned float one); an int target
        adds the read in quarters, rounded (the values are multiples of 1/4 or close to them)."""
        self.used.add("aliases")
        targets = self._alias_targets(scope)
        floats = [var for var in targets if var.type in ("f", "vf")]
        target = self.returned_first(floats if floats and self.chance(80) else targets)
        if target.type in ("i", "vi"):
            read = E(f"jnp.round({read.text} * 4.0).astype(jnp.int32)", read.bound * 4, False)
        x, read = self.fit([self.variable(scope, target), read], lambda a, b: a + b)
        value = self.clip(E(f"({x.text} + {read.text})", x.bound + read.bound, True),
                          CLIP if ctx.loops else self.clip_above)
        scope = scope.copy()
        bound = max(value.bound, target.bound) if ctx.loops else value.bound
        scope.define(dataclasses.replace(target, bound=bound, weak=False))
        return f"{target.name} = {value.text}", scope

    def stmt_alias_list_loop(self, scope: Scope, ctx: Ctx) -> Block:
        """``ds = [{"w": .., "b": ..}, ..]; for d in ds: if <traced>: d["w"] = ..``, read through ``ds``."""
        self.budget -= 2
        keys = self.pick(KEY_ORDERS)
        rows, item = self.draw(st.integers(2, 3)), self.draw(st.integers(0, len(keys) - 1))
        name, var = self.fresh("ds"), self.fresh("d")
        dicts = ["{" + ", ".join(f'"{key}": {self._alias_value(scope).text}' for key in keys) + "}"
                 for _ in range(rows)]
        if self.chance(40):  # a test of the loop variable's own item
            other = self._traced_value(scope)
            test = f'{var}["{keys[item]}"] > {other.text}'
        else:
            test = self._alias_test(scope)
        branch, bound = self._alias_if(test, f'{var}["{keys[item]}"]', scope)
        lines = [f"{name} = [{', '.join(dicts)}]", f"for {var} in {name}:"] + indent(branch)
        read = self._weighted([f'{name}[{row}]["{keys[item]}"]' for row in range(rows)], bound)
        line, scope = self._into_state(read, scope, ctx)
        return Block(lines + [line], scope)

    def stmt_alias_helper(self, scope: Scope, ctx: Ctx) -> Block:
        """A helper updating its argument under a traced ``if`` and returning it, called for its effect."""
        helper = self.pick(list(HELPERS))
        self.module_parts[helper] = HELPERS[helper]
        name = self.fresh("box" if helper != "shift_first" else "buf")
        first, second = self._alias_value(scope), self._traced_value(scope)
        if helper == "scale_entry":
            flag = self._alias_test(scope)
            lines = [f'{name} = {{"x": {first.text}, "y": {second.text}}}', f"scale_entry({name}, {flag})"]
            read = self._weighted([f'{name}["x"]', f'{name}["y"]'], ELEMENT * 2 + 1)
        elif helper == "shift_first":
            level = self._traced_value(scope)
            lines = [f"{name} = [{first.text}, {second.text}]", f"shift_first({name}, {level.text})"]
            read = self._weighted([f"{name}[0]", f"{name}[1]"], ELEMENT * 2)
        elif helper == "move":
            action = E(self._alias_test(scope), 1, False) if self.chance(50) else self._traced_value(scope)
            lines = [f'{name} = {{"vel": {first.text}, "pos": {second.text}}}', f"move({name}, {action.text})"]
            read = self._weighted([f'{name}["pos"]', f'{name}["vel"]'], ELEMENT * 2)
        else:
            lines = [f'{name} = {{"x": {first.text}}}', f"cap_entry({name}, {second.text})"]
            read = E(f'{name}["x"]', ELEMENT, True)
        line, scope = self._into_state(read, scope, ctx)
        return Block(lines + [line], scope)

    def stmt_alias_helper_in_if(self, scope: Scope, ctx: Ctx) -> Block:
        """``box = {"x": .., "n": <int>}``, its ``x`` updated under a traced ``if`` (by a helper called
        there for its effect, or directly), maybe in a loop; ``n * 2**30 // 2**20`` read after it (exact
        in Python)."""
        name, helper = self.fresh("box"), self.pick(list(STEPPERS))
        first, amount = self._alias_value(scope), self.small(self._traced_value(scope), 10)
        arguments = f"{name}, SCALES, jnp, {amount.text}" if helper == "shift_by_table" else f"{name}, {amount.text}"
        update = f"{helper}({arguments})" if self.chance(70) else f'{name}["x"] = {name}["x"] + {amount.text}'
        if update.startswith(helper):
            self.module_parts[helper] = STEPPERS[helper]
            self.module_parts["SCALES"] = "SCALES = [0.5]"
        statement = [f"if {self._alias_test(scope)}:", f"    {update}"]
        if self.chance(40):  # in a loop, which then carries the dict too (the `if` assigns it)
            limits = [v.name for v in self.visible(scope, ("i",)) if v.kind == "arg"]
            statement = [f"for {self.fresh('r')} in range({self.pick(limits + ['2'])}):"] + indent(statement)
        lines = [f'{name} = {{"x": {first.text}, "n": {self.draw(st.integers(2, 9))}}}'] + statement
        read = self._weighted([f'{name}["x"]', f'({name}["n"] * 1073741824 // 1048576)'], 9216)
        line, scope = self._into_state(read, scope, ctx)
        return Block(lines + [line], scope)

    def stmt_alias_logged_count(self, scope: Scope, ctx: Ctx) -> Block:
        """A static loop that hands a traced value to a helper under a traced ``if`` (so carries it,
        unchanged) and counts its trips in a Python int, read after it as a shape: the loop stays
        Python, as the count must (``c = 0; for r in range(2): if t: note(v); c = c + 1``)."""
        self.module_parts["note_value"] = NOTE_VALUE
        arguments = [v.name for v in self.visible(scope, NUMERIC) if v.kind == "arg"]  # a name: the `if` carries it
        count, value = self.fresh("c"), self.pick(arguments) if arguments else self._traced_value(scope).text
        lines = [f"{count} = 0", f"for {self.fresh('r')} in range(2):", f"    if {self._alias_test(scope)}:",
                 f"        note_value({value})", f"    {count} = {count} + 1"]
        line, scope = self._into_state(E(f"jnp.ones({count}).sum()", 2, True), scope, ctx)
        return Block(lines + [line], scope)

    def stmt_alias_second_name(self, scope: Scope, ctx: Ctx) -> Block:
        """Two ways to one container (``box`` and ``boxes[0]``): updated through one, read through the other."""
        self.budget -= 2
        inner, outer = self.fresh("box"), self.fresh("boxes")
        first, second = self._alias_value(scope), self._alias_value(scope)
        # a store through the outer container, the converter refuses (a located error): seldom, so
        # that it leaves room for the silent shapes
        shape = self.pick(["dict_in_list", "list_in_list", "taken_from_list"] * 2 + ["stored_through_list",
                                                                                    "replaced_in_a_branch"])
        if shape == "replaced_in_a_branch":  # the other branch binds a new dict: the list sees one path's update
            build = [f'{inner} = {{"v": {first.text}}}', f'{outer} = [{inner}, {{"v": {second.text}}}]']
            update, fresh = self._alias_update(f'{inner}["v"]', ELEMENT, scope, looped=False), self._alias_value(scope)
            body = [f"if {self._alias_test(scope)}:", f'    {inner} = {{"v": {fresh.text}}}', "else:",
                    f'    {inner}["v"] = {update.text}']
            read = self._weighted([f'{outer}[0]["v"]', f'{inner}["v"]'], max(update.bound, fresh.bound, ELEMENT))
            line, scope = self._into_state(read, scope, ctx)
            return Block(build + body + [line], scope)
        if shape == "list_in_list":
            build = [f"{inner} = [{first.text}, {second.text}]", f"{outer} = [{inner}]"]
            writes, reads = (f"{inner}[0]", [f"{outer}[0][0]", f"{outer}[0][1]"])
        elif shape == "taken_from_list":
            build = [f'{outer} = [{{"v": {first.text}}}, {{"v": {second.text}}}]', f"{inner} = {outer}[0]"]
            writes, reads = (f'{inner}["v"]', [f'{outer}[0]["v"]', f'{outer}[1]["v"]'])
        else:
            build = [f'{inner} = {{"v": {first.text}}}', f'{outer} = [{inner}, {{"v": {second.text}}}]']
            writes = f'{inner}["v"]' if shape == "dict_in_list" else f'{outer}[0]["v"]'
            reads = [f'{outer}[0]["v"]', f'{outer}[1]["v"]'] if shape == "dict_in_list" else [f'{inner}["v"]']
        body, bound = self._alias_staged(writes, scope)
        read = self._weighted(reads, bound)
        line, scope = self._into_state(read, scope, ctx)
        return Block(build + body + [line], scope)

    def _alias_staged(self, item: str, scope: Scope) -> tuple[list[str], float]:
        """``item = <update>`` under a traced ``if`` or in a ``while`` bounded by a counter (against an
        int argument, traced, where there is one); its lines, and a bound of ``item`` after them."""
        if self.draw(st.booleans()):
            return self._alias_if(self._alias_test(scope), item, scope)
        counter = self.fresh("w")
        limits = [v.name for v in self.visible(scope, ("i",)) if v.kind == "arg"]
        limit = self.pick(limits) if limits and self.chance(80) else str(self.draw(st.integers(2, 5)))
        test = f"{counter} < {limit}"
        if limit.isdigit() or self.chance(30):  # a constant limit alone would keep the loop Python
            test += f" and {self._alias_test(scope)}"
        update = self._alias_update(item, ELEMENT, scope, looped=True)
        lines = [f"{counter} = 0", f"while {test}:"] + indent([f"{counter} = {counter} + 1", f"{item} = {update.text}"])
        return lines, update.bound

    def stmt_alias_grid(self, scope: Scope, ctx: Ctx) -> Block:
        """``grid = [[..], [..]]; row = grid[i]``, then ``grid[i][j] = ...`` staged, read through both."""
        self.budget -= 2
        name, row = self.fresh("grid"), self.fresh("row")
        if self.draw(st.booleans()):
            rows = [f"[{self._alias_value(scope).text}, {self._alias_value(scope).text}]" for _ in range(2)]
            build = f"{name} = [{', '.join(rows)}]"
        else:
            build = f"{name} = [[{self.const('f').text}] * 2 for _ in range(2)]"
        i, j = self.draw(st.integers(0, 1)), self.draw(st.integers(0, 1))
        body, bound = self._alias_staged(f"{name}[{i}][{j}]", scope)
        cells = [f"{name}[{a}][{b}]" for a in range(2) for b in range(2)]
        read = self._weighted([*cells, f"{row}[{j}]"], max(bound, ELEMENT))
        line, scope = self._into_state(read, scope, ctx)
        return Block([build, f"{row} = {name}[{i}]", *body, line], scope)

    def stmt_alias_key_order(self, scope: Scope, ctx: Ctx) -> Block:
        """A dict with keys inserted out of order, updated under a traced ``if``, read in order."""
        self.budget -= 2
        keys = self.pick(KEY_ORDERS)
        name, item = self.fresh("obs"), self.pick(keys)
        values = ", ".join(f'"{key}": {self._alias_value(scope).text}' for key in keys)
        branch, bound = self._alias_if(self._alias_test(scope), f'{name}["{item}"]', scope)
        lines = [f"{name} = {{{values}}}"] + branch
        if self.draw(st.booleans()):
            stacked = self.fresh("o")
            lines.append(f"{stacked} = jnp.stack(list({name}.values()))")
            read = self._weighted([f"{stacked}[{index}]" for index in range(len(keys))], bound)
        else:
            total, weight, key = self.fresh("t"), self.fresh("p"), self.fresh("k")
            lines += [f"{total} = 0.0", f"{weight} = 1.0", f"for {key} in {name}:",
                      f"    {total} = {total} + {name}[{key}] * {weight}", f"    {weight} = {weight} + 1.0"]
            read = E(total, bound * len(keys) * (len(keys) + 1) / 2, True)
        line, scope = self._into_state(read, scope, ctx)
        return Block(lines + [line], scope)

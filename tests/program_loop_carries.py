"""Two edges of a staged loop's carry, in generated programs (feature ``carry_edges``).

- ``literal_reset``: in a loop body, a Python number assigned to a scalar variable from before the
  loop (``s0 = 3``, ``s0 = 1.5``). The variable mostly enters strongly typed (an int32 or float32
  computed from the arguments) and leaves an iteration weakly typed; after zero iterations of a
  traced ``while`` or ``range(n)`` eager Python still has the strongly typed entry, which the staged
  loop must return (the dtype check sees a weak type: program_dtypes.py).
- ``target_in_branch``: a traced ``if`` whose branch runs a loop over a literal ``range`` and reads
  its variable after it::

      if <condition>:
          for j3 in range(3):
              <update of a numeric variable>
          x = jnp.clip(x + j3, -1000, 1000)

  Drawn mostly inside another loop: the variable is bound wherever it is read (the range is not
  empty), but the rewrite once made the outer loop carry it, and the ``if`` was refused as
  assigning it in one branch only.

- ``same_reset``: a Python int set to the same number before a loop and in its body, read after the
  loop in arithmetic past int32's range (a staged loop handed it back an int32, which wraps).

The first two shapes were found by the fuzzer once, rarely; this feature draws them often.
"""

from __future__ import annotations

import dataclasses

from hypothesis import strategies as st
from program_model import CLIP, FLOAT_CONSTANTS, MAX_DEPTH, NUMERIC, SCALARS, Block, Ctx, Scope, Var, indent

INT_LITERALS = ("0", "1", "3", "(2 // 2)", "(-2)")
LITERAL_RANGES = (("range(2)", 2), ("range(3)", 3), ("range(1, 4)", 4), ("range(3, 0, -1)", 3))


class LoopCarries:
    """The ``literal_reset`` and ``target_in_branch`` statements."""

    def extra_statements(self, scope: Scope, ctx: Ctx) -> list[str]:
        kinds = super().extra_statements(scope, ctx)
        if not self.has("carry_edges"):
            return kinds
        if ctx.loops and self._scalar_locals(scope):
            kinds += ["literal_reset"] * 2
        if ctx.depth < MAX_DEPTH and self.budget > 0 and self._numeric_locals(scope):
            kinds += ["target_in_branch"] * (3 if ctx.loops else 1)
            kinds += ["same_reset"] * (2 if not ctx.loops else 0)
        return kinds

    def _scalar_locals(self, scope: Scope) -> list[Var]:
        return [v for v in scope.defined.values() if v.kind == "local" and v.type in SCALARS]

    def _numeric_locals(self, scope: Scope) -> list[Var]:
        return [v for v in scope.defined.values() if v.kind == "local" and v.type in NUMERIC]

    def stmt_literal_reset(self, scope: Scope, ctx: Ctx) -> Block:
        self.used.add("carry_edges")
        target = self.pick(self._scalar_locals(scope))
        text = self.pick(INT_LITERALS if target.type == "i" else FLOAT_CONSTANTS)
        scope = scope.copy()
        # in a loop an outer variable keeps its bound (a later iteration may see the old value)
        scope.define(dataclasses.replace(target, bound=max(target.bound, 3), weak=False))
        return Block([f"{target.name} = {text}"], scope)

    def stmt_same_reset(self, scope: Scope, ctx: Ctx) -> Block:
        """``k = 5`` before a loop whose body sets ``k = 5`` again and adds it to a numeric variable, and
        ``k * 2**30 // 2**20`` read after it: eager's Python int, exact past int32's range."""
        self.used.add("carry_edges")
        self.budget -= 2
        name, number = self.fresh("k"), str(self.draw(st.integers(2, 9)))
        header, first_lines = self.carry_loop(scope)
        target = self.pick(self._numeric_locals(scope)).name
        body = first_lines + [f"{target} = jnp.clip({target} + {name}, -{CLIP}, {CLIP})", f"{name} = {number}"]
        after = f"{target} = jnp.clip({target} + ({name} * 1073741824 // 1048576), -{CLIP}, {CLIP})"
        return Block([f"{name} = {number}"] + header + indent(body) + [after], scope)

    def stmt_target_in_branch(self, scope: Scope, ctx: Ctx) -> Block:
        self.used.add("carry_edges")
        self.budget -= 2
        index = self.fresh("j")
        iterable, trips = self.pick(LITERAL_RANGES)
        inside = self.loop_scope(scope)
        inside.define(Var(index, "i", trips, "target"))
        nest_ctx = Ctx(MAX_DEPTH, ctx.loops + ("for",))  # no compound statement inside: the shape is the point
        update = self.stmt_update(inside, nest_ctx)
        target = self.pick(self._numeric_locals(scope)).name
        branch = [f"for {index} in {iterable}:"] + indent(update.lines)
        branch.append(f"{target} = jnp.clip({target} + {index}, -{CLIP}, {CLIP})")
        lines = [f"if {self.condition(scope).text}:"] + indent(branch)
        return Block(lines, self.loop_scope(scope))

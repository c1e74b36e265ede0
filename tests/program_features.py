"""The generated-program fuzzer's features: what each one draws, which are on by default, and the
``+name,-name`` specs that ``AUTOGRAPH_LITE_FUZZ_FEATURES`` / ``make fuzz FUZZ_FEATURES=...`` take
(program_generator.py builds the programs).
"""

from __future__ import annotations

FEATURES: dict[str, str] = {
    "if": "if statements (with else)",
    "elif": "elif chains",
    "ternary": "conditional expressions `a if c else b`",
    "boolops": "and / or / not on conditions",
    "value_boolops": "value-returning `x or y` / `x and y` on numbers",
    "chained_compare": "chained comparisons `a < b <= c`",
    "any_all": "any(...) / all(...) of a generator expression over a vector's elements or of a display of "
    "conditions; min(...) / max(...) of a generator expression over a vector's elements (program_any_all.py)",
    "truthiness": "a number used as a condition (`if x:`)",
    "static_range": "for over range(3), range(len(v)), ...",
    "traced_range": "for over range(n) with n an int32 argument",
    "array_loop": "for over the rows of an array",
    "enumerate": "for over enumerate(array)",
    "zip": "for over zip(array, array)",
    "while": "counter-bounded while loops",
    "flag_while": "`d = False; while not d:` loops whose test turns traced in the first iteration",
    "exit_nests": "a static loop with a break around a nest of static loops setting a flag, as Bellman-Ford's "
    "rounds; loop variables read after their loops (program_exit_nests.py)",
    "early_return": "return at the end of an if branch (outside loops)",
    "augassign": "augmented assignments +=, -=, *=",
    "weak_init": "a float variable initialised with an int literal (acc = 0)",
    "shared_definition": "a new variable assigned in every branch of an if, used after it",
    "jnp_calls": "jnp.where / jnp.clip / jnp.sum / jnp.any ... in expressions",
    "vectors": "1-D array values",
    # Not supported by the converter when the generator was written; off unless asked for.
    "break_continue": "break / continue (at the end of if branches, or of a loop body) in loops; `while pending:` "
    "over a non-empty list or tuple, left by a break (program_loops.py); a vector consumed from the front "
    "(s = s[1:]) by a loop that a break may leave (program_exit_nests.py)",
    "loop_else": "for ... else / while ... else (with break_continue or return_in_loop); an else may end with a "
    "return (program_loops.py)",
    "return_in_loop": "return at the end of an if branch inside a loop; `while True:` left by a return; "
    "return values and assignments in loops that bind a name with := and read it again (program_loops.py)",
    "minmax_builtins": "min(a, b) / max(a, b) / abs(a) on traced values",
    "special_floats": "float inputs that may be NaN, +-inf or -0.0, and int() of them, int() / float() of a complex64 "
    "of them (program_mixed_dtypes.py)",
    "maybe_undefined_use": "reads of a variable assigned on only some paths (Python may raise "
    "UnboundLocalError; the converter may reject it as a documented limitation)",
    "del": "`del v` of locals, re-assignments of deleted names in branches and loops, and reads "
    "where a name may be deleted (as maybe_undefined_use; a `del` in a branch or loop is refused)",
    # Effects the converter got silently wrong (issue #13): program_closures.py, program_containers.py,
    # program_arrays.py, program_printing.py, program_pytrees.py.
    "closures": "lambdas / nested defs / local classes' methods reading variables reassigned later; lambdas "
    "appended in a loop; a generator expression drawn after an if or a loop that may reassign what it reads",
    "frame_reads": "locals()[name] / vars()[name] / eval(name) reads of locals, refused (program_closures.py)",
    "nonlocal": "nested defs that add to a nonlocal counter, called as statements and in expressions",
    "containers": "list / dict / set methods that mutate, used as values (total += xs.pop() ...)",
    "array_helpers": "module-level helpers updating float arrays in place (checked on NumPy inputs)",
    "print": "print / f-strings with format specs, sep= and end= (stdout compared)",
    "pytrees": "tuples and dicts of values carried through loops and branches",
    "helper_effects": "a helper bumping a module-level counter (also at depth 2, GRID[0][1] += 1, and by setattr), "
    "shrinking a nested list (del GRID[0][-1]), += on a list it is given, a property setter, next() on an "
    "iterator, NumPy Generator draws, used as values in loops and branches (program_helper_effects.py)",
    "init_effects": "making an object of the program's class whose __init__ logs to a module-level list, bumps a "
    "class attribute or prints, used as values in loops and branches (program_init_effects.py)",
    "with_try": "with / try (finally, except + else) around statements that may exit (program_with_try.py)",
    "match": "match on an int scalar: literals, |, as, guards, captures, _ (program_match.py)",
    "indexing": "a module-level list / tuple of numbers or lambdas indexed by an int expression (program_indexing.py)",
    "raises": "raise E(msg) under a traced condition, assert cond[, msg] (program_raises.py)",
    "switch": "if / elif chains comparing one int with constants: one lax.switch (program_switch.py)",
    "jax_refusals": "a boolean-mask index / a slice of int-expression size / a dict key, an int method or a list repeat count of int(k), math.floor / trunc / isnan of a traced value, located errors under jit (program_jax_refusals.py)",
    "iterators": "an iterator held in a variable (iter / enumerate of a list or a vector, map of a printing helper), "
    "drawn by a loop with a break, then read (program_iterators.py)",
    "stacked_lists": "lists appended to in loops, read by jnp.stack / jnp.array / len (program_stacked_lists.py)",
    "transform_arguments": "module-level helpers with an if passed to jax.grad / map / functools.reduce / tree_map "
    "(program_transforms.py)",
    "big_ints": "int constants and an int argument beyond 2**24, where float32 is no longer exact (program_mixed_dtypes.py); "
    "traced ranges whose span is past int32's; static ranges and enumerate starts past int32's, read as i % 7 "
    "(program_loops.py)",
    "mixed_dtypes": "ternaries, and / or, max / min, if branches and loop carries with int / float / bool operands "
    "(program_mixed_dtypes.py)",
    "narrow_dtypes": "a float16 / bfloat16 / (u)int8 / (u)int16 argument beside Python numbers near and past its "
    "limits in staged ifs, ternaries, and / or and loop carries (program_narrow_dtypes.py)",
    "carry_edges": "Python numbers assigned in loop bodies to variables that entered strongly typed; a traced if "
    "around a loop over a literal range whose variable is read after it, inside loops (program_loop_carries.py)",
    "aliases": "a dict / list that a second reference reaches (a list holding it, a helper's caller, a second "
    "name) updated under a traced if or in a staged while, and a dict with keys out of alphabetical order "
    "read in order after a traced if (program_aliases.py)",
    "vmap": "the checker also runs jit(vmap(convert(f))) over the stacked input sets, each lane against eager "
    "(programs that print, raise or change hidden state aside: program_vmap.py)",
    "grad": "the checker also compares jit(grad(...)) of the converted f's float results with eager grad, with respect "
    "to the float arguments (the same programs aside: program_grad.py)",
}
EFFECT_FEATURES = frozenset({"aliases", "closures", "nonlocal", "containers", "array_helpers", "print", "pytrees",
                             "helper_effects", "init_effects"})
OFF_BY_DEFAULT = frozenset({"any_all", "break_continue", "loop_else", "return_in_loop", "minmax_builtins", "special_floats",
                            "maybe_undefined_use", "del", "with_try", "indexing",
                            "match", "raises", "switch", "jax_refusals", "iterators", "transform_arguments",
                            "stacked_lists", "big_ints", "mixed_dtypes", "narrow_dtypes", "carry_edges", "aliases", "vmap", "grad", "frame_reads"}) | EFFECT_FEATURES
DEFAULT_FEATURES = frozenset(FEATURES) - OFF_BY_DEFAULT


def parse_features(spec: str | None) -> frozenset[str]:
    """Features from a spec such as ``"+break_continue,-while"``, ``"all"`` or ``""`` (the default).

    Items are applied in order to the default set: ``+name`` / ``name`` switches a feature on,
    ``-name`` off; ``all`` and ``none`` start over from every feature / no feature.
    """
    features = set(DEFAULT_FEATURES)
    for item in (spec or "").replace(" ", ",").split(","):
        if not item:
            continue
        if item in ("all", "none", "default"):
            features = {"all": set(FEATURES), "none": set(), "default": set(DEFAULT_FEATURES)}[item]
            continue
        on = not item.startswith("-")
        name = item.lstrip("+-")
        if name not in FEATURES:
            raise ValueError(f"unknown generator feature {name!r}; known: {', '.join(FEATURES)}")
        if on:
            features.add(name)
        else:
            features.discard(name)
    return frozenset(features)

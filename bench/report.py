"""The printed report: one Markdown table of the programs with each ratio next to its target and a
PASS / MISS mark, the primitives behind each equation-count miss, and the compile-time curve.

Markdown, so that a run's output can be pasted into docs/performance.md as it is.
"""

from __future__ import annotations

from collections.abc import Callable

# column key -> (heading, unit scale, unit, target text, test of a ratio)
TARGETS: dict[str, tuple[str, float, str, str, Callable[[float], bool]]] = {
    "conversion": ("conversion ours / malt", 1e3, "ms", "≤ 0.05", lambda r: r <= 0.05),
    "equations": ("jaxpr eqns ours / lax", 1, "", "≤ 1.00", lambda r: r <= 1.0),
    "compile": ("compile ours / lax", 1e3, "ms", "≤ 1.05", lambda r: r <= 1.05),
    "first_call": ("first call ours / lax", 1e3, "ms", "≤ 1.05", lambda r: r <= 1.05),
    "run": ("run ours / lax", 1e6, "µs", "≤ 1.05", lambda r: r <= 1.05),
    "dispatch": ("dispatch ours / lax", 1e6, "µs", "≤ 1.05", lambda r: r <= 1.05),
}


def render(results: dict) -> str:
    return "\n".join([_machine(results), "", _table(results), "", _summary(results), "",
                      _tracing(results), "", _equation_diffs(results), "", _curve(results)])


def _machine(results: dict) -> str:
    m = results["machine"]
    changes = f", uncommitted changes in {len(m['uncommitted_changes'])} autograph_lite file(s)" if m[
        "uncommitted_changes"] else ""
    return (
        f"Machine: {m['cpu']}, {m['cores']} cores; Python {m['python']}, jax {m['jax']} "
        f"(backend {m['backend']}); autograph_lite {m['autograph_lite']} at {m['commit']}{changes}; "
        f"{'--quick' if results['quick'] else 'full run'}, {results['elapsed_s']:.0f} s"
    )


def _table(results: dict) -> str:
    head = ["program"]
    for heading, _, unit, target, _ in TARGETS.values():
        head += [f"{heading}" + (f" ({unit})" if unit else ""), f"ratio ({target})"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for program in results["programs"]:
        cells = [program["name"]]
        for key, (_, scale, _, _, passes) in TARGETS.items():
            a, b, ratio = _values(program[key])
            cells += [f"{_number(a * scale)} / {_number(b * scale)}",
                      f"{ratio:.3f} {'PASS' if passes(ratio) else 'MISS'}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _summary(results: dict) -> str:
    parts = []
    for key, (heading, _, _, target, passes) in TARGETS.items():
        ratios = [_values(p[key])[2] for p in results["programs"]]
        parts.append(f"{heading.split()[0]} {target}: {sum(map(passes, ratios))}/{len(ratios)} PASS")
    return "Targets met: " + "; ".join(parts)


def _tracing(results: dict) -> str:
    parts = [f"{p['name']} {_number(p['compile']['a_trace_median_s'] * 1e3)} / "
             f"{_number(p['compile']['b_trace_median_s'] * 1e3)}" for p in results["programs"]]
    return "Tracing, the part of compile time where the converter runs (ms, ours / lax): " + ", ".join(parts)


def _equation_diffs(results: dict) -> str:
    lines = ["Equation-count differences (primitive: count, sub-jaxprs included):"]
    for program in results["programs"]:
        eq = program["equations"]
        if eq["a"] != eq["b"]:
            lines.append(f"- {program['name']}: {eq['a']} vs {eq['b']}; only in converted "
                         f"{_multiset(eq['only_converted'])}; only in hand-written {_multiset(eq['only_by_hand'])}")
    return "\n".join(lines) if len(lines) > 1 else "Equation counts: all equal."


def _curve(results: dict) -> str:
    curve = results["compile_curve"]
    head = ["compile time (ms), trip count"] + [str(n) for n in curve["trip_counts"]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, seconds in curve["seconds"].items():
        lines.append("| " + " | ".join([label] + [_number(s * 1e3) for s in seconds]) + " |")
    return "\n".join(lines)


def _values(column: dict) -> tuple[float, float, float]:
    if "a_median_s" in column:
        return column["a_median_s"], column["b_median_s"], column["ratio"]
    return column["a"], column["b"], column["ratio"]


def _number(value: float) -> str:
    return f"{value:.3g}" if value < 100 else f"{value:.0f}"


def _multiset(counts: dict) -> str:
    return "{" + ", ".join(f"{name}: {n}" for name, n in sorted(counts.items())) + "}" if counts else "{}"

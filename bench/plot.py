"""Plot the compile-time curve of a results file into docs/compile_curve.png.

``python -m bench.plot [results.json]`` (default: bench/results/latest.json); ``python -m bench``
calls it at the end of every run. Log-scale time axis: the unrolled loop grows by orders of
magnitude, the staged loops stay flat.
"""

from __future__ import annotations

import json
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed (and none on a CI machine)
import matplotlib.pyplot as plt

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_RESULTS = ROOT / "bench" / "results" / "latest.json"
DEFAULT_IMAGE = ROOT / "docs" / "compile_curve.png"


def plot(results: dict, image: pathlib.Path = DEFAULT_IMAGE) -> pathlib.Path:
    curve = results["compile_curve"]
    figure, axes = plt.subplots(figsize=(6.4, 4.2))
    for (label, seconds), marker in zip(curve["seconds"].items(), "os^"):
        axes.plot(curve["trip_counts"], [s * 1e3 for s in seconds], marker=marker, label=label)
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xticks(curve["trip_counts"], [str(n) for n in curve["trip_counts"]])
    axes.set_xlabel("loop trip count n")
    axes.set_ylabel("trace + lower + compile time (ms)")
    m = results["machine"]
    axes.set_title(f"accumulate: compile time vs trip count\n{m['cpu']}, jax {m['jax']} ({m['backend']})", fontsize=9)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(image, dpi=120)
    plt.close(figure)
    return image


def main(argv: list[str]) -> None:
    source = pathlib.Path(argv[0]) if argv else DEFAULT_RESULTS
    print(f"wrote {plot(json.loads(source.read_text()))}")


if __name__ == "__main__":
    main(sys.argv[1:])

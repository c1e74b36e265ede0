"""``python -m bench [--quick]``: measure, print the report, save the raw results, draw the plot.

Raw results (every sample, not only the medians) go to bench/results/<timestamp>.json and
bench/results/latest.json; the compile-time plot to docs/compile_curve.png. A ``--quick`` run is
noisier, so it leaves both alone: it writes bench/results/<timestamp>-quick.json, latest-quick.json
and compile_curve-quick.png (bench/results/ is not tracked; a quick run changes no tracked file).
"""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib
import sys
import time

from . import machine, plot, report, suite

RESULTS = pathlib.Path(__file__).resolve().parent / "results"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats: about a minute, noisier")
    options = parser.parse_args(argv)

    start = time.perf_counter()
    print("measuring:", flush=True)
    results = {
        "machine": machine.describe(),
        "quick": options.quick,
        "settings": vars(suite.QUICK if options.quick else suite.FULL),
        **suite.run(suite.QUICK if options.quick else suite.FULL, progress=lambda line: print(line, flush=True)),
    }
    results["elapsed_s"] = time.perf_counter() - start
    print()
    print(report.render(results))

    RESULTS.mkdir(exist_ok=True)
    suffix = "-quick" if options.quick else ""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S") + suffix
    text = json.dumps(results, indent=1, default=list)
    for path in (RESULTS / f"{stamp}.json", RESULTS / f"latest{suffix}.json"):
        path.write_text(text)
    image = plot.plot(results, RESULTS / "compile_curve-quick.png") if options.quick else plot.plot(results)
    print(f"\nresults: {RESULTS / f'{stamp}.json'} (and latest{suffix}.json); plot: {image}")


if __name__ == "__main__":
    main(sys.argv[1:])

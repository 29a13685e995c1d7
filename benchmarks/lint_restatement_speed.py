"""What the restatement reader costs ``spg lint`` (issue 43: ≥ 1,000 claims/s with it on, start-up ≤ 1.5 s),
measured in one run, the rules alone and with the reader alternating so that a busy machine slows both alike:

* start-up: ``spg lint`` on the shipped example (``spg/examples/folding_step_stool.txt``) as a fresh process, wall
  seconds, ``--repeat`` times each way (median); and, in-process, loading the reader (numpy, the vectors, the trees);
* rate: every claim set of the shared USPTO set linted in-process (``spg.lint.lint``), process CPU seconds,
  ``--repeat`` rounds each way; claims per second (the best round of each) and their ratio.

    python benchmarks/lint_restatement_speed.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from common import REPO, shared_records

from spg.lint import lint

EXAMPLE = REPO / "spg" / "examples" / "folding_step_stool.txt"
MODES = ("rules", "read")


def startup(mode: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "spg.cli", "lint", str(EXAMPLE), "--restatement", mode],
                   check=False, stdout=subprocess.DEVNULL, cwd=REPO)
    return time.perf_counter() - start


def loading() -> float:
    code = ("import time; t = time.perf_counter(); from spg.lint.meaning.reader import shipped_reader; "
            "shipped_reader(); print(time.perf_counter() - t)")
    return float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                                cwd=REPO).stdout)


def rate(forests: list, mode: str) -> float:
    claims = sum(len(f.claims) for f in forests)
    start = time.process_time()
    for forest in forests:
        lint(forest, restatement=mode)
    return claims / (time.process_time() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each kind (default 3)")
    args = ap.parse_args()
    starts: dict[str, list[float]] = {m: [] for m in MODES}
    for _ in range(args.repeat):
        for mode in MODES:
            starts[mode].append(startup(mode))
    for mode in MODES:
        print(f"start-up, spg lint on the example, --restatement {mode}: median {statistics.median(starts[mode]):.2f} s "
              f"wall of {args.repeat} ({', '.join(f'{s:.2f}' for s in starts[mode])})")
    loads = [loading() for _ in range(args.repeat)]
    print(f"loading the reader (numpy, vectors, trees), in a fresh process: median {statistics.median(loads):.3f} s")
    forests = [r.claims for r in shared_records()]
    claims = sum(len(f.claims) for f in forests)
    lint(forests[0], restatement="read")  # the reader loaded before the clock starts
    rates: dict[str, list[float]] = {m: [] for m in MODES}
    for _ in range(args.repeat):
        for mode in MODES:
            rates[mode].append(rate(forests, mode))
    for mode in MODES:
        print(f"rate, {len(forests)} claim sets ({claims} claims) of the shared USPTO set, --restatement {mode}: "
              f"{max(rates[mode]):,.0f} claims/s (best of {args.repeat}: {', '.join(f'{r:,.0f}' for r in rates[mode])})")
    print(f"reader on / off: {max(rates['read']) / max(rates['rules']):.2f}")


if __name__ == "__main__":
    main()

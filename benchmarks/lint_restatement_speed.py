"""What the restatement reader costs ``spg lint`` (issue 43: ≥ 1,000 claims/s with it on, start-up ≤ 1.5 s),
measured in one run, the rules alone and with the reader in alternate passes so that a busy machine slows both alike:

* start-up: ``spg lint`` on the shipped example (``spg/examples/folding_step_stool.txt``) as a fresh process, wall
  seconds, ``--repeat`` times each way (median); and, in-process, loading the reader (numpy, the vectors, the trees);
* rate: every claim set of the shared USPTO set linted in-process (``spg.lint.lint``), one whole pass each way in
  turn (the first way alternating from round to round), process CPU seconds per pass, ``--repeat`` rounds; claims
  per second (the best round of each) and their ratio. Whole passes, not claim set by claim set: a set linted one
  way just before leaves the caches warm with its words for the other (with the reader, 812-833 claims/s so against
  667-722 in a pass of its own in one process, two rounds of a throwaway script: docs/lint.md).

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


def rates(forests: list, first: int) -> dict[str, float]:
    """Claims per second each way, each in one pass over every claim set (``first``: which way goes first)."""
    claims = sum(len(f.claims) for f in forests)
    got = {}
    for mode in MODES[first:] + MODES[:first]:
        start = time.process_time()
        for forest in forests:
            lint(forest, restatement=mode)
        got[mode] = claims / (time.process_time() - start)
    return got


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
    rounds = [rates(forests, i % 2) for i in range(args.repeat)]
    for mode in MODES:
        got = [r[mode] for r in rounds]
        print(f"rate, {len(forests)} claim sets ({claims} claims) of the shared USPTO set, --restatement {mode}: "
              f"{max(got):,.0f} claims/s (best of {args.repeat}: {', '.join(f'{r:,.0f}' for r in got)})")
    print(f"reader on / off: {max(r['read'] for r in rounds) / max(r['rules'] for r in rounds):.2f} (per round: "
          f"{', '.join(format(r['read'] / r['rules'], '.2f') for r in rounds)})")


if __name__ == "__main__":
    main()

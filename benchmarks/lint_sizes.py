"""How ``spg lint``'s time and memory grow with its input, per size class (issue 42): each class at growing sizes,
each run in a fresh process (``spg lint FILE --no-config --json``, the command line's own path), its wall time and
peak memory (ru_maxrss).

Classes: ``line`` one claim on one long line ("1. A widget comprising a frame, the lever and a bar, …"); ``flat``
many claims, each citing claim 1; ``chained`` many claims, each citing the one before; ``citations`` one claim citing
every claim before it ("… of any one of claims 1, 2, …, N"); ``json`` a JSON list of claim texts. Linear work shows
as a growth ratio near the size ratio (10 for 10× the input) and a steady time per MB. Targets (issue 42): 1 MB in
at most 10 s, 5 MB in at most 50 s, peak memory at most 100 MB per MB of input; a run past a target is marked.

    python benchmarks/lint_sizes.py [--sizes 10k,100k,1M,5M] [--classes line,flat,...] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES = "10k,100k,1M,5M"
QUICK = "10k,30k"
UNITS = {"k": 1_000, "M": 1_000_000}
SECONDS_PER_MB = 10.0  # 1 MB in 10 s, 5 MB in 50 s
MEMORY_PER_MB = 100.0  # MB of peak memory per MB of input


def _line(size: int) -> str:
    head, unit = "1. A widget comprising a frame, ", "the lever and a bar, "
    return head + unit * max(1, (size - len(head)) // len(unit)) + "and a seat.\n"


def _claims(size: int, parent) -> list[str]:
    """Claim texts (without numbers) up to ``size`` characters; claim k (from 2) cites ``parent(k)``."""
    texts = ["A widget comprising a frame, a lever pivoted to the frame, and a seat fixed to the lever."]
    total = len(texts[0])
    while total < size:
        k = len(texts) + 1
        texts.append(f"The widget of claim {parent(k)}, wherein the lever is {k} mm long and the seat is padded.")
        total += len(texts[-1]) + len(str(k)) + 3
    return texts


def _numbered(texts: list[str]) -> str:
    return "".join(f"{k}. {t}\n" for k, t in enumerate(texts, 1))


def _citations(size: int) -> str:
    # short claims under claim 1, then one claim citing them all: the citation list is most of the input
    texts = ["A widget comprising a frame, a lever pivoted to the frame, and a seat fixed to the lever."]
    total = len(texts[0])
    while total < size:
        k = len(texts) + 1
        texts.append(f"The widget of claim 1, having {k} bolts.")
        total += 2 * len(str(k)) + len(texts[-1]) + 6
    cited = ", ".join(map(str, range(1, len(texts))))
    return _numbered(texts) + f"{len(texts) + 1}. The widget of any one of claims {cited}, wherein the seat is red.\n"


CLASSES = {
    "line": (".txt", _line),
    "flat": (".txt", lambda size: _numbered(_claims(size, lambda k: 1))),
    "chained": (".txt", lambda size: _numbered(_claims(size, lambda k: k - 1))),
    "citations": (".txt", _citations),
    "json": (".json", lambda size: json.dumps(_claims(size, lambda k: k - 1), indent=0)),
}


def _size(text: str) -> int:
    number, unit = (text[:-1], text[-1]) if text[-1] in UNITS else (text, "")
    try:
        return int(float(number) * UNITS.get(unit, 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a size such as 10k, 1M or 250000") from None


def _child(path: str) -> None:
    """Lint one file as ``spg lint`` does, its output thrown away; print (seconds, peak MB) as JSON."""
    from spg.cli import main

    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (the output's cost counts, not a terminal's)
    start = time.perf_counter()
    code = main(["lint", path, "--no-config", "--json"])
    seconds = time.perf_counter() - start
    sys.stderr.write(json.dumps({"code": code, "seconds": seconds,
                                 "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}) + "\n")


def _run(path: Path, timeout: float) -> dict | None:
    try:
        done = subprocess.run([sys.executable, __file__, "--child", str(path)], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode not in (0, 1):
        sys.exit(f"lint_sizes: {path.name}: spg lint failed (exit {done.returncode}): {done.stderr[-500:]}")
    return json.loads(done.stderr.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default=SIZES, help=f"input sizes in characters, comma-separated (default: {SIZES})")
    parser.add_argument("--classes", default=",".join(CLASSES), help="size classes, comma-separated (default: all)")
    parser.add_argument("--quick", action="store_true", help=f"only the sizes {QUICK} (a check that it runs)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds one run may take (default: 600)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return _child(args.child)
    sizes = [_size(s) for s in (QUICK if args.quick else args.sizes).split(",")]
    classes = args.classes.split(",")
    if unknown := [c for c in classes if c not in CLASSES]:
        parser.error(f"--classes: unknown {', '.join(unknown)}; expected some of {', '.join(CLASSES)}")
    baseline = None
    missed = 0
    print(f"{'class':<10} {'size':>9} {'seconds':>8} {'s/MB':>7} {'growth':>7} {'peak MB':>8} {'MB/MB':>7}")
    with tempfile.TemporaryDirectory() as folder:
        empty = Path(folder) / "empty.txt"
        empty.write_text("1. A widget.\n", encoding="utf-8")
        baseline = _run(empty, args.timeout)["peak_mb"]  # the interpreter and spg, read nothing
        for name in classes:
            suffix, make = CLASSES[name]
            previous = None
            for size in sizes:
                path = Path(folder) / f"{name}{suffix}"
                path.write_text(make(size), encoding="utf-8")
                mb = path.stat().st_size / 1e6
                got = _run(path, args.timeout)
                if got is None:
                    print(f"{name:<10} {mb:>7.3f}MB  > {args.timeout:.0f} s (stopped)")
                    missed += 1
                    break
                seconds, peak = got["seconds"], got["peak_mb"]
                per_mb = (peak - baseline) / mb
                growth = f"{seconds / previous[0]:.1f}/{mb / previous[1]:.0f}" if previous else ""
                late = mb >= 1 and seconds > SECONDS_PER_MB * mb
                heavy = mb >= 1 and per_mb > MEMORY_PER_MB
                missed += late + heavy
                print(f"{name:<10} {mb:>7.3f}MB {seconds:>8.2f} {seconds / mb:>7.2f} {growth:>7} {peak:>8.0f} "
                      f"{per_mb:>7.1f}" + ("  over the time target" if late else "")
                      + ("  over the memory target" if heavy else ""), flush=True)
                previous = (seconds, mb)
    print(f"growth: time ratio / size ratio between consecutive sizes (linear: about equal); MB/MB: peak memory above the "
          f"{baseline:.0f} MB of an empty run, per MB of input; targets from 1 MB: {SECONDS_PER_MB:.0f} s and "
          f"{MEMORY_PER_MB:.0f} MB per MB; {missed} missed")


if __name__ == "__main__":
    main()

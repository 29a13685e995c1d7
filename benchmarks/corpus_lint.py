"""``spg lint --out`` at corpus scale: the shared corpora (USPTO + Pap2Pat, 1,902 claim sets) replicated with new
ids to ``--n`` claim sets in one .jsonl.gz, then linted by the command as a user runs it, each run in its own
process:

* ``--workers 1`` and ``--workers 2``: records/s and claims/s in all and per worker, the scaling from 1 to 2 workers
  (the issue's target: at least 1.7x, on an idle machine), and the peak memory (RSS) of the run's largest process
  (the reader or a worker);
* ``--engine ray`` on a local cluster of 2 CPUs: its time over ``--workers 2``'s (the cluster's start included);
* a ``--workers 2`` run killed (SIGKILL, workers and all) once half of its batches are written, then run again with
  the same command: whether its tables equal the uninterrupted run's, row for row.

    .venv/bin/python benchmarks/corpus_lint.py [--n 100000] [--skip-ray] [--keep DIR] [--restatement read]
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import REPO, shared_file


def replicate(n: int, path: Path) -> int:
    """``n`` claim sets cycled from the shared corpora, copy k of a record with the id ``ID~k``; their claims."""
    sources = [shared_file("uspto/patents.jsonl"), shared_file("pap2pat/patents.jsonl.gz")]

    def lines():
        for source in sources:
            with (gzip.open(source, "rt", encoding="utf-8") if source.suffix == ".gz" else source.open()) as f:
                yield from f

    base = [json.loads(line) for line in lines()]
    claims = 0
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as out:
        for i, record in enumerate(itertools.islice(itertools.cycle(base), n)):
            copy = {**record, "id": f"{record['id']}~{i // len(base)}"}
            claims += len(record["claims"])
            out.write(json.dumps(copy, ensure_ascii=False) + "\n")
    return claims


_MEASURED = """
import resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.run(sys.argv[1:]).returncode
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code)
"""


def spg_lint(corpus: Path, out: Path, *options: str) -> tuple[float, float]:
    """(seconds, peak RSS in MiB of the run's largest process) of one ``spg lint --out`` in a process of its own."""
    command = [sys.executable, "-c", _MEASURED, sys.executable, "-m", "spg.cli", "lint", str(corpus), "--out",
               str(out), *options]
    done = subprocess.run(command, capture_output=True, text=True, env=_env(), check=True)
    seconds, rss, code = done.stdout.split()[-3:]
    if int(code) not in (0, 1):
        raise SystemExit(f"spg lint {' '.join(options)} failed (exit {code}): {done.stderr[-2000:]}")
    return float(seconds), int(rss) / 1024


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
            "RAY_AUTH_MODE": "disabled"}


def killed_half_way(corpus: Path, out: Path, batches: int, options: list[str]) -> None:
    """A ``--workers 2`` run SIGKILLed, with its workers, once half of its claim-set parts are written."""
    command = [sys.executable, "-m", "spg.cli", "lint", str(corpus), "--out", str(out), "--workers", "2", *options]
    run = subprocess.Popen(command, env=_env(), start_new_session=True, stdout=subprocess.DEVNULL)
    parts = out / "claim_sets"
    while run.poll() is None and (not parts.is_dir() or len(list(parts.glob("part-*.parquet"))) < batches // 2):
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="claim sets (default 100,000)")
    parser.add_argument("--batch-size", type=int, default=128, help="records per batch (spg lint --batch-size; "
                        "default 128; a small --n needs a small one for the kill to land half-way)")
    parser.add_argument("--restatement", choices=("rules", "read"), default="rules",
                        help="spg lint --restatement for every run (default rules; read: with the restatement reader)")
    parser.add_argument("--skip-ray", action="store_true", help="leave out the Ray run")
    parser.add_argument("--keep", metavar="DIR", help="build the corpus and the runs' folders in DIR and keep them "
                        "(default: a temporary folder, removed)")
    args = parser.parse_args()

    sys.path.insert(0, str(REPO))
    from spg.lint.corpus import read_tables

    with tempfile.TemporaryDirectory() as temporary:
        work = Path(args.keep or temporary)
        work.mkdir(parents=True, exist_ok=True)
        corpus = work / "corpus.jsonl.gz"
        claims = replicate(args.n, corpus)
        print(f"corpus: {args.n:,} claim sets, {claims:,} claims ({corpus.stat().st_size / 2**20:,.0f} MiB gzipped)")
        batch = ["--batch-size", str(args.batch_size), "--restatement", args.restatement]  # every run's options
        rows, batches = [], -(-args.n // args.batch_size)
        for name, options, workers in [("--workers 1", ["--workers", "1"], 1), ("--workers 2", ["--workers", "2"], 2),
                                       *([] if args.skip_ray else [("--engine ray", ["--engine", "ray",
                                                                                       "--workers", "2"], 2)])]:
            seconds, rss = spg_lint(corpus, work / name.strip("-").replace(" ", "-"), *options, *batch)
            rows.append((name, workers, seconds, rss))
            print(f"{name:>14}: {seconds:8.1f} s  {args.n / seconds:8.1f} records/s  {claims / seconds:9.1f} claims/s"
                  f"  per worker {args.n / seconds / workers:7.1f} records/s {claims / seconds / workers:8.1f} "
                  f"claims/s  peak RSS of the largest process {rss:6.0f} MiB", flush=True)
        times = {name: seconds for name, _, seconds, _ in rows}
        print(f"scaling 1 -> 2 workers: {times['--workers 1'] / times['--workers 2']:.2f}x")
        if "--engine ray" in times:
            print(f"Ray over --workers 2 (its cluster's start included): {times['--engine ray'] / times['--workers 2']:.2f}x")
        tables = {name: read_tables(work / name.strip("-").replace(" ", "-")) for name, *_ in rows}
        same = all(all(a.equals(b) for a, b in zip(t, tables["--workers 1"])) for t in tables.values())
        print(f"tables of {', '.join(tables)}: {'the same, row for row' if same else 'DIFFERENT'}")

        resumed = work / "killed-and-resumed"
        killed_half_way(corpus, resumed, batches, batch)
        written = len(list((resumed / "claim_sets").glob("part-*.parquet")))
        seconds, _ = spg_lint(corpus, resumed, "--workers", "2", *batch)
        same = [a.equals(b) for a, b in zip(read_tables(resumed), tables["--workers 2"])]
        print(f"killed with {written} of {batches} batches written, resumed in {seconds:.1f} s: "
              f"claim_sets {'the same' if same[0] else 'DIFFERENT'}, findings {'the same' if same[1] else 'DIFFERENT'}")


if __name__ == "__main__":
    main()

"""``spg evaluate --workers``: the rule-based scores (SP/AC/CC, PatentScore_rule, DEA, validity) on 1 and 2 processes.

References: the shared USPTO corpus (397 claim sets, 6,619 claims); two systems made from them: the references
themselves (every 7th document missing) and their first halves. Printed, for ``--workers 1`` and ``--workers 2``:

* the rule-based pass alone (:func:`spg.evaluate.score_documents`, in this process, the references loaded before
  the clock starts): documents/s and system x document pairs/s, and the scaling from 1 to 2 workers;
* the whole command as a user runs it (``--no-bertscore``; each in its own process, start-up, loading, BLEU and
  ROUGE-1 in the main process included): its wall time, and whether its table.md and documents.jsonl equal
  one process's, byte for byte.

    .venv/bin/python benchmarks/evaluate_workers.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import REPO, shared_file, shared_records

from spg.evaluate import numbered_text, read_prediction_file, score_documents


def write_systems(records: list, folder: Path) -> list[Path]:
    gold = [{"id": r.id, "prediction": numbered_text(r.claims)} for i, r in enumerate(records) if i % 7 != 3]
    half = [{"id": r.id, "prediction": "\n".join(f"{c.num}. {c.text}" for c in list(r.claims)[: max(1, len(r.claims) // 2)])}
            for r in records]
    paths = []
    for name, rows in (("gold", gold), ("half", half)):
        paths.append(folder / f"{name}.jsonl")
        paths[-1].write_text("".join(json.dumps(row) + "\n" for row in rows))
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", metavar="DIR", help="keep the predictions and the reports here")
    args = parser.parse_args()
    folder = Path(args.keep or tempfile.mkdtemp(prefix="spg-evaluate-workers-"))
    folder.mkdir(parents=True, exist_ok=True)
    references_path = shared_file("uspto/patents.jsonl")
    records = shared_records()
    systems_paths = write_systems(records, folder)
    systems = [read_prediction_file(p) for p in systems_paths]
    refs = [numbered_text(r.claims) for r in records]
    print(f"{len(records)} references, {sum(len(r.claims) for r in records)} claims, {len(systems)} systems")

    rates = {}
    for workers in (1, 2):
        start = time.perf_counter()
        score_documents(systems, records, refs, workers=workers, progress=False)
        seconds = time.perf_counter() - start
        rates[workers] = len(records) / seconds
        print(f"rule-based pass, --workers {workers}: {seconds:6.2f} s  {rates[workers]:6.1f} documents/s  "
              f"{rates[workers] * len(systems):6.1f} pairs/s")
    print(f"scaling 1 -> 2 workers (rule-based pass): {rates[2] / rates[1]:.2f}x")

    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    outputs = {}
    for workers in (1, 2):
        out = folder / f"report-workers{workers}"
        command = [sys.executable, "-m", "spg.cli", "evaluate", str(references_path), *map(str, systems_paths),
                   "--no-bertscore", "--no-progress", "--workers", str(workers), "--out", str(out)]
        start = time.perf_counter()
        subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print(f"spg evaluate --workers {workers} (the whole command): {time.perf_counter() - start:6.2f} s")
        outputs[workers] = [(out / name).read_bytes() for name in ("table.md", "documents.jsonl")]
    print(f"table.md and documents.jsonl of --workers 1 and 2: "
          f"{'the same, byte for byte' if outputs[1] == outputs[2] else 'DIFFERENT'}")


if __name__ == "__main__":
    main()

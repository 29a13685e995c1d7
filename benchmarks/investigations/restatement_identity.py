"""The restatement reader at a git revision against the working tree's: the same output, and what each costs.

A change meant to make the reader faster (issue 43) must leave what it says alone. This script imports the reader of
``--ref`` (``spg/lint/meaning/*.py`` as of that revision, through ``git show``, as a module of its own) beside the
working tree's, both loading the shipped reader files, and on every claim set of the chosen corpora compares:

* each dependent claim's score and the claim it reads closest to (``Reader.scores``), bit for bit;
* the ``restatement`` findings (``restatement_findings``, no other finding given), message for message;
* each feature (``SetFeatures.features``, every dependent claim, a repeated number's later claims too), bit for bit,
  and the largest difference where one differs (a score reads features only through the trees' splits, so a last-bit
  difference there leaves the score alone unless it crosses a split);
* how near any score sits to the threshold.

``--time N`` then runs ``benchmarks/lint_stages.py`` at ``--ref`` and in the working tree, N fresh processes each
taking turns, and prints the reader's CPU time a claim each way.

    python benchmarks/investigations/restatement_identity.py [--ref 836f9a4] [--corpora uspto,pap2pat,llm] [--time 3]
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import REPO, jsonl_rows, shared_file, shared_records  # noqa: E402
from llm_claims import ITEMS, item_forest  # noqa: E402

from spg.lint.clauses import ancestry, read_claims  # noqa: E402
from spg.lint.meaning import reader as new  # noqa: E402

MODULES = ("features", "reader", "vectors")
CORPORA = {
    "uspto": lambda: [r.claims for r in shared_records()],
    "pap2pat": lambda: [r.claims for r in shared_records("pap2pat/patents.jsonl.gz")],
    "llm": lambda: [item_forest(row) for _, row in jsonl_rows(ITEMS)],
}


def reader_at(ref: str, into: Path):
    """``spg.lint.meaning.reader`` as of ``ref``, imported as ``meaning_at_ref.reader``."""
    package = into / "meaning_at_ref"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name in MODULES:
        text = subprocess.run(["git", "show", f"{ref}:spg/lint/meaning/{name}.py"], cwd=REPO, check=True,
                              capture_output=True, text=True).stdout
        (package / f"{name}.py").write_text(text.replace("spg.lint.meaning.", "meaning_at_ref."))
    sys.path.insert(0, str(into))
    return importlib.import_module("meaning_at_ref.reader")


def compare(name: str, forests: list, old, old_reader, new_reader) -> bool:
    sets = claims = scored = findings = same_x = read = 0
    worst, nearest, first_diff = 0.0, float("inf"), None
    for forest in forests:
        readings, above = read_claims(forest), ancestry(forest)
        sets += 1
        claims += len(forest.claims)
        a, b = old_reader.scores(forest, readings, above), new_reader.scores(forest, readings, above)
        if a != b and first_diff is None:
            first_diff = f"scores of a claim set of {name}: {a} against {b}"
        scored += len(b)
        nearest = min([nearest, *(abs(p - new_reader.threshold) for _, p, _ in b)])
        fa = old.restatement_findings(forest, readings, above, [], old_reader)
        fb = new.restatement_findings(forest, readings, above, [], new_reader)
        if [f.__dict__ for f in fa] != [f.__dict__ for f in fb] and first_diff is None:
            first_diff = f"findings of a claim set of {name}: {fa} against {fb}"
        findings += len(fb)
        xa = old.SetFeatures(forest, readings, above, old_reader.vectors)
        xb = new.SetFeatures(forest, readings, above, new_reader.vectors)
        for index, claim in enumerate(forest.claims):
            if not claim.parents:
                continue
            fa_, fb_ = xa.features(index), xb.features(index)
            if (fa_ is None) != (fb_ is None) or (fa_ is not None and fa_[1] != fb_[1]):
                first_diff = first_diff or f"claim {claim.num} of a claim set of {name}: read {fa_} against {fb_}"
                continue
            if fa_ is None:
                continue
            read += 1
            same_x += fa_[0] == fb_[0]
            worst = max([worst, *(abs(u - v) for u, v in zip(fa_[0], fb_[0]))])
    print(f"{name}: {sets} claim sets, {claims} claims, {scored} scored, {findings} restatement findings; scores and "
          f"findings {'the same, bit for bit' if first_diff is None else 'DIFFER'}; features the same bit for bit on "
          f"{same_x} of {read} claims read (largest difference {worst:.3g}); nearest score to the threshold "
          f"{nearest:.3g} away")
    if first_diff:
        print(f"  first difference: {first_diff}")
    return first_diff is None


def stage_times(ref: str, rounds: int) -> None:
    """``benchmarks/lint_stages.py`` (the shared USPTO set, ``--restatement read``) at ``ref`` (a ``git archive`` of
    it) and in the working tree, as fresh processes taking turns: the reader's CPU time a claim, and all of lint's.
    Separate processes, not two copies of the reader in one: there the copy imported second ran 7 to 12 % slower
    than the first with the same code (a busy machine, 2026-11-29)."""
    got: dict[str, list[tuple[float, float]]] = {"ref": [], "tree": []}
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "archive", ref], cwd=REPO, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        data = str(shared_file("uspto/patents.jsonl").parents[1])
        for _ in range(rounds):
            for way, root in (("ref", Path(tmp)), ("tree", REPO)):
                out = subprocess.run([sys.executable, "benchmarks/lint_stages.py"], cwd=root, check=True,
                                     capture_output=True, text=True,
                                     env={**os.environ, "PYTHONPATH": str(root), "SPG_DATA_DIR": data}).stdout
                total = float(re.search(r"([0-9.]+) ms a claim", out.splitlines()[0]).group(1))
                reader = float(re.search(r"restatement_findings\s+([0-9.]+) ms a claim", out).group(1))
                got[way].append((reader, total))
    for way, runs in got.items():
        print(f"{way}: restatement_findings {', '.join(f'{r:.3f}' for r, _ in runs)} ms a claim; spg lint "
              f"{', '.join(f'{t:.3f}' for _, t in runs)} ms a claim (lint_stages.py, {rounds} runs taking turns)")
    best = {way: min(r for r, _ in runs) for way, runs in got.items()}
    print(f"the reader, best run each way: {best['ref']:.3f} against {best['tree']:.3f} ms a claim, "
          f"{best['ref'] / best['tree']:.2f} times as fast")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--ref", default="836f9a4", help="the revision to compare with (default 836f9a4)")
    ap.add_argument("--corpora", default=",".join(CORPORA), help=f"comma-separated, of {', '.join(CORPORA)}")
    ap.add_argument("--time", type=int, default=0, metavar="ROUNDS",
                    help="then time each way in lint_stages.py, ROUNDS fresh processes each, taking turns")
    args = ap.parse_args()
    names = [n for n in args.corpora.split(",") if n]  # none: --time alone
    if not set(names) <= set(CORPORA):
        ap.error(f"--corpora: expected some of {', '.join(CORPORA)}; got {args.corpora!r}")
    if subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{args.ref}^{{commit}}"], cwd=REPO,
                      capture_output=True).returncode != 0:
        ap.error(f"--ref: expected a revision of this repository's history; got {args.ref!r}")
    with tempfile.TemporaryDirectory() as tmp:
        old = reader_at(args.ref, Path(tmp))
        old_reader, new_reader = old.read_reader(new.DIRECTORY), new.read_reader(new.DIRECTORY)
        same = True
        for name in names:
            forests = CORPORA[name]()
            same &= compare(name, forests, old, old_reader, new_reader)
    if args.time:
        stage_times(args.ref, args.time)
    raise SystemExit(0 if same else 1)


if __name__ == "__main__":
    main()

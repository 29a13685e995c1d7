"""Which spg lint findings a claim keeps once it has them, read at a phrase's end: may the checker in the loop stop a
claim there (spg.generation.redraw, ``redraw_stop_at``)?

For each claim of each claim set, every prefix of its text that ends at a limitation's end (``;``, ``:``) or at a
phrase's end (``,``) is linted with the claims before it (``spg.lint.find_all``, as the checker in the loop reads a
claim still being written). A rule's finding on a prefix is a **true stop** when the whole claim draws that rule too,
and a **false stop** when it does not (the checker would have rejected a claim it passes). Also printed: where the
first true stop comes, as the share of the claim's characters left unwritten (what an early stop saves).

Claim sets: the granted US and EP claims of the shared USPTO set on one side of ``spg.data.checker_split`` (train and
dev to choose the rules; test to report), the HUPD-DCG sample's systems, and ``--outputs`` (spg generate results,
e.g. the shipped model's with the checker off).

    python benchmarks/investigations/partial_checks.py --side train --limit 150 --outputs o.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import shared_file, shared_records  # noqa: E402

from spg.data import checker_split  # noqa: E402
from spg.forest import Claim, Forest  # noqa: E402
from spg.lint import find_all  # noqa: E402
from spg.parse import parse_claims  # noqa: E402

# The checker in the loop's rules (spg.generation.redraw.REDRAW_RULES) but duplicate-claim and not-further-limiting,
# which a claim loses by growing (what it adds is read at its end).
RULES = ("repeated-limitation", "multiple-introduction", "contradicts-parent", "preamble-mismatch",
         "range-outside-parent")
CUTS = {"limitation": re.compile(r"[;:]"), "phrase": re.compile(r"[,;:]")}


def measure(forest: Forest, max_claims: int, tally: Counter, saved: dict[str, list[float]], false: list) -> None:
    claims = list(forest.claims)[:max_claims]
    for k, claim in enumerate(claims):
        full = {f.rule for f in find_all(Forest.from_claims(claims[: k + 1])) if f.claim == claim.num}
        text = claim.text.rstrip()
        for cut, pattern in CUTS.items():
            first: dict[str, int] = {}
            for m in pattern.finditer(text):
                if m.end() >= len(text) - 1:
                    break
                partial = Claim(claim.num, text[: m.end()], claim.parents)
                found = {f.rule for f in find_all(Forest.from_claims([*claims[:k], partial])) if f.claim == claim.num}
                for rule in found & set(RULES):
                    first.setdefault(rule, m.end())
            for rule in RULES:
                if rule in first:
                    if rule in full:
                        tally[cut, rule, "true"] += 1
                        saved[f"{cut} {rule}"].append(1 - first[rule] / len(text))
                    else:
                        tally[cut, rule, "false"] += 1
                        false.append((cut, rule, text[: first[rule]], text))
                elif rule in full:
                    tally[cut, rule, "missed"] += 1
        tally["claims"] += 1


def report(title: str, sets: list[Forest], max_claims: int, show: int) -> None:
    tally: Counter = Counter()
    saved: dict[str, list[float]] = {f"{c} {r}": [] for c in CUTS for r in RULES}
    false: list = []
    for forest in sets:
        try:
            measure(forest, max_claims, tally, saved, false)
        except Exception as error:  # noqa: BLE001 - a set spg cannot read is left out, and said so
            print(f"  (a claim set left out: {type(error).__name__}: {error})")
    print(f"\n{title}: {len(sets)} claim sets, {tally['claims']} claims (the first {max_claims} of each)")
    print(f"  {'cut':10s} {'rule':22s} {'true stops':>10s} {'false':>6s} {'only at end':>11s} {'share unwritten':>15s}")
    for cut in CUTS:
        for rule in RULES:
            t, f, m = tally[cut, rule, "true"], tally[cut, rule, "false"], tally[cut, rule, "missed"]
            left = saved[f"{cut} {rule}"]
            share = f"{sum(left) / len(left):.2f}" if left else "-"
            print(f"  {cut:10s} {rule:22s} {t:10d} {f:6d} {m:11d} {share:>15s}")
    for cut, rule, prefix, text in false[:show]:
        print(f"  false stop ({cut}, {rule}): {prefix!r}\n      whole: {text!r}")


def outputs(path: str) -> list[Forest]:
    rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    return [parse_claims(r["claims_text"]) for r in rows if isinstance(r, dict) and r.get("claims_text")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--side", choices=("train", "dev", "test"), default="train")
    parser.add_argument("--limit", type=int, default=100, help="claim sets of the USPTO side (default 100)")
    parser.add_argument("--max-claims", type=int, default=12, help="claims read per set (default 12)")
    parser.add_argument("--outputs", action="append", default=[], help="spg generate results (JSON Lines)")
    parser.add_argument("--show", type=int, default=10, help="false stops printed per block (default 10)")
    args = parser.parse_args()
    records = [r for r in shared_records() if r.fields.get("kind") in ("grant", "ep") and checker_split(r.id) == args.side]
    report(f"granted US and EP claims, {args.side} side", [r.claims for r in records[: args.limit]], args.max_claims,
           args.show)
    sample = json.loads(shared_file("hupd-dcg/sample_outputs.json").read_text(encoding="utf-8"))
    report("HUPD-DCG sample systems", [parse_claims(v) for k, v in sample.items() if k.endswith("-claim")],
           args.max_claims, args.show)
    for path in args.outputs:
        report(path, outputs(path), args.max_claims, args.show)


if __name__ == "__main__":
    main()

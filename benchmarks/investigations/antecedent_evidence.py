"""Can what a warning names, or a prior learnt on other claims, tell real antecedent warnings from false ones?

Two signals a linter could rank its antecedent warnings by, without world knowledge, each measured on every
labelled sample beside benchmarks/lint_antecedent.py (seeds 7-12, two labellers each; warnings still reported by
today's analysis, a warning drawn in two samples counted once per sample) and against the benchmark's injected
defects on the USPTO set:

* the evidence the message names: another introduction of the reference's head in scope ("closest: ..."), one only
  in a claim outside the scope ("... introduces it, but claim N does not depend on that claim"), none at all;
* a prior learnt on Pap2Pat (the held-out set): for each head noun, the share of its definite references the
  analysis finds no basis for, smoothed towards the corpus rate. A noun writers often use without introducing it
  ("the user", "the genome", "the temperature") should make a false warning likelier.

For each, what keeping only the warnings above a cut would do: recall on injected defects and warnings per claim
on granted US claims.

    python benchmarks/investigations/antecedent_evidence.py [--per-doc 6] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lint_antecedent import HERE, kind, load, recall  # noqa: E402

from spg.forest import Forest  # noqa: E402
from spg.lint.antecedent import AntecedentFinding, check_antecedents  # noqa: E402
from spg.lint.antecedent.reader import _Reader  # noqa: E402
from spg.lint.antecedent.words import _singular  # noqa: E402
from spg.parse import parse_claims  # noqa: E402

SMOOTHING = 20  # pseudo-references at the corpus rate: a head seen a few times says little


def evidence_of(finding: AntecedentFinding) -> str:
    """What the message says was found besides the reference (the formats of spg.lint.antecedent.reader._finding)."""
    if finding.rule == "antecedent-ambiguous":
        return "ambiguous"
    if "(closest: " in finding.message:
        return "head introduced in scope"
    if "does not depend on that claim" in finding.message:
        return "head introduced out of scope"
    return "head never introduced"


def head_of(finding: AntecedentFinding) -> str:
    return _singular(re.findall(r"[\w-]+", finding.term.lower())[-1])


def head_prior(docs: list[dict]) -> Callable[[str], float]:
    """head → smoothed share of its definite references without basis, as the analysis judges them on ``docs``."""
    seen, unbased = Counter(), Counter()
    judge = _Reader.judge

    def counting(reader, ref):  # every definite reference the analysis judges passes through judge()
        verdict = judge(reader, ref)
        head = _singular(ref.words[-1])
        seen[head] += 1
        unbased[head] += verdict is not None and verdict[0] == "antecedent"
        return verdict

    _Reader.judge = counting
    try:
        for doc in docs:
            check_antecedents(parse_claims(doc["claims"]))
    finally:
        _Reader.judge = judge
    rate = sum(unbased.values()) / sum(seen.values())
    print(f"prior learnt on {len(docs)} Pap2Pat documents: {sum(seen.values())} definite references, "
          f"{sum(unbased.values())} without basis ({rate:.1%})")
    return lambda head: (unbased[head] + rate * SMOOTHING) / (seen[head] + SMOOTHING)


def labelled(uspto: list[dict]) -> list[tuple[AntecedentFinding, int]]:
    """(today's finding, how many of the two labellers call it real) for every labelled warning still reported."""
    by_id = {d["id"]: d for d in uspto}
    today: dict[str, dict] = {}
    out = []
    for first in sorted(HERE.glob("lint_antecedent_seed*_1.jsonl")):
        second = first.with_name(first.name.replace("_1.jsonl", "_2.jsonl"))
        rows = [[json.loads(line) for line in p.read_text(encoding="utf-8").splitlines() if line.strip()] for p in (first, second)]
        for a, b in zip(*rows, strict=True):
            if a["doc"] not in today:
                found = check_antecedents(parse_claims(by_id[a["doc"]]["claims"]))
                today[a["doc"]] = {(f.claim, f.start, f.term): f for f in found}
            f = today[a["doc"]].get((a["claim"], a["start"], a["term"]))
            if f is not None:
                out.append((f, (a["verdict"] == "real") + (b["verdict"] == "real")))
    return out


def share(items: list[tuple[AntecedentFinding, int]]) -> str:
    n = len(items)
    both = sum(r == 2 for _, r in items)
    return f"{n}, real by both {both} ({both / max(n, 1):.0%}), by at least one {sum(r > 0 for _, r in items)}"


def kept_only(uspto: list[dict], keep: Callable[[AntecedentFinding], bool], label: str, args) -> None:
    def check(forest: Forest) -> list[AntecedentFinding]:
        return [f for f in check_antecedents(forest) if keep(f)]

    found, tried, _, _ = recall(uspto, args.per_doc, args.seed, check)
    grants = [parse_claims(d["claims"]) for d in uspto if kind(d) == "US grant"]
    rate = sum(len(check(f)) for f in grants) / sum(len(f) for f in grants)
    cells = ", ".join(f"({h}) {found[h]}/{tried[h]} = {found[h] / max(tried[h], 1):.1%}" for h in "abcd")
    print(f"  {label}: US grants {rate:.3f} warnings/claim; USPTO recall {cells}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-doc", type=int, default=6, help="defect sites tried per document and mutation kind")
    ap.add_argument("--seed", type=int, default=0, help="seed for the defect sites")
    args = ap.parse_args()
    uspto = load("uspto/patents.jsonl")
    items = labelled(uspto)
    print(f"Labelled warnings still reported: {share(items)}")
    print("By the evidence the message names:")
    for name in sorted({evidence_of(f) for f, _ in items}):
        print(f"  {name}: {share([i for i in items if evidence_of(i[0]) == name])}")
    prior = head_prior(load("pap2pat/patents.jsonl.gz"))
    cuts = (0.04, 0.06, 0.08)
    print("By the head's prior, within each evidence:")
    for name in sorted({evidence_of(f) for f, _ in items}):
        group = [i for i in items if evidence_of(i[0]) == name]
        for low, high in zip((0.0, *cuts), (*cuts, 1.0), strict=True):
            part = [i for i in group if low <= prior(head_of(i[0])) < high]
            if part:
                print(f"  {name}, prior {low:.2f}-{high:.2f}: {share(part)}")
    print("Keeping only some warnings:")
    kept_only(uspto, lambda f: True, "every warning", args)
    kept_only(uspto, lambda f: evidence_of(f) != "head never introduced", "only those naming another introduction", args)
    for cut in cuts:
        kept_only(uspto, lambda f, cut=cut: prior(head_of(f)) < cut, f"only heads with prior < {cut:.2f}", args)


if __name__ == "__main__":
    main()

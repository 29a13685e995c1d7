"""How often ``spg lint`` flags a claim an examiner allowed, when it is checked as the next claim of its set.

Issue 30's acceptance is measured outside the project on LLM next-claim outputs (claims 1..k given, claim k+1
drafted), some annotated error-free, and asks that ≤ 10 % of the error-free ones get a finding. The nearest thing
at hand: every claim k+1 (k ≥ 1) of the shared granted US and EP claim sets, linted with the claims before it, as a
candidate that passed 35 USC 112(b) — so a finding on it is usually a false alarm. Printed per kind (US grants, EP)
and side of ``spg.data.checker_split``, for each antecedent mode (``--antecedent grammar|judged``): the share of
candidates with any finding on themselves, with an error or warning, with info only, and the rules behind them.
EP claims are drafted for the EPO (multiple dependency is normal there), so its errors under 37 CFR 1.75(c) are no
false alarm of a US checker; US grants are the proxy that counts.

    .venv/bin/python benchmarks/lint_next_claim.py [--sides test] [--top 8]

``--devset`` reads instead a set of written next claims, each with the kind of error it was written to have
(``benchmarks/sets/lint_next_claim_devset.jsonl``; how it was made: docs/lint.md, "Next claims written with errors"):
one JSON object per line, ``{"id", "k", "category", "candidate", "note"}``, the candidate drafted as claim k+1 after
claims 1..k of the shared USPTO document ``id``. Printed per category and side of ``spg.data.checker_split`` (its
documents are train and dev ones: train to read, dev to report): the share of candidates with a finding on
themselves, and the rules behind them; ``--list SIDE`` prints every candidate of that side with its findings.
``benchmarks/sets/lint_next_claim_devset3.jsonl``, ``…devset4.jsonl`` and ``…devset6.jsonl`` are written after test
documents, to be measured once the rules are frozen and never listed; ``…devset5.jsonl`` (train documents, three
repetitions and two error-free claims per document) is development data, as the first two are.

    .venv/bin/python benchmarks/lint_next_claim.py --devset benchmarks/sets/lint_next_claim_devset.jsonl [--list train]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from common import bad as _bad
from common import jsonl_rows as _rows
from common import shared_records

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spg.data import checker_split  # noqa: E402
from spg.forest import Forest  # noqa: E402
from spg.lint import lint  # noqa: E402
from spg.lint.check import ANTECEDENT_MODES  # noqa: E402
from spg.parse import parse_claims  # noqa: E402

KINDS = {"grant": "US grants", "ep": "EP"}


def next_claim_findings(forest: Forest, mode: str):
    """For each claim after the first: the severities and rules of the findings on it, linted with its prefix."""
    claims = forest.claims
    for k in range(1, len(claims)):
        result = lint(Forest.from_claims(claims[: k + 1]), antecedent=mode)
        yield [f for f in result.findings if f.claim == claims[k].num]


def devset(path: Path, top: int, listed: str | None) -> None:
    """Each written candidate linted as claim k+1 after claims 1..k of its document; shares per category and side."""
    documents = {r.id: r for r in shared_records()}
    found: dict[tuple[str, str], list[list]] = {}
    for line_no, row in _rows(path):
        if row.get("id") not in documents or not isinstance(row.get("k"), int) or not isinstance(
                row.get("candidate"), str) or not isinstance(row.get("category"), str):
            _bad(f"{path} line {line_no}: expected \"id\" (a document of the shared USPTO set), \"k\" (an integer), "
                 "\"category\" and \"candidate\" (strings)")
        given = [c for c in documents[row["id"]].claims.claims if c.num <= row["k"]]
        candidate = parse_claims(row["candidate"]).claims
        if len(candidate) != 1 or candidate[0].num != row["k"] + 1:
            _bad(f"{path} line {line_no}: {row['id']} k={row['k']}: the candidate does not read as claim {row['k'] + 1}")
        on_it = [f for f in lint(Forest.from_claims([*given, candidate[0]])).findings if f.claim == row["k"] + 1]
        side = checker_split(row["id"])
        found.setdefault((row["category"], side), []).append(on_it)
        if side == listed:
            print(f"[{row['category']}] {row['id']} k={row['k']}: {row['candidate']}")
            print("".join(f"    {f}\n" for f in on_it) or "    (no finding)\n")
    for (category, side), lists in sorted(found.items()):
        n = len(lists)
        rules = Counter(rule for on_it in lists for rule in {f.rule for f in on_it})
        warned = sum(any(f.severity != "info" for f in on_it) for on_it in lists)
        hit = sum(map(bool, lists))
        print(f"{category}, {side}: any finding {hit}/{n} ({hit / n:.0%}), an error or warning {warned}/{n}; "
              + ", ".join(f"{rule} {count}" for rule, count in rules.most_common(top)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--sides", default="test", help="comma-separated sides of the checker split (default: test)")
    parser.add_argument("--top", type=int, default=8, help="rules listed per line (default 8)")
    parser.add_argument("--devset", type=Path, help="written next claims with their intended errors (see above)")
    parser.add_argument("--list", choices=("train", "dev"), help="with --devset: every candidate of this side")
    args = parser.parse_args()
    if args.devset is not None:
        devset(args.devset, args.top, args.list)
        return
    sides = args.sides.split(",")
    records = [r for r in shared_records() if r.fields.get("kind") in KINDS and checker_split(r.id) in sides]
    for kind, label in KINDS.items():
        docs = [r for r in records if r.fields["kind"] == kind]
        for mode in ANTECEDENT_MODES:
            tiers: Counter[str] = Counter()
            rules: Counter[str] = Counter()
            n = 0
            for r in docs:
                for found in next_claim_findings(r.claims, mode):
                    n += 1
                    severities = {f.severity for f in found}
                    tiers["any"] += bool(severities)
                    tiers["error or warning"] += bool(severities - {"info"})
                    tiers["info only"] += severities == {"info"}
                    rules.update({f.rule for f in found})
            share = ", ".join(f"{t} {tiers[t] / n:.1%}" for t in ("any", "error or warning", "info only"))
            print(f"{label}, {'+'.join(sides)} ({len(docs)} documents, {n} next claims), --antecedent {mode}: {share}")
            print("   claims with a finding of each rule: "
                  + ", ".join(f"{rule} {count / n:.1%}" for rule, count in rules.most_common(args.top)))


if __name__ == "__main__":
    main()

"""The drafter's desk tools on the shared USPTO set (docs/lint.md, "Term map, claim count and renumbering"): what the
term map adds to a lint run (``lint(terms=True)`` against ``lint()``, alternated in one run, so the ratio holds on a
busy machine), and ``spg renumber`` over every claim set: how many renumber, and for each that does, that the
renumbered set has the same tree under the new numbers, no forward reference and no claim or finding lost.

    .venv/bin/python benchmarks/desk_tools.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from common import shared_records

from spg.errors import InputError
from spg.lint import lint
from spg.lint.fees import claim_counts
from spg.parse import parse_claims
from spg.renumber import new_numbers, renumber_text


def term_map_ratio(records, repeat: int) -> tuple[float, float, float]:
    """(slowest, fastest ratio of lint(terms=True) time to lint() time over the rounds, claims/s with terms)."""
    claims = sum(len(r.claims) for r in records)
    ratios, rates = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        for r in records:
            lint(r.claims)
        plain = time.perf_counter() - start
        start = time.perf_counter()
        for r in records:
            lint(r.claims, terms=True)
        with_terms = time.perf_counter() - start
        ratios.append(with_terms / plain)
        rates.append(claims / with_terms)
    return max(ratios), min(ratios), min(rates)


def renumbered(records) -> Counter:
    outcome: Counter = Counter()
    for r in records:
        forest = r.claims
        try:
            numbers = new_numbers(forest)
        except InputError as e:
            outcome["refused: " + str(e).split(":", 1)[1].split(";")[0].split(",")[0].strip()[:40]] += 1
            continue
        again = parse_claims(renumber_text(forest))
        same_tree = len(again) == len(forest) and all(
            again.by_num[numbers[c.num]].parents == tuple(sorted(numbers[p] for p in c.parents if p in numbers))
            for c in forest.claims
        )
        forward = any(p >= c.num for c in again.claims for p in c.parents)
        outcome["renumbered, same tree" if same_tree else "renumbered, tree CHANGED"] += 1
        outcome["renumbered, forward reference left"] += forward
        outcome["renumbered, fee count changed"] += claim_counts(again).counted != claim_counts(forest).counted
    return outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="rounds of the term-map timing")
    args = parser.parse_args()
    records = [r for r in shared_records() if len(r.claims)]
    print(f"{len(records)} claim sets, {sum(len(r.claims) for r in records)} claims")
    slow, fast, rate = term_map_ratio(records, args.repeat)
    print(f"lint with the term map / lint without: {fast:.2f}-{slow:.2f} ({rate:,.0f} claims/s with it)")
    for what, n in sorted(renumbered(records).items()):
        print(f"{what}: {n}")


if __name__ == "__main__":
    main()

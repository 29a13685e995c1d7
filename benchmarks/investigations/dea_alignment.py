"""DEA of generated forests, positional against aligned, on edits of the gold claim sets with every edge right.

Each gold claim set of uspto/patents.jsonl (those with a dependent claim) is turned into an "output" whose
every claim keeps its gold parent, then edited: one extra claim after claim 1 (the last claim of the next
document, depending on claim 1), claim 2 left out (its children move up to its parent), or the next document's
claims instead of its own (nothing should align). Positional DEA compares generated claim k with gold claim k;
aligned DEA (spg evaluate's DEA column) compares claims aligned by content (spg.metrics.align). The always-root
row is the rule "every dependent claim depends on its tree's root". Also times the alignment.

    .venv/bin/python benchmarks/dea_alignment.py
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# benchmarks/ for common.py (the shared data folder), the repository for spg.
sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[2])]

from common import shared_file  # noqa: E402

from spg.data import load_records  # noqa: E402
from spg.forest import Claim, Forest  # noqa: E402
from spg.metrics.structure import (  # noqa: E402
    DEA,
    Ratio,
    aligned_parents,
    dependency_edge_accuracy,
    generated_parents,
    root_parents,
)


def output(claims: list[tuple[str, int | None]]) -> Forest:
    """(text, parent index or None) in order → a generated forest numbered 1..n."""
    return Forest.from_claims(Claim(i, t, () if p is None else (p + 1,)) for i, (t, p) in enumerate(claims, 1))


def copy_of(gold: Forest) -> list[tuple[str, int | None]]:
    index = {c.num: i for i, c in enumerate(gold.claims)}
    return [(c.text, None if gold.parent_of(c.num) is None else index[gold.parent_of(c.num)]) for c in gold.claims]


def extra_after_first(gold: Forest, stranger: str) -> Forest:
    claims = copy_of(gold)
    moved = [(t, None if p is None else p + (p >= 1)) for t, p in claims[1:]]
    return output([claims[0], (stranger, 0), *moved])


def second_left_out(gold: Forest) -> Forest:
    claims = copy_of(gold)
    heir = claims[1][1]
    moved = [(t, heir if p == 1 else None if p is None else p - (p > 1)) for t, p in claims[2:]]
    return output([claims[0], *moved])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.parse_args()  # --help only
    golds = [r.claims for r in load_records(shared_file("uspto/patents.jsonl"))]
    golds = [g for g in golds if len(g) > 1 and any(not c.independent for c in g)]
    nexts = golds[1:] + golds[:1]
    cases = {
        "exact copy": [output(copy_of(g)) for g in golds],
        "extra claim after claim 1": [extra_after_first(g, n.claims[-1].text) for g, n in zip(golds, nexts)],
        "claim 2 left out": [second_left_out(g) for g in golds],
        "the next document's claims": list(nexts),
    }
    print(f"{len(golds)} gold claim sets of uspto/patents.jsonl with a dependent claim")
    print("| output | positional DEA | aligned DEA | gold claims aligned |")
    print("|---|---:|---:|---:|")
    seconds = 0.0
    for name, outputs in cases.items():
        positional, aligned, share = DEA(), DEA(), Ratio()
        for gold, out in zip(golds, outputs):
            positional += dependency_edge_accuracy(gold, generated_parents(gold, out))
            start = time.process_time()
            parents = aligned_parents(gold, out)
            seconds += time.process_time() - start
            aligned += dependency_edge_accuracy(gold, parents)
            share += Ratio(len(parents), len(gold))
        print(f"| {name} | {positional.overall:.3f} | {aligned.overall:.3f} | {share.value:.3f} |")
    root = sum((dependency_edge_accuracy(g, root_parents(g)) for g in golds), DEA())
    print(f"| always root (every dependent claim on its tree's root) | {root.overall:.3f} | {root.overall:.3f} | |")
    pairs = len(golds) * len(cases)
    print(f"alignment: {1000 * seconds / pairs:.2f} ms CPU per claim-set pair ({pairs} pairs)")


if __name__ == "__main__":
    main()

"""Could a word-level signal tell an LLM's non-distinctive repetition from a claim an examiner allowed?

Three signals a next claim (claim k+1 after claims 1..k) may give, each measured on the granted US claims of the
train and dev sides of ``spg.data.checker_split`` (claims an examiner allowed: a signal firing there is a false
alarm) and on the three written development sets (``benchmarks/sets/lint_next_claim_devset{,2,5}.jsonl``, per kind):

* **run**: the dependent claim repeats a run of at least N of its chain's words (articles aside) beside at least
  three words of its own (``difflib.SequenceMatcher``), for N = 10, 12, 15: the "verbose redundancy" kind;
* **no new word**: none of its content words (``spg.lint.clauses.content``) is new against its chain and its earlier
  siblings;
* **covered**: one earlier claim holds 90 % or more of its content words, by that claim's relation to it (up its
  chain, a sibling, an independent claim, another claim).

docs/lint.md ("Seventh round") gives the figures and why none became a rule.

    python benchmarks/investigations/repetition_signals.py
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from difflib import SequenceMatcher
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import SETS, shared_records  # noqa: E402

from spg.data import checker_split  # noqa: E402
from spg.forest import Forest  # noqa: E402
from spg.lint.clauses import Reading, ancestry, content, read_claims  # noqa: E402
from spg.parse import parse_claims  # noqa: E402

RUNS = (10, 12, 15)
COVERED = 0.9
WRITTEN = ("lint_next_claim_devset.jsonl", "lint_next_claim_devset2.jsonl", "lint_next_claim_devset5.jsonl")


def says_nothing_new(forest: Forest, readings: dict[int, Reading], above: dict[int, tuple[int, ...]], num: int) -> bool:
    """Whether none of claim ``num``'s content words is new against its chain and its earlier siblings."""
    claim, r = forest.by_num[num], readings[num]
    siblings = [c.num for c in forest.claims if c.num < num and c.parents == claim.parents]
    said = {stem for a in (*above[num], *siblings) for _, stem in content(readings[a].body)}
    return {stem for _, stem in content(r.body[len(r.opening) :])} <= said | {s for _, s in content(r.opening)}


def signals(forest: Forest, num: int) -> set[str] | None:
    """The signals the last claim ``num`` of ``forest`` gives (None: not a dependent claim that says anything)."""
    readings, above = read_claims(forest), ancestry(forest)
    claim, r = forest.by_num[num], readings[num]
    if not claim.parents or r.restates:
        return None
    added = r.body[len(r.opening) :]
    mine = {stem for _, stem in content(added)}
    if len(mine) < 2:
        return None
    got = set()
    longest = max((SequenceMatcher(None, added, readings[a].body, autojunk=False)
                   .find_longest_match(0, len(added), 0, len(readings[a].body)).size for a in above[num]), default=0)
    got.update(f"run ≥ {n}" for n in RUNS if longest >= n and len(added) - longest >= 3)
    if says_nothing_new(forest, readings, above, num):
        got.add("no new word")
    for c in forest.claims:
        if c.num < num and len(mine & {s for _, s in content(readings[c.num].body)}) >= COVERED * len(mine):
            relation = ("up its chain" if c.num in above[num] else "a sibling" if c.parents == claim.parents
                        else "independent" if not c.parents else "another claim")
            got.add(f"covered by {relation}")
    return got


def show(label: str, counts: Counter[str], n: int) -> None:
    print(f"{label} ({n}): " + ", ".join(f"{k} {v}" + (f" ({v / n:.1%})" if n > 100 else "")
                                          for k, v in sorted(counts.items())))


def measure(signals: Callable[[Forest, int], set[str] | None]) -> None:
    """Print how often each of ``signals``' signals comes on the granted US next dependent claims of train and dev,
    and on each written development set per annotated kind."""
    documents = shared_records()
    counts: Counter[str] = Counter()
    n = 0
    for doc in documents:
        if doc.fields.get("kind") != "grant" or checker_split(doc.id) == "test":
            continue
        claims = doc.claims.claims
        for k in range(1, len(claims)):
            got = signals(Forest.from_claims(claims[: k + 1]), claims[k].num)
            if got is not None:
                n += 1
                counts.update(got)
    show("granted US next dependent claims, train + dev", counts, n)
    by_id = {doc.id: doc for doc in documents}
    for name in WRITTEN:
        kinds: dict[str, Counter[str]] = defaultdict(Counter)
        totals: Counter[str] = Counter()
        for line in (SETS / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            given = [c for c in by_id[row["id"]].claims.claims if c.num <= row["k"]]
            (candidate,) = parse_claims(row["candidate"]).claims
            got = signals(Forest.from_claims([*given, candidate]), candidate.num)
            if got is not None:
                totals[row["category"]] += 1
                kinds[row["category"]].update(got)
        for kind, found in sorted(kinds.items()):
            show(f"{name}, {kind}", found, totals[kind])


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    measure(signals)


if __name__ == "__main__":
    main()

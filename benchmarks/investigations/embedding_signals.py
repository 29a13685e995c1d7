"""Could sentence embeddings tell an LLM's non-distinctive repetition from a claim an examiner allowed?

The repetitions the word rules miss are restatements in other words ("tallying" for "counting"), so the embedding
model spg already ships for BERTScore (all-MiniLM-L6-v2, a sentence-similarity model; the ``eval`` extra) was tried
as a reader of meaning. For each next claim (claim k+1 after claims 1..k) that is a dependent claim, the cosine
similarity between its text after the citation and that of each earlier sibling (a claim citing the same parents),
and that of each clause of the claims up its chain, the highest of each kept; measured on the granted US claims of
the train and dev sides of ``spg.data.checker_split`` (a high similarity there is a false alarm) and on the three
written development sets (``benchmarks/sets/lint_next_claim_devset{,2,5}.jsonl``, per annotated kind), alone and together
with "no new word" (none of the claim's content words is new against its chain and earlier siblings:
``repetition_signals.py``). ``--without-finding`` counts only the claims ``spg lint`` reports no warning or error
on: what a signal would add to the rules. Then the similarity of single words: synonyms a restatement uses, and
words siblings written on purpose differ in.

docs/lint.md ("Eighth round", "Ninth round") gives the figures and why no rule came of them.

    python benchmarks/investigations/embedding_signals.py [--without-finding]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from repetition_signals import measure, says_nothing_new  # noqa: E402

from spg.forest import Forest  # noqa: E402
from spg.lint import lint  # noqa: E402
from spg.lint.clauses import ancestry, read_claims  # noqa: E402
from spg.metrics.text import default_bertscore_model  # noqa: E402

THRESHOLDS = (0.9, 0.95)
# (synonyms a written repetition used) then (words granted siblings differ in on purpose)
WORDS = [("tallying", "counting"), ("anchored", "secured"), ("periodically", "cyclically"), ("located", "positioned"),
         ("copper", "aluminium"), ("longest", "shortest"), ("cable", "radio"), ("before", "after")]


class Similarity:
    """Cosine similarity of texts by all-MiniLM-L6-v2, each text encoded once."""

    def __init__(self) -> None:
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(default_bertscore_model()), device="cpu")
        self.seen: dict[str, object] = {}

    def __call__(self, a: str, b: str) -> float:
        for text in (a, b):
            if text not in self.seen:
                self.seen[text] = self.model.encode(text, normalize_embeddings=True)
        return float(self.seen[a] @ self.seen[b])


def signals(forest: Forest, num: int, similarity: Similarity, without_finding: bool = False) -> set[str] | None:
    """The signals the last claim ``num`` of ``forest`` gives (None: not a dependent claim that says anything, or,
    with ``without_finding``, one ``spg lint`` already reports a warning or error on)."""
    readings, above = read_claims(forest), ancestry(forest)
    claim, r = forest.by_num[num], readings[num]
    if not claim.parents or r.restates or not r.parts:
        return None
    if without_finding and any(f.claim == num and f.severity != "info" for f in lint(forest).findings):
        return None
    mine = " ".join(p.strip() for p in r.parts)
    siblings = [c.num for c in forest.claims if c.num < num and c.parents == claim.parents and readings[c.num].parts]
    best = max((similarity(mine, " ".join(p.strip() for p in readings[s].parts)) for s in siblings), default=0.0)
    got = {f"sibling ≥ {t}" for t in THRESHOLDS if best >= t}
    # one clause up its chain said again ("the programming step is repeated …" under "… repeating the programming
    # step …"): the chain's clauses one by one, as the whole of a long claim says much else
    chain = max((similarity(mine, p.strip()) for a in above[num] for p in readings[a].parts if p.strip()),
                default=0.0)
    got.update(f"chain clause ≥ {t}" for t in THRESHOLDS if chain >= t)
    if max(best, chain) >= THRESHOLDS[0]:
        got.add(f"sibling or chain clause ≥ {THRESHOLDS[0]}")
    if got and says_nothing_new(forest, readings, above, num):
        got.update(f"{signal} and no new word" for signal in list(got))
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--without-finding", action="store_true",
                        help="only claims spg lint reports no warning or error on: what a signal would add")
    args = parser.parse_args()
    similarity = Similarity()
    measure(lambda forest, num: signals(forest, num, similarity, args.without_finding))
    print("single words: " + ", ".join(f"{a}/{b} {similarity(a, b):.2f}" for a, b in WORDS))


if __name__ == "__main__":
    main()

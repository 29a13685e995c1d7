"""Alignment of a generated claim set to the gold one, so that DEA of a generated forest survives an extra or a
missing claim (docs/evaluation.md, "Dependency-edge accuracy").

Claims are compared by content words: the lowercased alphabetic words of a claim without function words and
claim boilerplate ("the", "of", "wherein", "comprising", "claim": the antecedent checker's stop words) and without
numbers (so renumbering a claim set changes no similarity), each weighted by its rarity among the gold claims. The alignment
is the order-preserving, one-to-one matching of generated to gold claims with the largest total similarity,
pairs below ``min_similarity`` never matched: a weighted longest common subsequence, O(n·m) by dynamic
programming. The weights come from the gold claims only, so a pair's similarity depends on those two claims and
the gold set, never on the other generated claims: inserting or deleting a generated claim changes no other
pair's similarity.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from spg.metrics.antecedent import _STOP

_WORD_RE = re.compile(r"[a-z]+")
# Words every claim of a set may share whatever it claims: they would make two short dependent claims look alike.
_NOT_CONTENT = _STOP | {"claim", "claims"}

MIN_SIMILARITY = 0.3


def content_words(text: str) -> tuple[str, ...]:
    """The distinct lowercased alphabetic words of a claim, sorted, function words and claim boilerplate left out
    (so are digits). Sorted, so that sums over them do not depend on the process's string hashing."""
    return tuple(sorted(set(_WORD_RE.findall(text.lower())) - _NOT_CONTENT))


def word_weights(gold: Sequence[Sequence[str]]) -> tuple[dict[str, float], float]:
    """idf(w) = log((1 + n) / (1 + df(w))) over the n gold claims, and the weight of a word no gold claim has.

    A word in every gold claim weighs 0: it tells no claim apart. One no gold claim has weighs log(1 + n), the
    most, since it only makes the generated claim differ.
    """
    n = len(gold)
    df = Counter(w for words in gold for w in words)
    return {w: math.log((1 + n) / (1 + k)) for w, k in df.items()}, math.log(1 + n)


def similarities(gold: Sequence[Sequence[str]], generated: Sequence[Sequence[str]]) -> list[list[float]]:
    """Weighted Dice coefficient of each generated claim a with each gold claim b (content words, idf weights):
    sim(a, b) = 2 Σ_{w ∈ a∩b} idf(w) / (Σ_{w ∈ a} idf(w) + Σ_{w ∈ b} idf(w)), 0 when they share no weighted word.

    The shared weights are summed through an index of the gold words, so the cost is the shared words, not n·m
    set intersections.
    """
    weights, unseen = word_weights(gold)
    postings: dict[str, list[int]] = {}
    for j, words in enumerate(gold):
        for w in words:
            if weights[w]:
                postings.setdefault(w, []).append(j)
    gold_weight = [sum(weights[w] for w in words) for words in gold]
    out = []
    for words in generated:
        own, shared = 0.0, [0.0] * len(gold)
        for w in words:
            weight = weights.get(w, unseen)
            own += weight
            for j in postings.get(w, ()):
                shared[j] += weight
        out.append([2 * x / (own + g) if x else 0.0 for x, g in zip(shared, gold_weight)])
    return out


def align_claims(
    gold: Sequence[str], generated: Sequence[str], min_similarity: float = MIN_SIMILARITY
) -> dict[int, int]:
    """generated index → gold index: the order-preserving one-to-one alignment of largest total gain.

    A matched pair gains its similarity minus ``min_similarity``; pairs below that floor are never matched, so a
    claim that resembles no gold claim stays unaligned instead of filling a gap, and two mediocre matches do not
    outweigh one good one. Among alignments of equal gain the traceback prefers a match, then skipping a
    generated claim, so one inserted claim that matches nothing leaves every other pair as it was.
    """
    sims = similarities([content_words(t) for t in gold], [content_words(t) for t in generated])
    gains = [[s - min_similarity for s in row] for row in sims]
    # best[i][j]: the largest total gain aligning generated[:i] with gold[:j]; it never decreases along a row
    best = [[0.0] * (len(gold) + 1)]
    for gain in gains:
        above = best[-1]
        if max(gain, default=-1.0) < 0:  # matches nothing: the row above carries over
            best.append(above)
            continue
        row = [0.0]
        for j, g in enumerate(gain):
            row.append(max(row[j], above[j + 1], above[j] + g if g >= 0 else 0.0))
        best.append(row)
    pairs: dict[int, int] = {}
    i, j = len(generated), len(gold)
    while i and j:
        g = gains[i - 1][j - 1]
        if g >= 0 and best[i][j] == best[i - 1][j - 1] + g:
            pairs[i - 1] = j - 1
            i, j = i - 1, j - 1
        elif best[i][j] == best[i - 1][j]:
            i -= 1
        else:
            j -= 1
    return dict(sorted(pairs.items()))

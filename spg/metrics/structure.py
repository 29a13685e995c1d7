"""Structural metrics: dependency-edge accuracy (paper §5.2, Table "dea") and the valid rate (appendix).

DEA is the fraction of gold dependent claims whose predicted parent equals the gold parent, the gold
parent being the forest's single parent (:func:`spg.forest.single_parent`: the lowest cited claim).
It is reported overall and by gold depth (root = 1): d2, d3, d4, d5, and "d6+" for deeper claims,
which the paper omits as sparse. Counts are kept so corpus figures pool claims (micro average)
rather than averaging documents.

Predictions come either from a pointer (teacher-forced: one parent per gold claim) or from any
generator's output, whose claims are aligned to the gold claims either by content
(:func:`aligned_parents`, tolerant of inserted and left-out claims) or by position
(:func:`generated_parents`), so baselines without a pointer get a DEA too. A gold dependent claim with no
prediction counts as wrong; :attr:`DEA.coverage` says how many had one. :func:`root_parents` is the
trivial reference rule "every claim depends on its tree's root".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from spg.forest import Claim, Forest
from spg.linearize import STRUCTURE_TOKENS, parse_tagged, strip_model_tokens
from spg.metrics.align import MIN_SIMILARITY, align_claims
from spg.parse import claim_parents, split_claims

DEPTH_BUCKETS = ("d2", "d3", "d4", "d5", "d6+")
# split_claims reads unnumbered prose as one claim; a claim set in plain text must number its first claim.
_FIRST_CLAIM_RE = re.compile(r"(?:^|\s)1\s?\.\s")


@dataclass(frozen=True)
class Ratio:
    """hits / total, addable across documents; ``value`` is None when nothing was counted."""

    hits: int = 0
    total: int = 0

    @property
    def value(self) -> float | None:
        return self.hits / self.total if self.total else None

    def __add__(self, other: Ratio) -> Ratio:
        return Ratio(self.hits + other.hits, self.total + other.total)


def depth_bucket(depth: int) -> str:
    return f"d{depth}" if depth < 6 else "d6+"


@dataclass(frozen=True)
class DEA:
    """Dependency-edge accuracy with its counts; adding two pools their claims (``sum(deas, DEA())``)."""

    correct: Ratio = Ratio()
    by_bucket: Mapping[str, Ratio] = field(default_factory=dict)
    covered: Ratio = Ratio()  # gold dependent claims that received any prediction

    @property
    def overall(self) -> float | None:
        return self.correct.value

    @property
    def by_depth(self) -> dict[str, float | None]:
        return {b: self.by_bucket.get(b, Ratio()).value for b in DEPTH_BUCKETS}

    @property
    def counts(self) -> dict[str, tuple[int, int]]:
        """(correct, total) overall ("all") and per depth bucket."""
        out = {"all": (self.correct.hits, self.correct.total)}
        out.update({b: (r.hits, r.total) for b in DEPTH_BUCKETS for r in [self.by_bucket.get(b, Ratio())]})
        return out

    @property
    def coverage(self) -> float | None:
        return self.covered.value

    def __add__(self, other: DEA) -> DEA:
        buckets = {b: self.by_bucket.get(b, Ratio()) + other.by_bucket.get(b, Ratio()) for b in DEPTH_BUCKETS}
        return DEA(self.correct + other.correct, buckets, self.covered + other.covered)

    def as_dict(self) -> dict:
        return {"overall": self.overall, **self.by_depth, "coverage": self.coverage, "counts": self.counts}


def dependency_edge_accuracy(gold: Forest, predicted: Mapping[int, int | None]) -> DEA:
    """DEA of ``predicted`` (claim number → predicted parent number, None = predicted independent).

    Scored claims: the gold dependent claims with an unbroken chain to a root (their depth is defined).
    A claim absent from ``predicted`` or predicted independent is wrong.
    """
    hits: dict[str, int] = {}  # per depth bucket; plain counts, as this runs for every document
    totals: dict[str, int] = {}
    covered = 0
    for claim in gold:
        depth = gold.depth(claim.num)
        if claim.independent or depth is None:
            continue
        bucket = depth_bucket(depth)
        hits[bucket] = hits.get(bucket, 0) + (predicted.get(claim.num) == gold.parent_of(claim.num))
        totals[bucket] = totals.get(bucket, 0) + 1
        covered += claim.num in predicted
    scored = sum(totals.values())
    buckets = {b: Ratio(hits[b], totals[b]) for b in totals}
    return DEA(Ratio(sum(hits.values()), scored), buckets, Ratio(covered, scored))


def generated_parents(gold: Forest, generated: Forest) -> dict[int, int | None]:
    """Parents a generator's claims name in their text, keyed by the gold claim number they align to.

    Alignment is by claim number (positional DEA): generated claim k stands for gold claim k. Its parent is
    the single parent of the claims its back-references cite (lowest cited claim), None when it cites none.
    Gold claims the generator did not produce are absent (scored wrong by DEA).
    """
    return {num: claim.parent for num, claim in generated.by_num.items() if num in gold.by_num}


def aligned_parents(
    gold: Forest, generated: Forest, min_similarity: float = MIN_SIMILARITY
) -> dict[int, int | None]:
    """Predicted parents in gold numbering, keyed by the gold claims that a generated claim aligns to by content.

    :func:`spg.metrics.align.align_claims` pairs generated with gold claims. A generated claim aligned to gold
    claim g predicts for g the gold claim aligned to its own parent; None when it names no parent or its parent
    is aligned to no gold claim (wrong either way). Gold claims aligned to nothing are absent (wrong for DEA),
    so the keys are the aligned gold claims, independent ones included.
    """
    alignment = align_claims([c.text for c in gold.claims], [c.text for c in generated.claims], min_similarity)
    gold_of: dict[int, int] = {}
    for k, g in alignment.items():
        gold_of.setdefault(generated.claims[k].num, gold.claims[g].num)  # a repeated number means its first claim
    return {gold.claims[g].num: gold_of.get(generated.claims[k].parent) for k, g in alignment.items()}


def root_parents(gold: Forest) -> dict[int, int | None]:
    """The reference rule "every dependent claim depends on the root of its tree", as predicted parents."""
    root: dict[int, int] = {}
    for claim in gold:
        parent = gold.parent_of(claim.num)
        root.setdefault(claim.num, claim.num if parent is None else root[parent])
    return {num: None if r == num else r for num, r in root.items()}


def pointer_agreement(pointer: Sequence[int | None], text_parents: Sequence[int | None]) -> Ratio:
    """Pointer / back-reference agreement over generated dependent claims (paper: 78.7%).

    Both sequences give, per generated claim, its parent (any consistent numbering); a claim is
    dependent when the pointer gave it a parent. Agreement: the text's back-reference names that parent.
    """
    pairs = [(p, t) for p, t in zip(pointer, text_parents, strict=False) if p is not None]
    return Ratio(sum(p == t for p, t in pairs), len(pairs))


# ---------------------------------------------------------------- valid rate


@dataclass(frozen=True)
class Validity:
    valid: bool
    reasons: list[str] = field(default_factory=list)


def is_tagged(text: str) -> bool:
    return any(tag in text for tag in STRUCTURE_TOKENS)


@dataclass(frozen=True)
class GeneratedOutput:
    """A generator's output read once: its claims (numbered as it numbers them) and its validity."""

    forest: Forest
    validity: Validity
    tagged: bool


def read_output(text: str, pointer: Sequence[int | None] | None = None) -> GeneratedOutput:
    """Parse an output for DEA and the valid rate.

    Tagged output (any structure tag present) is read by :func:`spg.linearize.parse_tagged`: claims are
    numbered in sequence order and parents come from ``pointer`` (per claim, the serialisation index of
    its parent) when given, else from the back-references. Plain text is read by :func:`plain_forest`
    and judged by :func:`plain_validity`.
    """
    if is_tagged(text):
        parsed = parse_tagged(text, pointer)
        return GeneratedOutput(parsed.forest, Validity(parsed.valid, list(parsed.reasons)), True)
    forest = plain_forest(text) if _FIRST_CLAIM_RE.search(text) else Forest()
    return GeneratedOutput(forest, plain_validity(forest), False)


def valid_output(text: str) -> Validity:
    """The paper's "valid output" (appendix "Valid rate"), for tagged and for plain numbered text."""
    return read_output(text).validity


def plain_forest(text: str) -> Forest:
    """Numbered claim text as a forest: claim numbers as written, parents from the back-references."""
    return Forest.from_claims(
        Claim(num, body, claim_parents(body, num)) for num, body in split_claims(strip_model_tokens(text))
    )


def plain_validity(forest: Forest) -> Validity:
    """The three conditions of the appendix, transposed to numbered claim text ("1. ... 2. ...").

    ``forest`` is the text read by :func:`plain_forest` (empty when the text numbers no first claim), so claim
    texts are whitespace-normalised.

    (i) not truncated or degenerate: at least one numbered claim; numbers run 1..n in order without
        gaps or repeats; the last claim ends with a period (a cut-off output stops mid-sentence); no
        claim repeats an earlier claim word for word (the repetition loop of a collapsed model);
    (ii) at least one well-formed independent claim: cites no claim and has at least three words;
    (iii) every dependent claim cites only claims that exist and precede it.
    """
    claims = forest.claims
    if not claims:
        return Validity(False, ["no numbered claim found"])
    reasons = []
    nums = [c.num for c in claims]
    if nums != list(range(1, len(nums) + 1)):
        reasons.append(f"claim numbers are not 1..{len(nums)} in order: {_short(nums)}")
    if not claims[-1].text.rstrip(" \"'”)").endswith("."):
        reasons.append(f"claim {claims[-1].num} does not end with a period: the output is truncated")
    seen: dict[str, int] = {}
    for c in claims:
        key = c.text.lower()
        if key in seen:
            reasons.append(f"claim {c.num} repeats claim {seen[key]} word for word")
            break
        seen[key] = c.num
    if not any(c.independent and c.text.count(" ") >= 2 for c in claims):  # three words or more
        reasons.append("no well-formed independent claim")
    position = {c.num: i for i, c in reversed(list(enumerate(claims)))}
    for i, c in enumerate(claims):
        bad = [p for p in c.parents if position.get(p, i) >= i]
        if bad:
            reasons.append(f"dependent claim {c.num} cites claim {bad[0]}, which does not precede it")
    return Validity(not reasons, reasons)


def _short(nums: Sequence[int]) -> str:
    return ", ".join(map(str, nums[:12])) + (" …" if len(nums) > 12 else "")


def valid_rate(texts: Iterable[str]) -> Ratio:
    return sum((Ratio(int(valid_output(t).valid), 1) for t in texts), Ratio())

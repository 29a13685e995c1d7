"""Train a cross-encoder reader of ``spg lint``'s antecedent warnings (issue 43) and measure it beside the judge, on dev.

The judge (spg.lint.antecedent.judge) reads each warning through the grammar's evidence and static word vectors:
it cannot read context, and on a fresh blind sample of held-out warnings only 25 % of what it keeps are real
(docs/lint-antecedent.md, "Fresh blind sample"). This script tries the packaged all-MiniLM-L6-v2 fine-tuned as a
cross-encoder that reads the warning in its claim and the text its chain offers as an introduction.

Held-out discipline as for the judge (``spg.data.checker_split``): fitted on train documents, measured and
thresholded on dev; test is not read here. Examples and labels are exactly the judge's
(train_antecedent_judge.examples: injected defects real, weight 1; warnings every blind labeller agreed on, their
label, weight ``--labelled-weight``; other warnings false, weight ``--unlabelled-weight``); ``--per-doc`` injected
sites per train document and kind (dev keeps the judge's 6, seed 0, so that both are held to the same sites).

Input, within ``--max-len`` word pieces: first segment, the claim around the reference with it marked "[ ... ]";
second, what the grammar's message names (the closest or out-of-scope introduction), then, claim by claim along the
chain (spg.lint.clauses.ancestry, root first, then the claim itself up to the reference), the words around each earlier
mention of the reference's head, or a chain claim's opening where the head is not there.

Model: the encoder, mean-pooled, and a linear head; the embeddings and the lower ``--frozen`` layers stay as
trained (a few hundred labelled warnings and a shared 2-core CPU: the upper layers learn the task, the lower ones
keep their reading of English), weighted binary cross-entropy, AdamW, ``--epochs`` epochs, batches sorted by length.

Dev figures, the reader beside the shipped judge in the same run: area under the ROC curve among the labelled dev
warnings, the threshold that keeps ``--recall`` (and 90 %) of the injected defects of every kind, the natural dev
warnings kept, the labelled ones kept and the share of those real, and warnings per claim by kind of document
(the ``antecedent-ambiguous`` ones, never judged, counted in both). The decision rule (fixed before training): the
reader is worth shipping only if, at equal injected recall, the share of real warnings among the labelled dev
warnings it keeps beats the judge's by 10 points or more.

    .venv/bin/python benchmarks/train_antecedent_reader.py [--work runs/antecedent-reader] [--epochs 2]

needs torch, transformers and tokenizers (``spg[eval]``); the examples take about 2 minutes, training about half an
hour on a busy 2-core CPU (1,855 s with a generator and a benchmark beside it). The result, negative:
docs/lint-antecedent.md, "Tried: a cross-encoder reader".
"""

from __future__ import annotations

import argparse
import pickle
import random
import re
import time
from collections import Counter
from pathlib import Path

import numpy as np
from lint_antecedent import agreed_labels, kind, load
from train_antecedent_judge import auc, cuts, examples

from spg.data import checker_split
from spg.forest import Forest
from spg.lint.antecedent import check_antecedents
from spg.lint.antecedent.findings import AntecedentFinding
from spg.lint.antecedent.judge import head_and_modifiers, shipped_judge
from spg.lint.antecedent.words import _singular
from spg.lint.clauses import ancestry
from spg.parse import parse_claims

_WORD = re.compile(r"\S+")
_NAMED = re.compile(r"\((closest: .*|.* introduces it, but claim \d+ does not depend on that claim)\)$")


def _words(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)]


def _mentions(text: str, head: str, span: int, stop: int | None = None) -> str:
    """The words within ``span`` of each mention of ``head`` (singular, lower case) in ``text`` (up to ``stop``),
    merged where they overlap and joined by " ... "; "" where the head is not there."""
    words = [w for w in _words(text) if stop is None or w[1] <= stop]
    hits = [i for i, (_, _, w) in enumerate(words) if _singular(re.sub(r"\W+$", "", w.lower())) == head]
    spans: list[list[int]] = []
    for i in hits:
        lo, hi = max(0, i - span), min(len(words), i + span + 1)
        if spans and lo <= spans[-1][1]:
            spans[-1][1] = hi
        else:
            spans.append([lo, hi])
    return " ... ".join(" ".join(w for _, _, w in words[lo:hi]) for lo, hi in spans)


def reader_input(forest: Forest, finding: AntecedentFinding, counts, window: int = 40, span: int = 8) -> tuple:
    """(the claim around the reference, marked; what the chain offers as its introduction; the judge's score)."""
    ci = counts.index[finding.claim]
    claim = forest.claims[ci]
    text = claim.text
    marked = f"{text[: finding.start]}[ {text[finding.start : finding.end]} ]{text[finding.end :]}"
    words = _words(marked)
    at = next((i for i, w in enumerate(words) if w[0] >= finding.start), 0)
    first = " ".join(w for _, _, w in words[max(0, at - window) : at + window])
    head = _singular(head_and_modifiers(finding.term)[0])
    named = _NAMED.search(finding.message)
    parts = [named.group(1)] if named else ["no introduction named"]
    for num in [*reversed(ancestry(forest)[claim.num]), claim.num]:
        other = forest.claims[counts.index[num]]
        got = _mentions(other.text, head, span, finding.start if other is claim else None)
        if got:
            parts.append(f"claim {other.num}: {got}")
        elif other is not claim:
            parts.append(f"claim {other.num}: " + " ".join(w for _, _, w in _words(other.text)[:12]) + " ...")
    return first, " | ".join(parts), shipped_judge().score(forest, [finding])[0]


def tokenizer(path: Path, max_len: int):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=max_len, strategy="longest_first")
    return tok


def batches(encoded: list, size: int, rng: random.Random | None):
    """Index batches, of similar lengths (shuffled into pools of 8 batches first when ``rng`` is given)."""
    order = list(range(len(encoded)))
    if rng is None:
        order.sort(key=lambda i: len(encoded[i].ids))
        return [order[i : i + size] for i in range(0, len(order), size)]
    rng.shuffle(order)
    out = []
    for lo in range(0, len(order), size * 8):
        pool = sorted(order[lo : lo + size * 8], key=lambda i: len(encoded[i].ids))
        out += [pool[i : i + size] for i in range(0, len(pool), size)]
    rng.shuffle(out)
    return out


def tensors(encoded: list, idx: list[int]):
    import torch

    n = max(len(encoded[i].ids) for i in idx)
    ids = torch.zeros(len(idx), n, dtype=torch.long)
    types = torch.zeros_like(ids)
    mask = torch.zeros_like(ids)
    for r, i in enumerate(idx):
        e = encoded[i]
        ids[r, : len(e.ids)] = torch.tensor(e.ids)
        types[r, : len(e.ids)] = torch.tensor(e.type_ids)
        mask[r, : len(e.ids)] = 1
    return ids, types, mask


def build(path: Path, frozen: int, seed: int):
    import torch
    from transformers import AutoModel

    class CrossEncoder(torch.nn.Module):
        """The encoder's states mean-pooled over the pair, and one logit."""

        def __init__(self) -> None:
            super().__init__()
            self.encoder = AutoModel.from_pretrained(path)
            self.head = torch.nn.Linear(self.encoder.config.hidden_size, 1)

        def forward(self, ids, types, mask):
            states = self.encoder(input_ids=ids, token_type_ids=types, attention_mask=mask).last_hidden_state
            m = mask.unsqueeze(-1).to(states.dtype)
            return self.head((states * m).sum(1) / m.sum(1)).squeeze(-1)

    torch.manual_seed(seed)
    model = CrossEncoder()
    for p in model.encoder.embeddings.parameters():
        p.requires_grad = False
    for layer in model.encoder.encoder.layer[:frozen]:
        for p in layer.parameters():
            p.requires_grad = False
    return model


def train(model, encoded, y, w, args) -> None:
    import torch

    rng = random.Random(args.seed)
    head = list(model.head.parameters())
    body = [p for n, p in model.encoder.named_parameters() if p.requires_grad]
    opt = torch.optim.AdamW([{"params": body, "lr": args.lr}, {"params": head, "lr": args.lr * 20}], weight_decay=0.01)
    steps = args.epochs * len(batches(encoded, args.batch, random.Random(0)))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / (0.06 * steps)) * max(0.0, 1 - s / steps))
    yt, wt = torch.tensor(y, dtype=torch.float32), torch.tensor(w, dtype=torch.float32)
    model.train()
    step, t0 = 0, time.perf_counter()
    for epoch in range(args.epochs):
        total = 0.0
        for idx in batches(encoded, args.batch, rng):
            logits = model(*tensors(encoded, idx))
            loss = (torch.nn.functional.binary_cross_entropy_with_logits(logits, yt[idx], reduction="none")
                    * wt[idx]).sum() / wt[idx].sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            total += loss.item()
            if step % 50 == 0:
                print(f"  epoch {epoch + 1} step {step}/{steps}: loss {total / 50:.4f} ({time.perf_counter() - t0:.0f} s)",
                      flush=True)
                total = 0.0
    model.eval()


def score(model, encoded, size: int = 32) -> np.ndarray:
    import torch

    out = np.zeros(len(encoded), np.float32)
    with torch.no_grad():
        for idx in batches(encoded, size, None):
            out[idx] = torch.sigmoid(model(*tensors(encoded, idx))).numpy()
    return out


def report(name: str, p: np.ndarray, rows, tried, recall: float, per_kind: dict, claims: dict, classes: list) -> dict:
    """Print one scorer's dev figures at ``recall`` and return them; ``classes``: each row's labelled class or None."""
    origins = [r[5] for r in rows]
    natural = np.array([o[0] == "natural" for o in origins])
    labelled = natural & np.array([r[4] is None for r in rows])
    y = np.array([r[3] for r in rows])
    cut = cuts(p, origins, tried, recall)
    threshold = min(cut.values())
    kept = (p >= threshold) & natural
    real = y[kept & labelled]
    by_kind = Counter(per_kind[o[1]] for o, k in zip(origins, kept) if k)
    ambiguous = claims["ambiguous"]
    line = ", ".join(f"{k} {(by_kind[k] + ambiguous[k]) / n:.3f}" for k, n in sorted(claims["claims"].items()))
    share = real.mean() if len(real) else 0.0
    print(f"{name} at {recall:.0%} injected recall per kind: threshold {threshold:.3f}; natural dev warnings kept "
          f"{kept.sum()} of {natural.sum()}; labelled kept {len(real)} of {labelled.sum()}, {real.sum()} real = "
          f"{share:.0%} (AUC among the labelled {auc(p[labelled], y[labelled]):.3f}); warnings per claim {line}; "
          "cuts " + ", ".join(f"{k} {v:.3f}" for k, v in cut.items()))
    tally = {True: Counter(), False: Counter()}
    for c, k in zip(classes, kept):
        if c is not None:
            tally[bool(k)][c] += 1
    names = sorted(set(tally[True]) | set(tally[False]), key=lambda c: -tally[True][c] - tally[False][c])
    print("  labelled by the first labeller's class, kept / made notes: "
          + ", ".join(f"{c} {tally[True][c]}/{tally[False][c]}" for c in names))
    return {"threshold": threshold, "share": share, "kept": len(real), "auc": auc(p[labelled], y[labelled])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=Path("runs/antecedent-reader"),
                    help="cache of the examples, the trained weights and the dev scores (delete after changing inputs)")
    ap.add_argument("--per-doc", type=int, default=3, help="injected sites per train document and kind")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--unlabelled-weight", type=float, default=0.5)
    ap.add_argument("--named-weight", type=float, default=0.5)
    ap.add_argument("--labelled-weight", type=float, default=3.0)
    ap.add_argument("--max-len", type=int, default=256, help="word pieces of the pair")
    ap.add_argument("--frozen", type=int, default=3, help="lower encoder layers left as trained (of 6)")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=5e-5, help="the encoder's learning rate (the head's is 20 times it)")
    ap.add_argument("--recall", type=float, default=0.93, help="injected-defect recall per kind kept on dev")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    import torch

    from spg.metrics.text import default_bertscore_model

    torch.set_num_threads(args.threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    path = Path(default_bertscore_model())
    docs = load("uspto/patents.jsonl") + load("pap2pat/patents.jsonl.gz")
    by = {s: [d for d in docs if checker_split(d["id"]) == s] for s in ("train", "dev")}
    agreed = agreed_labels()
    labels = {k: int(real) for k, (real, _) in agreed.items()}
    unlabelled = (args.unlabelled_weight, args.named_weight)
    args.work.mkdir(parents=True, exist_ok=True)
    data = {}
    for s, per_doc, seed in (("train", args.per_doc, args.seed), ("dev", 6, 0)):
        cache = args.work / f"examples-{s}-{per_doc}-{seed}-{args.unlabelled_weight}-{args.named_weight}.pkl"
        if not cache.is_file():
            t = time.perf_counter()
            cache.write_bytes(pickle.dumps(examples(by[s], per_doc, seed, labels, unlabelled, reader_input)))
            print(f"{s}: examples built in {time.perf_counter() - t:.0f} s")
        data[s] = pickle.loads(cache.read_bytes())
        rows = data[s][0]
        kinds = Counter(r[5][0] for r in rows)
        print(f"{s}: {len(rows)} findings; natural {kinds['natural']} "
              f"({sum(r[4] is None for r in rows if r[5][0] == 'natural')} labelled), injected "
              + ", ".join(f"{k} {kinds[k]}" for k in "abcd"))
    tok = tokenizer(path, args.max_len)
    enc = {s: tok.encode_batch([(r[0], r[1]) for r in data[s][0]]) for s in data}
    lengths = [len(e.ids) for e in enc["train"]]
    print(f"train pairs: median {int(np.median(lengths))} word pieces, {np.mean([n >= args.max_len for n in lengths]):.0%} "
          f"truncated at {args.max_len}")
    weights = args.work / f"reader-{args.frozen}-{args.epochs}-{args.lr}-{args.per_doc}-{args.seed}.pt"
    model = build(path, args.frozen, args.seed)
    if weights.is_file():
        model.load_state_dict(torch.load(weights))
        model.eval()
    else:
        rows = data["train"][0]
        t = time.perf_counter()
        train(model, enc["train"], [r[3] for r in rows], [args.labelled_weight if r[4] is None else r[4] for r in rows],
              args)
        print(f"trained in {time.perf_counter() - t:.0f} s ({len(rows)} examples x {args.epochs} epochs, "
              f"{args.threads} threads)")
        torch.save(model.state_dict(), weights)
    t = time.perf_counter()
    reader = score(model, enc["dev"])
    print(f"dev scored in {time.perf_counter() - t:.1f} s ({len(reader)} pairs)")
    rows, tried = data["dev"]
    judge = np.array([r[2] for r in rows])
    per_kind = {d["id"]: kind(d) for d in by["dev"]}
    claims: dict = {"claims": Counter(), "ambiguous": Counter()}
    warnings = {}  # a document's ``antecedent`` warnings, in the order examples() made its natural rows
    for d in by["dev"]:
        forest = parse_claims(d["claims"])
        found = check_antecedents(forest)
        claims["claims"][kind(d)] += len(forest)
        claims["ambiguous"][kind(d)] += sum(f.rule == "antecedent-ambiguous" for f in found)
        warnings[d["id"]] = [(d["id"], f.claim, f.start, f.term) for f in found if f.rule == "antecedent"][::-1]
    classes = [None if r[5][0] != "natural" or (key := warnings[r[5][1]].pop()) not in agreed
               else ("real " if agreed[key][0] else "false ") + agreed[key][1] for r in rows]
    assert all((c is not None) == (r[5][0] == "natural" and r[4] is None) for c, r in zip(classes, rows))
    got = {}
    for recall in sorted({args.recall, 0.90}, reverse=True):
        for name, p in (("judge ", judge), ("reader", reader)):
            got[name, recall] = report(name, p, rows, tried, recall, per_kind, claims, classes)
    j, r = got["judge ", args.recall], got["reader", args.recall]
    gain = 100 * (r["share"] - j["share"])
    print(f"decision at {args.recall:.0%}: the reader's real share among kept labelled dev warnings {r['share']:.0%} "
          f"against the judge's {j['share']:.0%} ({gain:+.0f} points): "
          + ("worth shipping (>= +10)" if gain >= 10 else "not worth shipping (< +10)"))


if __name__ == "__main__":
    main()

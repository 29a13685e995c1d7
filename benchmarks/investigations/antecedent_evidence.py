"""Can what a warning names, or a prior learnt on other claims, tell real antecedent warnings from false ones?

Two signals a linter could rank its antecedent warnings by, without world knowledge, each measured on every
labelled sample beside benchmarks/lint_antecedent.py (seeds 7-12, two labellers each; warnings still reported by
today's analysis, a warning drawn in two samples counted once per sample) and against the benchmark's injected
defects on the USPTO set:

* the evidence the message names: another introduction of the reference's head in scope ("closest: ..."), one only
  in a claim outside the scope ("... introduces it, but claim N does not depend on that claim"), none at all;
* a prior learnt on Pap2Pat (the held-out set): for each head noun, the share of its definite references the
  analysis finds no basis for, smoothed towards the corpus rate. A noun writers often use without introducing it
  ("the user", "the genome", "the temperature") should make a false warning likelier.

For each, what keeping only the warnings above a cut would do: recall on injected defects and warnings per claim
on granted US claims. With ``--embedded-judge``, a third signal that does carry world knowledge: the embedded
SmolLM2-135M-Instruct asked, for each warning both labellers of the fresh samples (USPTO seed 13, Pap2Pat seed 14)
agree on, whether the reference was introduced or is an obvious part or property of something named; its
log P(no) − log P(yes) ranks the warnings, scored by the area under the ROC curve (0.5: no signal). Minutes on a CPU.

    python benchmarks/investigations/antecedent_evidence.py [--per-doc 6] [--seed 0] [--embedded-judge]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import SETS  # noqa: E402
from lint_antecedent import kind, load, read_labels, recall  # noqa: E402

from spg.forest import Forest  # noqa: E402
from spg.lint.antecedent import AntecedentFinding, check_antecedents  # noqa: E402
from spg.lint.antecedent.reader import _Reader  # noqa: E402
from spg.lint.antecedent.words import _singular  # noqa: E402
from spg.parse import parse_claims  # noqa: E402

SMOOTHING = 20  # pseudo-references at the corpus rate: a head seen a few times says little
SEEDS = range(7, 13)  # the labelled USPTO samples of rounds 1-6, as docs/investigations.md reports them


def evidence_of(finding: AntecedentFinding) -> str:
    """What the message says was found besides the reference (the formats of spg.lint.antecedent.findings._finding)."""
    if finding.rule == "antecedent-ambiguous":
        return "ambiguous"
    if "(closest: " in finding.message:
        return "head introduced in scope"
    if "does not depend on that claim" in finding.message:
        return "head introduced out of scope"
    return "head never introduced"


def head_of(finding: AntecedentFinding) -> str:
    return _singular(re.findall(r"[\w-]+", finding.term.lower())[-1])


def head_prior(docs: list[dict]) -> Callable[[str], float]:
    """head → smoothed share of its definite references without basis, as the analysis judges them on ``docs``."""
    seen, unbased = Counter(), Counter()
    judge = _Reader.judge

    def counting(reader, ref):  # every definite reference the analysis judges passes through judge()
        verdict = judge(reader, ref)
        head = _singular(ref.words[-1])
        seen[head] += 1
        unbased[head] += verdict is not None and verdict[0] == "antecedent"
        return verdict

    _Reader.judge = counting
    try:
        for doc in docs:
            check_antecedents(parse_claims(doc["claims"]))
    finally:
        _Reader.judge = judge
    rate = sum(unbased.values()) / sum(seen.values())
    print(f"prior learnt on {len(docs)} Pap2Pat documents: {sum(seen.values())} definite references, "
          f"{sum(unbased.values())} without basis ({rate:.1%})")
    return lambda head: (unbased[head] + rate * SMOOTHING) / (seen[head] + SMOOTHING)


def labelled(uspto: list[dict]) -> list[tuple[AntecedentFinding, int]]:
    """(today's finding, how many of the two labellers call it real) for every labelled warning still reported."""
    by_id = {d["id"]: d for d in uspto}
    today: dict[str, dict] = {}
    out = []
    for seed in SEEDS:
        first, second = (SETS / f"lint_antecedent_seed{seed}_{n}.jsonl" for n in (1, 2))
        for a, b in zip(read_labels(first), read_labels(second), strict=True):
            if a["doc"] not in today:
                found = check_antecedents(parse_claims(by_id[a["doc"]]["claims"]))
                today[a["doc"]] = {(f.claim, f.start, f.term): f for f in found}
            f = today[a["doc"]].get((a["claim"], a["start"], a["term"]))
            if f is not None:
                out.append((f, (a["verdict"] == "real") + (b["verdict"] == "real")))
    return out


def share(items: list[tuple[AntecedentFinding, int]]) -> str:
    n = len(items)
    both = sum(r == 2 for _, r in items)
    return f"{n}, real by both {both} ({both / max(n, 1):.0%}), by at least one {sum(r > 0 for _, r in items)}"


def kept_only(uspto: list[dict], keep: Callable[[AntecedentFinding], bool], label: str, args) -> None:
    def check(forest: Forest) -> list[AntecedentFinding]:
        return [f for f in check_antecedents(forest) if keep(f)]

    found, tried, _, _ = recall(uspto, args.per_doc, args.seed, check)
    grants = [parse_claims(d["claims"]) for d in uspto if kind(d) == "US grant"]
    rate = sum(len(check(f)) for f in grants) / sum(len(f) for f in grants)
    cells = ", ".join(f"({h}) {found[h]}/{tried[h]} = {found[h] / max(tried[h], 1):.1%}" for h in "abcd")
    print(f"  {label}: US grants {rate:.3f} warnings/claim; USPTO recall {cells}")


def embedded_judge() -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from spg.model.backbone import embedded_path

    path = embedded_path()
    tok = AutoTokenizer.from_pretrained(path)
    lm = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    docs = {d["id"]: d for name in ("uspto/patents.jsonl", "pap2pat/patents.jsonl.gz") for d in load(name)}
    answers = {w: [t for form in (f" {w}", w, w.capitalize()) for t in tok.encode(form, add_special_tokens=False)]
               for w in ("yes", "no")}
    scores = []
    for sample in ("seed13", "pap2pat_seed14"):
        first, second = (read_labels(SETS / f"lint_antecedent_{sample}_{n}.jsonl") for n in (1, 2))
        for a, b in zip(first, second, strict=True):
            if a["verdict"] != b["verdict"]:
                continue
            forest = parse_claims(docs[a["doc"]]["claims"])
            scope, todo = {}, [a["claim"]]
            while todo:  # the claim and every claim it depends on
                num = todo.pop()
                if num in forest.by_num and num not in scope:
                    scope[num] = forest.by_num[num]
                    todo += forest.by_num[num].parents
            claims = "\n".join(f"{n}. {scope[n].text}" for n in sorted(scope))[-3000:]
            question = (f"{claims}\n\nIn claim {a['claim']}, the phrase \"{a['term']}\" refers back to something. Was "
                        "that thing introduced earlier (with \"a\" or \"an\") in these claims, or is it an obvious "
                        "part or property of something they name? Answer yes or no.")
            prompt = tok.apply_chat_template([{"role": "user", "content": question}], add_generation_prompt=True,
                                             tokenize=False)
            with torch.no_grad():
                logits = lm(torch.tensor([tok.encode(prompt, add_special_tokens=False)])).logits[0, -1].log_softmax(-1)
            no_minus_yes = torch.logsumexp(logits[answers["no"]], 0) - torch.logsumexp(logits[answers["yes"]], 0)
            scores.append((no_minus_yes.item(), a["verdict"] == "real"))
    real = [s for s, r in scores if r]
    false = [s for s, r in scores if not r]
    auc = sum((p > n) + 0.5 * (p == n) for p in real for n in false) / max(len(real) * len(false), 1)
    print(f"embedded SmolLM2-135M-Instruct as a judge: {len(real)} real and {len(false)} false warnings (both "
          f"labellers agreeing), area under the ROC curve of log P(no) - log P(yes) for real: {auc:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-doc", type=int, default=6, help="defect sites tried per document and mutation kind")
    ap.add_argument("--seed", type=int, default=0, help="seed for the defect sites")
    ap.add_argument("--embedded-judge", action="store_true", help="also ask the embedded SmolLM2 (minutes on a CPU)")
    args = ap.parse_args()
    uspto = load("uspto/patents.jsonl")
    items = labelled(uspto)
    print(f"Labelled warnings still reported: {share(items)}")
    print("By the evidence the message names:")
    for name in sorted({evidence_of(f) for f, _ in items}):
        print(f"  {name}: {share([i for i in items if evidence_of(i[0]) == name])}")
    prior = head_prior(load("pap2pat/patents.jsonl.gz"))
    cuts = (0.04, 0.06, 0.08)
    print("By the head's prior, within each evidence:")
    for name in sorted({evidence_of(f) for f, _ in items}):
        group = [i for i in items if evidence_of(i[0]) == name]
        for low, high in zip((0.0, *cuts), (*cuts, 1.0), strict=True):
            part = [i for i in group if low <= prior(head_of(i[0])) < high]
            if part:
                print(f"  {name}, prior {low:.2f}-{high:.2f}: {share(part)}")
    print("Keeping only some warnings:")
    kept_only(uspto, lambda f: True, "every warning", args)
    kept_only(uspto, lambda f: evidence_of(f) != "head never introduced", "only those naming another introduction", args)
    for cut in cuts:
        kept_only(uspto, lambda f, cut=cut: prior(head_of(f)) < cut, f"only heads with prior < {cut:.2f}", args)
    if args.embedded_judge:
        embedded_judge()


if __name__ == "__main__":
    main()

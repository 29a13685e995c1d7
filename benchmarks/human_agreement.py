"""Agreement of PatentScore_rule, its sub-metrics, BLEU and BERTScore with human preferences (PatClaimEval).

Each of the 184 items of patclaimeval/quality_test.json has a gold claim, two candidates A and B and a human
judgement (Quality 1 = A better, -1 = B better, 0 = no preference; see its README). Every metric scores A and
B against the gold claim; on the 135 items with a human preference we count how often the metric prefers the
same candidate, prefers the other, or scores both the same (a metric tie, shown separately and not counted as
agreement). In 28 of the 135 one candidate *is* the gold claim, which any reference-based metric prefers, so
the table also gives the 107 items where both candidates were generated. PS_rule is scored under both readings
of spg.metrics.patentscore (the default "calibrated", then "appendix", whose sub-metrics differ only in struct
and ante). The last lines read the 184 items as Stage II would pair two candidates against a gold claim: how
often the two differ by more than κ = 0.3, how often the gold claim beats the better one by more than δ = 0.1,
and the mean ω of the worse one, under each reading.

    OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/human_agreement.py [--no-bertscore]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence

from common import shared_file

from spg.metrics.patentscore import READINGS, lpo_weight, patent_score
from spg.metrics.text import bertscore_f1, sentence_bleu


def _tally(scores_a: Sequence[float], scores_b: Sequence[float], human: Sequence[int]) -> tuple[int, int, int]:
    """(agree, disagree, metric tie) over the items with a human preference."""
    agree = disagree = tie = 0
    for a, b, h in zip(scores_a, scores_b, human, strict=True):
        if a == b:
            tie += 1
        elif (a > b) == (h > 0):
            agree += 1
        else:
            disagree += 1
    return agree, disagree, tie


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-bertscore", action="store_true", help="skip BERTScore (the only slow column)")
    args = ap.parse_args()
    path = shared_file("patclaimeval/quality_test.json")
    items = json.loads(path.read_text(encoding="utf-8"))
    judged = [x for x in items if x["human_eval"]["Quality"] != 0]
    generated = [x for x in judged if x["gold_claim"] not in (x["A"], x["B"])]

    metrics: dict[str, Callable[[list[dict]], tuple[list[float], list[float]]]] = {}

    def per_item(fn: Callable[[str, str], float]) -> Callable[[list[dict]], tuple[list[float], list[float]]]:
        return lambda xs: ([fn(x["A"], x["gold_claim"]) for x in xs], [fn(x["B"], x["gold_claim"]) for x in xs])

    for reading in READINGS:
        metrics[f"PS_rule ({reading})"] = per_item(lambda c, r, reading=reading: patent_score(c, r, reading).total)
        parts = ("count", "struct", "ante", "length", "overlap") if reading == "calibrated" else ("struct", "ante")
        for part in parts:
            metrics[f"  {part}" + ("" if reading == "calibrated" else f" ({reading})")] = per_item(
                lambda c, r, part=part, reading=reading: getattr(patent_score(c, r, reading), part)
            )
    metrics["BLEU (sacrebleu sentence)"] = per_item(sentence_bleu)
    if not args.no_bertscore:
        metrics["BERTScore F1 (all-MiniLM-L6-v2)"] = lambda xs: (
            bertscore_f1([x["A"] for x in xs], [x["gold_claim"] for x in xs]),
            bertscore_f1([x["B"] for x in xs], [x["gold_claim"] for x in xs]),
        )

    print(f"{path}: {len(items)} items, {len(judged)} with a human preference, {len(generated)} of them between two generated candidates")
    print("| metric | agree / judged (acc.) | disagree | metric ties | agree / generated-only (acc.) | ties |")
    print("|---|---|---|---|---|---|")
    for name, fn in metrics.items():
        row = []
        for subset in (judged, generated):
            a, b = fn(subset)
            agree, disagree, tie = _tally(a, b, [x["human_eval"]["Quality"] for x in subset])
            row.append((agree, disagree, tie, len(subset)))
        (ag, dis, tie, n), (ag2, _, tie2, n2) = row
        print(f"| {name} | {ag}/{n} ({ag / n:.3f}) | {dis} | {tie} | {ag2}/{n2} ({ag2 / n2:.3f}) | {tie2} |")

    print(f"\nThe {len(items)} items as Stage II pairs (two candidates against the gold claim):")
    for reading in READINGS:
        a, b, gold = ([patent_score(x[k], x["gold_claim"], reading).total for x in items] for k in ("A", "B", "gold_claim"))
        kappa = sum(abs(p - q) > 0.3 for p, q in zip(a, b)) / len(items)
        delta = sum(g - max(p, q) > 0.1 for p, q, g in zip(a, b, gold)) / len(items)
        omega = sum(lpo_weight(min(p, q)) for p, q in zip(a, b)) / len(items)
        print(f"{reading}: |ΔPS| > κ in {kappa:.2f}, PS(gold) − PS(better) > δ in {delta:.2f}, mean ω(worse) {omega:.3f}")


if __name__ == "__main__":
    main()

"""Speed of the rule-based metrics: claim-set pairs per second on one core (target ≥ 1,000).

Scores every claim set of the shared corpus (USPTO patents.jsonl and the HUPD-DCG record) against
itself, plus the eight HUPD-DCG system outputs against their reference, with everything
``spg evaluate`` computes per document except the text-overlap metrics: PatentScore_rule (which
yields SP, AC and CC), DEA from the text's back-references, and the valid rate. The corpus is
loaded and rendered before the clock starts and scored ``--repeat`` times. As in ``spg evaluate``,
each reference text is preprocessed once per pass (timed) and shared by the candidates scored
against it; the gold forests are parsed by the loader, before the clock starts. Nothing else is
carried from one pass to the next but memos (the antecedent checker's noun phrases, each gold
forest's depths).

BERTScore (all-MiniLM-L6-v2, one thread) is timed separately on ``--bertscore-pairs`` pairs.

    .venv/bin/python benchmarks/metrics_speed.py
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import shared_file  # noqa: E402

from spg.data import load_records  # noqa: E402
from spg.evaluate import Prediction, numbered_text, structure_of  # noqa: E402
from spg.metrics.patentscore import PreparedText, patent_score, prepare_text  # noqa: E402


def corpus_pairs() -> list[tuple[str, str, object]]:
    """(candidate, reference, gold forest) for every pair the benchmark scores."""
    pairs = []
    for name in ("uspto/patents.jsonl", "hupd-dcg/sample_outputs.json"):
        for record in load_records(shared_file(name)):
            ref = numbered_text(record.claims)
            pairs.append((ref, ref, record.claims))
            pairs += [(v, ref, record.claims) for k, v in record.fields.items() if k.endswith("-claim")]
    return pairs


def patent_scores(pairs) -> None:
    """PS_rule of every pair; a reference is prepared once for the pairs that share it, as spg evaluate does."""
    prepared: dict[str, PreparedText] = {}  # this pass only
    for cand, ref, _ in pairs:
        if ref not in prepared:
            prepared[ref] = prepare_text(ref)
        patent_score(cand, prepared[ref])


def structures(pairs) -> None:
    for cand, _, gold in pairs:
        structure_of(gold, Prediction(cand))  # DEA and validity from one parse of the candidate


def score_rules(pairs) -> None:
    patent_scores(pairs)
    structures(pairs)


def timed(fn, pairs, repeat: int) -> tuple[float, float]:
    """(wall, CPU) seconds for ``repeat`` passes; CPU time is the fair figure on a shared machine."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(repeat):
        fn(pairs)
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--bertscore-pairs", type=int, default=32, help="0 skips the BERTScore timing")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as the target says

    pairs = corpus_pairs()
    claims = sum(len(g) for _, _, g in pairs)
    score_rules(pairs[:20])  # warm the regex caches
    n = len(pairs) * args.repeat
    print(f"corpus: {len(pairs)} claim-set pairs ({claims} gold claims), scored {args.repeat}x on one core")
    parts = {
        "PS_rule + SP/AC/CC + DEA + valid": score_rules,
        "  of which PS_rule (SP/AC/CC)": patent_scores,
        "  of which DEA + valid": structures,
    }
    for label, fn in parts.items():
        wall, cpu = timed(fn, pairs, args.repeat)
        print(f"{label}: {n / cpu:,.0f} pairs/s CPU time ({1000 * cpu / n:.2f} ms/pair), {n / wall:,.0f} pairs/s wall")

    if args.bertscore_pairs:
        import torch

        from spg.metrics.text import bertscore_f1

        torch.set_num_threads(1)
        sample = pairs[: args.bertscore_pairs]
        bertscore_f1(["warm up"], ["warm up"])  # model load is not timed
        wall, cpu = timed(lambda ps: bertscore_f1([c for c, _, _ in ps], [r for _, r, _ in ps]), sample, 1)
        print(
            f"BERTScore (all-MiniLM-L6-v2, 1 thread, whole claim sets): {len(sample) / cpu:,.1f} pairs/s CPU time, "
            f"{len(sample) / wall:,.1f} pairs/s wall"
        )


if __name__ == "__main__":
    main()

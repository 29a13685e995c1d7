"""Speed of the rule-based metrics: claim-set pairs per second on one core (target ≥ 1,000).

Scores every claim set of the shared corpus (USPTO patents.jsonl and the HUPD-DCG record) against
itself, plus the eight HUPD-DCG system outputs against their reference, with everything
``spg evaluate`` computes per document except the text-overlap metrics: PatentScore_rule (which
yields SP, AC and CC), DEA from the text's back-references, and the valid rate. The corpus is
loaded and rendered before the clock starts. As in ``spg evaluate``, each reference text is
preprocessed once per pass (timed) and shared by the candidates scored against it; a candidate is
read afresh even where it equals its reference. The gold forests are parsed by the loader, before
the clock starts.

The headline figure is a pass as one ``spg evaluate`` run makes it: nothing memoised (the
antecedent checker's noun phrases, each gold forest's depths). A second pass over the same pairs,
memos kept, is printed beside it as an upper bound: on one corpus scored twice every noun phrase is
already known. Each is the median of ``--repeat`` measurements in CPU time (the fair figure on a
shared machine, where wall time and even CPU time vary by ±30% from run to run).

BERTScore (all-MiniLM-L6-v2, one thread) is timed separately on ``--bertscore-pairs`` pairs.

    .venv/bin/python benchmarks/metrics_speed.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import shared_file  # noqa: E402

from spg import parse  # noqa: E402
from spg.data import load_records  # noqa: E402
from spg.evaluate import Prediction, numbered_text, structure_of  # noqa: E402
from spg.forest import Forest  # noqa: E402
from spg.metrics import antecedent  # noqa: E402
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


def string_scans(pairs) -> None:
    """Only the passes over the text that the metrics cannot do without, and nothing around them: the word sets of
    both texts (Eq. len, Eq. overlap), the mentions of Eq. ante, the claim numbers a split starts from and the word
    "claim" that every back-reference contains. What is left of a pair's time for everything else is the rest."""
    for cand, ref, _ in pairs:
        for text in (cand, ref):
            set(text.lower().split())
        antecedent._MENTION_RE.findall(" " + cand.lower())
        parse._MARKER_FROM_NUMBER.findall(cand)
        parse._CLAIM_WORD.findall(cand)


def fresh(pairs):
    """The pairs as a new evaluation meets them: no noun phrase memoised, gold forests without cached depths."""
    antecedent._PHRASES.clear()
    return [(cand, ref, Forest(gold.claims)) for cand, ref, gold in pairs]


def timed(parts: dict, pairs, repeat: int) -> dict[str, tuple[float, float]]:
    """Median CPU seconds per part of (a first pass over fresh pairs, a second pass over the same pairs, memos
    kept). Parts take turns within each repetition, so a slow spell of the machine falls on all of them."""
    times: dict[str, tuple[list[float], list[float]]] = {label: ([], []) for label in parts}
    for _ in range(repeat):
        for label, fn in parts.items():
            batch = fresh(pairs)
            for out in times[label]:
                cpu = time.process_time()
                fn(batch)
                out.append(time.process_time() - cpu)
    return {label: (statistics.median(first), statistics.median(second)) for label, (first, second) in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="measurements per figure (the median is printed)")
    parser.add_argument("--bertscore-pairs", type=int, default=32, help="0 skips the BERTScore timing")
    parser.add_argument(
        "--passes",
        type=int,
        help="only score N first passes, untimed, and exit: for counting instructions (metrics_instructions.sh)",
    )
    parser.add_argument("--limit", type=int, help="score only the first N pairs")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as the target says

    pairs = corpus_pairs()[: args.limit]
    if args.passes is not None:
        for _ in range(args.passes):
            score_rules(fresh(pairs))
        return
    claims = sum(len(g) for _, _, g in pairs)
    score_rules(pairs[:20])  # import-time and regex-compilation costs are not the metric's
    n = len(pairs)
    mentions = sum(len(antecedent._MENTION_RE.findall(" " + c.lower())) for c, _, _ in pairs) / n
    numbers = sum(len(parse._MARKER_FROM_NUMBER.findall(c)) for c, _, _ in pairs) / n
    print(
        f"corpus: {n} claim-set pairs ({claims} gold claims; per candidate {mentions:.0f} noun-phrase mentions and "
        f"{numbers:.0f} claim-number candidates), one core, median of {args.repeat} CPU-time measurements"
    )
    parts = {
        "PS_rule + SP/AC/CC + DEA + valid": score_rules,
        "  of which PS_rule (SP/AC/CC)": patent_scores,
        "  of which DEA + valid": structures,
        "the string scans alone": string_scans,
    }
    times = timed(parts, pairs, args.repeat)
    scans = times["the string scans alone"][0]
    for label, (first, second) in times.items():
        print(
            f"{label}: {n / first:,.0f} pairs/s ({1000 * first / n:.2f} ms/pair, {first / scans:.1f}x the string scans) "
            f"in one evaluation pass; {n / second:,.0f} pairs/s with the memos of a first pass over the same pairs"
        )

    if args.bertscore_pairs:
        import torch

        from spg.metrics.text import bertscore_f1

        torch.set_num_threads(1)
        sample = pairs[: args.bertscore_pairs]
        bertscore_f1(["warm up"], ["warm up"])  # model load is not timed
        wall, cpu = time.perf_counter(), time.process_time()
        bertscore_f1([c for c, _, _ in sample], [r for _, r, _ in sample])
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(
            f"BERTScore (all-MiniLM-L6-v2, 1 thread, whole claim sets): {len(sample) / cpu:,.1f} pairs/s CPU time, "
            f"{len(sample) / wall:,.1f} pairs/s wall"
        )


if __name__ == "__main__":
    main()

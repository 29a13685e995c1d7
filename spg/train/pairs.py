"""Self-generated preference pairs for LPO (paper §3.3 "Preference construction", appendix Stage II).

For each training description the Stage I policy samples candidates (one per temperature, τ ∈ {0.3, 1.2}),
each candidate is scored by PatentScore_rule against the reference, and up to three pairs are built:

* ``gt-vs-worst``: the ground truth over the lowest-scored candidate. Unconditional (the appendix: "the
  ground-truth claim serves as the chosen response, and the lower-scoring candidate as the rejected response").
* ``best-vs-worst``: the highest- over the lowest-scored candidate when PS(best) − PS(worst) > κ.
* ``gt-vs-best``: the ground truth over the highest-scored candidate when PS(gt) − PS(best) > δ. The gap is
  signed: a candidate that scores as high as the reference (or higher) is never rejected against it.

Both margins are strict, so a gap exactly equal to κ or δ builds no pair. A pair whose rejected candidate is
the chosen text itself is left out (its DPO gradient is zero), and so is ``gt-vs-best`` when best and worst
are the same candidate (a single candidate), since it would repeat ``gt-vs-worst``. Each pair carries
ω(y_l) = 1 − PS(y_l)/PS_max, the LPO weight of its rejected side (Eq. 5).

The sampling half (:func:`write_pairs`) appends one JSON line per pair (spg.files.Appender: marked
``"spg": "pairs"``, synced per description), and skips descriptions already present in the output, so an
interrupted run resumes where it stopped; a file that is not a pairs file is refused before anything is sampled.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import islice
from pathlib import Path

from spg.files import Appender, check_destination, read_rows
from spg.linearize import scored_text
from spg.metrics.patentscore import DEFAULT_READING, PreparedText, lpo_weight, patent_score

PAIR_TYPES = ("gt-vs-worst", "best-vs-worst", "gt-vs-best")


@dataclass(frozen=True)
class Pair:
    """One preference triple's completions, scores and LPO weight (the prompt is attached by the caller)."""

    pair_type: str
    chosen: str
    rejected: str
    chosen_score: float
    rejected_score: float
    weight: float  # ω(y_l) = 1 − PS(y_l)/PS_max


def reward(candidate: str, reference: str | PreparedText, reading: str = DEFAULT_READING) -> float:
    """PS_rule total (0–4.5) of a generated sequence against its reference, on the text ``spg evaluate`` scores.

    The candidate is read by :func:`spg.linearize.scored_text`, the one reading evaluation uses too, so the
    reward a pair is built on and the PS column of the evaluation (same ``reading``) are the same number.
    """
    return patent_score(scored_text(candidate), reference, reading).total


def build_pairs(
    gt: str, gt_score: float, candidates: Sequence[tuple[str, float]], kappa: float = 0.3, delta: float = 0.1
) -> list[Pair]:
    """Up to three pairs from the reference and scored candidates ``[(text, PS), ...]`` (paper §3.3)."""
    if not candidates:
        return []
    # Ties: the first-listed lowest candidate is the worst, the last-listed highest the best, so two tied
    # candidates are still two different candidates.
    worst = min(range(len(candidates)), key=lambda i: candidates[i][1])
    best = max(reversed(range(len(candidates))), key=lambda i: candidates[i][1])
    (worst_text, worst_score), (best_text, best_score) = candidates[worst], candidates[best]

    def pair(pair_type: str, chosen: str, chosen_score: float, rejected: str, rejected_score: float) -> Pair:
        return Pair(pair_type, chosen, rejected, chosen_score, rejected_score, lpo_weight(rejected_score))

    pairs = [pair("gt-vs-worst", gt, gt_score, worst_text, worst_score)]
    if best_score - worst_score > kappa:
        pairs.append(pair("best-vs-worst", best_text, best_score, worst_text, worst_score))
    if gt_score - best_score > delta and best != worst:
        pairs.append(pair("gt-vs-best", gt, gt_score, best_text, best_score))
    return [p for p in pairs if p.chosen != p.rejected]


PAIRS = "pairs"  # the kind of spg.files output a pairs file is: every line starts {"spg": "pairs", ...}


def check_pairs_file(path: str | Path) -> None:
    """Raise InputError, before any model loads, unless ``path`` is absent or a pairs file spg can add to."""
    check_destination(path, PAIRS, append=True)


def done_ids(path: str | Path) -> set[str]:
    """Description ids already written to a pairs file (a description with no pair is recorded too)."""
    return {row.get("id") for row in read_rows(path, PAIRS)}


def write_pairs(
    items: Iterable[tuple[str, str, str, str]],
    sample: Callable[[list[str]], list[list[str]]],
    score: Callable[[str, str], float],
    path: Path,
    kappa: float = 0.3,
    delta: float = 0.1,
    batch_size: int = 12,
) -> Counter:
    """Sample, score and pair each ``(id, prompt, gt, reference)``; append JSONL to ``path``; count by type.

    ``gt`` is the chosen text in the model's output format (the tagged forest), ``reference`` what PS compares
    against; ``sample(prompts)`` returns each prompt's candidates, ``score(candidate, reference)`` a PS_rule
    total. A description that yields no pair still gets a line (``pair_type`` null) so that resuming skips it.
    """
    counts: Counter = Counter()
    with Appender(path, PAIRS) as f:
        skip = done_ids(path)
        todo = (item for item in items if item[0] not in skip)
        while batch := list(islice(todo, batch_size)):
            for (record_id, prompt, gt, reference), texts in zip(batch, sample([b[1] for b in batch]), strict=True):
                candidates = [(text, score(text, reference)) for text in texts]
                pairs = build_pairs(gt, score(gt, reference), candidates, kappa, delta)
                rows = [{"id": record_id, "prompt": prompt, **asdict(p)} for p in pairs]
                if not rows:
                    # Every key present (null) so that `datasets` infers one schema for the whole file.
                    rows = [{"id": record_id, "prompt": prompt, **dict.fromkeys(Pair.__dataclass_fields__)}]
                counts.update(row["pair_type"] or "no-pair" for row in rows)
                f.add(rows)  # synced: a killed run loses at most the description in flight
    return counts


def load_pairs(path: str | Path):
    """The pairs of a JSONL file as a ``datasets.Dataset`` (descriptions that yielded no pair left out).

    Read directly rather than through ``load_dataset("json", ...)`` (which also works) so that no cache of a
    file that ``spg pairs`` is still appending to can go stale.
    """
    from datasets import Dataset

    return Dataset.from_list([row for row in read_rows(path, PAIRS) if row.get("pair_type") is not None])


def count_types(path: str | Path) -> Counter:
    """Pairs per type in a pairs file (plus ``no-pair`` descriptions): the summary ``spg pairs`` prints."""
    return Counter(row.get("pair_type") or "no-pair" for row in read_rows(path, PAIRS))

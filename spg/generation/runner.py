"""Long generation runs that survive being killed, and never damage a file that is not theirs.

Each document's result is appended to the output JSONL as soon as its batch finishes (spg.files.Appender:
one write, synced), so an interrupted run loses at most the batch in flight. A re-run reads the ids already
written and skips them; a last line cut short by the kill (spg's own: it starts with the result marker) is cut
off first. Every document thus ends up with exactly one line. Only spg result lines count as finished: a file
holding anything else (a records file, or a user's notes, given as ``--output`` by mistake) is refused before
anything is written to it.
Documents that cannot be generated (no description, or generation fails even on its own) are reported
by id on stderr, and the run goes on.

Given a ``length`` (``spg generate``: the prompt's tokens, config key ``sort_by_length``), the documents are decoded
longest first, so that each batch holds prompts of similar length: the shorter ones are left-padded less, and the
static KV cache sized by the first batch serves every later batch, which on CUDA keeps the one compiled decoding step
(docs/generation.md, "Throughput"). Results are then appended in that order; ``RunSummary.results`` keeps the
input order either way.

Sharded runs (``spg generate --shard I/N``, or one process per GPU under ``accelerate launch``/``torchrun``):
document ``d`` belongs to shard :func:`shard_of` (a hash of its id, so shards do not depend on input order or
``--limit``); each process appends to its own :func:`shard_path` file, and when a process ends it merges every
result the shard files hold into the one output (:func:`merge_shards`, under a file lock). The last process to end
thus leaves every document in the output once (in the order the shards ended; input order within each merge).
Re-running any shard resumes it and merges again. Waiting for all shards before merging would need every process
alive until the slowest ends, and a crash of one would leave the others' results out of the output.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from tqdm import tqdm

from spg.data import Document
from spg.errors import shown
from spg.files import Appender, locked, read_lines, rows_of

T = TypeVar("T")


@dataclass
class RunSummary:
    written: int = 0
    already_done: int = 0
    bad: list[str] = field(default_factory=list)  # ids of documents that could not be generated
    new_tokens: int = 0
    cut_claims: int = 0  # documents whose last claim the token budget ended (left out: spg.generation.whole_claims)
    seconds: float = 0.0
    merged: int = 0  # a shard's run: results the shard files added to the output (merge_shards)
    results: list[dict] = field(default_factory=list)  # this run's results, in order


RESULT = "result"  # the kind of spg.files output a results file is: every line starts {"spg": "result", ...}


def read_results(path: Path) -> tuple[set[str], bool]:
    """The ids already finished in the results file ``path``, and whether its last line was cut short by a
    killed run. Reads only.

    Raises InputError naming the line when ``path`` is not an spg results file: spg never writes to such a file.
    """
    lines, torn = read_lines(path, RESULT)
    return {row.get("id") for row in rows_of(lines)}, torn


def _result_lines(path: Path) -> dict[str, bytes]:
    """Each finished result's whole line in ``path``, by id."""
    lines, _ = read_lines(path, RESULT)
    return {row.get("id"): line for row, line in zip(rows_of(lines), lines, strict=True)}


def finished_ids(path: Path) -> set[str]:
    """Ids already in ``path``, once it ends with a whole line, ready for the next result (spg.files.Appender
    cuts off a last line a killed run tore, and ends a whole one without its newline)."""
    if not path.exists():
        return set()
    with Appender(path, RESULT):
        return read_results(path)[0]


Generate = Callable[[list[Document]], list[dict]]  # one result dict per document, in order


def _generate(generate: Generate, batch: list[Document], summary: RunSummary) -> list[dict]:
    """``generate(batch)``; when that fails, each document on its own, so that one bad document does not end
    the run: a document that fails alone is reported by id and counted in ``summary.bad``."""
    try:
        return generate(batch)
    except Exception as error:  # anything: a model, a tokenizer or a parser failing on one odd output
        if len(batch) == 1:
            summary.bad.append(batch[0].id)
            print(f"skipped {shown(batch[0].id)}: generation failed ({type(error).__name__}: {shown(error)})", file=sys.stderr)
            return []
    return [result for doc in batch for result in _generate(generate, [doc], summary)]


def batches(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """``items`` in lists of ``size``, the last one shorter (itertools.batched, which needs Python 3.12)."""
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _or_shortest(length: Callable[[Document], int]) -> Callable[[Document], int]:
    """``length``, or -1 for a document it fails on: that one is decoded last, where its own failure is reported
    by id like any other (one odd document must not end a run before it starts)."""

    def key(doc: Document) -> int:
        try:
            return length(doc)
        except Exception:  # noqa: BLE001 - whatever the tokenizer raises, generation will raise again and report it
            return -1

    return key


def run(
    documents: Iterable[Document],
    generate: Generate,
    output: Path | None,
    batch_size: int,
    *,
    shard: tuple[int, int] | None = None,
    progress: bool = True,
    total: int | None = None,
    length: Callable[[Document], int] | None = None,
) -> RunSummary:
    """Generate every document not yet in ``output``; ``generate(batch)`` returns one result dict per document.

    Results are appended to ``output`` (if given) and returned in ``RunSummary.results``, in input order. ``total``
    (all documents, finished ones included) sizes the progress bar. With ``length``, the longest documents are
    decoded first (batches of similar lengths). With ``shard`` (I, N), only shard I's documents that ``output``
    lacks are generated, into the shard's own file, whose results are then merged into ``output`` (see the module
    docstring; ``RunSummary.merged``).
    """
    if shard is not None:
        documents = list(documents)
        finished = read_results(output)[0]
        mine = [d for d in documents if shard_of(d.id, shard[1]) == shard[0] and d.id not in finished]
        summary = run(mine, generate, shard_path(output, *shard), batch_size, progress=progress, total=len(mine),
                      length=length)
        summary.merged = merge_shards(output, shard[1], [d.id for d in documents])
        return summary
    summary = RunSummary()
    sink = Appender(output, RESULT) if output else None
    done = read_results(output)[0] if output else set()
    seen: dict[str, None] = {}  # ids in input order

    def todo() -> Iterator[Document]:
        for doc in documents:
            if doc.id in done:
                summary.already_done += 1
                bar.update(1)
                continue
            if doc.id in seen:
                print(f"skipped {shown(doc.id)}: duplicate id (generated once)", file=sys.stderr)
                continue
            seen[doc.id] = None
            if not doc.description.strip():
                summary.bad.append(doc.id)
                print(f"skipped {shown(doc.id)}: empty description", file=sys.stderr)
                continue
            yield doc

    start = time.perf_counter()
    bar = tqdm(total=total, unit="doc", disable=not progress, dynamic_ncols=True)
    try:
        pending: Iterable[Document] = todo()
        if length is not None:
            bar.set_postfix_str("measuring prompts to decode the longest first")
            pending = sorted(pending, key=_or_shortest(length), reverse=True)  # stable: input order among equals
        for batch in batches(pending, batch_size):
            for result in _generate(generate, batch, summary):
                if sink:
                    sink.add([result])
                summary.results.append(result)
                summary.written += 1
                summary.new_tokens += int(result.get("new_tokens", 0))
                summary.cut_claims += bool(result.get("cut_by_budget"))
            elapsed = time.perf_counter() - start
            bar.update(len(batch))
            bar.set_postfix_str(f"{summary.written / elapsed:.2f} docs/s, {summary.new_tokens / elapsed:.1f} tok/s")
    finally:
        bar.close()
        if sink:
            sink.close()
    summary.seconds = time.perf_counter() - start
    if length is not None:
        position = {doc_id: n for n, doc_id in enumerate(seen)}  # dicts keep insertion order: input order
        summary.results.sort(key=lambda result: position[result["id"]])
    return summary


def shard_of(doc_id: str, shards: int) -> int:
    """The shard (0 … shards − 1) that generates document ``doc_id``: a rule on the id alone."""
    return int(hashlib.sha256(f"spg-shard:{doc_id}".encode()).hexdigest()[:8], 16) % shards


def shard_path(output: Path, shard: int, shards: int) -> Path:
    """Where shard ``shard`` of ``shards`` appends its results: ``out.jsonl`` -> ``out.shard-1-of-4.jsonl``."""
    return output.with_name(f"{output.stem}.shard-{shard}-of-{shards}{output.suffix}")


def merge_shards(output: Path, shards: int, order: Iterable[str]) -> int:
    """Append to ``output`` every result the ``shards`` shard files hold that it lacks, in the order of the ids
    ``order`` (then any others); returns how many were added. Holds a lock on ``output.lock`` meanwhile, so
    processes ending together merge one after the other. The shard files are left as they are."""
    with locked(output.with_name(output.name + ".lock")):
        found: dict[str, bytes] = {}
        for shard in range(shards):
            found.update(_result_lines(shard_path(output, shard, shards)))
        rank = {doc_id: n for n, doc_id in enumerate(order)}
        with Appender(output, RESULT) as sink:
            done = read_results(output)[0]
            new = sorted((i for i in found if i not in done), key=lambda i: (rank.get(i, len(rank)), i))
            sink.add_lines(found[doc_id] for doc_id in new)
    return len(new)

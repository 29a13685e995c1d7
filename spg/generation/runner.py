"""Long generation runs that survive being killed.

Each document's result is appended to the output JSONL as soon as its batch finishes (flush + fsync),
so an interrupted run loses at most the batch in flight. A re-run reads the ids already written and
skips them; a last line cut short by the kill is removed first. Every document thus ends up with
exactly one line. Documents that cannot be generated (no description) are reported by id on stderr.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm


@dataclass(frozen=True)
class Document:
    id: str
    description: str


@dataclass
class RunSummary:
    written: int = 0
    already_done: int = 0
    bad: list[str] = field(default_factory=list)  # ids of documents that could not be generated
    new_tokens: int = 0
    seconds: float = 0.0
    results: list[dict] = field(default_factory=list)  # this run's results, in order


def finished_ids(path: Path) -> set[str]:
    """Ids already in ``path``. A partial last line (the run was killed mid-write) is truncated away."""
    if not path.exists():
        return set()
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if end < len(data):
        with path.open("r+b") as f:
            f.truncate(end)
    done = set()
    for n, line in enumerate(data[:end].decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            done.add(str(json.loads(line)["id"]))
        except (json.JSONDecodeError, KeyError, TypeError):
            raise ValueError(f"{path} line {n}: not a result line (JSON object with 'id'); refusing to append") from None
    return done


def _batches(documents: Iterable[Document], size: int) -> Iterator[list[Document]]:
    batch: list[Document] = []
    for doc in documents:
        batch.append(doc)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def run(
    documents: Iterable[Document],
    generate: Callable[[list[Document]], list[dict]],
    output: Path | None,
    batch_size: int,
    *,
    progress: bool = True,
    total: int | None = None,
) -> RunSummary:
    """Generate every document not yet in ``output``; ``generate(batch)`` returns one result dict per document.

    Results are appended to ``output`` (if given) and returned in ``RunSummary.results``. ``total`` (all
    documents, finished ones included) sizes the progress bar.
    """
    summary = RunSummary()
    done = finished_ids(output) if output else set()
    seen: set[str] = set()

    def todo() -> Iterator[Document]:
        for doc in documents:
            if doc.id in done:
                summary.already_done += 1
                bar.update(1)
                continue
            if doc.id in seen:
                print(f"skipped {doc.id}: duplicate id (generated once)", file=sys.stderr)
                continue
            seen.add(doc.id)
            if not doc.description.strip():
                summary.bad.append(doc.id)
                print(f"skipped {doc.id}: empty description", file=sys.stderr)
                continue
            yield doc

    start = time.perf_counter()
    bar = tqdm(total=total, unit="doc", disable=not progress, dynamic_ncols=True)
    sink = output.open("a", encoding="utf-8") if output else None
    try:
        for batch in _batches(todo(), batch_size):
            for result in generate(batch):
                if sink:
                    sink.write(json.dumps(result, ensure_ascii=False) + "\n")
                    sink.flush()
                    os.fsync(sink.fileno())
                summary.results.append(result)
                summary.written += 1
                summary.new_tokens += int(result.get("new_tokens", 0))
            elapsed = time.perf_counter() - start
            bar.update(len(batch))
            bar.set_postfix_str(f"{summary.written / elapsed:.2f} docs/s, {summary.new_tokens / elapsed:.1f} tok/s")
    finally:
        bar.close()
        if sink:
            sink.close()
    summary.seconds = time.perf_counter() - start
    return summary

"""Corpora read as streams of raw records, cut into numbered batches and mapped over every core of one machine.

What ``spg lint --out``, ``spg stats --workers`` and ``spg evaluate --workers`` share. A corpus is any number of
inputs: JSON Lines files (``.jsonl``, ``.jsonl.gz``), JSON files (one record, or a list of them), folders of either (HUPD: one JSON file per
patent) and Parquet files with a claims column. Each record is an :class:`Item`: where it is and its JSON text,
left undecoded so that the reading process only splits and counts, and the workers do the decoding and the work.

Batches are numbered from the start of the inputs and depend on nothing but the inputs and the batch size, so a
job can name its results after them (a resumed run skips the batches it has) and any number of processes gives
the same batches. :func:`map_batches` runs one function over them in ``workers`` processes (one: this process),
keeping at most two batches per worker in flight, so memory stays flat however large the corpus; :func:`in_order`
hands its results on in batch order. Batches need not hold :class:`Item`: ``spg evaluate`` maps its documents'
rule-based scoring over them the same way.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from spg.data import DataError, _open_binary, source_paths, text_lines
from spg.errors import decode_utf8, parse_json

SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".json.gz", ".parquet")
ID_KEYS = ("id", "application_number", "patent_number")  # spg.data's, in its order


def suffix(path: str) -> str:
    """".jsonl", ".jsonl.gz", ".parquet", ... (the last two suffixes when the file is gzipped)."""
    name = path.rsplit("/", 1)[-1].lower()
    for known in sorted(SUFFIXES, key=len, reverse=True):
        if name.endswith(known):
            return known
    return ""


@dataclass(frozen=True)
class Item:
    """One record of a corpus, not yet decoded: its file, its ``position`` there (the line of a JSON Lines file,
    from 1; the record of a JSON list or the row of a Parquet file, from 0), ``where`` as messages name it, and its
    JSON ``text``, or the ``error`` that kept it from being read (bytes that are not UTF-8)."""

    file: str
    position: int
    where: str
    text: str | None
    error: str | None = None


def corpus_files(inputs: Sequence[str | Path]) -> list[str]:
    """Every file of the inputs, in the order given (a folder: its record files, recursively, sorted), as
    absolute paths; a missing input or one of another kind is a DataError naming it."""
    files = []
    for path in source_paths(inputs):
        if not path.exists():
            raise DataError(f"{path}: no such file or folder; expected JSON Lines, JSON, Parquet or a folder of them")
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and suffix(p.name) in SUFFIXES)
            if not found:
                raise DataError(f"{path}: folder holds no {', '.join(SUFFIXES)} files")
            files += found
        elif suffix(path.name) in SUFFIXES:
            files.append(path)
        else:
            raise DataError(f"{path}: expected {', '.join(SUFFIXES)} (JSON Lines, JSON, Parquet) or a folder of them")
    return [str(p.resolve()) for p in files]


def _json_items(file: str, data: bytes) -> Iterator[Item]:
    """The records of a whole JSON file: one object (position 0), or each element of a list."""
    text = decode_utf8(data, file)
    try:
        value = parse_json(text, file)
    except json.JSONDecodeError as e:
        if e.msg == "Extra data":  # several objects, one per line: JSON Lines under a .json name
            yield from _line_items(file, (line.encode() for line in text.splitlines(keepends=True)))
        else:
            yield Item(file, 0, file, None, f"{file}: not valid JSON ({e.msg} at line {e.lineno}, column {e.colno})")
        return
    if not isinstance(value, list):
        yield Item(file, 0, file, text)
        return
    for i, element in enumerate(value):
        yield Item(file, i, f"{file} record {i}", json.dumps(element, ensure_ascii=False))


def _line_items(file: str, lines: Iterable[bytes]) -> Iterator[Item]:
    for n, line in enumerate(text_lines(lines, file), 1):
        if isinstance(line, DataError):
            yield Item(file, n, f"{file} line {n}", None, str(line))
        elif line.strip():
            yield Item(file, n, f"{file} line {n}", line)


def _parquet_items(file: str, source: Any) -> Iterator[Item]:
    """The rows of a Parquet file, read a row group's batch at a time, each as the JSON object of its columns
    (values JSON lacks, such as dates, as their text)."""
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(source)
    except Exception as e:  # pyarrow's errors name no file
        raise DataError(f"{file}: not a Parquet file ({e}); expected a table with a claims column") from None
    if not {"claims", "claims_text"} & set(parquet.schema_arrow.names):
        raise DataError(f"{file}: no column 'claims' (or 'claims_text'); expected a table of patent records, got "
                        f"the columns {', '.join(parquet.schema_arrow.names[:12])}")
    row = 0
    for batch in parquet.iter_batches(batch_size=1024):
        for value in batch.to_pylist():
            yield Item(file, row, f"{file} row {row}", json.dumps(value, ensure_ascii=False, default=str))
            row += 1


def read_items(file: str, stream: BinaryIO) -> Iterator[Item]:
    """The records of one opened file (decompressed already when gzipped): what both engines read."""
    kind = suffix(file)
    if kind == ".parquet":
        yield from _parquet_items(file, stream)
    elif kind.startswith(".jsonl"):
        yield from _line_items(file, stream)
    else:
        yield from _json_items(file, stream.read())


def items(files: Iterable[str]) -> Iterator[Item]:
    """Every record of the files, in order; a file that cannot be read on (a truncated .gz) ends with an item
    holding the error, after the last record read."""
    for file in files:
        last = None
        try:
            with _open_binary(Path(file)) as stream:
                for last in read_items(file, stream):
                    yield last
        except (OSError, EOFError) as e:
            after = f"; the records after {last.where} are lost" if last else ""
            position = last.position + 1 if last else 0
            yield Item(file, position, file, None, f"{file}: cannot read ({getattr(e, 'strerror', None) or e}){after}")


def batches(records: Iterable[Any], size: int) -> Iterator[tuple[int, list]]:
    """(number, items) of each run of ``size`` records (:class:`Item` or any other), numbered from 0."""
    batch: list = []
    number = 0
    for item in records:
        batch.append(item)
        if len(batch) == size:
            yield number, batch
            batch, number = [], number + 1
    if batch:
        yield number, batch


def record_id(value: object) -> str | None:
    """A decoded record's id as spg.data reads it (None: it has none, or is no object)."""
    if not isinstance(value, dict):
        return None
    for key in ID_KEYS:
        found = value.get(key)
        if isinstance(found, (str, int)) and not isinstance(found, bool) and str(found).strip():
            return str(found).strip()
    return None


# ---------------------------------------------------------------- every core

_state: Any = None  # what setup() built, once per worker process


def _start(setup: Callable[[], Any]) -> None:
    global _state
    _state = setup()


def _run(task: Callable[[Any, int, list], Any], number: int, batch: list) -> Any:
    return task(_state, number, batch)


def default_workers() -> int:
    """Every core this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def map_batches(
    task: Callable[[Any, int, list], Any],
    numbered: Iterable[tuple[int, list]],
    workers: int,
    setup: Callable[[], Any],
) -> Iterator[tuple[int, list, Any]]:
    """(number, batch, ``task(state, number, batch)``) for every batch, as each is done; ``state`` is what
    ``setup()`` returns, built once in each of ``workers`` processes (module-level functions, picklable)."""
    if workers <= 1:
        state = setup()
        for number, batch in numbered:
            yield number, batch, task(state, number, batch)
        return
    pending: dict[Future, tuple[int, list]] = {}
    with ProcessPoolExecutor(workers, initializer=_start, initargs=(setup,)) as pool:
        try:
            for number, batch in numbered:
                while len(pending) >= 2 * workers:
                    yield from _finished(pending)
                pending[pool.submit(_run, task, number, batch)] = number, batch
            while pending:
                yield from _finished(pending)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def in_order(done: Iterable[tuple[int, list, Any]]) -> Iterator[tuple[int, list, Any]]:
    """:func:`map_batches`'s (number, batch, result) in batch order, whatever order the workers finish in (a batch
    done early waits only for those before it), so that every number of workers hands on what one process does."""
    waiting: dict[int, tuple[list, Any]] = {}
    following = 0
    for number, batch, result in done:
        waiting[number] = batch, result
        while following in waiting:
            yield following, *waiting.pop(following)
            following += 1


def _finished(pending: dict[Future, tuple[int, list]]) -> Iterator[tuple[int, list, Any]]:
    done, _ = wait(pending, return_when=FIRST_COMPLETED)
    for future in done:
        number, batch = pending.pop(future)
        yield number, batch, future.result()

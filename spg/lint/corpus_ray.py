"""``spg lint --out DIR --engine ray``: the corpus job of :mod:`spg.lint.corpus` on Ray Data, on a local cluster
(this machine's cores, bound to 127.0.0.1) or an existing one (``--ray-address ray://HEAD:10001``).

Ray reads the inputs (:class:`RecordFiles`: any path or URI Ray's file systems open, each file read whole by one
task so that line numbers stay exact), lints them in an actor pool whose actors each receive the checker once
(:class:`Linting`, in ``map_batches``), and writes both tables with its own ``write_parquet``. The tables are the
local engine's, row for row (:func:`spg.lint.corpus.read_tables` reads either). Ray retries a task whose worker
dies; a killed driver is run again from the start (the local engine is the one that resumes), and the tables
appear in ``DIR`` only whole (:func:`spg.files.whole_folder`).

Every node needs spg installed (``pip install 'spg[corpus]'``); on a real cluster ``DIR`` and the inputs must be
paths every node sees (a shared file system), or the inputs URIs such as ``s3://bucket/hupd/``.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from itertools import islice
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import ray
from ray.data.datasource import FileBasedDatasource

from spg.corpus import SUFFIXES, Item, read_items, suffix
from spg.files import whole_folder
from spg.lint.corpus import TABLES, Checker, schemas

ITEMS = pa.schema([("file", pa.string()), ("position", pa.int64()), ("where", pa.string()), ("text", pa.string()),
                   ("error", pa.string())])
_READ_ROWS = 64  # records per block a read task yields: a few MB of patent text


class RecordFiles(FileBasedDatasource):
    """The records of JSON Lines, JSON and Parquet files (and folders of them), as :class:`~spg.corpus.Item` rows."""

    def __init__(self, paths: str | list[str]):
        super().__init__(paths, file_extensions=[s.lstrip(".") for s in SUFFIXES])

    def _open_input_source(self, filesystem, path: str, **open_args):
        if suffix(path) == ".parquet":  # read by row group: needs a file it can seek in
            return filesystem.open_input_file(path)
        return super()._open_input_source(filesystem, path, **open_args)

    def _read_stream(self, f, path: str) -> Iterator[pa.Table]:
        records = read_items(path, io.BufferedReader(f, 1 << 20))  # Arrow's streams read no lines
        while chunk := list(islice(records, _READ_ROWS)):
            yield pa.Table.from_pylist([asdict(item) for item in chunk], ITEMS)


class Linting:
    """An actor of the pool: the checker arrives once, at construction, and lints batch after batch; each claim
    set row carries its findings as a list column, split into the second table when written."""

    def __init__(self, checker: Checker):
        self.checker = checker.ready()

    def __call__(self, batch: pa.Table) -> pa.Table:
        claim_sets, findings = self.checker.tables(Item(**row) for row in batch.to_pylist())
        found = pc.add(pc.add(claim_sets["errors"], claim_sets["warnings"]), claim_sets["info"])
        offsets = pa.array([0, *pc.cumulative_sum(found).to_pylist()], pa.int32())
        rows = pa.StructArray.from_arrays([c.combine_chunks() for c in findings.columns], fields=list(findings.schema))
        return claim_sets.append_column("findings", pa.ListArray.from_arrays(offsets, rows))


def _findings(batch: pa.Table) -> pa.Table:
    nested = batch["findings"].combine_chunks()
    return pa.Table.from_struct_array(nested.flatten()).cast(schemas()[1])


def lint_on_ray(
    files: Sequence[str],
    out: Path,
    checker: Checker,
    *,
    address: str | None,
    workers: int | None,
    batch_size: int,
    progress: bool,
) -> None:
    """Lint ``files`` into ``out``'s tables on Ray: the cluster at ``address``, or a local one of ``workers`` CPUs
    started here and stopped at the end."""
    started = not ray.is_initialized()
    if started:
        quiet = {"log_to_driver": False, "logging_level": logging.WARNING, "configure_logging": True}
        if address:
            ray.init(address=address, **quiet)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, _node_ip_address="127.0.0.1", **quiet)
    try:
        context = ray.data.DataContext.get_current()
        context.execution_options.preserve_order = True  # the tables in input order, as the local engine's
        context.enable_progress_bars = progress
        logging.getLogger("ray.data").setLevel(logging.WARNING if progress else logging.ERROR)
        pool = workers or int(ray.cluster_resources().get("CPU", 1))
        # reading takes no CPU of its own: the actors hold one each, and a read waiting for a CPU they hold would
        # wait for ever on a cluster of as many CPUs as actors
        linted = ray.data.read_datasource(RecordFiles(list(files)), num_cpus=0).map_batches(
            Linting, fn_constructor_args=(checker,), batch_size=batch_size, batch_format="pyarrow",
            compute=ray.data.ActorPoolStrategy(size=pool),
        ).materialize()
        with whole_folder(out / TABLES[0]) as folder:
            linted.drop_columns(["findings"]).write_parquet(str(folder))
        with whole_folder(out / TABLES[1]) as folder:
            linted.select_columns(["findings"]).map_batches(_findings, batch_format="pyarrow").write_parquet(
                str(folder))
    finally:
        if started:
            ray.shutdown()

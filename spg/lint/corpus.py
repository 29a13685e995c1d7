"""``spg lint --out DIR`` over corpora: every record of any number of inputs linted as ``spg lint FILE --record ID``
lints it alone, into two Parquet tables a data team can load (docs/lint.md, "Corpus scale").

``DIR/claim_sets``: one row per record: where it is (``file``, ``position``), ``id``, ``kind`` (US grant, US
application, EP, other), ``claims``, ``bad`` (why a bad record could not be linted, naming it; its counts are then 0), the
counts per severity (``errors``, ``warnings``, ``info``), ``suppressed`` and one ``n_<rule>`` count per rule (``antecedent`` → ``n_antecedent``).
``DIR/findings``: one row per finding: ``file``, ``position``, ``id``, ``n`` (its place among the record's
findings), ``claim``, ``rule``, ``severity``, ``start``, ``end`` (the span in the claim's text), ``term``,
``message``.

The local engine reads the inputs in batches (:mod:`spg.corpus`) and lints them in ``workers`` processes, each of
which writes batch N's rows as ``part-N.parquet`` of both tables (findings first, each file written whole, the
claim-set part last), so a batch whose claim-set part exists is done: a killed run started again with the same
command skips those batches and does the rest, no record twice and none lost. ``DIR`` is spg's (``spg-run.json``,
:func:`spg.files.claim_folder`); ``job.json`` records the inputs (with their sizes) and the options, and a run with
others is refused rather than mixed in. The Ray engine (:mod:`spg.lint.corpus_ray`) writes the same tables.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spg.corpus import Item, batches, corpus_files, default_workers, items, map_batches, record_id
from spg.errors import InputError, nested_too_deeply, parse_json, shown
from spg.files import claim_folder, write_artefact
from spg.lint.check import lint
from spg.lint.rules import RULES
from spg.lint.source import record_of
from spg.lint.suppress import Suppressions

KIND = "lint-corpus"  # what spg-run.json says DIR holds
JOB = "job.json"
TABLES = ("claim_sets", "findings")
BATCH_SIZE = 128  # records per part file: seconds of work per batch at ~80 records/s per core
COUNTS = {"error": "errors", "warning": "warnings", "info": "info"}  # severity → its count's column


@functools.cache
def rule_columns(restatement: str = "rules") -> dict[str, str]:
    """One count per rule a corpus run reports; the restatement reader's only in a run that asked for it
    (``--restatement read``), so that a run started without it, or before it existed, keeps its schema."""
    return {rule: "n_" + rule.replace("-", "_") for rule in RULES if rule != "restatement" or restatement == "read"}


_KINDS = {"grant": "US grant", "application": "US application", "hupd": "US application", "ep": "EP"}
KINDS = ("US grant", "US application", "EP", "other")


def document_kind(value: object) -> str:
    """US grant, US application, EP or other: the record's ``kind`` field (the shared corpora's), else what its
    publication number says (US…B2 a grant, US2013… or US…A1 an application, EP… European; a HUPD record with
    its decision, an application)."""
    if not isinstance(value, dict):
        return "other"
    kind = value.get("kind")
    if isinstance(kind, str) and kind.lower() in _KINDS:
        return _KINDS[kind.lower()]
    number = (record_id(value) or "").upper().replace(" ", "")
    if number.startswith("EP"):
        return "EP"
    if re.fullmatch(r"US\d{11}(A\d)?|US\d+A\d", number) or "decision" in value:
        return "US application"
    if re.fullmatch(r"US(RE)?\d+(B\d|E)?", number):
        return "US grant"
    return "other"


def schemas(restatement: str = "rules"):
    """The two tables' Arrow schemas for a run of that restatement mode (pyarrow is imported only by a corpus
    run)."""
    import pyarrow as pa

    where = [("file", pa.string()), ("position", pa.int64()), ("id", pa.string())]
    counts = [(c, pa.int32()) for c in COUNTS.values()] + [("suppressed", pa.int32())]
    claim_sets = pa.schema(where + [("kind", pa.string()), ("claims", pa.int32()), ("bad", pa.string())] + counts
                           + [(column, pa.int32()) for column in rule_columns(restatement).values()])
    findings = pa.schema(where + [("n", pa.int32()), ("claim", pa.int32()), ("rule", pa.string()),
                                  ("severity", pa.string()), ("start", pa.int32()), ("end", pa.int32()),
                                  ("term", pa.string()), ("message", pa.string())])
    return claim_sets, findings


@dataclass(frozen=True)
class Checker:
    """What every record is linted with (built once per worker): the suppressions (with ``--ignore``), the
    antecedent mode, the field holding the claim set and the restatement mode."""

    suppressions: Suppressions = field(default_factory=Suppressions)
    antecedent: str = "grammar"
    field: str | None = None
    restatement: str = "rules"

    def settings(self) -> dict:
        """The options as job.json records them."""
        s = self.suppressions
        return {"antecedent": self.antecedent, "field": self.field, "ignore": sorted(s.ignore),
                "accept_terms": sorted(s.accept_terms),
                "per_claim": {str(k): sorted(v) for k, v in sorted(s.per_claim.items())},
                # recorded only when the reader is on: a rules run started before the option existed resumes
                **({"restatement": self.restatement} if self.restatement != "rules" else {})}

    def rows(self, item: Item) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """One record's claim-set row and finding rows; a record that cannot be linted is a row with its error."""
        where = {"file": item.file, "position": item.position}
        value = None
        try:
            if item.error is not None:
                raise InputError(item.error)
            value = parse_json(item.text, item.where)
            record = record_of(value, item.where, self.field)
            result = lint(record.claims, record.description or None, self.suppressions, self.antecedent,
                          restatement=self.restatement)
        except json.JSONDecodeError as e:
            return self._bad(where, value, f"{item.where}: not valid JSON ({e.msg} at column {e.colno})"), []
        except RecursionError:
            return self._bad(where, value, str(nested_too_deeply(item.where))), []
        except InputError as e:
            return self._bad(where, value, str(e)), []
        except Exception as e:  # a checker bug on one record of millions: named, and the run goes on
            return self._bad(where, value, f"{item.where}: spg lint failed on this record ({type(e).__name__}: "
                                           f"{e}); a bug in spg, please report it"), []
        where["id"] = record.id
        columns = rule_columns(self.restatement)
        counts = dict.fromkeys([*COUNTS.values(), *columns.values()], 0)
        for f in result.findings:
            counts[COUNTS[f.severity]] += 1
            counts[columns[f.rule]] += 1
        row = {**where, "kind": document_kind(value), "claims": len(record.claims), "bad": None,
               "suppressed": result.suppressed, **counts}
        findings = [{**where, "n": n, **f.to_dict()} for n, f in enumerate(result.findings)]
        return row, findings

    def _bad(self, where: dict, value: object, error: str) -> dict[str, Any]:
        zeros = dict.fromkeys([*COUNTS.values(), "suppressed", *rule_columns(self.restatement).values()], 0)
        return {**where, "id": record_id(value), "kind": document_kind(value), "claims": 0, "bad": shown(error),
                **zeros}

    def tables(self, batch: Iterable[Item]):
        """The claim-set and finding tables of a batch of records."""
        import pyarrow as pa

        claim_rows, finding_rows = [], []
        for item in batch:
            row, found = self.rows(item)
            claim_rows.append(row)
            finding_rows += found
        claim_sets, findings = schemas(self.restatement)
        return pa.Table.from_pylist(claim_rows, claim_sets), pa.Table.from_pylist(finding_rows, findings)

    def ready(self) -> Checker:
        """This checker, its learned judge and reader loaded when the modes need them (once per worker, not per
        record)."""
        if self.antecedent == "judged":
            from spg.lint.antecedent.judge import shipped_judge

            shipped_judge()
        if self.restatement == "read":
            from spg.lint.meaning.reader import shipped_reader

            shipped_reader()
        return self


@dataclass(frozen=True)
class Totals:
    records: int = 0
    claims: int = 0
    bad: int = 0

    def __add__(self, other: Totals) -> Totals:
        return Totals(self.records + other.records, self.claims + other.claims, self.bad + other.bad)


def part_name(number: int) -> str:
    return f"part-{number:06d}.parquet"


def _parquet_bytes(table) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue().to_pybytes()


def _lint_batch(state: tuple[Checker, Path], number: int, batch: list[Item]) -> Totals:
    """Lint one batch and commit it: the findings part, then the claim-set part (which marks it done)."""
    checker, out = state
    claim_sets, findings = checker.tables(batch)
    write_artefact(out / "findings" / part_name(number), _parquet_bytes(findings))
    write_artefact(out / "claim_sets" / part_name(number), _parquet_bytes(claim_sets))
    linted = claim_sets.column("bad").null_count  # rows without an error
    return Totals(len(batch), sum(claim_sets.column("claims").to_pylist()), len(batch) - linted)


def _worker(checker: Checker, out: Path) -> tuple[Checker, Path]:
    return checker.ready(), out


def job_of(files: Sequence[str], checker: Checker, engine: str, batch_size: int) -> dict:
    """What job.json records: a resumed run must be the same job."""
    inputs = [[file, Path(file).stat().st_size] if Path(file).exists() else [file, None] for file in files]
    return {"engine": engine, "batch_size": batch_size, "inputs": inputs, **checker.settings()}


def start_job(out: str | Path, job: dict) -> Path:
    """Claim ``out`` for a corpus run and record the job there; a folder holding another job is refused."""
    out = claim_folder(out, KIND)
    path = out / JOB
    if path.exists():
        earlier = json.loads(path.read_text(encoding="utf-8"))
        if earlier != job:
            differs = next(k for k in job.keys() | earlier.keys() if job.get(k) != earlier.get(k))
            raise InputError(f"{out}: holds a run with other {differs!r} (see its {JOB}); expected the same inputs "
                             "and options to resume it, or a new folder")
    else:
        write_artefact(path, json.dumps(job, indent=1) + "\n")
    return out


def done_batches(out: Path) -> set[int]:
    """The batches whose claim-set part is written: done."""
    folder = out / "claim_sets"
    if not folder.is_dir():
        return set()
    return {int(p.name[5:11]) for p in folder.glob("part-[0-9][0-9][0-9][0-9][0-9][0-9].parquet")}


def lint_corpus(
    inputs: Sequence[str | Path],
    out: str | Path,
    checker: Checker,
    *,
    workers: int | None = None,
    batch_size: int = BATCH_SIZE,
    progress: bool | None = None,
    engine: str = "local",
    address: str | None = None,
) -> Totals:
    """Lint every record of ``inputs`` into ``out``'s tables on ``workers`` processes (default: every core),
    resuming a run of the same job killed before it ended; ``progress``: tqdm's bar (None: when on a terminal).
    ``engine="ray"``: on Ray (:mod:`spg.lint.corpus_ray`), the cluster at ``address`` or a local one; inputs may
    then be URIs Ray reads (``s3://…``)."""
    import importlib.util

    for module in ("pyarrow", "matplotlib", *(["ray"] if engine == "ray" else [])):
        if importlib.util.find_spec(module) is None:
            raise InputError(f"spg lint --out{' --engine ray' if engine == 'ray' else ''} needs {module}; expected "
                             "it installed: pip install 'spg[corpus]'")
    files = [f for i in inputs for f in ([str(i)] if engine == "ray" and "://" in str(i) else corpus_files([i]))]
    out = start_job(out, job_of(files, checker, engine, batch_size))
    if engine == "ray":
        from spg.lint.corpus_ray import lint_on_ray

        lint_on_ray(files, out, checker, address=address, workers=workers, batch_size=batch_size,
                    progress=sys.stderr.isatty() if progress is None else progress)
        return written_totals(out)
    return _lint_here(files, out, checker, workers or default_workers(), batch_size, progress)


def _lint_here(files: list[str], out: Path, checker: Checker, workers: int, batch_size: int,
               progress: bool | None) -> Totals:
    from tqdm import tqdm

    done = done_batches(out)
    totals = Totals()
    with tqdm(desc="spg lint", unit=" records", disable=None if progress is None else not progress,
              file=sys.stderr, smoothing=0.1) as bar:
        def todo():
            for number, batch in batches(items(files), batch_size):
                if number in done:
                    bar.update(len(batch))  # read again to find where the run stopped, not linted again
                else:
                    yield number, batch

        setup = functools.partial(_worker, checker, out)
        for _, _, counted in map_batches(_lint_batch, todo(), workers, setup):
            totals += counted
            bar.update(counted.records)
            bar.set_postfix(claims=f"{totals.claims:,}", refresh=False)
    return written_totals(out) if done else totals


def written_totals(out: Path) -> Totals:
    """The records, claims and bad records of the claim-set table as written."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    table = ds.dataset(out / TABLES[0], format="parquet").to_table(columns=["claims", "bad"])
    return Totals(table.num_rows, pc.sum(table["claims"]).as_py() or 0, table.num_rows - table["bad"].null_count)


def run_restatement(out: str | Path) -> str:
    """The restatement mode a run in ``out`` was started with (its job.json): what its tables' columns are."""
    return json.loads((Path(out) / JOB).read_text(encoding="utf-8")).get("restatement", "rules")


def read_tables(out: str | Path):
    """Both tables of a finished run, whichever engine wrote them, in one order: by file and position (and a
    finding's place among its record's)."""
    import pyarrow.parquet as pq

    claim_sets, findings = (pq.read_table(Path(out) / name, schema=schema)
                            for name, schema in zip(TABLES, schemas(run_restatement(out))))
    return (claim_sets.sort_by([("file", "ascending"), ("position", "ascending")]),
            findings.sort_by([("file", "ascending"), ("position", "ascending"), ("n", "ascending")]))

"""``spg lint --out``: a corpus's tables are, row for row, what linting each record alone gives, in one process, in
two, on Ray, and after a run killed half-way; bad records are rows naming them; DIR is spg's."""

from __future__ import annotations

import gzip
import itertools
import json
from pathlib import Path

import pytest
from conftest import requirement_missing

from spg.cli import main
from spg.lint import lint
from spg.lint.corpus import Checker, document_kind, lint_corpus, read_tables, rule_columns
from spg.lint.source import claim_set_of
from spg.lint.suppress import Suppressions

try:
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError:
    requirement_missing("the corpus extra (pyarrow)", module_level=True)

PER_SOURCE = 8  # records of each shared corpus: the tests stay well under a minute on a busy 2-core machine


def _lines(path, n: int) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [line for line in itertools.islice(f, n)]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, uspto_path, pap2pat_path):
    """A subset of the shared corpora in the forms a corpus comes in: JSON Lines, gzipped JSON Lines."""
    folder = tmp_path_factory.mktemp("corpus")
    uspto = folder / "uspto.jsonl"
    kinds: dict[str, list[str]] = {}
    for line in _lines(uspto_path, 10**6):  # a few of each kind: grants, applications, EP
        kinds.setdefault(json.loads(line)["kind"], []).append(line)
    uspto.write_text("".join(sorted(itertools.chain(*(found[:3] for found in kinds.values())))[:PER_SOURCE]),
                     encoding="utf-8")
    pap2pat = folder / "pap2pat.jsonl.gz"
    with gzip.open(pap2pat, "wt", encoding="utf-8") as f:
        f.write("".join(_lines(pap2pat_path, PER_SOURCE)))
    return [uspto, pap2pat]


def alone(files, suppressions: Suppressions | None = None, restatement: str = "rules") -> tuple[list[dict], list[dict]]:
    """The two tables' rows, from linting each record alone as `spg lint FILE --record ID` does."""
    claim_sets, findings = [], []
    for file in sorted(str(f.resolve()) for f in files):
        for n, line in enumerate(_lines(Path(file), 10**6), 1):
            value = json.loads(line)
            claim_set = claim_set_of(f"{file} line {n}", line)
            result = lint(claim_set.forest, claim_set.description, suppressions, restatement=restatement)
            where = {"file": file, "position": n, "id": value["id"]}
            claim_sets.append({**where, "kind": document_kind(value), "claims": len(claim_set.forest), "bad": None,
                               "errors": result.count("error"), "warnings": result.count("warning"),
                               "info": result.count("info"), "suppressed": result.suppressed,
                               **{c: sum(f.rule == r for f in result.findings)
                                  for r, c in rule_columns(restatement).items()}})
            findings += [{**where, "n": i, **f.to_dict()} for i, f in enumerate(result.findings)]
    return claim_sets, findings


@pytest.fixture(scope="module")
def expected(corpus):
    return alone(corpus)


@pytest.fixture(scope="module")
def one_process(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("one") / "out"
    lint_corpus(corpus, out, Checker(), workers=1, batch_size=3, progress=False)
    return read_tables(out)


def test_the_corpus_run_gives_row_for_row_what_linting_each_record_alone_gives(one_process, expected):
    claim_sets, findings = one_process
    assert claim_sets.to_pylist() == expected[0]
    assert findings.to_pylist() == expected[1]
    assert len(claim_sets) == 2 * PER_SOURCE and len(findings) > 0
    assert {row["kind"] for row in expected[0]} >= {"US grant", "US application"}


def test_two_workers_give_the_same_tables(corpus, one_process, tmp_path):
    lint_corpus(corpus, tmp_path / "out", Checker(), workers=2, batch_size=3, progress=False)
    two = read_tables(tmp_path / "out")
    assert two[0].equals(one_process[0]) and two[1].equals(one_process[1])


def test_with_the_restatement_reader_two_workers_give_what_linting_each_record_alone_with_it_gives(
        corpus, uspto_path, tmp_path):
    flagged = tmp_path / "flagged.jsonl"  # a document the reader flags seven times (and the rules never)
    flagged.write_text(next(line for line in _lines(uspto_path, 10**6) if '"EP0697382B1"' in line), encoding="utf-8")
    files = [corpus[0], flagged]
    lint_corpus(files, tmp_path / "out", Checker(restatement="read"), workers=2, batch_size=3, progress=False)
    claim_sets, findings = read_tables(tmp_path / "out")
    expected = alone(files, restatement="read")
    assert claim_sets.to_pylist() == expected[0] and findings.to_pylist() == expected[1]
    assert sum(claim_sets.column("n_restatement").to_pylist()) >= 7
    assert "n_restatement" not in read_tables(_rules_run(corpus[0], tmp_path))[0].column_names


def _rules_run(file, tmp_path) -> Path:
    lint_corpus([file], tmp_path / "rules", Checker(), workers=1, progress=False)
    return tmp_path / "rules"


def test_a_run_resumed_with_another_restatement_mode_is_refused_in_one_line(corpus, tmp_path, capsys):
    out = _rules_run(corpus[0], tmp_path)
    assert main(["lint", str(corpus[0]), "--out", str(out), "--restatement", "read"]) == 2
    err = capsys.readouterr().err
    assert "holds a run with other 'restatement'" in err and len(err.strip().splitlines()) == 1
    assert main(["lint", str(corpus[0]), "--out", str(out)]) == 0  # the same job resumes


def test_a_run_killed_half_way_resumes_with_no_record_twice_and_none_lost(corpus, one_process, tmp_path,
                                                                             monkeypatch):
    import spg.lint.corpus as job

    real, calls = job._lint_batch, []

    def killed_at_the_third_batch(state, number, batch):
        calls.append(number)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(state, number, batch)

    monkeypatch.setattr(job, "_lint_batch", killed_at_the_third_batch)
    with pytest.raises(KeyboardInterrupt):
        lint_corpus(corpus, tmp_path / "out", Checker(), workers=1, batch_size=3, progress=False)
    assert len(list((tmp_path / "out" / "claim_sets").iterdir())) == 2
    (tmp_path / "out" / "claim_sets" / "part-000001.parquet").unlink()  # killed between its two parts
    linted = []
    monkeypatch.setattr(job, "_lint_batch", lambda state, number, batch: linted.append(number) or real(
        state, number, batch))
    totals = lint_corpus(corpus, tmp_path / "out", Checker(), workers=1, batch_size=3, progress=False)
    assert linted == [1, 2, 3, 4, 5]  # batch 0 is done, not linted again
    resumed = read_tables(tmp_path / "out")
    assert resumed[0].equals(one_process[0]) and resumed[1].equals(one_process[1])
    assert totals.records == 2 * PER_SOURCE


def test_a_parquet_table_with_a_claims_column_and_a_folder_of_json_files_are_inputs(corpus, one_process, tmp_path):
    rows = [json.loads(line) for line in _lines(corpus[0], PER_SOURCE)]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "uspto.parquet")
    (tmp_path / "hupd").mkdir()
    for row in rows:
        (tmp_path / "hupd" / f"{row['id']}.json").write_text(json.dumps(row), encoding="utf-8")
    lint_corpus([tmp_path / "uspto.parquet", tmp_path / "hupd"], tmp_path / "out", Checker(), workers=1,
                progress=False)
    claim_sets, findings = read_tables(tmp_path / "out")
    def keyed(table, drop):
        return sorted((r["id"], tuple(v for k, v in r.items() if k not in drop)) for r in table.to_pylist())

    where = ("file", "position")
    uspto = one_process[0].filter(pa.compute.equal(one_process[0]["file"], str(corpus[0].resolve())))
    assert keyed(claim_sets, where) == sorted(keyed(uspto, where) * 2)
    assert len(findings) == 2 * sum(uspto["errors"].to_pylist() + uspto["warnings"].to_pylist()
                                    + uspto["info"].to_pylist())


def test_a_truncated_gzip_file_ends_with_a_row_naming_where_reading_stopped(tmp_path, corpus):
    data = corpus[1].read_bytes()
    (tmp_path / "cut.jsonl.gz").write_bytes(data[: len(data) // 2])
    totals = lint_corpus([tmp_path / "cut.jsonl.gz"], tmp_path / "out", Checker(), workers=1, progress=False)
    claim_sets, _ = read_tables(tmp_path / "out")
    last = claim_sets.to_pylist()[-1]
    assert totals.bad == 1 and last["bad"].startswith(f"{(tmp_path / 'cut.jsonl.gz').resolve()}: cannot read (")
    assert last["bad"].endswith(f"line {last['position'] - 1} are lost") and last["position"] > 1


def test_a_bad_record_is_a_row_naming_it_and_the_run_goes_on_exit_1(tmp_path, capsys, corpus):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"id": "X1", "claims": 5}\nnot json\n\xff\n' + corpus[0].read_bytes().split(b"\n")[0] + b"\n")
    assert main(["lint", str(bad), "--out", str(tmp_path / "out"), "--workers", "1"]) == 1
    out, err = capsys.readouterr()
    assert "4 records" in out and "3 bad records" in out and err == ""
    claim_sets, _ = read_tables(tmp_path / "out")
    problems = claim_sets["bad"].to_pylist()
    assert problems[0].startswith(f"{bad.resolve()} line 1 (id X1): field 'claims' must be")
    assert problems[1] == f"{bad.resolve()} line 2: not valid JSON (Expecting value at column 1)"
    assert problems[2] == f"{bad.resolve()} line 3: byte 0xff is not UTF-8; expected UTF-8 text"
    assert problems[3] is None and claim_sets["claims"].to_pylist()[3] > 0
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| bad records |" in report and (tmp_path / "out" / "report.png").read_bytes()[:4] == b"\x89PNG"


def test_ignore_and_suppression_files_apply_as_for_one_file(corpus, tmp_path, capsys):
    (tmp_path / ".spg-lint.yaml").write_text("ignore: [repeated-limitation]\n", encoding="utf-8")
    uspto = tmp_path / corpus[0].name
    uspto.write_bytes(corpus[0].read_bytes())
    assert main(["lint", str(uspto), "--out", str(tmp_path / "out"), "--ignore", "antecedent", "--workers", "1"]) == 0
    claim_sets, findings = read_tables(tmp_path / "out")
    suppressions = Suppressions(frozenset({"antecedent", "repeated-limitation"}))
    expected = alone([uspto], suppressions)
    assert claim_sets.to_pylist() == expected[0] and findings.to_pylist() == expected[1]
    assert not {"antecedent", "repeated-limitation"} & set(findings["rule"].to_pylist())
    assert sum(claim_sets["suppressed"].to_pylist()) > 0


def test_the_report_gives_findings_per_1000_claims_from_the_tables(corpus, tmp_path, capsys):
    assert main(["lint", *map(str, corpus), "--out", str(tmp_path / "out"), "--workers", "1"]) == 0
    claim_sets, findings = read_tables(tmp_path / "out")
    grants = claim_sets.filter(pa.compute.equal(claim_sets["kind"], "US grant"))
    rate = 1000 * sum(grants["n_antecedent"].to_pylist()) / sum(grants["claims"].to_pylist())
    header, *rows = [line for line in (tmp_path / "out" / "report.md").read_text().splitlines() if line.startswith("|")]
    column = [c.strip() for c in header.split("|")].index("US grant")
    antecedent = next(r for r in rows if r.startswith("| antecedent |"))
    assert antecedent.split("|")[column].strip() == f"{rate:.2f}"
    assert "data:image/png;base64," in (tmp_path / "out" / "report.html").read_text()


def test_another_job_in_the_folder_is_refused_and_a_folder_spg_did_not_create_too(corpus, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["lint", str(corpus[0]), "--out", str(out), "--workers", "1"]) == 0
    assert main(["lint", str(corpus[0]), "--out", str(out), "--ignore", "antecedent"]) == 2
    assert "holds a run with other 'ignore'" in capsys.readouterr().err
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine")
    assert main(["lint", str(corpus[0]), "--out", str(tmp_path / "mine")]) == 2
    assert "spg did not create" in capsys.readouterr().err
    assert (tmp_path / "mine" / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("argv, expected", [
    (["--out", "OUT", "--html", "r.html"], "--html is for one claim set"),
    (["MORE"], "several inputs, --workers"),
    (["--workers", "2"], "need --out DIR"),
    (["--out", "OUT", "--workers", "0"], "--workers 0: expected a positive number"),
    (["--out", "INSIDE"], "lies inside the input"),
])
def test_usage_errors_are_one_line_exit_2(corpus, tmp_path, capsys, argv, expected):
    places = {"MORE": str(corpus[1]), "OUT": str(tmp_path / "out"), "INSIDE": str(tmp_path / "data" / "out")}
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.jsonl").write_bytes(corpus[0].read_bytes())
    first = str(tmp_path / "data") if "INSIDE" in argv else str(corpus[0])
    try:
        code = main(["lint", first, *[places.get(a, a) for a in argv]])
    except SystemExit as usage:  # argparse's usage error: one line too
        code = usage.code
    assert code == 2
    err = capsys.readouterr().err
    assert expected in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow  # starting a Ray cluster takes 30-60 s on a busy 2-core machine
def test_the_ray_engine_on_a_local_two_cpu_cluster_gives_the_same_tables(corpus, one_process, tmp_path):
    try:
        import ray
    except ImportError:
        requirement_missing("the corpus extra (ray)")
    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False)
    try:
        lint_corpus(corpus, tmp_path / "out", Checker(), workers=2, batch_size=3, progress=False, engine="ray")
    finally:
        ray.shutdown()
    on_ray = read_tables(tmp_path / "out")
    assert on_ray[0].equals(one_process[0]) and on_ray[1].equals(one_process[1])

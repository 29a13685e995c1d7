"""``spg evaluate --workers``: the rule-based scores (SP/AC/CC, PatentScore, DEA, validity) computed in batches on
several processes (spg.corpus) give the table and the per-document scores one process gives."""

from __future__ import annotations

import itertools
import json

import pytest

from spg.cli import main
from spg.data import load_records
from spg.evaluate import numbered_text


@pytest.fixture()
def real_subset(uspto_path, tmp_path):
    """The first 40 USPTO/EP documents as references, and two systems made from them: the references themselves
    (every 7th missing) and a degraded copy (last claim dropped, every dependent claim on claim 1, every 5th
    blank), so that DEA, validity, PatentScore and the statuses vary from document to document."""
    records = list(itertools.islice(load_records(uspto_path), 40))
    refs = tmp_path / "refs.jsonl"
    with refs.open("w") as out, open(uspto_path) as source:
        out.writelines(itertools.islice(source, 40))
    gold = [{"id": r.id, "prediction": numbered_text(r.claims)} for i, r in enumerate(records) if i % 7 != 3]
    degraded = []
    for i, r in enumerate(records):
        claims = list(r.claims)[:-1] if len(r.claims) > 1 else list(r.claims)
        text = "\n".join(f"{c.num}. {c.text}" if c.independent else f"{c.num}. The item of claim 1, {c.text}"
                         for c in claims)
        degraded.append({"id": r.id, "prediction": "" if i % 5 == 0 else text})
    systems = []
    for name, rows in (("gold", gold), ("degraded", degraded)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        systems.append(str(path))
    return str(refs), systems


def test_two_workers_give_the_table_and_documents_one_process_gives(real_subset, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("spg.evaluate.RULE_BATCH", 3)  # 14 batches, so that the two workers finish out of order
    refs, systems = real_subset
    runs = []
    for workers in ("1", "2"):
        out = tmp_path / f"out{workers}"
        argv = ["evaluate", refs, *systems, "--no-bertscore", "--no-progress", "--workers", workers, "--out", str(out)]
        assert main(argv) == 0
        capsys.readouterr()
        table = json.loads((out / "table.json").read_text())
        del table["files"]  # digests of the other two files, compared below
        runs.append((table, (out / "documents.jsonl").read_text(), (out / "table.md").read_text()))
    assert runs[0] == runs[1]
    table, documents, _ = runs[0]
    gold, degraded = table["rows"]
    assert (gold["n"], gold["missing"], degraded["empty"]) == (40, 6, 8)
    assert gold["DEA"] > degraded["DEA"] and gold["PS"] > degraded["PS"]
    lines = [json.loads(line) for line in documents.splitlines()]
    assert [d["system"] for d in lines] == ["gold"] * 40 + ["degraded"] * 40
    assert len({d["id"] for d in lines}) == 40


def test_a_negative_number_of_workers_is_bad_input(real_subset, capsys):
    refs, systems = real_subset
    assert main(["evaluate", refs, *systems, "--no-bertscore", "--workers", "-1"]) == 2
    assert "--workers -1: expected a number of processes" in capsys.readouterr().err

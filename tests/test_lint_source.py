import io
import json

import pytest

from spg.data import DataError
from spg.lint.source import read_claim_set, read_description


def test_claim_text_opening_with_a_bracket_is_text_not_bad_json(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("[Claim 1] A widget. [Claim 2] The widget of claim 1.")
    forest = read_claim_set(str(path)).forest  # read as text: no "not valid JSON"
    assert [(c.num, c.parents) for c in forest.claims] == [(1, ()), (2, (1,))]


def test_json_with_a_typo_is_still_reported_as_json(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text('["A chair.", ')
    with pytest.raises(DataError, match="not valid JSON"):
        read_claim_set(str(path))


def test_closed_stdin_is_bad_input(monkeypatch):
    monkeypatch.setattr("sys.stdin", None)
    with pytest.raises(DataError, match="standard input is closed"):
        read_claim_set("-")


def test_a_record_brings_its_description(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"id": "X", "claims": "1. A chair.", "description": "A chair."}))
    claim_set = read_claim_set(str(path))
    assert claim_set.description == "A chair." and len(claim_set.forest) == 1


def test_json_lines_needs_a_record_id_when_it_holds_several(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps({"id": i, "claims": f"1. A {i}."}) + "\n" for i in ("A", "B")))
    with pytest.raises(DataError, match="holds 2 records; choose one with --record ID"):
        read_claim_set(str(path))
    assert read_claim_set(str(path), "B").forest.by_num[1].text == "A B."
    with pytest.raises(DataError, match="no record with id 'C'"):
        read_claim_set(str(path), "C")


def test_stdin_is_read(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"1. A chair.")))
    assert len(read_claim_set("-").forest) == 1


def test_an_empty_description_file_is_bad_input(tmp_path):
    path = tmp_path / "d.txt"
    path.write_text("  \n")
    with pytest.raises(DataError, match="the description is empty"):
        read_description(str(path))

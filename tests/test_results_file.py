"""Issues 13 and 20: ``spg generate --output`` never damages a file that is not its own (recognised by the marker
every result line starts with, not by a leading ``{"id"``), cuts off only its own torn last line, and one failing
document does not end the run."""

from __future__ import annotations

import json

import pytest

from spg.errors import InputError
from spg.files import marked
from spg.generation.runner import RESULT, Document, finished_ids, read_results, run

DOCS = [Document("d1", "A chair."), Document("d2", "A lamp."), Document("d3", "A pen.")]


def result(doc: Document) -> dict:
    return {"id": doc.id, "mode": "zero-shot", "raw": "1. A x.", "claims_text": "1. A x.", "new_tokens": 3}


def line(doc: Document) -> str:
    """The result line of ``doc`` as spg writes it."""
    return json.dumps(marked(RESULT, result(doc)), ensure_ascii=False)


def generate(batch: list[Document]) -> list[dict]:
    return [result(d) for d in batch]


def test_a_records_file_given_as_output_is_refused_and_left_byte_for_byte(tmp_path):
    records = "".join(json.dumps({"id": f"r{i}", "description": "A chair.", "claims": "1. A chair."}) + "\n"
                      for i in range(3))
    records += json.dumps({"id": "r3", "description": "no newline at the end"})
    path = tmp_path / "records.jsonl"
    path.write_text(records)
    with pytest.raises(InputError, match=r"records.jsonl line 1: not spg result output"):
        run(DOCS, generate, path, batch_size=2, progress=False)
    assert path.read_text() == records


def test_a_line_with_the_result_fields_but_no_marker_is_not_a_finished_result(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text(line(DOCS[0]) + "\n" + json.dumps(result(DOCS[1])) + "\n")
    with pytest.raises(InputError, match="line 2: not spg result output"):
        read_results(path)


def test_a_users_half_written_line_starting_like_a_result_is_refused_not_emptied(tmp_path):
    """The issue's reproducer: a notes file whose only line starts {"id": and has no newline."""
    path = tmp_path / "notes.jsonl"
    notes = '{"id": "idea-1", "text": "half a thought'
    path.write_text(notes)
    with pytest.raises(InputError, match="notes.jsonl line 1: not spg result output"):
        run(DOCS, generate, path, batch_size=2, progress=False)
    assert path.read_text() == notes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.jsonl"]


def test_spgs_own_torn_last_line_is_cut_off_and_the_run_goes_on(tmp_path, capsys):
    whole = line(DOCS[0]) + "\n"
    path = tmp_path / "out.jsonl"
    path.write_text(whole + line(DOCS[1])[:40])
    assert read_results(path) == ({"d1"}, True)
    assert finished_ids(path) == {"d1"}
    assert path.read_text() == whole
    assert "dropped its last line, cut short" in capsys.readouterr().err
    assert run(DOCS, generate, path, batch_size=2, progress=False).written == 2
    assert [json.loads(x)["id"] for x in path.read_text().splitlines()] == ["d1", "d2", "d3"]


def test_a_whole_last_line_without_its_newline_counts_and_the_next_result_starts_a_new_line(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text(line(DOCS[0]))
    summary = run(DOCS, generate, path, batch_size=2, progress=False)
    assert summary.already_done == 1 and summary.written == 2
    assert [json.loads(x)["id"] for x in path.read_text().splitlines()] == ["d1", "d2", "d3"]


def test_a_symlink_given_as_output_is_refused_and_its_target_left_alone(tmp_path):
    target = tmp_path / "elsewhere.jsonl"
    target.write_text(line(DOCS[0]) + "\n")
    (tmp_path / "out.jsonl").symlink_to(target)
    with pytest.raises(InputError, match="symbolic link"):
        run(DOCS, generate, tmp_path / "out.jsonl", batch_size=2, progress=False)
    assert target.read_text() == line(DOCS[0]) + "\n"


def test_a_folder_given_as_output_is_refused(tmp_path):
    with pytest.raises(InputError, match="is a folder"):
        read_results(tmp_path)


def test_a_document_that_fails_is_reported_as_bad_and_the_others_are_written(tmp_path, capsys):
    def fails_on_d2(batch: list[Document]) -> list[dict]:
        if any(d.id == "d2" for d in batch):
            raise KeyError(4)
        return generate(batch)

    path = tmp_path / "out.jsonl"
    summary = run(DOCS, fails_on_d2, path, batch_size=2, progress=False)
    assert summary.bad == ["d2"] and summary.written == 2
    assert finished_ids(path) == {"d1", "d3"}
    assert "skipped d2: generation failed (KeyError: 4)" in capsys.readouterr().err

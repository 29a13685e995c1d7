"""spg.files (issue 20): results are written whole or not at all, never over a file spg did not write, never
through a link, and a re-run keeps the previous version; appended results survive a kill line by line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from spg.errors import InputError
from spg.files import (
    Appender,
    check_destination,
    read_lines,
    read_rows,
    write_json,
    write_jsonl,
    write_report,
    write_text,
)


def test_a_result_is_marked_in_its_content_and_a_rerun_with_other_content_keeps_the_previous(tmp_path, capsys):
    path = tmp_path / "table.md"
    write_text(path, "evaluation", "| a |\n")
    assert path.read_text() == "<!-- spg evaluation -->\n| a |\n"
    write_text(path, "evaluation", "| b |\n")
    assert path.read_text().endswith("| b |\n")
    assert (tmp_path / "table.md.~1~").read_text().endswith("| a |\n")
    assert "kept the previous version as table.md.~1~" in capsys.readouterr().err


def test_the_same_content_again_leaves_the_file_and_makes_no_copy(tmp_path):
    path = write_json(tmp_path / "t.json", "evaluation", {"rows": [1]})
    before = path.stat().st_mtime_ns
    write_json(path, "evaluation", {"rows": [1]})
    assert path.stat().st_mtime_ns == before and sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]
    assert json.loads(path.read_text()) == {"spg": "evaluation", "rows": [1]}


@pytest.mark.parametrize("name, content", [
    ("table.md", "# my notes\n"), ("table.json", '{"rows": []}'), ("documents.jsonl", '{"id": "x"}\n'),
    ("table.json", '{"spg": "dea"}'),  # spg's, but another command's
])
def test_a_file_spg_did_not_write_is_refused_and_left_byte_for_byte(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError, match="spg never writes"):
        (write_text if name.endswith(".md") else write_json if name.endswith(".json") else write_jsonl)(
            path, "evaluation", "x" if name.endswith(".md") else {} if name.endswith(".json") else [])
    assert path.read_text() == content and len(list(tmp_path.iterdir())) == 1


def test_an_empty_file_is_added_to_but_never_replaced(tmp_path):
    """A run killed before its first result leaves an empty results file; spg never leaves a whole file empty."""
    path = tmp_path / "out.jsonl"
    path.touch()
    with Appender(path, "result") as sink:
        sink.add([{"id": "d1"}])
    assert read_rows(path, "result") == [{"id": "d1"}]
    (tmp_path / "table.md").touch()
    with pytest.raises(InputError, match="spg never writes"):
        write_text(tmp_path / "table.md", "evaluation", "| a |\n")


def test_a_symbolic_link_is_refused_and_its_target_left_alone(tmp_path):
    target = tmp_path / "elsewhere.jsonl"
    target.write_text("precious\n")
    link = tmp_path / "documents.jsonl"
    link.symlink_to(target)
    with pytest.raises(InputError, match="symbolic link"):
        write_jsonl(link, "evaluation", [{"id": "d1"}])
    with pytest.raises(InputError, match="symbolic link"):
        Appender(link, "evaluation")
    assert target.read_text() == "precious\n"


def test_a_folder_where_a_file_goes_and_a_file_where_a_folder_goes_are_refused(tmp_path):
    (tmp_path / "table.md").mkdir()
    with pytest.raises(InputError, match="is a folder"):
        check_destination(tmp_path / "table.md", "evaluation")
    (tmp_path / "out").write_text("a file")
    with pytest.raises(InputError, match="is not a folder"):
        check_destination(tmp_path / "out" / "table.md", "evaluation")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in any folder")
def test_a_folder_spg_cannot_write_in_is_refused(tmp_path):
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(InputError, match="permission denied"):
            check_destination(tmp_path / "table.md", "evaluation")
    finally:
        tmp_path.chmod(0o700)


def test_appending_refuses_a_users_file_whatever_its_first_bytes(tmp_path):
    path = tmp_path / "notes.jsonl"
    path.write_text('{"id": "half a line')
    with pytest.raises(InputError, match="line 1: not spg result output"):
        Appender(path, "result")
    assert path.read_text() == '{"id": "half a line'


# ---------------------------------------------------------------- killed mid-write

WRITER = """
import sys
from spg.files import Appender, write_jsonl
path, mode = sys.argv[1], sys.argv[2]
print("ready", flush=True)
if mode == "whole":
    for run in range(10**9):  # each run's report differs, so each replaces the last
        write_jsonl(path, "evaluation", [{"id": f"d{i}", "run": run, "text": "x" * 2000} for i in range(2000)])
else:
    with Appender(path, "result") as sink:
        for i in range(10**9):
            sink.add([{"id": f"d{i}", "text": "x" * 20000}])
"""


def _kill_while_writing(tmp_path, path, mode: str, after: float) -> None:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path), mode], stdout=subprocess.PIPE)
    assert proc.stdout.readline() == b"ready\n"
    time.sleep(after)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()


@pytest.mark.parametrize("after", [0.3, 0.8])
def test_a_report_killed_mid_write_is_whole_or_absent(tmp_path, after):
    path = tmp_path / "documents.jsonl"
    _kill_while_writing(tmp_path, path, "whole", after)
    kept = [path, *tmp_path.glob("documents.jsonl.~*~")]  # the report and every previous version
    assert len(kept) > 1  # killed after several runs, so maybe in the middle of one
    for report in kept:
        rows = [json.loads(line) for line in report.read_bytes().splitlines()]
        assert len(rows) == 2000 and len({row["run"] for row in rows}) == 1
    assert {p.name for p in tmp_path.iterdir() if not p.name.startswith(".")} == {p.name for p in kept}


def test_appended_results_killed_mid_write_keep_every_whole_line_and_resume(tmp_path):
    path = tmp_path / "out.jsonl"
    _kill_while_writing(tmp_path, path, "append", 0.5)
    whole, _ = read_lines(path, "result")
    assert whole
    with Appender(path, "result") as sink:  # cuts a torn line off, if the kill left one
        sink.add([{"id": "next"}])
    rows = read_rows(path, "result")
    assert [r["id"] for r in rows] == [f"d{i}" for i in range(len(rows) - 1)] + ["next"]
    assert read_lines(path, "result")[1] is False


# ---------------------------------------------------------------- reports the user names (spg lint --html)


def test_a_report_is_written_whole_and_leaves_no_temporary_file(tmp_path):
    write_report(tmp_path / "r.html", "<p>ok</p>")
    assert (tmp_path / "r.html").read_text() == "<p>ok</p>" and os.listdir(tmp_path) == ["r.html"]


def test_an_existing_file_is_kept_unless_the_report_is_forced(tmp_path):
    path = tmp_path / "r.html"
    path.write_text("mine")
    with pytest.raises(InputError, match="already exists; use --force"):
        write_report(path, "new")
    assert path.read_text() == "mine"
    write_report(path, "new", force=True)
    assert path.read_text() == "new" and os.listdir(tmp_path) == ["r.html"]


def test_a_report_is_never_written_through_a_symbolic_link_even_forced(tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("mine")
    (tmp_path / "r.html").symlink_to(target)
    with pytest.raises(InputError, match="symbolic link"):
        write_report(tmp_path / "r.html", "new", force=True)
    assert target.read_text() == "mine"


def test_a_report_under_a_file_where_its_folder_goes_is_bad_input(tmp_path):
    (tmp_path / "none").write_text("a file")
    with pytest.raises(InputError, match="is not a folder"):
        write_report(tmp_path / "none" / "r.html", "x")

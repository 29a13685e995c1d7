"""spg.files (issue 20): results are written whole or not at all, never over a file spg did not write, never
through a link, and a re-run keeps the previous version; appended results survive a kill line by line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import cli_in_a_fresh_process

from spg.errors import InputError
from spg.files import (
    RUN_MARKER,
    Appender,
    check_destination,
    check_folder,
    claim_folder,
    locked,
    open_log,
    read_lines,
    read_rows,
    whole_folder,
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
    with pytest.raises(InputError, match="symbolic link"):
        write_report(link, "<p>new</p>", force=True)  # not even when the user says replace it
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
import json, sys
from spg.files import Appender, write_jsonl
path, mode = sys.argv[1], sys.argv[2]
print("ready", flush=True)
if mode == "whole":
    for run in range(10**9):  # each run's report differs, so each replaces the last
        write_jsonl(path, "evaluation", [{"id": f"d{i}", "run": run, "text": "x" * 2000} for i in range(2000)])
        print("done", flush=True)
elif mode == "artefact":  # a file inside a folder spg owns, e.g. a run's log_history.json
    from spg.files import write_artefact
    for run in range(10**9):
        write_artefact(path, json.dumps([{"step": i, "run": run, "loss": 1.0} for i in range(20000)], indent=1))
        print("done", flush=True)
elif mode == "folder":  # a final model: several files that belong together
    from pathlib import Path
    from spg.files import whole_folder
    for run in range(10**9):
        with whole_folder(Path(path)) as folder:
            for name in ("adapter.bin", "spg_config.json", "log_history.json"):
                (folder / name).write_text(str(run) * 200000)
        print("done", flush=True)
else:
    with Appender(path, "result") as sink:
        for i in range(10**9):
            sink.add([{"id": f"d{i}", "text": "x" * 20000}])
            if i in (0, 1):
                print("done", flush=True)
"""


def _kill_while_writing(tmp_path, path, mode: str, after: float) -> None:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path), mode], stdout=subprocess.PIPE)
    assert proc.stdout.readline() == b"ready\n"
    # two runs finished first, however busy the machine (a fixed sleep alone let a loaded one kill the first run),
    # then ``after`` seconds more so that the kill falls anywhere in a later run
    assert proc.stdout.readline() == b"done\n" and proc.stdout.readline() == b"done\n"
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


def test_a_report_under_a_file_where_its_folder_goes_is_bad_input(tmp_path):
    (tmp_path / "none").write_text("a file")
    with pytest.raises(InputError, match="is not a folder"):
        write_report(tmp_path / "none" / "r.html", "x")


def test_an_artefact_killed_mid_write_is_whole_or_absent(tmp_path):
    path = tmp_path / "log_history.json"
    _kill_while_writing(tmp_path, path, "artefact", 0.8)
    assert path.is_file()  # killed after several runs, so maybe in the middle of one
    history = json.loads(path.read_text())
    assert len(history) == 20000 and len({row["run"] for row in history}) == 1
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")] == ["log_history.json"]


def test_a_final_folder_killed_mid_write_is_whole_or_absent(tmp_path):
    final = tmp_path / "final"
    _kill_while_writing(tmp_path, final, "folder", 1.0)
    # absent when the kill fell between its two renames (the previous one kept as final.~N~, the new one not yet in
    # place): what the two workers of the test suite's load made happen
    kept = [p for p in (final, *tmp_path.glob("final.~*~")) if p.exists()]
    assert len(kept) > 1
    for folder in kept:  # every version has all its files, all from one run
        contents = {(folder / name).read_text() for name in ("adapter.bin", "spg_config.json", "log_history.json")}
        assert len(contents) == 1 and len(contents.pop()) >= 200000
    assert {p.name for p in tmp_path.iterdir() if not p.name.startswith(".")} == {p.name for p in kept}


# ---------------------------------------------------------------- folders spg owns (a training run's output_dir)


def test_a_new_or_empty_folder_is_claimed_by_a_marker_written_first(tmp_path):
    for folder in (tmp_path / "new" / "run", tmp_path / "empty"):
        if folder.name == "empty":
            folder.mkdir()
        claim_folder(folder, "stage1")
        assert os.listdir(folder) == [RUN_MARKER]
        assert json.loads((folder / RUN_MARKER).read_text())["spg"] == "stage1"


def test_a_folder_spg_created_is_accepted_again_with_what_the_run_wrote_in_it(tmp_path):
    folder = claim_folder(tmp_path / "run", "stage1")
    marker = (folder / RUN_MARKER).read_bytes()
    (folder / "checkpoint-2").mkdir()
    (folder / "checkpoint-2" / "adapter_model.safetensors").write_bytes(b"weights")
    check_folder(folder, "stage1")
    assert claim_folder(folder, "stage1") == folder and (folder / RUN_MARKER).read_bytes() == marker
    with pytest.raises(InputError, match="not an spg stage2 run's"):  # another stage's folder
        check_folder(folder, "stage2")


def test_a_folder_another_rank_claims_while_it_is_checked_is_accepted(tmp_path, monkeypatch):
    folder = tmp_path / "run"
    folder.mkdir()
    listdir = os.listdir

    def racing(path):  # the other rank links its marker and writes a log between the marker test and the listing
        if not (folder / RUN_MARKER).exists():
            monkeypatch.undo()
            claim_folder(folder, "stage2")
            (folder / "train.log").write_text("step 1")
        return listdir(path)

    monkeypatch.setattr(os, "listdir", racing)
    check_folder(folder, "stage2")
    assert sorted(os.listdir(folder)) == [RUN_MARKER, "train.log"]


def _tree(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None for p in folder.rglob("*")}


@pytest.mark.parametrize("mine", [
    {"thesis.tex": b"\\section{mine}"},
    {"final/README.md": b"my notes"},  # looks like a run, but spg did not create it
    {"spg-run.json": b'{"id": "mine"}'},  # a marker's name, not spg's content
])
def test_a_users_non_empty_folder_is_refused_and_left_as_it_was(tmp_path, mine):
    for name, data in mine.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    before = _tree(tmp_path)
    with pytest.raises(InputError, match="spg did not create|not an spg stage1 run's"):
        claim_folder(tmp_path, "stage1")
    assert _tree(tmp_path) == before


def test_a_link_or_a_file_where_a_run_folder_goes_is_refused(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "run").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(InputError, match="symbolic link"):
        claim_folder(tmp_path / "run", "stage1")
    (tmp_path / "notes").write_text("mine")
    with pytest.raises(InputError, match="is not a folder"):
        claim_folder(tmp_path / "notes", "stage1")
    assert os.listdir(tmp_path / "elsewhere") == [] and (tmp_path / "notes").read_text() == "mine"


def test_a_claim_killed_before_its_marker_was_linked_leaves_a_folder_spg_accepts(tmp_path):
    (tmp_path / f".{RUN_MARKER}.x1y2.partial").write_text('{"spg": "st')
    claim_folder(tmp_path, "stage1")
    assert json.loads((tmp_path / RUN_MARKER).read_text())["spg"] == "stage1"


def test_a_whole_folder_appears_only_complete_and_keeps_the_previous_one(tmp_path, capsys):
    final = tmp_path / "final"
    with whole_folder(final) as folder:
        (folder / "a.json").write_text("1")
        assert not final.exists()
    with pytest.raises(RuntimeError), whole_folder(final) as folder:
        (folder / "a.json").write_text("half")
        raise RuntimeError("killed")
    assert (final / "a.json").read_text() == "1" and sorted(os.listdir(tmp_path)) == ["final"]
    with whole_folder(final) as folder:
        (folder / "a.json").write_text("2")
    assert (final / "a.json").read_text() == "2" and (tmp_path / "final.~1~" / "a.json").read_text() == "1"
    assert "kept the previous version as final.~1~" in capsys.readouterr().err


def test_a_process_that_does_not_write_leaves_the_whole_folder_alone(tmp_path):
    (tmp_path / "final").mkdir()
    with whole_folder(tmp_path / "final", write=False) as folder:
        assert folder.parent == tmp_path and not folder.exists()
    assert os.listdir(tmp_path) == ["final"]


def test_a_users_non_empty_output_dir_is_refused_in_one_line_before_torch_is_imported(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("mine")
    model = tmp_path / "model"
    model.mkdir()
    (model / "spg_config.json").write_text("{}")  # a folder the config check takes for an SPG artefact
    found = cli_in_a_fresh_process([STAGE1 + [f"output_dir={mine}", f"train_file={tmp_path / 'x.jsonl'}"],
                                     STAGE2 + [f"output_dir={mine}", f"model={model}"]])
    for code, err, torch_loaded in found:
        assert code == 2 and len(err.splitlines()) == 1 and f"output_dir={mine}: is a folder spg did not" in err, err
        assert not torch_loaded
    assert os.listdir(mine) == ["thesis.tex"] and (mine / "thesis.tex").read_text() == "mine"


STAGE1 = ["train", "stage1", "--config", "configs/cpu/smollm2-stage1.yaml"]
STAGE2 = ["train", "stage2", "--config", "configs/cpu/smollm2-stage2.yaml"]
REPO = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- logs and locks


def test_a_log_starts_with_its_marker_is_appended_to_and_a_users_file_is_refused(tmp_path):
    log = tmp_path / "logs" / "job.log"
    with open_log(log, "reproduce") as sink:
        sink.write(b"step 1\n")
    with open_log(log, "reproduce") as sink:
        sink.write(b"step 2\n")
    assert log.read_text() == "# spg reproduce\nstep 1\nstep 2\n"
    mine = tmp_path / "mine.log"
    mine.write_text("my notes\n")
    with pytest.raises(InputError, match="not spg reproduce output"):
        open_log(mine, "reproduce")
    assert mine.read_text() == "my notes\n"


def test_a_lock_never_changes_a_file_of_its_name(tmp_path):
    lock = tmp_path / "out.jsonl.lock"
    lock.write_text("mine")
    with locked(lock):
        pass
    assert lock.read_text() == "mine"
    (tmp_path / "link.lock").symlink_to(tmp_path / "absent")
    with pytest.raises(InputError, match="cannot open it as a lock file"), locked(tmp_path / "link.lock"):
        pass
    assert not (tmp_path / "absent").exists()

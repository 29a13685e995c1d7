"""Issue 13, the command line: one error contract for every command (README, "Errors and exit status").

Bad input or usage exits 2 with one line naming the file, the line or record, the field and what was expected,
no traceback unless ``spg --debug``; arguments are checked before any model loads (``load_generator`` and
``score_system`` are replaced by functions that fail the test if they are reached).
"""

from __future__ import annotations

import io
import json

import pytest

from spg.cli import main

GOLD = [{"num": 1, "text": "A chair comprising a seat."}, {"num": 2, "text": "The chair of claim 1.", "parents": [1]}]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def bad_input(capsys, *argv: str) -> str:
    """Run a command that must refuse its input: exit 2 and exactly one line on stderr, which is returned."""
    code, _, err = run(capsys, *argv)
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


# ---------------------------------------------------------------- the contract itself


def test_an_internal_error_is_one_line_with_exit_3_and_debug_shows_the_traceback(monkeypatch, tmp_path, capsys):
    def crash(forest):
        raise KeyError(4)

    monkeypatch.setattr("spg.cli.lint.lint_lines", crash)
    path = tmp_path / "c.txt"
    path.write_text("1. A chair.")
    code, _, err = run(capsys, "lint", str(path))
    assert code == 3 and err.count("\n") == 1 and "internal error (KeyError: 4)" in err and "--debug" in err
    with pytest.raises(KeyError):
        main(["--debug", "lint", str(path)])


def test_debug_shows_the_traceback_of_bad_input_too(tmp_path):
    from spg.data import DataError

    with pytest.raises(DataError, match="cannot read"):
        main(["--debug", "lint", str(tmp_path / "missing.txt")])


# ---------------------------------------------------------------- lint and stats


def test_lint_refuses_bytes_on_stdin_that_are_not_utf8(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"1. A chair.\n2. The \xff\xfe chair of claim 1.")))
    assert "<stdin> line 2: byte 0xff is not UTF-8" in bad_input(capsys, "lint", "-")


def test_lint_reads_json_and_text_that_start_with_a_byte_order_mark(tmp_path, capsys):
    (tmp_path / "c.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(GOLD).encode())
    (tmp_path / "c.txt").write_bytes(b"\xef\xbb\xbf1. A chair.\n2. The chair of claim 1.")
    for name in ("c.json", "c.txt"):
        code, out, _ = run(capsys, "lint", "--json", str(tmp_path / name))
        assert code == 0 and [c["parents"] for c in json.loads(out)["claims"]] == [[], [1]], name
    code, out, _ = run(capsys, "lint", str(tmp_path / "c.txt"))
    assert out.startswith("1 [ind] A chair.")


def test_lint_names_an_unterminated_json_string_once(tmp_path, capsys):
    path = tmp_path / "c.json"
    path.write_text('["A chair.", "The chair')
    err = bad_input(capsys, "lint", str(path))
    assert "not valid JSON (Unterminated string starting at: line 1, column 14)" in err and "at at" not in err


@pytest.mark.parametrize("command", ["lint", "stats"])
def test_json_nested_too_deeply_is_bad_input(command, tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100000)
    assert "deep.json: JSON nested too deeply" in bad_input(capsys, command, str(path))


def test_stats_on_a_source_without_records_is_bad_input(tmp_path, capsys):
    path = tmp_path / "empty.jsonl"
    path.write_text("")
    assert "empty.jsonl: no patent records to count" in bad_input(capsys, "stats", str(path))

"""Issue 13, the command line: one error contract for every command (README, "Errors and exit status").

Bad input or usage exits 2 with one line naming the file, the line or record, the field and what was expected,
no traceback unless ``spg --debug``; arguments are checked before any model loads (``load_generator`` and
``score_system`` are replaced by functions that fail the test if they are reached).
"""

from __future__ import annotations

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

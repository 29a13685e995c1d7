import os

import pytest

from spg.errors import InputError
from spg.lint.output import write_new_file


def test_writes_a_new_file_and_leaves_no_temporary_file(tmp_path):
    write_new_file(tmp_path / "r.html", "<p>ok</p>")
    assert (tmp_path / "r.html").read_text() == "<p>ok</p>" and os.listdir(tmp_path) == ["r.html"]


def test_an_existing_file_is_kept_unless_forced(tmp_path):
    path = tmp_path / "r.html"
    path.write_text("mine")
    with pytest.raises(InputError, match="already exists; use --force"):
        write_new_file(path, "new")
    assert path.read_text() == "mine"
    write_new_file(path, "new", force=True)
    assert path.read_text() == "new"


def test_a_symbolic_link_is_never_written_through(tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("mine")
    (tmp_path / "r.html").symlink_to(target)
    with pytest.raises(InputError, match="symbolic link"):
        write_new_file(tmp_path / "r.html", "new", force=True)
    assert target.read_text() == "mine"


def test_a_missing_folder_is_bad_input(tmp_path):
    with pytest.raises(InputError, match="cannot write"):
        write_new_file(tmp_path / "none" / "r.html", "x")

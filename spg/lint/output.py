"""Writing the HTML report without ever damaging a file. A near-copy of spg/files.py's atomic replace, kept apart for
now because a report the user names is replaced only with --force and carries no spg marker; merging the two is open
(issue 20)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from spg.errors import InputError


def write_new_file(path: str | Path, text: str, force: bool = False) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and an atomic rename, so a reader
    never sees half a file and a failed write leaves nothing behind. An existing file is replaced only with
    ``force``; a symbolic link never (it could point anywhere)."""
    path = Path(path)
    if path.is_symlink():
        raise InputError(f"{path}: is a symbolic link; refusing to write a report through it")
    if path.is_dir():
        raise InputError(f"{path}: is a folder; expected a file name for the report")
    if path.exists() and not force:
        raise InputError(f"{path}: already exists; use --force to replace it")
    folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:
        raise InputError(f"{path}: cannot write ({e.strerror or e})") from None
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp makes it private; a report is as readable as any file the user writes
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except OSError as e:
        Path(temporary).unlink(missing_ok=True)
        raise InputError(f"{path}: cannot write ({e.strerror or e})") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise

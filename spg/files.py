"""The one way spg writes its results: never over a file it did not write, never through a link, never half.

Every result spg writes says so in its content, under a *kind* naming what it is ("result" for a line of
``spg generate --output``, "evaluation" for ``spg evaluate --out``'s table, ...):

* JSONL: every line is an object whose first key is ``"spg": KIND``;
* JSON: an object whose first key is ``"spg": KIND``;
* Markdown, YAML and logs: a first line ``<!-- spg KIND -->`` or ``# spg KIND``;
* Word documents (.docx): a custom document property ``spg`` whose value is KIND (docProps/custom.xml, shown in
  Word under File > Info > Properties > Advanced > Custom), since a .docx has no first line to mark.

A destination is written only when it is absent or holds spg's own output of the same kind (appended results:
or is empty), and never when it is a symbolic link (:func:`check_destination`, which commands call before any work).

Whole files (:func:`write_text`, :func:`write_json`, :func:`write_jsonl`) are written to a new temporary file
in the destination folder, synced and renamed over the destination, so a killed run leaves the old file or the
new one, never part of one. A re-run whose output differs from the file already there keeps the previous one
as ``NAME.~N~`` (N = 1, 2, ...) and says so on stderr; identical output leaves the file untouched.

Results that grow as a run goes (``spg generate --output``, ``spg pairs``) are appended a batch at a time
(:class:`Appender`), each batch synced before the next starts, so a killed run loses at most the batch in
flight. A last line that a kill cut short is recognised by the kind's marker it starts with, and only such a
line is cut off when the run resumes; a file whose lines are anything else is refused, whatever it starts with.

Folders spg fills with files it does not mark one by one (a training run's ``output_dir``: checkpoints and the
final model, written by transformers and PEFT) are spg's when spg created them: :func:`claim_folder` writes a
marker file, ``spg-run.json`` (``{"spg": KIND}``), into a new or empty folder before anything else, and any
other folder is refused (:func:`check_folder`). Files spg writes inside such a folder go through
:func:`write_artefact` (atomic, no marker of their own), and a folder that must appear whole (a final model)
through :func:`whole_folder`.

A report the user names and that carries no marker (``spg lint --html``) is written the same atomic way but
replaces an existing file only when the user says so (:func:`write_report`).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, BinaryIO

from spg.errors import InputError, shown

MARK = "spg"  # the key, or the word in a first line, that marks spg's own output
_HEADERS = {".md": "<!-- spg {} -->\n", ".yaml": "# spg {}\n", ".yml": "# spg {}\n", ".log": "# spg {}\n"}


def _line_prefix(kind: str) -> bytes:
    """How every JSONL line of this kind starts: what tells spg's own torn line from anyone else's text."""
    return json.dumps({MARK: kind})[:-1].encode() + b", "


def _header(path: Path, kind: str) -> str:
    try:
        return _HEADERS[path.suffix].format(kind)
    except KeyError:
        raise ValueError(f"{path}: spg writes text results as .md, .yaml or .log, not {path.suffix!r}") from None


def marked(kind: str, row: dict[str, Any]) -> dict[str, Any]:
    """``row`` as spg writes it: the marker first, then the row's own keys."""
    return {MARK: kind, **{k: v for k, v in row.items() if k != MARK}}


def is_spg_line(line: bytes, kind: str) -> bool:
    """Whether one JSONL line (without its newline) is a whole line of spg output of this kind."""
    if not line.startswith(_line_prefix(kind)):
        return False
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict) and value.get(MARK) == kind


def _is_own(path: Path, kind: str, data: bytes) -> bool:
    """Whether ``data``, the content of ``path``, is spg's output of this kind. (Whole files are never left empty
    by spg, so an empty one is someone else's; appended results may be, see :func:`read_lines`.)"""
    if path.suffix == ".jsonl":
        return is_spg_line(data.split(b"\n", 1)[0], kind)
    if path.suffix == ".docx":  # no first line to mark: a custom document property (spg.docx.marked_docx)
        from spg.docx import docx_mark

        return docx_mark(data) == kind
    if path.suffix == ".json":
        try:
            value = json.loads(data)
        except (ValueError, RecursionError):
            return False
        return isinstance(value, dict) and value.get(MARK) == kind
    return data.startswith(_header(path, kind).encode())


def _refuse(path: Path, problem: str) -> InputError:
    return InputError(f"{path}: {problem}")


def _check_place(path: Path, what: str) -> None:
    """Raise InputError unless a file for ``what`` may go at ``path``: not a link, not a folder, in a folder spg
    can write to (or can create)."""
    if path.is_symlink():
        raise _refuse(path, "is a symbolic link; spg writes its results only to plain files, never through a link")
    if path.is_dir():
        raise _refuse(path, f"is a folder; expected a file for {what}")
    problem = _parent_problem(path, what)
    if problem:
        raise _refuse(path, problem)


def _parent_problem(path: Path, what: str) -> str | None:
    """Why ``path`` cannot be created (None: it can): its nearest existing ancestor is no folder spg can write in."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return f"{folder} is not a folder; expected a folder to write {what} in"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot write in the folder {folder} (permission denied)"
    return None


def _not_own(path: Path, line: int, kind: str) -> InputError:
    return InputError(f"{path} line {line}: not spg {kind} output (a JSON object starting "
                      f"{_line_prefix(kind).decode().rstrip(', ')}); spg never writes to a file it did not write: "
                      "expected a new file or one an earlier spg run wrote")


def check_destination(path: str | Path, kind: str, *, append: bool = False) -> None:
    """Raise InputError unless spg may write its ``kind`` output to ``path``: not a folder, not a link, in a
    folder spg can write to (created when missing), and absent or spg's own output of this kind.

    With ``append`` the file must also be one spg can add to: every whole line its own (a last line a kill cut
    short allowed; an empty file too: a run killed before its first result leaves one). Reads only; call it
    before any work, so that a run cannot end on a file it may not write.
    """
    path = Path(path)
    _check_place(path, f"spg's {kind} output")
    if not path.exists():
        return
    if not path.is_file():
        raise _refuse(path, "is not a plain file; expected a new file or spg's own output")
    if append and not os.access(path, os.W_OK):
        raise _refuse(path, "cannot write to it (permission denied)")
    if append:
        read_lines(path, kind)
        return
    try:
        data = path.read_bytes()
    except OSError as e:
        raise _refuse(path, f"cannot read ({e.strerror or e})") from None
    if not _is_own(path, kind, data):
        raise _refuse(path, f"not spg {kind} output; spg never writes over a file it did not write: "
                            "expected a new file or one an earlier spg run wrote")


# ---------------------------------------------------------------- whole files


def check_append_target(path: Path, kind: str) -> None:
    """``path`` can be created (its folder is made now), or is a file of ``kind`` that spg wrote and can add to
    (:func:`check_destination` refuses anything else)."""
    check_destination(path, kind, append=True)
    try:  # made now, not at the first write: where a permission test passes (root) the folder may still fail
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"{shown(path)}: cannot create the folder {shown(path.parent)} ({e.strerror or e}); "
                         "expected a folder spg can write its results in") from None


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (a crash right after it must not bring the old name back)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # a system that cannot open folders: the rename is still atomic
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _backup_name(path: Path) -> Path:
    n = 1
    while (backup := path.with_name(f"{path.name}.~{n}~")).exists() or backup.is_symlink():
        n += 1
    return backup


def _synced_temporary(path: Path, data: bytes) -> str:
    """A new temporary file beside ``path`` holding ``data``, on disk, as readable as any file the user writes."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes it private
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return temporary


def _atomic_write(path: Path, data: bytes, keep_previous: bool) -> Path:
    """``data`` to ``path`` through a synced temporary file renamed over it; ``keep_previous``: a previous version
    stays as ``NAME.~N~``. A write the system refuses (a full disk, say) is an InputError naming the file."""
    temporary = None
    try:
        temporary = _synced_temporary(path, data)
        if keep_previous and path.exists() and path.stat().st_size:
            backup = _backup_name(path)
            os.link(path, backup)  # the previous version stays reachable at every moment
            print(f"{shown(path)}: kept the previous version as {shown(backup.name)}", file=sys.stderr)
        os.replace(temporary, path)
    except OSError as e:
        raise _refuse(path, f"cannot write ({e.strerror or e})") from None
    finally:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)  # gone already when renamed
    _sync_folder(path.parent)
    return path


def make_folder(folder: str | Path) -> Path:
    """``folder`` and its parents, created if missing; a folder the system will not create (under /proc, a full
    disk, a permission a root user's access test passes) is an InputError naming it."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise _refuse(folder, f"cannot create this folder ({e.strerror or e}); expected a folder spg can write "
                              "in") from None
    return folder


def _replace(path: Path, kind: str, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically, keeping a different previous version (see the module docstring)."""
    check_destination(path, kind)
    make_folder(path.parent)
    if path.is_file() and path.read_bytes() == data:
        return path
    return _atomic_write(path, data, keep_previous=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text(path: str | Path, kind: str, text: str) -> Path:
    """A Markdown, YAML or log result, its first line marking it as spg's ``kind`` output."""
    path = Path(path)
    return _replace(path, kind, (_header(path, kind) + text).encode("utf-8"))


def write_json(path: str | Path, kind: str, value: dict[str, Any], indent: int | None = 2) -> Path:
    """A JSON object result, marked by its first key."""
    return _replace(Path(path), kind, (json.dumps(marked(kind, value), indent=indent) + "\n").encode("utf-8"))


def _jsonl(kind: str, rows: Iterable[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(marked(kind, row), ensure_ascii=False) + "\n" for row in rows).encode("utf-8")


def write_jsonl(path: str | Path, kind: str, rows: Iterable[dict[str, Any]]) -> Path:
    """A JSONL result written whole, every line marked."""
    return _replace(Path(path), kind, _jsonl(kind, rows))


def write_docx(path: str | Path, kind: str, data: bytes) -> Path:
    """A Word document result (a .docx), marked by its custom document property ``spg`` = ``kind``."""
    from spg.docx import marked_docx

    path = Path(path)
    if path.suffix != ".docx":
        raise _refuse(path, "spg writes Word documents with the suffix .docx; expected a name ending .docx")
    return _replace(path, kind, marked_docx(data, kind))


def open_log(path: str | Path, kind: str) -> BinaryIO:
    """A log of spg's ``kind`` to append to (a job's output, written by a process spg starts): created holding
    only its marker line when absent, else refused unless that line marks it as spg's."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        write_text(path, kind, "")
    check_destination(path, kind)
    # O_NOFOLLOW: a link put there since the check is refused, not written through.
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)), "ab")


@contextmanager
def locked(path: str | Path) -> Iterator[None]:
    """Holds an exclusive lock on ``path`` (POSIX ``flock``), creating it empty when absent. The file is opened
    read-only, never through a link, so a file of that name that is not spg's is locked but never changed."""
    import fcntl  # POSIX only: imported here so that what needs no lock works everywhere

    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as e:
        raise _refuse(path, f"cannot open it as a lock file ({e.strerror or e})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def write_report(path: str | Path, text: str, *, force: bool = False) -> Path:
    """A report the user names that carries no marker (``spg lint --html``: a page is shown as it is), written
    whole like every result; an existing file is replaced only with ``force`` (the user's say, so no previous
    version is kept), a link never."""
    path = Path(path)
    _check_place(path, "the report")
    if path.exists() and not force:
        raise _refuse(path, "already exists; use --force to replace it")
    make_folder(path.parent)
    return _atomic_write(path, text.encode("utf-8"), keep_previous=False)


# ---------------------------------------------------------------- folders spg owns

RUN_MARKER = "spg-run.json"  # written first into every folder spg claims; its content names the kind of run


def _marker_partial(name: str) -> bool:
    """A marker's temporary file, left in the folder when a claim was killed mid-write."""
    return name.startswith(f".{RUN_MARKER}.") and name.endswith(".partial")


def folder_problem(path: str | Path, kind: str) -> str | None:
    """Why spg may not fill ``path`` with its ``kind`` run (None: it may): it must be absent, an empty folder, or
    one an earlier spg run of this kind created (its ``spg-run.json`` says so). Reads only."""
    path = Path(path)
    if path.is_symlink():
        return "is a symbolic link; spg writes a run only into a folder it created, never through a link"
    if path.exists() and not path.is_dir():
        return f"is not a folder; expected a folder for spg's {kind} output"
    problem = _parent_problem(path / RUN_MARKER if path.is_dir() else path, f"spg's {kind} output")
    if problem or not path.exists():
        return problem
    # listed before the marker is looked for: another process of the same run (a data-parallel rank) that claims the
    # folder in between, and may already be writing into it, is then judged by its marker, not by the files beside it
    names = [name for name in os.listdir(path) if not _marker_partial(name)]
    marker = path / RUN_MARKER
    if marker.is_file() and not marker.is_symlink():
        try:
            if _is_own(marker, kind, marker.read_bytes()):
                return None
        except OSError as e:
            return f"cannot read {RUN_MARKER} ({e.strerror or e})"
        return (f"its {RUN_MARKER} is not an spg {kind} run's; expected a new or empty folder, or one an earlier "
                f"spg {kind} run created")
    if names:
        return (f"is a folder spg did not create (no {RUN_MARKER}) and is not empty; spg never writes into a folder "
                f"it did not create: expected a new or empty folder, or one an earlier spg {kind} run created")
    return None


def check_folder(path: str | Path, kind: str) -> None:
    """Raise InputError unless spg may fill the folder ``path`` with its ``kind`` run (:func:`folder_problem`)."""
    problem = folder_problem(path, kind)
    if problem:
        raise _refuse(Path(path), problem)


def claim_folder(path: str | Path, kind: str) -> Path:
    """Make ``path`` spg's folder for its ``kind`` run: checked (:func:`check_folder`), created, and marked by
    ``spg-run.json`` before anything else is written in it. Processes of one run (data-parallel ranks) may
    claim it together: the marker is linked into place, so the first one stays and the others find it."""
    path = Path(path)
    check_folder(path, kind)
    make_folder(path)
    marker = path / RUN_MARKER
    if marker.exists():
        return path  # an earlier run's, checked above
    data = (json.dumps(marked(kind, {"about": f"spg created this folder for a {kind} run and writes into it; "
                                                "it writes into no folder it did not create"}), indent=1) + "\n")
    temporary = _synced_temporary(marker, data.encode())
    try:
        with suppress(FileExistsError):
            os.link(temporary, marker)  # never replaces: a marker another process linked first stays
    finally:
        Path(temporary).unlink(missing_ok=True)
    _sync_folder(path)
    check_folder(path, kind)
    return path


def write_artefact(path: str | Path, data: bytes | str) -> Path:
    """A file inside a folder spg owns (a run's ``output_dir``, a cache): written whole or not at all, as every
    result, but with no marker of its own (its folder is spg's) and no previous version kept."""
    path = Path(path)
    if path.is_symlink():
        raise _refuse(path, "is a symbolic link; spg writes its files only as plain files, never through a link")
    make_folder(path.parent)
    return _atomic_write(path, data.encode("utf-8") if isinstance(data, str) else data, keep_previous=False)


def _sync_tree(folder: Path) -> None:
    for root, _, names in os.walk(folder):
        for name in names:
            fd = os.open(os.path.join(root, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        _sync_folder(Path(root))


@contextmanager
def whole_folder(target: str | Path, *, write: bool = True) -> Iterator[Path]:
    """A folder to fill that appears at ``target`` only whole: filled as ``.NAME.partial`` beside it, synced, then
    renamed into place; a ``target`` already there (an earlier run's) is kept as ``NAME.~N~``. ``write``: whether
    this process fills it (under data parallelism only the main one; the others get the same path and must not
    write to it). The caller owns ``target``'s parent (:func:`claim_folder`)."""
    target = Path(target)
    partial = target.with_name(f".{target.name}.partial")
    if not write:
        yield partial
        return
    shutil.rmtree(partial, ignore_errors=True)  # left by a killed run
    partial.mkdir(parents=True)
    try:
        yield partial
        _sync_tree(partial)
        if target.exists() or target.is_symlink():
            backup = _backup_name(target)
            os.rename(target, backup)
            print(f"{shown(target)}: kept the previous version as {shown(backup.name)}", file=sys.stderr)
        os.rename(partial, target)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    _sync_folder(target.parent)


# ---------------------------------------------------------------- results that grow


def read_lines(path: str | Path, kind: str) -> tuple[list[bytes], bool]:
    """The whole lines of spg's JSONL ``kind`` output at ``path`` (none when absent), and whether a last line
    was cut short by a kill. Raises InputError naming the first line that is not spg's. Reads only."""
    path = Path(path)
    if not path.exists():
        return [], False
    if path.is_dir():
        raise _refuse(path, f"is a folder; expected a file of spg's {kind} output")
    try:
        data = path.read_bytes()
    except OSError as e:
        raise _refuse(path, f"cannot read ({e.strerror or e})") from None
    lines = data.split(b"\n")
    last = lines.pop()  # b"" when the file ends with a newline
    whole = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if not is_spg_line(line, kind):
            raise _not_own(path, n, kind)
        whole.append(line)
    torn = False
    if last.strip():
        if is_spg_line(last, kind):  # whole, only its newline missing
            whole.append(last)
        elif last.startswith(_line_prefix(kind)):
            torn = True
        else:
            raise _not_own(path, len(lines) + 1, kind)
    return whole, torn


def read_rows(path: str | Path, kind: str) -> list[dict[str, Any]]:
    """The rows of spg's JSONL ``kind`` output, without the marker (a torn last line left out)."""
    return list(rows_of(read_lines(path, kind)[0]))


class Appender:
    """Adds marked lines to spg's JSONL ``kind`` output at ``path``, creating it if absent.

    Opening checks the file (:func:`check_destination` with ``append``), cuts off a last line a killed run tore
    (spg's own, recognised by its marker) and ends a whole last line without its newline. Each :meth:`add` is
    one write, synced before it returns.
    """

    def __init__(self, path: str | Path, kind: str):
        self.path, self.kind = Path(path), kind
        check_destination(self.path, kind, append=True)
        make_folder(self.path.parent)
        # O_NOFOLLOW: a link put there since the check is refused, not written through.
        self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o666)
        try:
            self._end_with_a_whole_line()
        except BaseException:
            os.close(self._fd)
            raise

    def _end_with_a_whole_line(self) -> None:
        size = os.lseek(self._fd, 0, os.SEEK_END)
        if not size:
            return
        data = self.path.read_bytes()
        start = data.rfind(b"\n") + 1
        last = data[start:]
        if not last:
            return
        if is_spg_line(last, self.kind):
            os.write(self._fd, b"\n")
        elif last.startswith(_line_prefix(self.kind)):
            os.ftruncate(self._fd, start)
            print(f"{shown(self.path)}: dropped its last line, cut short when a run was killed ({len(last)} bytes)",
                  file=sys.stderr)
        elif last.strip():  # changed since it was checked
            raise _refuse(self.path, "its last line is not spg output; refusing to add to it")
        os.fsync(self._fd)

    def add(self, rows: Iterable[dict[str, Any]]) -> None:
        self.add_lines(_jsonl(self.kind, rows).splitlines())

    def add_lines(self, lines: Iterable[bytes]) -> None:
        """Whole marked lines (as :func:`read_lines` gives them), in one write."""
        data = b"".join(line + b"\n" for line in lines)
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]
        os.fsync(self._fd)

    def close(self) -> None:
        os.close(self._fd)

    def __enter__(self) -> Appender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def rows_of(lines: Iterable[bytes]) -> Iterator[dict[str, Any]]:
    """The decoded rows of whole marked lines, without the marker."""
    for line in lines:
        yield {k: v for k, v in json.loads(line).items() if k != MARK}

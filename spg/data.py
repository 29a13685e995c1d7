"""Patent documents (description + claim set) from any supported data source.

:func:`load_records` detects the layout from the path:

* a **folder** — every ``*.json`` / ``*.jsonl`` below it, recursively, in sorted path order
  (HUPD and HUPD-DCG store one JSON object per patent, possibly under ``train/`` and ``test/``);
* a **.json** file — one object or a list of objects (a file of one object per line is read as JSONL);
* a **.jsonl** file — one object per line, e.g. ``../shared/data/uspto/patents.jsonl``;
* any of these files gzip-compressed (``.jsonl.gz``, ``.json.gz``), e.g. ``../shared/data/pap2pat/patents.jsonl.gz``;
* a **list** of any of the above, read one after the other (e.g. the USPTO set and Pap2Pat together).

``split="train"`` or ``split="dev"`` keeps one side of the project's fixed train/dev split
(:func:`document_split`), which depends on nothing but the document id, so tuning never sees a dev document
whichever sources are combined.

A record's ``claims`` is a HUPD flat string ("1. A ... 2. The ... of claim 1"), a list of claim texts,
or a list of ``{"num", "text", "parents"}``; ``claims_text`` stands in when ``claims`` is absent (and with
``require_claims=False`` a record may have neither: generation inputs need only a description). Gold
parents are used when ``has_gold_links`` is true (or, without that flag, when every claim carries a
``parents`` list); otherwise the dependencies are parsed from the claim wording by :mod:`spg.parse`.
The description is ``full_description`` (HUPD) or ``description``.

Malformed input raises :class:`DataError` naming the file, the line or record, the field and what was
expected; with ``skip_bad=True`` the bad record is reported on stderr and loading goes on.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spg.errors import InputError, decode_utf8, nested_too_deeply, parse_json, shown
from spg.forest import Forest
from spg.parse import parse_claims

CLAIMS_EXPECTED = "a string or a list of claims (texts, or objects with 'num', 'text' and optional 'parents')"
_DESCRIPTION_KEYS = ("full_description", "description")
_ID_KEYS = ("id", "application_number", "patent_number")
_SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz")
SPLITS = ("train", "dev")
DEV_PERCENT = 5  # about 95 of the 1,902 USPTO + Pap2Pat documents
# The checker's held-out discipline (spg lint's rules and judge): tune on train and dev, report on test only.
CHECKER_SPLITS = ("train", "dev", "test")
CHECKER_PERCENT = {"train": 50, "dev": 20, "test": 30}


class DataError(InputError):
    """Malformed input; the message names the file, the line or record, and the field."""


@dataclass(frozen=True)
class Record:
    """One patent document.

    ``source`` says where it came from: ``file:line`` (JSONL), ``file[i]`` (i-th object of a JSON list)
    or ``file``. ``fields`` holds every raw field not turned into an attribute (metadata, ``claims_text``,
    model outputs such as ``"Llama-3-8B-claim"`` in HUPD-DCG records).
    """

    id: str
    description: str
    claims: Forest
    title: str = ""
    abstract: str = ""
    gold_links: bool = False
    source: str = ""
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Document:
    """A description to draft claims for (``spg generate``'s input), by id."""

    id: str
    description: str


class _FieldError(Exception):
    """A problem inside one record; turned into a DataError once the record's location is known."""


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_claim_record(i: int, claim: Mapping) -> None:
    if "num" not in claim and "text" not in claim:
        # another kind of object altogether (a list of evaluation items, of records …): say what it holds
        keys = (", ".join(map(str, list(claim)[:6])) or "none") + (" …" if len(claim) > 6 else "")
        raise _FieldError(f"field 'claims[{i}]' must be an object with 'num' and 'text' (or a text), got one with keys {keys}")
    if not _is_int(claim.get("num")):
        raise _FieldError(f"field 'claims[{i}].num' must be an integer, got {_type_name(claim.get('num'))}")
    if not isinstance(claim.get("text"), str):
        raise _FieldError(f"field 'claims[{i}].text' must be a string, got {_type_name(claim.get('text'))}")
    parents = claim.get("parents")
    if parents is not None and not (isinstance(parents, list) and all(_is_int(p) for p in parents)):
        raise _FieldError(f"field 'claims[{i}].parents' must be a list of claim numbers or null, got {parents!r:.60}")


def _claims_forest(value: object, gold: bool | None = None) -> tuple[Forest, bool]:
    """The forest of a raw ``claims`` value, and whether its parents are gold links.

    ``gold`` is the record's ``has_gold_links`` flag: True requires a ``parents`` list on every claim,
    False ignores any ``parents`` given (they are parsed from the text), None uses them when all are present.
    Raises ``_FieldError`` for a value of the wrong shape.
    """
    if isinstance(value, str):
        if gold:
            raise _FieldError("field 'has_gold_links' is true but 'claims' is a flat string without parents")
        return parse_claims(value), False
    if not isinstance(value, list):
        raise _FieldError(f"field 'claims' must be {CLAIMS_EXPECTED}, got {_type_name(value)}")
    texts = bool(value) and isinstance(value[0], str)  # the first claim sets the form of all of them
    for i, claim in enumerate(value):
        if texts and not isinstance(claim, str):
            raise _FieldError(f"field 'claims[{i}]' must be a claim text like claims[0], got {_type_name(claim)}")
        if not texts and not isinstance(claim, Mapping):
            got = _type_name(claim)
            raise _FieldError(f"field 'claims[{i}]' must be an object with 'num' and 'text' (or a text), got {got}")
        if not texts:
            _check_claim_record(i, claim)
    if texts:
        if gold:
            raise _FieldError("field 'has_gold_links' is true but 'claims' are plain texts without parents")
        return parse_claims(value), False
    with_parents = [isinstance(c.get("parents"), list) for c in value]
    if gold and not all(with_parents):
        i = with_parents.index(False)
        raise _FieldError(f"field 'has_gold_links' is true but 'claims[{i}].parents' is not a list")
    if gold is False:
        value = [{"num": c["num"], "text": c["text"]} for c in value]
    return parse_claims(value), bool(value) and gold is not False and all(with_parents)


def _text_field(raw: Mapping, key: str) -> str:
    value = raw.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _FieldError(f"field '{key}' must be a string, got {_type_name(value)}")
    return value


def _record_id(raw: Mapping, fallback: str) -> str:
    for key in _ID_KEYS:
        value = raw.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            return str(value).strip()
    return fallback


def _record_from_mapping(raw: object, source: str, fallback_id: str, require_claims: bool = True) -> Record:
    """One Record from a decoded JSON object. Raises ``_FieldError`` for a malformed record."""
    if not isinstance(raw, Mapping):
        raise _FieldError(f"expected a JSON object (one patent), got {_type_name(raw)}")
    used = {"id", "title", "abstract", "has_gold_links"}
    claims_key = next((k for k in ("claims", "claims_text") if k in raw), None)
    if claims_key is None and require_claims:
        raise _FieldError(f"missing field 'claims' ({CLAIMS_EXPECTED})")
    gold = raw.get("has_gold_links")
    if gold is not None and not isinstance(gold, bool):
        raise _FieldError(f"field 'has_gold_links' must be true or false, got {_type_name(gold)}")
    forest, gold_links = Forest(), False
    if claims_key:
        used.add(claims_key)
        forest, gold_links = _claims_forest(raw[claims_key], gold)
    desc_key = next((k for k in _DESCRIPTION_KEYS if k in raw), None)
    if desc_key:
        used.add(desc_key)
    return Record(
        id=_record_id(raw, fallback_id),
        description=_text_field(raw, desc_key) if desc_key else "",
        claims=forest,
        title=_text_field(raw, "title"),
        abstract=_text_field(raw, "abstract"),
        gold_links=gold_links,
        source=source,
        fields={k: v for k, v in raw.items() if k not in used},
    )


def record_from_json(data: object, where: str) -> Record:
    """The document of one decoded JSON value (what ``spg lint`` reads): a whole record, or a bare claim set.

    ``data`` is a list of claim texts, a list of claim objects (a Record with no description), or an object with
    ``claims`` (or ``claims_text``); a malformed value raises :class:`DataError` prefixed with ``where``.
    """
    try:
        if isinstance(data, Mapping):
            return _record_from_mapping(data, where, where)
        return Record(id=where, description="", claims=_claims_forest(data)[0], source=where)
    except _FieldError as e:
        raise _located(where, data, str(e)) from None


def forest_from_json(data: object, where: str) -> Forest:
    """The claim set of one decoded JSON value (see :func:`record_from_json`)."""
    return record_from_json(data, where).claims


def _located(where: str, raw: object, problem: str) -> DataError:
    rid = next((raw.get(k) for k in _ID_KEYS if isinstance(raw, Mapping) and raw.get(k)), None)
    return DataError(f"{where} (id {rid}): {problem}" if rid else f"{where}: {problem}")


def _records_of_jsonl(path: Path, lines: Iterable[str | DataError], require_claims: bool) -> Iterator[Record | DataError]:
    for n, line in enumerate(lines, 1):
        if isinstance(line, DataError):
            yield line
            continue
        if not line.strip():
            continue
        where = f"{path} line {n}"
        try:
            raw = parse_json(line, where)
        except json.JSONDecodeError as e:
            yield DataError(f"{where}: not valid JSON ({e.msg} at column {e.colno})")
            continue
        except InputError as e:
            yield DataError(str(e))
            continue
        try:
            yield _record_from_mapping(raw, f"{path}:{n}", f"{path.stem}:{n}", require_claims)
        except _FieldError as e:
            yield _located(where, raw, str(e))


def _suffix(path: Path) -> str:
    """".jsonl", ".json", ".jsonl.gz", ... (the last two suffixes when the file is gzipped)."""
    return "".join(path.suffixes[-2:]) if path.suffix == ".gz" else path.suffix


def is_record_file(path: Path) -> bool:
    """Whether ``path`` is named like a file of records (.json, .jsonl, and their .gz forms)."""
    return _suffix(path) in _SUFFIXES


def _open_binary(path: Path):
    return gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb")


def _text_lines(path: Path) -> Iterator[str | DataError]:
    with _open_binary(path) as f:
        yield from text_lines(f, path)


def text_lines(lines: Iterable[bytes], name: object) -> Iterator[str | DataError]:
    """Each line of a binary stream as text, read as UTF-8 line by line (a byte-order mark at the start is dropped),
    so that bytes that are not UTF-8 are a DataError naming their line of ``name``, yielded in its place."""
    for n, line in enumerate(lines, 1):
        try:
            yield line.decode("utf-8-sig" if n == 1 else "utf-8")
        except UnicodeDecodeError as e:
            yield DataError(f"{name} line {n}: byte {e.object[e.start]:#04x} is not UTF-8; expected UTF-8 text")


def _records_of_json(path: Path, require_claims: bool) -> Iterator[Record | DataError]:
    with _open_binary(path) as f:
        data = f.read()
    try:
        text = decode_utf8(data, str(path))
        data = parse_json(text, str(path))
    except json.JSONDecodeError as e:
        if e.msg == "Extra data":  # several objects, one per line: JSONL under a .json name
            yield from _records_of_jsonl(path, text.split("\n"), require_claims)
        else:
            yield DataError(f"{path}: not valid JSON ({e.msg} at line {e.lineno}, column {e.colno})")
        return
    except InputError as e:
        yield DataError(str(e))
        return
    items = list(enumerate(data)) if isinstance(data, list) else [(None, data)]
    for i, raw in items:
        where, source, fallback = (
            (str(path), str(path), path.stem)
            if i is None
            else (f"{path} record {i}", f"{path}[{i}]", f"{path.stem}[{i}]")
        )
        try:
            yield _record_from_mapping(raw, source, fallback, require_claims)
        except _FieldError as e:
            yield _located(where, raw, str(e))


def _records_of_file(path: Path, require_claims: bool) -> Iterator[Record | DataError]:
    try:
        if _suffix(path).startswith(".jsonl"):
            yield from _records_of_jsonl(path, _text_lines(path), require_claims)
        else:
            yield from _records_of_json(path, require_claims)
    except (OSError, EOFError, UnicodeDecodeError) as e:
        yield DataError(f"{path}: cannot read ({getattr(e, 'strerror', None) or e})")


def _data_files(path: Path) -> list[Path]:
    if not path.exists():
        raise DataError(f"{path}: no such file or folder")
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if _suffix(p) in _SUFFIXES and p.is_file())
        if not files:
            raise DataError(f"{path}: folder holds no *.json, *.jsonl or gzipped (.gz) JSON files")
        return files
    if _suffix(path) not in _SUFFIXES:
        raise DataError(f"{path}: expected a folder of JSON files, a .json or a .jsonl file (optionally .gz)")
    return [path]


def document_split(record_id: str) -> str:
    """``"dev"`` or ``"train"``: the project's fixed split, a rule on the id alone.

    A document is in dev when the first 8 hex digits of SHA-256("spg-split:" + id), read as an integer, are
    below :data:`DEV_PERCENT` modulo 100. Adding or removing documents, or reading the sources in another order,
    never moves a document from one side to the other.
    """
    digest = hashlib.sha256(f"spg-split:{record_id}".encode()).hexdigest()
    return "dev" if int(digest[:8], 16) % 100 < DEV_PERCENT else "train"


def checker_split(record_id: str) -> str:
    """``"train"``, ``"dev"`` or ``"test"``: the fixed split of the shared corpora that ``spg lint``'s rules and
    judge are developed on (train, dev) and measured on (test), a rule on the id alone as :func:`document_split` is.

    It is a second split, not a third side of the model's: the shipped model was trained on
    ``document_split``'s train side, which this rule cuts across, and a checker is judged on claims, not on what a
    model saw. SHA-256("spg-checker-split:" + id)'s first 8 hex digits modulo 100 fall in 50 % train, 20 % dev,
    30 % test (:data:`CHECKER_PERCENT`).
    """
    bucket = int(hashlib.sha256(f"spg-checker-split:{record_id}".encode()).hexdigest()[:8], 16) % 100
    for side in CHECKER_SPLITS:
        if bucket < CHECKER_PERCENT[side]:
            return side
        bucket -= CHECKER_PERCENT[side]
    raise AssertionError("CHECKER_PERCENT must add up to 100")


Sources = str | Path | Sequence[str | Path]


def source_paths(sources: Sources) -> list[Path]:
    """One data argument as a list of paths: a single path, or a list of them (YAML lists, repeated flags)."""
    items = [sources] if isinstance(sources, (str, Path)) else list(sources)
    if not items or any(not str(item).strip() for item in items):
        raise DataError(f"expected one or more data paths, got {sources!r}")
    return [Path(item) for item in items]


def load_records(
    path: Sources,
    *,
    skip_bad: bool = False,
    skipped: list[DataError] | None = None,
    require_claims: bool = True,
    split: str | None = None,
) -> Iterator[Record]:
    """Stream the patent documents of ``path`` (folder, .json, .jsonl, gzipped, or a list; see the module docstring).

    A bad record raises :class:`DataError`; with ``skip_bad`` it is reported on stderr, appended to
    ``skipped`` when a list is given, and loading continues. ``require_claims=False`` accepts records
    without ``claims`` (generation inputs: descriptions only), giving them an empty Forest. ``split``
    ("train" or "dev") keeps the records of that side of :func:`document_split`.
    """
    if split is not None and split not in SPLITS:
        raise DataError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    # Fail on a wrong path now, not at the first next().
    files = [file for source in source_paths(path) for file in _data_files(source)]

    def stream() -> Iterator[Record]:
        for file in files:
            for item in _records_of_file(file, require_claims):
                if isinstance(item, Record):
                    if split is None or document_split(item.id) == split:
                        yield item
                elif not skip_bad:
                    raise item
                else:
                    print(f"skipped: {shown(item)}", file=sys.stderr)
                    if skipped is not None:
                        skipped.append(item)

    return stream()


def is_docx(path: str, data: bytes) -> bool:
    """Whether a file is to be read as a Word document: named .docx, or a zip package (what every .docx is)."""
    return path.lower().endswith(".docx") or data.startswith(b"PK\x03\x04")


def description_text(name: str, data: bytes) -> str:
    """A description file's text from its bytes: a Word document's text before its claims section (all of it when
    it has none), or UTF-8 text. spg.docx is imported only when a Word document is read."""
    if not is_docx(name, data):
        return decode_utf8(data, name)
    from spg.docx import read_docx

    found = read_docx(data, name)
    return found.description or found.text


def description_file(source: Path) -> str:
    """A description file's text (:func:`description_text`), a Word document's size checked before it is read."""
    if source.suffix.lower() == ".docx":
        from spg.docx import check_size

        check_size(source.stat().st_size, str(source))  # before a huge file is read into memory
    return description_text(str(source), source.read_bytes())


def documents(
    paths: list[str], skip_bad: bool, skipped: list[DataError], limit: int | None, split: str | None = None
) -> list[Document]:
    """What ``spg generate`` drafts for: each text file or Word document in ``paths`` one description (its name the
    id), then the records of the record files and folders (descriptions only: no claims needed); the first
    ``limit``."""
    texts = [Path(p) for p in paths if Path(p).is_file() and not is_record_file(Path(p))]
    docs = [Document(source.stem, description_file(source)) for source in texts]
    sources = [p for p in paths if Path(p) not in texts]
    if sources:
        records = load_records(sources, skip_bad=skip_bad, skipped=skipped, require_claims=False, split=split)
        try:
            docs += [Document(r.id, r.description) for r in records]
        except RecursionError:
            raise nested_too_deeply(" ".join(sources)) from None
    return docs[:limit] if limit is not None else docs

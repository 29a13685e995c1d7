"""What ``spg lint`` reads: a claim set as text, JSON or a Word document (.docx, :mod:`spg.docx`), a patent record
(JSON or JSONL) with its description, and an optional description file (text or .docx). Bad input raises
:class:`~spg.data.DataError` (or :class:`~spg.errors.InputError`) naming the file and what was expected."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from spg.data import DataError, Record, description_text, is_docx, record_from_json
from spg.errors import decode_utf8, parse_json
from spg.forest import Forest
from spg.parse import parse_claims

if TYPE_CHECKING:  # spg.docx is imported when a Word document is read
    from spg.docx import DocxText

JSON_EXPECTED = "expected a list of claim texts, a list of {num, text, parents} or an object with 'claims'"
# What may follow the opening "[" or "{" of a JSON document. Anything else ("[Claim 1] A widget.") is claim text.
_NUMBERED = re.compile(r"\s*(?:\[?claim\s*)?1\s*[.):\]]", re.IGNORECASE)
_JSON_OPENING = re.compile(r'\s*(?:[\[{]\s*(?:["{\[\]}0-9-]|true\b|false\b|null\b)|[\[{]\s*$)')


@dataclass(frozen=True)
class ClaimSet:
    """A claim set to lint, where it came from, and the description its terms should find support in (None: no
    description given, so that check does not run)."""

    name: str
    forest: Forest
    description: str | None = None
    paragraphs: dict[int, int] | None = None  # a Word document's: claim number → index of its first paragraph
    docx: bytes | None = None  # the Word document itself, for --docx-comments


def _read_bytes(path: str) -> bytes:
    name = "<stdin>" if path == "-" else path
    if path.lower().endswith(".docx") and Path(path).is_file():  # refused before a 10 GB file is read into memory
        from spg.docx import check_size

        check_size(Path(path).stat().st_size, path)
    try:
        if path == "-":
            if sys.stdin is None:  # `spg lint - <&-`: Python has no stdin object at all
                raise DataError("<stdin>: cannot read (standard input is closed); expected a claim set")
            return sys.stdin.buffer.read()
        return Path(path).read_bytes()
    except OSError as e:
        raise DataError(f"{name}: cannot read ({e.strerror or e})") from None


def _looks_like_json(path: str, text: str) -> bool:
    return path.endswith((".json", ".jsonl")) or _JSON_OPENING.match(text) is not None


def _decode(name: str, text: str) -> list[object]:
    """The JSON value of ``text``, or the values of its lines when it is JSON Lines (one record per line)."""
    try:
        return [parse_json(text, name)]
    except json.JSONDecodeError as e:
        if e.msg != "Extra data":
            raise DataError(f"{name}: not valid JSON ({e.msg}: line {e.lineno}, column {e.colno}); {JSON_EXPECTED}") from None
    values = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                values.append(parse_json(line, f"{name} line {n}"))
            except json.JSONDecodeError as e:
                raise DataError(f"{name} line {n}: not valid JSON ({e.msg} at column {e.colno}); {JSON_EXPECTED}") from None
    return values


def _pick(name: str, values: list[object], record: str | None) -> tuple[object, str]:
    """The one JSON value to lint and where it is: the only one, or the record whose id is ``record``."""
    if record is None:
        if len(values) == 1:
            return values[0], name
        raise DataError(f"{name}: holds {len(values)} records; choose one with --record ID")
    for n, value in enumerate(values, 1):
        if isinstance(value, dict) and any(str(value.get(k)) == record for k in ("id", "application_number")):
            return value, (f"{name} line {n}" if len(values) > 1 else name)
    raise DataError(f"{name}: no record with id {record!r}; expected the id of one of its {len(values)} records")


def read_claim_set(path: str, record: str | None = None, field: str | None = None) -> ClaimSet:
    """A claim set from a text file (flat string or one claim per line), a Word document (its claims section, the
    text before it as the description), a JSON value or a JSON Lines file of patent records (``record`` picks one by
    id; ``field`` names the record's field holding the claims, if not ``claims``); ``-`` is stdin. A record's own
    description comes with it."""
    name = "<stdin>" if path == "-" else path
    data = _read_bytes(path)
    if is_docx(path, data):
        if record is not None or field is not None:
            option = "--record" if record is not None else "--field"
            raise DataError(f"{name}: {option} needs JSON or JSON Lines patent records, got a Word document")
        found = docx_claims(data, name)
        return ClaimSet(name, parse_claims(found.claims_text), found.description or None, found.claim_paragraphs,
                        data)
    return claim_set_of(name, decode_utf8(data, name), record, field)


def docx_claims(data: bytes, name: str) -> DocxText:
    """The claims (and description) of a Word document; one without a claims section is bad input."""
    from spg.docx import read_docx

    found = read_docx(data, name)
    if not found.claims_text.strip():
        raise DataError(f"{name}: no claims found in the Word document; expected numbered claims (typed or "
                        "Word's automatic numbering), after a heading such as 'What is claimed is:'")
    return found


def _field(where: str, value: object, field: str) -> dict:
    """The record with the claim set of its field ``field`` as its claims ("Llama-3-8B-FT-claim" of a HUPD-DCG
    record holding one generated claim set per system)."""
    if not isinstance(value, dict):
        raise DataError(f"{where}: --field needs a JSON object (a patent record), got {type(value).__name__}")
    if field not in value:
        # the fields that hold claim sets ("1. A …", a list), else every field
        fields = [k for k, v in value.items() if isinstance(v, list) or (isinstance(v, str) and _NUMBERED.match(v))]
        fields = (fields or list(value))[:12]
        raise DataError(f"{where}: no field {field!r}; expected one of its fields: {', '.join(fields)}")
    return {k: v for k, v in value.items() if k not in ("claims_text", "forest")} | {"claims": value[field]}


def claim_set_of(name: str, text: str, record: str | None = None, field: str | None = None) -> ClaimSet:
    """A claim set from text already read (``spg serve``'s pasted claims): claim text, or JSON when ``name`` ends in
    .json/.jsonl or the text opens like JSON."""
    if not _looks_like_json(name, text):
        if record is not None or field is not None:
            option = "--record" if record is not None else "--field"
            raise DataError(f"{name}: {option} needs JSON or JSON Lines patent records, got claim text")
        return ClaimSet(name, parse_claims(text))
    value, where = _pick(name, _decode(name, text), record)
    found = record_of(value, where, field)
    return ClaimSet(name, found.claims, found.description or None)


def record_of(value: object, where: str, field: str | None = None) -> Record:
    """The patent record of one decoded JSON value (``spg lint --out`` reads a corpus a record at a time), its claim
    set taken from ``field`` when given; bad input raises DataError naming ``where``."""
    if field is not None:
        value = _field(where, value, field)
    return record_from_json(value, where)


def read_description(path: str) -> str:
    """The text of a description file: UTF-8 text, or a Word document (the text before its claims section, or all
    of it when it has none)."""
    return description_of(path, _read_bytes(path))


def description_of(name: str, data: bytes) -> str:
    """A description file's text from its bytes (``spg serve``'s uploads too): a Word document's or UTF-8 text."""
    text = description_text(name, data)
    if not text.strip():
        raise DataError(f"{name}: the description is empty; expected the patent's description as text")
    return text

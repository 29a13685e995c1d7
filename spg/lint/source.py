"""What ``spg lint`` reads: a claim set as text or JSON, a patent record (JSON or JSONL) with its description, and
an optional description file. Bad input raises :class:`~spg.data.DataError` naming the file and what was expected."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from spg.data import DataError, record_from_json
from spg.errors import decode_utf8, parse_json
from spg.forest import Forest
from spg.parse import parse_claims

JSON_EXPECTED = "expected a list of claim texts, a list of {num, text, parents} or an object with 'claims'"
# What may follow the opening "[" or "{" of a JSON document. Anything else ("[Claim 1] A widget.") is claim text.
_JSON_OPENING = re.compile(r'\s*(?:[\[{]\s*(?:["{\[\]}0-9-]|true\b|false\b|null\b)|[\[{]\s*$)')


@dataclass(frozen=True)
class ClaimSet:
    """A claim set to lint, where it came from, and the description its terms should find support in (None: no
    description given, so that check does not run)."""

    name: str
    forest: Forest
    description: str | None = None


def _read_bytes(path: str) -> bytes:
    name = "<stdin>" if path == "-" else path
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


def read_claim_set(path: str, record: str | None = None) -> ClaimSet:
    """A claim set from a text file (flat string or one claim per line), a JSON value or a JSON Lines file of
    patent records (``record`` picks one by id); ``-`` is stdin. A record's own description comes with it."""
    name = "<stdin>" if path == "-" else path
    return claim_set_of(name, decode_utf8(_read_bytes(path), name), record)


def claim_set_of(name: str, text: str, record: str | None = None) -> ClaimSet:
    """A claim set from text already read (``spg serve``'s pasted claims): claim text, or JSON when ``name`` ends in
    .json/.jsonl or the text opens like JSON."""
    if not _looks_like_json(name, text):
        if record is not None:
            raise DataError(f"{name}: --record needs JSON or JSON Lines patent records, got claim text")
        return ClaimSet(name, parse_claims(text))
    value, where = _pick(name, _decode(name, text), record)
    found = record_from_json(value, where)
    return ClaimSet(name, found.claims, found.description or None)


def read_description(path: str) -> str:
    """The text of a description file (UTF-8)."""
    text = decode_utf8(_read_bytes(path), path)
    if not text.strip():
        raise DataError(f"{path}: the description is empty; expected the patent's description as text")
    return text

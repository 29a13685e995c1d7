"""Bad input as one kind of exception: what every ``spg`` command reports in one line with exit status 2.

A message names where the problem is (the file, the line or record, the field) and what was expected,
so that the command line prints it as it is; no traceback unless ``spg --debug``. :class:`spg.data.DataError`
is the same kind of error for data sources (README, "Errors and exit status").
"""

from __future__ import annotations

import json
import re
from typing import Any

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # how a lone surrogate gets into JSON text
_SURROGATE = re.compile("[\ud800-\udfff]")


# Characters a terminal obeys instead of showing: C0 controls but tab and newline, DEL, C1 controls, line and
# paragraph separators, bidirectional embeddings, overrides and isolates ("Trojan source").
_CONTROLS = [*range(0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029, *range(0x202A, 0x202F),
             *range(0x2066, 0x206A)]
_ESCAPES = {c: f"\\u{c:04x}" for c in _CONTROLS}  # valid inside JSON strings too: the same text once decoded
_ONE_LINE_ESCAPES = {**_ESCAPES, 0x09: "\\u0009", 0x0A: "\\u000a"}
# str.translate looks every character up in the table: on megabytes of output (spg lint --json of a long claim) a
# search that finds none is some 25 times faster where the text is not all ASCII
_CONTROL = re.compile("[" + "".join(map(chr, _CONTROLS)).replace("\\", "\\\\").replace("]", "\\]") + "]")


def escaped(text: str) -> str:
    """``text`` with every control character but tab and newline written as a ``\\uXXXX`` escape (how commands
    print claim texts)."""
    return _CONTROL.sub(lambda m: _ESCAPES[ord(m.group())], text)


def shown(value: object) -> str:
    """``value`` as text for a one-line message on stderr (a record id, a file name, an error echoing either):
    every control character written as a ``\\uXXXX`` escape, tab and newline too, so that it stays one line and a
    terminal shows it instead of obeying it."""
    return str(value).translate(_ONE_LINE_ESCAPES)


class InputError(ValueError):
    """Bad input or usage; the message names the file, the line or record, the field and what was expected."""


def nested_too_deeply(source: object) -> InputError:
    """The InputError for JSON that Python's decoder gives up on with a RecursionError (``[[[[...``), which
    names no file: ``source`` is the data argument being read."""
    return InputError(f"{source}: JSON nested too deeply to read; expected patent records")


def decode_utf8(data: bytes, name: str) -> str:
    """``data`` as text, without a byte-order mark; bytes that are not UTF-8 are an InputError naming the line
    of ``name``, never replaced by garbage."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise InputError(f"{name} line {line}: byte {data[e.start]:#04x} is not UTF-8; expected UTF-8 text") from None


def parse_json(text: str, where: str) -> Any:
    """``json.loads(text)``, with every way valid-looking JSON still fails spg later turned into an InputError
    prefixed with ``where``: nesting Python's decoder gives up on, integers longer than Python converts (4,300
    digits), and strings holding a lone surrogate (``"\\ud800"``: no text can be written with one). Text that
    is not JSON raises ``json.JSONDecodeError`` as ``json.loads`` does, for the caller to word.
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise nested_too_deeply(where) from None
    except ValueError as e:  # "Exceeds the limit (4300 digits) for integer string conversion"
        raise InputError(f"{where}: not read ({str(e).split(':')[0]}); expected numbers of fewer digits") from None
    if _SURROGATE_ESCAPE.search(text):
        field = _lone_surrogate(value)
        if field is not None:
            raise InputError(f"{where}: {field} holds a lone surrogate (a \\uD800-\\uDFFF escape without its pair); "
                             "expected text that can be written as UTF-8")
    return value


def _lone_surrogate(value: Any) -> str | None:
    """Where in a decoded JSON value a string (or key) holds a lone surrogate, as "field 'claims[0].text'"; None
    when none does. A loop, not recursion: the value may be nested as deeply as the decoder allows."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return f"field '{path}'" if path else "the value"
        elif isinstance(item, dict):
            for key, child in item.items():
                if _SURROGATE.search(key):
                    return f"a key in '{path}'" if path else "a key"
                stack.append((f"{path}.{key}" if path else key, child))
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", child) for i, child in enumerate(item))
    return None

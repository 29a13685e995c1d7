"""Bad input as one kind of exception: what every ``spg`` command reports in one line with exit status 2.

A message names where the problem is (the file, the line or record, the field) and what was expected,
so that the command line prints it as it is; no traceback unless ``spg --debug``. :class:`spg.data.DataError`
is the same kind of error for data sources (README, "Errors and exit status").
"""

from __future__ import annotations


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

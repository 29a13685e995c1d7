"""The ``spg`` command. Each sub-command lives in its own module and adds its own parser.

Heavy libraries (torch, transformers) are imported inside the command handlers, so
``spg lint`` and ``spg --help`` start instantly.

Every command keeps one error contract (README, "Errors and exit status"): exit 0 on success, 1 on
findings (lint errors, records or documents skipped), 2 on bad input or usage, with one line on stderr
naming the file, the line or record, the field and what was expected; 3 on an internal error (a bug).
Handlers raise :class:`~spg.errors.InputError` (or :class:`~spg.data.DataError`) and :func:`main` reports
it; ``spg --debug`` shows the traceback instead.

So that the one line is all there is on stderr, :func:`main` also: makes argparse's usage errors one line;
turns libraries' progress bars and advisory logging off (spg's own bars stay) and holds back Python warnings
until the command has succeeded; and writes standard output through :class:`_Output`, which prints control
characters of claim texts (terminal escape sequences, carriage returns, bidirectional overrides) as ``\\uXXXX``
escapes instead of obeying them, writes characters the output's encoding lacks (``PYTHONIOENCODING=ascii``) as
``\\uXXXX`` escapes, and makes a failed write (a full disk, ``> /dev/full``) bad input too.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import warnings
from collections.abc import Sequence

from spg.cli import dea, evaluate, generate, lint, pairs, renumber, reproduce, serve, stats, train
from spg.data import DataError
from spg.errors import InputError, escaped

BAD_INPUT, INTERNAL_ERROR, INTERRUPTED = 2, 3, 130


class _Output(io.TextIOBase):
    """Standard output as commands write it: control characters escaped, write failures bad input."""

    def __init__(self, stream):
        super().__init__()
        self._stream = stream

    def write(self, text: str) -> int:
        text = escaped(text)
        try:
            try:
                self._stream.write(text)
            except UnicodeEncodeError:  # PYTHONIOENCODING=ascii, a C locale: what the encoding lacks as escapes
                self._stream.write(_encodable(text, self.encoding))
        except BrokenPipeError:
            raise
        except OSError as e:
            raise InputError(f"cannot write the output ({e.strerror or e}); expected a writable standard output") from None
        return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as e:
            raise InputError(f"cannot write the output ({getattr(e, 'strerror', None) or e}); "
                             "expected a writable standard output") from None

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self._stream, "encoding", "utf-8")


def _encodable(text: str, encoding: str) -> str:
    """``text`` with each character ``encoding`` cannot write as a ``\\uXXXX`` escape (a pair of them above U+FFFF),
    so that text stays readable and --json output stays JSON, whatever the terminal's encoding."""
    out = []
    for ch in text:
        try:
            ch.encode(encoding)
            out.append(ch)
        except UnicodeEncodeError:
            code = ord(ch)
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else
                       f"\\u{0xD800 + ((code - 0x10000) >> 10):04x}\\u{0xDC00 + ((code - 0x10000) & 0x3FF):04x}")
    return "".join(out)


class _OneLineParser(argparse.ArgumentParser):
    """argparse with its usage errors in one line (the contract's), pointing to --help for the usage block."""

    def error(self, message: str) -> None:  # type: ignore[override]  # exits, as argparse's does
        self.exit(BAD_INPUT, f"{self.prog}: {_one_line(message)}; see `{self.prog} --help`\n")


def _quiet_libraries() -> None:
    """Progress bars and advisory logging of the Hugging Face libraries off (spg's own bars stay): a failing
    command prints its one line and nothing before it. Read when they are first imported, so set first."""
    for key, value in (("HF_HUB_DISABLE_PROGRESS_BARS", "1"), ("TRANSFORMERS_VERBOSITY", "error"),
                       ("DATASETS_VERBOSITY", "error"), ("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")):
        os.environ.setdefault(key, value)


def _stdout_to_devnull() -> None:
    """After standard output failed: nothing more to write there, not even the interpreter's last flush."""
    with contextlib.suppress(OSError, AttributeError, ValueError):  # no descriptor to redirect (a test captures)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.__stdout__.fileno())


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(
        prog="spg",
        description="Draft patent claim sets as dependency forests, train SPG, and evaluate any claim generator.",
        epilog="Exit status: 0 success, 1 findings (lint errors, skipped records), 2 bad input or usage, "
        "3 internal error.",
    )
    parser.add_argument("--debug", action="store_true", help="show the traceback of any error instead of one line")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (lint, renumber, stats, evaluate, dea, generate, pairs, train, reproduce, serve):
        module.register(sub)
    return parser


def _one_line(error: BaseException | str) -> str:
    return escaped(" ".join(str(error).split())) or type(error).__name__


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # spg never reaches a model hub: models come from local paths or installed packages. Handlers import
    # transformers lazily, so this is early enough. Set HF_HUB_OFFLINE=0 yourself to download by name.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if not args.debug:
        _quiet_libraries()
    command = f"spg {args.command}"
    stdout = sys.stdout
    sys.stdout = _Output(stdout)
    try:
        with warnings.catch_warnings(record=not args.debug) as held:
            code = int(args.func(args) or 0)
            sys.stdout.flush()
        for warning in {str(w.message): w for w in held or []}.values():  # each text once, after success only
            print(f"{command}: warning: {_one_line(str(warning.message))}", file=sys.stderr)
        return code
    except BrokenPipeError:  # `spg lint ... | head` is fine
        _stdout_to_devnull()
        sys.stderr.close()
        return 0
    except (InputError, DataError) as e:
        if args.debug:
            raise
        if "cannot write the output" in str(e):
            _stdout_to_devnull()
        print(f"{command}: {_one_line(e)}", file=sys.stderr)
        return BAD_INPUT
    except KeyboardInterrupt:
        if args.debug:
            raise
        print(f"{command}: interrupted", file=sys.stderr)
        return INTERRUPTED
    except Exception as e:  # a bug: still one line, and the way to the traceback
        if args.debug:
            raise
        print(
            f"{command}: internal error ({type(e).__name__}: {_one_line(e)}); "
            f"run `spg --debug {args.command} ...` for the traceback and please report it",
            file=sys.stderr,
        )
        return INTERNAL_ERROR
    finally:
        sys.stdout = stdout

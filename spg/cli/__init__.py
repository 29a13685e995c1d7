"""The ``spg`` command. Each sub-command lives in its own module and adds its own parser.

Heavy libraries (torch, transformers) are imported inside the command handlers, so
``spg lint`` and ``spg --help`` start instantly.

Every command keeps one error contract (README, "Errors and exit status"): exit 0 on success, 1 on
findings (lint errors, records or documents skipped), 2 on bad input or usage, with one line on stderr
naming the file, the line or record, the field and what was expected; 3 on an internal error (a bug).
Handlers raise :class:`~spg.errors.InputError` (or :class:`~spg.data.DataError`) and :func:`main` reports
it; ``spg --debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from spg.cli import dea, evaluate, generate, lint, pairs, reproduce, stats, train
from spg.data import DataError
from spg.errors import InputError

BAD_INPUT, INTERNAL_ERROR, INTERRUPTED = 2, 3, 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="spg",
        description="Draft patent claim sets as dependency forests, train SPG, and evaluate any claim generator.",
        epilog="Exit status: 0 success, 1 findings (lint errors, skipped records), 2 bad input or usage, "
        "3 internal error.",
    )
    parser.add_argument("--debug", action="store_true", help="show the traceback of any error instead of one line")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (lint, stats, evaluate, dea, generate, pairs, train, reproduce):
        module.register(sub)
    return parser


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # spg never reaches a model hub: models come from local paths or installed packages. Handlers import
    # transformers lazily, so this is early enough. Set HF_HUB_OFFLINE=0 yourself to download by name.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    command = f"spg {args.command}"
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # `spg lint ... | head` is fine
        sys.stderr.close()
        return 0
    except (InputError, DataError) as e:
        if args.debug:
            raise
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

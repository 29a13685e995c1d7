"""The ``spg`` command. Each sub-command lives in its own module and adds its own parser.

Heavy libraries (torch, transformers) are imported inside the command handlers, so
``spg lint`` and ``spg --help`` start instantly.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from spg.cli import dea, evaluate, generate, lint, pairs, reproduce, train


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="spg",
        description="Draft patent claim sets as dependency forests, train SPG, and evaluate any claim generator.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (lint, evaluate, dea, generate, pairs, train, reproduce):
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # spg never reaches a model hub: models come from local paths or installed packages. Handlers import
    # transformers lazily, so this is early enough. Set HF_HUB_OFFLINE=0 yourself to download by name.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # `spg lint ... | head` is fine
        sys.stderr.close()
        return 0

"""The ``spg`` command. Each sub-command lives in its own module and adds its own parser.

Heavy libraries (torch, transformers) are imported inside the command handlers, so
``spg lint`` and ``spg --help`` start instantly.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

# spg never reaches a model hub: models come from local paths or installed packages.
# Set HF_HUB_OFFLINE=0 yourself to let transformers download by name.
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from spg.cli import lint


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="spg",
        description="Draft patent claim sets as dependency forests, train SPG, and evaluate any claim generator.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (lint,):
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())

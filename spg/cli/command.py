"""How a sub-command joins ``spg``: its parser under the top-level one, with its handler as the parser's ``func``
(what :func:`spg.cli.main` calls)."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def add_command(sub: argparse._SubParsersAction, name: str, run: Callable[[argparse.Namespace], int], summary: str,
                description: str) -> argparse.ArgumentParser:
    """The parser of ``spg NAME``: ``summary`` is its line in ``spg --help``, ``description`` heads its own ``--help``."""
    p = sub.add_parser(name, help=summary, description=description)
    p.set_defaults(func=run)
    return p

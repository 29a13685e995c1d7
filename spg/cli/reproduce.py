"""``spg reproduce --config FILE``: the mini reproduction in one command (docs/reproduction.md)."""

from __future__ import annotations

import argparse
import sys

from spg.cli.command import add_command
from spg.errors import shown


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "reproduce", run,
                    summary="train every system of a reproduction config, generate for the dev split, evaluate, write the report",
                    description="""
        Run a reproduction recipe (e.g. configs/repro/smollm2.yaml): Stage I systems, Stage II systems on top of them
        (preference pairs sampled once per Stage I model), zero-shot chat models; generation of the dev split under
        each decoding setting; teacher-forced DEA; evaluation; one markdown report. Jobs run as spg subprocesses,
        `parallel` at a time, logging to OUTPUT_DIR/logs. Resumable: a finished job is recorded in OUTPUT_DIR/done and
        never redone, and a job whose results are all there is skipped.""")
    p.add_argument("--config", required=True, help="reproduction YAML (configs/repro/)")
    p.add_argument("overrides", nargs="*", metavar="KEY=VALUE", help="override config keys, e.g. parallel=3")
    p.add_argument("--stop-before", choices=("generate", "evaluate"),
                   help="stop before this step (e.g. on a GPU machine; evaluate the copied results elsewhere)")
    p.add_argument("--dry-run", action="store_true", help="list every job, whether it will run, and its command")


def run(args: argparse.Namespace) -> int:
    from spg.config import ConfigError
    from spg.reproduce import main

    try:
        return main(args.config, args.overrides, stop_before=args.stop_before, dry_run=args.dry_run)
    except ConfigError as e:
        print(f"spg reproduce: {shown(e)}", file=sys.stderr)
        return 2

"""``spg dea``: teacher-forced dependency-edge accuracy of a trained SPG model (paper Table 2; docs/evaluation.md)."""

from __future__ import annotations

import argparse
import json
import sys
from itertools import islice
from pathlib import Path

from spg.cli.command import add_command
from spg.errors import InputError, nested_too_deeply, shown
from spg.files import check_destination, write_json, write_jsonl, write_text

DEA = "dea"  # the kind of spg.files output the --out files are
DEA_FILES = ("dea.md", "dea.json", "documents.jsonl")


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "dea", run,
                    summary="teacher-forced dependency-edge accuracy of an SPG model on gold claim forests (paper Table 2)",
                    description="""
        Feed each gold claim forest (serialised as in training, behind its description's prompt) to an SPG model, one
        forward per batch, take the pointer's argmax parent of every dependent claim and print DEA overall and by gold
        depth with counts. Documents longer than the model's window are truncated as in training; the claims beyond the
        cut are reported, and scored wrong in the second row.""")
    p.add_argument("references", nargs="+",
                   help="gold claim sets: folders of HUPD JSON, .json or .jsonl files (optionally .gz)")
    p.add_argument("--split", choices=("train", "dev"), help="only this side of spg's fixed train/dev split")
    p.add_argument("--model", required=True, metavar="DIR",
                   help="SPG artefact directory (spg train output) or a shipped model's name (spg-smollm2)")
    p.add_argument("--limit", type=int, metavar="N", help="only the first N records")
    p.add_argument("--batch-size", type=int, default=4, metavar="B", help="documents per forward (default 4)")
    p.add_argument("--max-length", type=int, metavar="L", help="prompt + target tokens (default: the model's)")
    p.add_argument("--max-target-tokens", type=int, metavar="T", help="target tokens kept (default: the model's)")
    p.add_argument("--gold-links-only", action="store_true", help="only records whose parents are annotated links")
    p.add_argument("--out", metavar="DIR", help="write dea.md, dea.json and documents.jsonl here")
    p.add_argument("--json", action="store_true", help="print the JSON report instead of the table")
    p.add_argument("--device", help="torch device (default: cuda when available, else cpu)")
    p.add_argument("--skip-bad", action="store_true", help="skip malformed records (reported on stderr)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    for flag in ("limit", "batch_size", "max_length", "max_target_tokens"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            raise InputError(f"--{flag.replace('_', '-')} must be at least 1, got {value}")
    for name in DEA_FILES if args.out else ():
        check_destination(Path(args.out) / name, DEA)

    from spg.config import ConfigError, Invalid, check_device
    from spg.model.config import SPGConfig, resolve_artefact

    try:
        check_device("--device", args.device)
    except Invalid as e:
        raise ConfigError(str(e)) from None
    try:
        config = SPGConfig.load(resolve_artefact(args.model))  # a folder, or a shipped model's name
    except (OSError, ValueError, TypeError) as e:  # no spg_config.json, or one that is not SPGConfig's JSON
        raise InputError(f"--model {args.model}: {e}; expected an SPG artefact (spg train output)") from None
    if not config.tagged:
        raise InputError(f"--model {args.model}: trained without structure tags (the Baseline ablation): no pointer")

    from transformers.utils import logging as transformers_logging

    from spg.data import DataError, load_records
    from spg.model.backbone import resolve_device
    from spg.model.spg_model import SPGModel
    from spg.pointer_eval import teacher_forced_dea

    try:
        device = resolve_device(args.device)
    except ValueError as e:
        raise InputError(f"--device: {e}") from None
    skipped: list[DataError] = []
    records = load_records(args.references, skip_bad=args.skip_bad, skipped=skipped, split=args.split)
    if args.no_progress:
        transformers_logging.disable_progress_bar()
    model = SPGModel.from_pretrained(args.model).to(device)
    try:
        result = teacher_forced_dea(
            model,
            islice((r for r in records if r.gold_links or not args.gold_links_only), args.limit),
            batch_size=args.batch_size,
            max_length=args.max_length,
            max_target_tokens=args.max_target_tokens,
            progress=not args.no_progress,
        )
    except RecursionError:
        raise nested_too_deeply(" ".join(args.references)) from None
    report = {"model": args.model, "references": args.references, **result.as_dict()}
    table = result.markdown()
    print(json.dumps(report, indent=2) if args.json else table, end="\n" if args.json else "")
    if args.out:
        out = Path(args.out)
        rows = [{"id": d.id, "claims": d.claims, "kept": d.kept, "predicted": d.predicted, "dea": d.dea.as_dict(),
                 "dea_all_claims": d.dea_all.as_dict()} for d in result.documents]
        written = [write_text(out / "dea.md", DEA, table), write_json(out / "dea.json", DEA, report),
                   write_jsonl(out / "documents.jsonl", DEA, rows)]
        print(f"wrote {shown(', '.join(map(str, written)))}", file=sys.stderr)
    if skipped:
        print(f"spg dea: skipped {len(skipped)} bad records", file=sys.stderr)
    return 1 if skipped else 0

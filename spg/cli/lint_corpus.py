"""``spg lint INPUT... --out DIR``: a corpus into Parquet tables and a report (spg.lint.corpus, docs/lint.md,
"Corpus scale"). Exit 0 when every record was linted, 1 when some could not be (their rows name them), 2 on bad
input or usage."""

from __future__ import annotations

import argparse
from pathlib import Path

from spg.errors import InputError
from spg.lint.suppress import Suppressions

ENGINES = ("local", "ray")
_ONE_CLAIM_SET = ("record", "description", "html", "docx_comments", "json")  # options of a one-claim-set run


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("more", nargs="*", metavar="INPUT", help="with --out: more inputs (JSON Lines, .jsonl.gz, JSON, "
                   "folders of them such as HUPD's, Parquet with a claims column)")
    p.add_argument("--out", metavar="DIR", help="lint every record of the inputs into DIR: Parquet tables claim_sets/ "
                   "(a row per record: id, kind, claims, counts per severity and rule, 'bad' naming a record that "
                   "could not be read) and findings/ (a row per finding), and report.md/.png/.html (findings per "
                   "1,000 claims by rule and kind); run again with the same command to resume a killed run")
    p.add_argument("--workers", type=int, metavar="N", help="with --out: processes (default: every core); with "
                   "--engine ray: actors (default: a local cluster's every core, or the cluster's CPUs)")
    p.add_argument("--engine", choices=ENGINES, default="local", help="with --out: local (default: processes on "
                   "this machine, resumable) or ray (Ray Data: a local cluster, or --ray-address)")
    p.add_argument("--ray-address", metavar="ADDRESS", help="with --engine ray: the cluster to run on, e.g. "
                   "ray://head:10001 (default: start a local one on 127.0.0.1)")
    p.add_argument("--batch-size", type=int, default=None, metavar="N", help="with --out: records per batch "
                   "(a part file of the local engine; default 128)")
    p.set_defaults(usage_error=p.error)  # argparse's one-line usage error, for option combinations it cannot check


def is_corpus_run(args: argparse.Namespace) -> bool:
    corpus_only = args.more or args.workers is not None or args.engine != "local" or args.ray_address \
        or args.batch_size is not None
    if args.out is None and corpus_only:
        args.usage_error("several inputs, --workers, --engine, --ray-address and --batch-size need --out DIR "
                         "(a corpus run); expected --out DIR, or one claim set")
    return args.out is not None


def lint_corpus_command(args: argparse.Namespace, suppressions: Suppressions) -> int:
    from spg.lint.corpus import BATCH_SIZE, Checker, lint_corpus
    from spg.lint.corpus_report import write_report

    given = [f"--{name.replace('_', '-')}" for name in _ONE_CLAIM_SET if getattr(args, name)]
    if given:
        args.usage_error(f"{given[0]} is for one claim set; --out lints every record of the inputs (expected one "
                         "or the other)")
    inputs = [args.file, *args.more]
    if "-" in inputs:
        raise InputError("--out reads files, not standard input ('-'); expected JSON Lines, JSON or Parquet files")
    if args.engine != "ray" and args.ray_address:
        args.usage_error("--ray-address needs --engine ray")
    for name in ("workers", "batch_size"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            args.usage_error(f"--{name.replace('_', '-')} {getattr(args, name)}: expected a positive number")
    out = Path(args.out)
    for given in (Path(i).resolve() for i in inputs if "://" not in i):
        if out.resolve() == given or out.resolve() in given.parents or given in out.resolve().parents:
            raise InputError(f"{out}: is, holds or lies inside the input {given}; choose a folder apart from the "
                             "inputs for the output")
    checker = Checker(suppressions, args.antecedent, args.field, args.restatement)
    totals = lint_corpus(inputs, out, checker, workers=args.workers,
                         batch_size=args.batch_size or BATCH_SIZE, engine=args.engine, address=args.ray_address)
    rates = write_report(out)
    bad = f", {totals.bad:,} bad records (rows with 'bad')" if totals.bad else ""
    found = sum(rates.findings.get("all", {}).values())
    print(f"{totals.records:,} records, {totals.claims:,} claims, {found:,} findings{bad}: tables in "
          f"{out / 'claim_sets'} and {out / 'findings'}; report in {out / 'report.md'} (.png, .html)")
    return 1 if totals.bad else 0

"""``spg lint FILE``: a claim set as a dependency tree with its problems; ``spg stats DATA``: corpus statistics.

Exit codes: 0 sound (warnings allowed), 1 structural errors (lint) or bad records skipped (stats), 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from spg.data import DataError, forest_from_json, load_records
from spg.errors import InputError, decode_utf8, nested_too_deeply, parse_json
from spg.forest import Claim, Diagnostic, Forest
from spg.metrics.antecedent import unsupported_references
from spg.parse import parse_claims, unread_citations

SNIPPET = 70
MAX_INDENT = 20


JSON_EXPECTED = "expected a list of claim texts, a list of {num, text, parents} or an object with 'claims'"


def read_claim_set(path: str) -> Forest:
    """A claim set from a text file (flat string or one claim per line) or a JSON file; ``-`` is stdin."""
    name = "<stdin>" if path == "-" else path
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as e:
        raise DataError(f"{name}: cannot read ({e.strerror or e})") from None
    text = decode_utf8(data, name)
    if path.endswith(".json") or text.lstrip().startswith(("[", "{")):
        try:
            value = parse_json(text, name)
        except json.JSONDecodeError as e:
            problem = f"{e.msg}: line {e.lineno}, column {e.colno}"
            raise DataError(f"{name}: not valid JSON ({problem}); {JSON_EXPECTED}") from None
        return forest_from_json(value, name)
    return parse_claims(text)


def diagnostics(forest: Forest) -> list[Diagnostic]:
    """Every structural diagnostic, then the claims read as independent that may cite a claim after all."""
    return forest.diagnostics() + unread_citations(forest)


def _label(claim: Claim) -> str:
    if claim.independent:
        return "ind"
    cited = f" (cites {', '.join(map(str, claim.parents))})" if len(claim.parents) > 1 else ""
    return f"dep→{claim.parent}{cited}"


def _line(claim: Claim, indent: int) -> str:
    text = " ".join(claim.text.split())
    snippet = text if len(text) <= SNIPPET else text[: SNIPPET - 1].rstrip() + "…"
    # Indented at most MAX_INDENT levels, deeper ones say their depth: a 100,000-deep chain indented in full
    # would print 10 GB.
    deeper = f"(depth {indent + 1}) " if indent > MAX_INDENT else ""
    return f"{'  ' * min(indent, MAX_INDENT)}{deeper}{claim.num} [{_label(claim)}] {snippet}"


def tree_lines(forest: Forest) -> list[str]:
    """Each tree in Eq. 1 order, indented by depth; claims outside any tree (broken chains, duplicates) last."""
    lines: list[str] = []
    shown: set[int] = set()  # id() of printed claims: duplicate numbers are distinct claims
    for tree in forest.trees():
        for num in tree:
            claim = forest.by_num[num]
            if id(claim) not in shown:
                shown.add(id(claim))
                lines.append(_line(claim, (forest.depth(num) or 1) - 1))
    rest = [c for c in forest.claims if id(c) not in shown]
    if rest:
        lines.append("outside any tree:")
        lines += [_line(c, 1) for c in rest]
    return lines


def lint_report(forest: Forest) -> dict:
    """The machine-readable result of ``spg lint --json``."""
    return {
        "claims": [
            {
                "num": c.num,
                "parents": list(c.parents),
                "parent": c.parent,
                "depth": forest.depth(c.num),
                "independent": c.independent,
            }
            for c in forest.claims
        ],
        "diagnostics": [
            {"code": d.code, "claim": d.claim, "message": d.message, "severity": d.severity}
            for d in diagnostics(forest)
        ],
        "antecedent": [
            {"claim": a.claim, "term": a.term, "start": a.start, "end": a.end} for a in unsupported_references(forest)
        ],
    }


def lint_lines(forest: Forest) -> list[str]:
    """What ``spg lint`` prints (and ``spg generate`` after each document): the trees, a blank line, every
    structural diagnostic and antecedent-basis warning, and a one-line summary."""
    found = diagnostics(forest)
    errors = sum(d.severity == "error" for d in found)
    issues = unsupported_references(forest)  # wording, not structure: warnings only
    return [
        *tree_lines(forest),
        "",
        *map(str, found),
        *(f"warning: {a} [antecedent]" for a in issues),
        f"{len(forest)} claims ({forest.num_independent} independent, {forest.num_dependent} dependent, "
        f"max depth {forest.max_depth}); {errors} errors, {len(found) - errors} warnings, "
        f"{len(issues)} antecedent-basis warnings",
    ]


def _lint(args: argparse.Namespace) -> int:
    forest = read_claim_set(args.file)
    if args.json:
        print(json.dumps(lint_report(forest), ensure_ascii=False, indent=1))
    else:
        print("\n".join(lint_lines(forest)))
    return 1 if not forest.is_valid else 0


def _stats(args: argparse.Namespace) -> int:
    from spg.stats import corpus_stats, count_words, hf_token_counter, to_markdown

    skipped: list[DataError] = []
    records = load_records(args.data, skip_bad=args.skip_bad, skipped=skipped)  # checks the path first
    count, unit = count_words, "words"
    if args.tokenizer:
        try:
            count, unit = hf_token_counter(args.tokenizer), f"tokens ({args.tokenizer})"
        except (OSError, ValueError) as e:
            raise InputError(f"cannot load tokenizer {args.tokenizer!r} from a local path or package: {e}") from None
    try:
        stats = corpus_stats(records, count, unit)
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


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "lint",
        help="show a claim set as a dependency forest and list its problems",
        description="Print the claim set as trees (indented by depth), every structural diagnostic and every "
        "definite reference without antecedent basis. Exit 1 on structural errors, 2 on unreadable input.",
    )
    p.add_argument("file", help="claim set: text (flat '1. ... 2. ...' or one claim per line) or JSON; '-' = stdin")
    p.add_argument("--json", action="store_true", help="print claims, diagnostics and antecedent issues as JSON")
    p.set_defaults(func=_lint)

    p = sub.add_parser(
        "stats",
        help="corpus statistics (the paper's 'Detailed statistics' table)",
        description="Claims, independent, dependent, max tree depth, claim and description length per document "
        "(mean, median, min, max) and the dependent-claim ratio, for a folder, .json or .jsonl data source.",
    )
    p.add_argument("data", help="folder of HUPD JSON files, a .json file or a .jsonl file")
    p.add_argument(
        "--tokenizer",
        help="count lengths in tokens of this local Hugging Face tokenizer (path or cached name), or 'smollm2' for "
        "the embedded SmolLM2 tokenizer; default: whitespace words",
    )
    p.add_argument("--skip-bad", action="store_true", help="report malformed records and go on instead of stopping")
    p.add_argument("--json", action="store_true", help="print the statistics as JSON")
    p.set_defaults(func=_stats)

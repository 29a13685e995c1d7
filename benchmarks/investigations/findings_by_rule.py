"""What ``spg lint`` finds on the unmodified claims of a shared corpus's train and dev sides, rule by rule.

The check every lint reading of issue 30 went through before it stayed: run this at the commit before the reading
and at the one after it, and read the findings that came or went (``--list`` prints each, one per line, to compare
with ``diff``). Only the development sides of ``spg.data.checker_split`` are read (``--sides``); the test side is
``benchmarks/lint_drafting.py``'s, once the rules are frozen.

    python benchmarks/investigations/findings_by_rule.py [--data pap2pat/patents.jsonl.gz] [--rules all] [--list]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import shared_records  # noqa: E402
from lint_drafting import RULES  # noqa: E402

from spg.data import checker_split  # noqa: E402
from spg.lint import find_all  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="uspto/patents.jsonl",
                        help="a corpus under the shared data folder (default: uspto/patents.jsonl)")
    parser.add_argument("--sides", default="train,dev", help="sides of the checker split (default: train,dev)")
    parser.add_argument("--rules", default=",".join(RULES),
                        help="comma-separated rules, or 'all' (default: the drafting rules of issue 30)")
    parser.add_argument("--list", action="store_true", help="also print every finding: id, claim, rule, claim text")
    args = parser.parse_args()
    sides = set(args.sides.split(","))
    if not sides <= {"train", "dev", "test"}:
        parser.error(f"--sides: expected train, dev or test, comma-separated; got {args.sides!r}")
    wanted = None if args.rules == "all" else set(args.rules.split(","))
    counts: Counter[str] = Counter()
    claims = 0
    # per document kind (US grants, EP, US applications): the bound of issue 43 is per granted claim of each
    kind_claims: Counter[str] = Counter()
    kind_counts: Counter[str] = Counter()
    for record in shared_records(args.data):
        if checker_split(record.id) not in sides:
            continue
        claims += len(record.claims.claims)
        kind = record.fields.get("kind", "?")
        kind_claims[kind] += len(record.claims.claims)
        for f in find_all(record.claims):
            if wanted is None or f.rule in wanted:
                counts[f.rule] += 1
                kind_counts[kind] += 1
                if args.list:
                    # a finding on the whole set (numbering) has no claim
                    text = record.claims.by_num[f.claim].text[:200] if f.claim in record.claims.by_num else ""
                    print(f"{record.id}\t{f.claim}\t{f.rule}\t{text}")
    print(f"{args.data}, {'+'.join(sorted(sides))}: {claims} claims; "
          + ", ".join(f"{rule} {n}" for rule, n in sorted(counts.items())))
    print("by kind (findings of those rules / claims): " + ", ".join(
        f"{kind} {kind_counts[kind]}/{n} ({kind_counts[kind] / n:.4f})" for kind, n in sorted(kind_claims.items())))


if __name__ == "__main__":
    main()

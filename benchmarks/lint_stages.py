"""Where ``spg lint``'s time goes: process CPU time per stage of ``spg.lint.find_all`` over the shared USPTO set's
claim sets, per claim, in one run.

Each stage (the function ``find_all`` calls, and the three repetition rules inside ``check_redundancy``) is wrapped
with ``time.process_time()`` for the run; no profiler runs, because cProfile and line tracing overstate by several
times the small functions these rules are made of. A stage's time includes what it calls (``check_redundancy``
holds its three rules). One claim set is linted first and not counted (the reader's and the caches' loading).

    python benchmarks/lint_stages.py [--restatement read] [--repeat 1]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable

from common import shared_records

import spg.lint.check as check
import spg.lint.meaning.reader as reader
import spg.lint.redundancy as redundancy

# find_all's calls, looked up in spg.lint.check at each call, and the rules check_redundancy calls in its module
STAGES = {check: ("unread_citations", "check_commentary", "antecedent_findings", "check_multiple_dependency",
                  "check_means_plus_function", "read_claims", "ancestry", "check_redundancy", "check_preambles",
                  "check_contradictions", "check_ranges"),
          redundancy: ("check_duplicates", "check_not_further_limiting", "check_repeated_limitations"),
          reader: ("restatement_findings",)}


def timed(spent: Counter, name: str, fn: Callable) -> Callable:
    def run(*args, **kwargs):
        start = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[name] += time.process_time() - start
    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--restatement", choices=check.RESTATEMENT_MODES, default="read",
                    help="lint's restatement mode (default read: the reader on)")
    ap.add_argument("--repeat", type=int, default=1, help="rounds over the set, summed (default 1)")
    args = ap.parse_args()
    forests = [record.claims for record in shared_records()]
    spent: Counter = Counter()
    for module, names in STAGES.items():
        for name in names:
            setattr(module, name, timed(spent, name, getattr(module, name)))
    check.lint(forests[0], restatement=args.restatement)
    spent.clear()
    start = time.process_time()
    for _ in range(args.repeat):
        for forest in forests:
            check.lint(forest, restatement=args.restatement)
    total = time.process_time() - start
    claims = args.repeat * sum(len(f.claims) for f in forests)
    print(f"{len(forests)} claim sets, {claims} claims, --restatement {args.restatement}: {total:.2f} s CPU, "
          f"{claims / total:.0f} claims/s, {1000 * total / claims:.3f} ms a claim")
    inner = set(STAGES[redundancy])
    for name, seconds in sorted(spent.items(), key=lambda kv: -kv[1]):
        label = f"  {name} (in check_redundancy)" if name in inner else name
        print(f"{label:52s} {1000 * seconds / claims:6.3f} ms a claim  {seconds / total:6.1%}")
    print(f"{'everything else (structure, sorting, suppressions)':52s} "
          f"{1000 * (total - sum(v for k, v in spent.items() if k not in inner)) / claims:6.3f} ms a claim")


if __name__ == "__main__":
    main()

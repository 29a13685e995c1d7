"""What ``not-a-claim`` finds on the labelled LLM corpus, side by side of ``spg.data.checker_split``: the figures of
docs/lint.md, "Commentary in a claim's place".

Every batch's two sheets (``benchmarks/sets/llm_claims*_labels_{1,2}.jsonl``) are read. A candidate is "no claim" by
a reader whose free-text note (``other``) says so ("not a claim", "chat", "commentary", "prose", ...): the rubric asks
no such question, so this is the notes' word, not a label. Printed per side: the candidates, those both readers'
notes call no claim, those ``not-a-claim`` flags (of them: no claim by both notes, by either, error-free by both),
and the candidate's antecedent warnings before the rule (``spg.lint.check.antecedent_findings`` alone, as
``find_all`` added them until then) and after it (``spg lint``'s), with those on a term both readers list.

    python benchmarks/investigations/commentary_counts.py
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import SETS, jsonl_rows  # noqa: E402
from llm_claims import ITEMS, candidate_findings, item_forest, read_sheet, term_key  # noqa: E402

from spg.lint.check import antecedent_findings  # noqa: E402

NO_CLAIM = ("not a claim", "chat", "commentary", "prose", "no claim", "not claim")


def no_claim(answer: dict) -> bool:
    return any(word in answer["other"].lower() for word in NO_CLAIM)


def warnings(found, terms: set[str]) -> tuple[int, int]:
    """(antecedent warnings, those on a term of ``terms``)."""
    warned = [f for f in found if f.rule == "antecedent" and f.severity == "warning"]
    return len(warned), sum(bool(f.term) and term_key(f.term) in terms for f in warned)


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    items = {row["id"]: row for _, row in jsonl_rows(ITEMS)}
    counts: dict[str, Counter] = {side: Counter() for side in ("train", "dev", "test")}
    for first in sorted(SETS.glob("llm_claims*_labels_1.jsonl")):
        a = read_sheet(first, items)
        b = read_sheet(first.with_name(first.name.replace("_1.jsonl", "_2.jsonl")), items)
        for i in a.keys() & b.keys():
            item, c = items[i], counts[items[i]["split"]]
            terms = {term_key(t) for t in a[i]["antecedent"]} & {term_key(t) for t in b[i]["antecedent"]}
            after = candidate_findings(item)
            before = [f for f in antecedent_findings(item_forest(item)) if f.claim == item["claim"]]
            flagged = any(f.rule == "not-a-claim" for f in after)
            both, either = no_claim(a[i]) and no_claim(b[i]), no_claim(a[i]) or no_claim(b[i])
            c.update({"candidates": 1, "no claim (both)": both, "flagged": flagged,
                      "flagged, no claim (both)": flagged and both, "flagged, no claim (either)": flagged and either,
                      "flagged, error-free (both)": flagged and a[i]["error_free"] == b[i]["error_free"] == "yes"})
            for name, found in (("before", before), ("after", after)):
                n, real = warnings(found, terms)
                c[f"antecedent warnings {name}"] += n
                c[f"  on a term both list, {name}"] += real
            n, real = warnings(before, terms)
            c["antecedent warnings before, on no claim (both)"] += n if both else 0
            c["  on a term both list"] += real if both else 0
    keys = list(dict.fromkeys(k for side in counts.values() for k in side))
    print(f"{'':52s}" + "".join(f"{side:>8s}" for side in counts))
    for key in keys:
        print(f"{key:52s}" + "".join(f"{counts[side][key]:8d}" for side in counts))


if __name__ == "__main__":
    main()

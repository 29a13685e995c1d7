"""Calibration of PatentScore_rule (appendix "Score Calibration"): gold claim sets scored against themselves.

The paper reports PS(gold, gold) = 85.49 on the 0–100 scale and SP(gold) = 0.926. Against itself a claim set
gets full Claim Count, Length and Overlap (2.5 of 4.5), so the paper's figures imply AC(gold) ≈ 0.421. This
prints our figures per document kind, the α terms of SP, AC under three antecedent scopes (the paper's plain
text, each claim alone, each claim with its ancestors), other readings of α_pre and α_semi that show where the
SP gap comes from (SP_alt = α_pre without the colon + α_semi of the whole set + α_dep), the PS those readings
give with per-claim antecedents (PS_alt). Speed is measured by metrics_speed.py.

    .venv/bin/python benchmarks/patentscore_calibration.py
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from collections import defaultdict

from common import shared_file

from spg.forest import Claim, Forest
from spg.metrics.antecedent import antecedent_counts
from spg.metrics.patentscore import PS_MAX, patent_score, structural_pattern
from spg.parse import parse_claims

PAPER_PS, PAPER_SP = 85.49, 0.926
PAPER_AC = PAPER_PS / 100 * PS_MAX - 2.5 - PAPER_SP


# α_pre without the colon: any transitional phrase in the first claim.
_ANY_TRANSITION_RE = re.compile(r"\b(?:comprising|comprises|consisting|including|includes|containing|having|characteri[sz]ed)\b", re.I)


def _ratio(counts: tuple[int, int]) -> float:
    total, resolved = counts
    return resolved / total if total else 0.0


def _semi_independent_only(forest: Forest) -> float:
    """α_semi if only independent claims were asked to carry semicolons."""
    roots = [c for c in forest.claims if c.independent]
    return 0.3 * sum(";" in c.text for c in roots) / len(roots) if roots else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.parse_args()  # --help only
    docs = [json.loads(line) for line in shared_file("uspto/patents.jsonl").read_text(encoding="utf-8").splitlines()]

    rows: dict[str, list[dict[str, float]]] = defaultdict(list)
    for doc in docs:
        text = doc["claims_text"]
        ps = patent_score(text, text)
        sp = structural_pattern(text)
        forest = parse_claims(doc["claims"])
        alone = Forest.from_claims(Claim(c.num, c.text, ()) for c in forest.claims)
        row = {
            "PS": ps.normalized,
            "SP": ps.struct,
            "pre": sp.alpha_pre,
            "semi": sp.alpha_semi,
            "dep": sp.alpha_dep,
            "AC": ps.ante,
            "AC_alone": _ratio(antecedent_counts(alone)),
            "AC_forest": _ratio(antecedent_counts(forest)),
            "semi_ind": _semi_independent_only(forest),
            "semi_whole": 0.3 * (";" in text),
            "pre_any": 0.4 * bool(_ANY_TRANSITION_RE.search(forest.claims[0].text)) if len(forest) else 0.0,
        }
        row["SP_alt"] = row["pre_any"] + row["semi_whole"] + row["dep"]
        row["PS_alt"] = 100 * (2.5 + row["SP_alt"] + row["AC_alone"]) / PS_MAX
        rows[doc["kind"]].append(row)
        rows["all"].append(row)

    cols = ["PS", "SP", "pre", "semi", "dep", "AC", "AC_alone", "AC_forest", "semi_ind", "semi_whole", "pre_any", "SP_alt", "PS_alt"]
    print(f"PatentScore_rule(gold, gold) on {len(docs)} documents of uspto/patents.jsonl")
    print("| kind | n | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 2) + "|")
    for kind in ["grant", "application", "ep", "hupd", "all"]:
        if kind in rows:
            means = [statistics.fmean(r[c] for r in rows[kind]) for c in cols]
            print(f"| {kind} | {len(rows[kind])} | " + " | ".join(f"{m:.2f}" if c.startswith("PS") else f"{m:.3f}" for c, m in zip(cols, means, strict=True)) + " |")
    print(f"| paper | | {PAPER_PS:.2f} | {PAPER_SP:.3f} | | | | {PAPER_AC:.3f} (implied) |" + " |" * 7)

if __name__ == "__main__":
    main()

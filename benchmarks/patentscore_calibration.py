"""Calibration of PatentScore_rule (appendix "Score Calibration"): gold claim sets scored against themselves.

The paper reports PS(gold, gold) = 85.49 on the 0–100 scale and SP(gold) = 0.926. Against itself a claim set
gets full Claim Count, Length and Overlap (2.5 of 4.5), so the paper's figures imply AC(gold) ≈ 0.421. This
prints our figures per document kind under both readings of spg.metrics.patentscore ("appendix": the
definitions as written; "calibrated": α_pre with any transitional phrase, α_semi per claim set, AC claim by
claim), with the α terms of SP, and two more figures that show where the gaps come from: α_semi if only
independent claims were asked to carry a semicolon, and AC with each claim reading its ancestors (the forest
scope of spg lint), and the third reading ("precise": AC from the claim checker's antecedent analysis). Speed is
measured by metrics_speed.py.

    .venv/bin/python benchmarks/patentscore_calibration.py
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict

from common import shared_file

from spg.forest import Forest
from spg.metrics.antecedent import antecedent_counts
from spg.metrics.patentscore import PS_MAX, patent_score, structural_pattern
from spg.parse import parse_claims

PAPER_PS, PAPER_SP = 85.49, 0.926
PAPER_AC = PAPER_PS / 100 * PS_MAX - 2.5 - PAPER_SP


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
        row = {}
        for reading, tag in (("appendix", ""), ("calibrated", " cal")):
            ps, sp = patent_score(text, text, reading), structural_pattern(text, reading)
            row.update({f"PS{tag}": ps.normalized, f"SP{tag}": ps.struct, f"α_pre{tag}": sp.alpha_pre,
                        f"α_semi{tag}": sp.alpha_semi, f"AC{tag}": ps.ante})
        row["α_dep"] = sp.alpha_dep  # the same in both readings
        forest = parse_claims(doc["claims"])
        row["α_semi independent only"] = _semi_independent_only(forest)
        row["AC forest"] = _ratio(antecedent_counts(forest))
        row["PS precise"] = patent_score(text, text, "precise").normalized
        row["AC precise"] = patent_score(text, text, "precise").ante
        rows[doc["kind"]].append(row)
        rows["all"].append(row)

    cols = ["PS", "SP", "α_pre", "α_semi", "α_dep", "AC", "PS cal", "SP cal", "α_pre cal", "α_semi cal", "AC cal",
            "α_semi independent only", "AC forest", "PS precise", "AC precise"]
    print(f"PatentScore_rule(gold, gold) on {len(docs)} documents of uspto/patents.jsonl; 'cal' = calibrated reading")
    print("| kind | n | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 2) + "|")
    for kind in ["grant", "application", "ep", "hupd", "all"]:
        if kind in rows:
            means = [statistics.fmean(r[c] for r in rows[kind]) for c in cols]
            print(f"| {kind} | {len(rows[kind])} | " + " | ".join(f"{m:.2f}" if c.startswith("PS") else f"{m:.3f}" for c, m in zip(cols, means, strict=True)) + " |")
    paper = {"PS": f"{PAPER_PS:.2f}", "SP": f"{PAPER_SP:.3f}", "AC": f"{PAPER_AC:.3f} (implied)"}
    paper.update({f"{k} cal": v for k, v in paper.items()})
    print("| paper | | " + " | ".join(paper.get(c, "") for c in cols) + " |")


if __name__ == "__main__":
    main()

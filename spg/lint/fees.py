"""The claim counts the USPTO charges by (37 CFR 1.16(h), (i), (j)): what ``spg lint`` prints under its findings.

A filing fee covers 3 independent and 20 claims in all; each independent claim over 3 (1.16(h)) and each claim over
20 (1.16(i)) costs extra, and so does an application with any multiple dependent claim (1.16(j)). For counting, a
multiple dependent claim is as many claims as it refers to, and a claim depending from one, directly or through
single dependent claims, counts as many as that multiple dependent claim refers to (37 CFR 1.75(c), MPEP 608.01(n)).
Fee amounts change every year and differ by entity size, so only the triggers are named, never a sum.
"""

from __future__ import annotations

from dataclasses import dataclass

from spg.forest import Forest
from spg.lint.dependency import multiple_dependent_claims

INCLUDED_INDEPENDENT = 3  # 37 CFR 1.16(h): independent claims a filing fee covers
INCLUDED_TOTAL = 20  # 37 CFR 1.16(i): claims in all


@dataclass(frozen=True)
class ClaimCounts:
    """A claim set's counts for fee purposes. ``counted``: the total as the fee rules count it (multiple dependent
    claims and the claims depending from them weighted); ``multiple``: each multiple dependent claim and what it
    cites."""

    independent: int
    total: int
    counted: int
    multiple: dict[int, list[int]]

    def triggers(self) -> list[str]:
        """Each fee trigger the claim set hits, as a sentence naming its rule; empty when the basic fee covers it."""
        out = []
        if self.independent > INCLUDED_INDEPENDENT:
            extra = self.independent - INCLUDED_INDEPENDENT
            out.append(f"{self.independent} independent claims: {extra} over {INCLUDED_INDEPENDENT} "
                       "(excess independent claims fee, 37 CFR 1.16(h))")
        if self.counted > INCLUDED_TOTAL:
            extra = self.counted - INCLUDED_TOTAL
            out.append(f"{self.counted} claims as counted for fees: {extra} over {INCLUDED_TOTAL} "
                       "(excess claims fee, 37 CFR 1.16(i))")
        if self.multiple:
            nums = ", ".join(map(str, self.multiple))
            out.append(f"multiple dependent claim{'s' if len(self.multiple) > 1 else ''} {nums} "
                       "(multiple dependent claim fee, 37 CFR 1.16(j))")
        return out

    def line(self) -> str:
        """One line for the terminal: the counts, then each trigger or that there is none."""
        weighted = f", {self.counted} as counted for fees" if self.counted != self.total else ""
        counts = (f"claim count: {self.independent} independent, {self.total} in all{weighted}, "
                  f"{len(self.multiple)} multiple dependent")
        triggers = self.triggers()
        return counts + ("; fees: " + "; ".join(triggers) if triggers else
                         f"; within the basic fee ({INCLUDED_INDEPENDENT} independent, {INCLUDED_TOTAL} in all)")

    def to_dict(self) -> dict:
        return {"independent": self.independent, "total": self.total, "counted": self.counted,
                "multiple_dependent": {str(n): p for n, p in self.multiple.items()}, "fee_triggers": self.triggers()}


def claim_counts(forest: Forest) -> ClaimCounts:
    """The fee counts of a claim set. A claim whose parents are missing or later counts as one (the structure
    checks report it)."""
    multiple = multiple_dependent_claims(forest)
    weight: dict[int, int] = {}
    for c in forest.claims:
        if forest.by_num[c.num] is not c:
            continue  # a duplicate number is still a claim filed: it counts as one below
        if c.num in multiple:
            weight[c.num] = len(multiple[c.num])
        else:
            # a single dependent claim counts as its parent does: 1, or what the multiple dependent claim it depends
            # from (through any chain) refers to; a claim citing claims that include each other has one parent
            weight[c.num] = max((weight[p] for p in c.parents if p in weight), default=1)
    independent = sum(c.independent for c in forest.claims)
    counted = sum(weight.get(c.num, 1) if forest.by_num[c.num] is c else 1 for c in forest.claims)
    return ClaimCounts(independent, len(forest), counted, multiple)

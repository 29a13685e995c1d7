"""37 CFR 1.75(c) / 35 USC 112(e) multiple dependency (MPEP 608.01(n) I).

A claim that refers to more than one other claim ("multiple dependent claim") must refer to them in the
alternative only ("claim 1 or 2", "any one of claims 1-3", "any preceding claim"), with one set of alternatives; and
a multiple dependent claim may not serve as a basis for any other multiple dependent claim, "either directly or
indirectly" (MPEP 608.01(n) I), that is, also through single dependent claims between them.

A claim citing claim 1 and, elsewhere in its text, claim 3 that itself depends on claim 1 ("The material of claim 3,
wherein the composition of claim 1 ...") adds nothing claim 3 does not already include: it is read as a single
dependent claim on claim 3 and reported by neither rule.
"""

from __future__ import annotations

import re

from spg.forest import Forest
from spg.lint.finding import Finding
from spg.parse import Reference, extract_references

# A quantifier that makes a list of claims alternatives: "any one of", "any of the", "either", "one of", "one or more
# of" (accepted as "any one or more": granted US claims use it). It stands right before the citation or opens it.
_ALTERNATIVE = r"\b(?:any|either|one)(?:\s+one)?(?:\s+or\s+more)?(?:\s+of)?(?:\s+the)?\s*"
_ALTERNATIVE_BEFORE = re.compile(_ALTERNATIVE + r"$", re.IGNORECASE)
_ALTERNATIVE_OPENING = re.compile(_ALTERNATIVE, re.IGNORECASE)
_OR = re.compile(r"\bor\b", re.IGNORECASE)
_AND = re.compile(r"\band\b|&", re.IGNORECASE)


def _in_the_alternative(text: str, ref: Reference) -> bool:
    """Whether a citation of several claims names them as alternatives: an alternative quantifier, or "or" joining
    them without any "and" ("claims 1, 2 or 3"; "and/or" is cumulative, MPEP 608.01(n) I)."""
    phrase = text[ref.start : ref.end]
    if _ALTERNATIVE_OPENING.match(phrase) or _ALTERNATIVE_BEFORE.search(text, max(0, ref.start - 30), ref.start):
        return True
    return _OR.search(phrase) is not None and _AND.search(phrase) is None


class _Ancestry:
    """Which earlier claims each claim includes, directly or through its parents (every cited parent), as bit sets
    over positions: one pass in document order, so the whole set costs O(claims² / word size) at worst."""

    def __init__(self, forest: Forest):
        self.forest = forest
        self.index = {c.num: i for i, c in enumerate(forest.claims) if forest.by_num[c.num] is c}
        self.bits: dict[int, int] = {}
        for num in self.index:
            mask = 0
            for p in self.parents(num):
                mask |= self.bits[p] | (1 << self.index[p])
            self.bits[num] = mask

    def parents(self, num: int) -> list[int]:
        """The cited claims that exist and come earlier (the structural checks report the others)."""
        here = self.index[num]
        return [p for p in self.forest.by_num[num].parents if self.index.get(p, here) < here]

    def effective(self, cited: list[int]) -> list[int]:
        """The cited claims not already included by another cited claim."""
        included = 0
        for p in cited:
            included |= self.bits[p]
        return [p for p in cited if not included >> self.index[p] & 1]


def _multiple(ancestry: _Ancestry) -> dict[int, tuple[list[int], list[Reference]]]:
    """The multiple dependent claims: claim → (cited claims, their citations)."""
    forest = ancestry.forest
    multiple: dict[int, tuple[list[int], list[Reference]]] = {}
    for num in ancestry.index:
        parents = ancestry.parents(num)
        if len(parents) < 2:
            continue
        text = forest.by_num[num].text
        refs = [r for r in extract_references(text, num) if not set(r.nums).isdisjoint(parents)]
        if any(len(r.nums) > 1 for r in refs) or len(ancestry.effective(parents)) > 1:
            multiple[num] = (parents, refs)
    return multiple


def multiple_dependent_claims(forest: Forest) -> dict[int, list[int]]:
    """Each multiple dependent claim (as :func:`check_multiple_dependency` reads them) with the claims it cites."""
    return {num: parents for num, (parents, _) in _multiple(_Ancestry(forest)).items()}


def check_multiple_dependency(forest: Forest) -> list[Finding]:
    """Findings of both 1.75(c) rules, in claim order. Citations are read from each claim's text; a claim whose
    parents were given as data without citing wording is only checked for its basis.

    A claim is multiple dependent when one citation names several claims ("claims 1 and 2", "claim 3 or 1"), or
    when separate citations name claims that do not include each other.
    """
    ancestry = _Ancestry(forest)
    multiple = _multiple(ancestry)
    by_position = {ancestry.index[n]: n for n in multiple}
    multiple_mask = sum(1 << i for i in by_position)
    out = []
    for num, (parents, refs) in multiple.items():
        text = forest.by_num[num].text
        out += _wording(num, text, refs, ancestry.effective(parents))
        below = ancestry.bits[num] & multiple_mask
        if below:
            basis = by_position[(below & -below).bit_length() - 1]  # the earliest one
            span = refs[0] if refs else None
            out.append(Finding(
                "multiple-dependent-basis", "error", num,
                f"is a multiple dependent claim (cites {_listed(parents, 'or')}) based on claim {basis}, itself multiple "
                f"dependent; a multiple dependent claim may not serve as a basis for another, directly or indirectly",
                span.start if span else None, span.end if span else None,
            ))
    return sorted(out, key=lambda f: (ancestry.index[f.claim], f.start or 0))


def _wording(num: int, text: str, refs: list[Reference], cited: list[int]) -> list[Finding]:
    for ref in refs:
        if len(ref.nums) > 1 and not _in_the_alternative(text, ref):
            phrase = " ".join(text[ref.start : ref.end].split())
            return [Finding(
                "multiple-dependency-cumulative", "error", num,
                f"'{phrase}' cites claims {_listed(ref.nums, 'and')} together (cumulatively); a multiple dependent "
                f"claim must cite them in the alternative: 'claim {_listed(ref.nums, 'or')}' or 'any one of claims "
                f"...'",
                ref.start, ref.end,
            )]
    if refs and len(cited) > 1 and not any(set(cited) <= set(r.nums) for r in refs):  # none names them all
        sets = {r.nums for r in refs if len(r.nums) > 1}
        later = refs[-1]
        problem = (
            "names more than one set of alternatives" if len(sets) > 1
            else f"cites claims {_listed(cited, 'and')} together in separate citations (cumulatively)"
        )
        return [Finding(
            "multiple-dependency-cumulative", "error", num,
            f"{problem}; a multiple dependent claim must cite one set of claims in the alternative",
            later.start, later.end,
        )]
    return []


def _listed(nums, conjunction: str) -> str:
    """'1 and 2', '1, 2 or 3', '1, 2, 3, 4, 5 … or 9' (at most six numbers)."""
    nums = list(map(str, nums))
    head = nums[:-1] if len(nums) <= 6 else [*nums[:5], "…"]
    return f"{', '.join(head)} {conjunction} {nums[-1]}" if len(nums) > 1 else nums[0]

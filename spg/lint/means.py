"""35 USC 112(f) terms: "means for" / "step for" followed by a function (MPEP 2181).

Such a term is construed to cover only the structure (or acts) the description discloses for that function and
their equivalents, so a drafter wants to know where they are: information, not a defect. "means" without "for"
("fastening means", "means configured to") may also invoke 112(f) (Williamson v. Citrix, 2015), but whether it
does depends on the structure the claim itself recites, which a pattern cannot judge; only the "for" forms, which
are presumed to invoke it (MPEP 2181 I), are reported.
"""

from __future__ import annotations

import re

from spg.forest import Forest
from spg.lint.finding import Finding

# "means for" + the function, up to punctuation; :func:`_function` then ends it at a new clause.
_TERM = re.compile(r"\b(?P<kind>means|step)\s+for\s+(?P<function>[^,;:.()]{1,300})", re.IGNORECASE)
# What ends a function inside one clause: "and a ...", "wherein", "whereby", "comprising", "including", "having".
_CLAUSE = re.compile(r"\s+(?:and\s+(?:a|an|the|said|for)\b|wherein\b|whereby\b|comprising\b|including\b|having\b)",
                     re.IGNORECASE)
_MOST_WORDS = 12  # a longer function is cut: the span marks the term, the description must say the rest


def _function(match: re.Match) -> int:
    """Where the function of a means/step term ends (an offset in the claim text)."""
    start = match.start("function")
    clause = _CLAUSE.search(match.string, start, match.end())
    end = clause.start() if clause else match.end()
    words = list(re.finditer(r"\S+", match.string[start:end]))
    return start + words[min(len(words), _MOST_WORDS) - 1].end()


def check_means_plus_function(forest: Forest) -> list[Finding]:
    """Each distinct "means/step for ..." term at its first place in each claim, in claim order."""
    out = []
    for claim in forest.claims:
        low = claim.text.lower()
        if "means" not in low and "step" not in low:  # most claims: a substring test is cheaper than the pattern
            continue
        seen: set[str] = set()
        for match in _TERM.finditer(claim.text):
            end = _function(match)
            term = " ".join(claim.text[match.start() : end].split())
            if term.lower() in seen:
                continue
            seen.add(term.lower())
            kind = match.group("kind").lower()
            what = "structure" if kind == "means" else "acts"
            out.append(Finding(
                f"{kind}-plus-function", "info", claim.num,
                f"'{term}' is a {kind}-plus-function term (35 USC 112(f)): it covers only the {what} the "
                f"description discloses for '{' '.join(claim.text[match.start('function') : end].split())}' and "
                "equivalents",
                match.start(), end, term,
            ))
    return out

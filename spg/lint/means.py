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

# "means for fastening the seat to the frame", up to the end of the function: punctuation, a new clause
# ("wherein", "and a", ";") or 80 characters.
_TERM = re.compile(
    r"\b(?P<kind>means|step)\s+for\s+(?P<function>[^,;:.()]{1,80}?)(?=\s*(?:[,;:.()]|$|\band\s+(?:a|an|the|said)\b"
    r"|\bwherein\b|\bwhereby\b|\bcomprising\b|\bincluding\b|\bhaving\b))",
    re.IGNORECASE,
)


def check_means_plus_function(forest: Forest) -> list[Finding]:
    """Each distinct "means/step for ..." term at its first place in each claim, in claim order."""
    out = []
    for claim in forest.claims:
        low = claim.text.lower()
        if "means" not in low and "step" not in low:  # most claims: a substring test is cheaper than the pattern
            continue
        seen: set[str] = set()
        for match in _TERM.finditer(claim.text):
            term = " ".join(match.group(0).split())
            if term.lower() in seen:
                continue
            seen.add(term.lower())
            kind = match.group("kind").lower()
            what = "structure" if kind == "means" else "acts"
            out.append(Finding(
                f"{kind}-plus-function", "info", claim.num,
                f"'{term}' is a {kind}-plus-function term (35 USC 112(f)): it covers only the {what} the "
                f"description discloses for '{' '.join(match.group('function').split())}' and equivalents",
                match.start(), match.end(), term,
            ))
    return out

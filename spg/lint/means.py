"""35 USC 112(f) terms: "means for" / "step for" followed by a function (MPEP 2181).

Such a term is construed to cover only the structure (or acts) the description discloses for that function and
their equivalents, so a drafter wants to know where they are: information, not a defect. "means" without "for"
("fastening means", "means configured to") may also invoke 112(f) (Williamson v. Citrix, 2015), but whether it
does depends on the structure the claim itself recites, which a pattern cannot judge; only the "for" forms, which
are presumed to invoke it (MPEP 2181 I), are reported.
"""

from __future__ import annotations

import itertools
import re

from spg.forest import Forest
from spg.lint.finding import Finding

# "means for" + the function, up to punctuation; :func:`_function` then ends it at a new clause.
_TERM = re.compile(r"\b(?P<kind>means|step)\s+for\s+(?P<function>[^,;:.()]{1,300})", re.IGNORECASE)
# What ends a function inside one clause: "and a ...", "wherein", "whereby", "comprising", "including", "having".
_CLAUSE = re.compile(r"\s+(?:and\s+(?:a|an|the|said|for)\b|wherein\b|whereby\b|comprising\b|including\b|having\b)",
                     re.IGNORECASE)
_MOST_WORDS = 12  # a longer function is cut: the span marks the term, the description must say the rest
# a term that points back to one recited before it ("said means for heating")
_DEFINITE = re.compile(r"\b(?:said|the)\s+$", re.IGNORECASE)
_ARTICLES = frozenset({"a", "an", "the", "said"})
# where a reference back ends and the claim's own words begin ("said means for heating further comprises …")
_PREDICATE = frozenset({"comprises", "comprising", "includes", "including", "is", "are", "consists", "consisting",
                        "further", "has", "having", "wherein", "which", "that"})


def _function(match: re.Match) -> int:
    """Where the function of a means/step term ends (an offset in the claim text)."""
    start = match.start("function")
    clause = _CLAUSE.search(match.string, start, match.end())
    end = clause.start() if clause else match.end()
    words = list(re.finditer(r"\S+", match.string[start:end]))
    return start + words[min(len(words), _MOST_WORDS) - 1].end()


def _key(function: str) -> tuple[str, ...]:
    """A function as terms are matched: its words without articles, up to where the claim's own predicate starts
    ("said means for heating further comprises a coil" → "heating")."""
    words = [w for w in function.lower().split() if w not in _ARTICLES]
    return tuple(itertools.takewhile(lambda w: w not in _PREDICATE, words))


def _said_before(match: re.Match, key: tuple[str, ...], seen: set[tuple[str, ...]]) -> bool:
    """Whether a term was reported where an earlier claim (or this one, before) recited it: the same function, or,
    after "said"/"the", one that begins with this one or that this one begins with ("said means for heating" after
    "means for heating the water"; not "the step for providing a second device" after "the step for providing a
    first device"). The term is construed the same wherever it recurs, so it is reported once, where the set first
    recites it."""
    if key in seen:
        return True
    if not key or not _DEFINITE.search(match.string[max(match.start() - 8, 0) : match.start()]):
        return False
    return any(k[: len(key)] == key or key[: len(k)] == k for k in seen)


def check_means_plus_function(forest: Forest) -> list[Finding]:
    """Each "means/step for ..." term where the claim set first recites it, in claim order."""
    out = []
    seen: set[tuple[str, ...]] = set()
    for claim in forest.claims:
        low = claim.text.lower()
        if "means" not in low and "step" not in low:  # most claims: a substring test is cheaper than the pattern
            continue
        for match in _TERM.finditer(claim.text):
            end = _function(match)
            term = " ".join(claim.text[match.start() : end].split())
            key = _key(claim.text[match.start("function") : end])
            if _said_before(match, key, seen):
                continue
            seen.add(key)
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

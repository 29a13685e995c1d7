"""Abbreviations a claim set defines, so that a restatement reads the same with either form.

A drafter (or a language model) defines "Packet Data Network Gateway (P-GW)" in one claim and writes "P-GW
information" in the next; a claim restating a sibling with the short form for the long one says nothing new. The
long form of each abbreviation in parentheses is found as Schwartz and Hearst find it ("A simple algorithm for
identifying abbreviation definitions in biomedical text", PSB 2003): the abbreviation's letters and digits, read
from its end, stand in that order in the words before it, its first at the start of a word, within
``min(n + 5, 2n)`` words for n characters. Chemical symbols ("neodymium-iron-boron (NdFeB)") are no such match and
are left as they are: a miss, never a wrong merge.
"""

from __future__ import annotations

import re

from spg.lint.clauses import words

# an abbreviation: two capitals or more, a digit or hyphen allowed ("P-GW", "TR-2", "MPU"); not a list label "(a)",
# a numeral "(12)" or a chemical descriptor "(R)"
_IN_PARENTHESES = re.compile(r"\(([A-Za-z][A-Za-z0-9-]{1,11})\)")


def _long_form(short: str, before: str) -> str | None:
    """The words at the end of ``before`` that ``short`` abbreviates, or None."""
    letters = [ch.lower() for ch in short if ch.isalnum()]
    n = len(letters)
    # only the words a long form may take: a long claim full of formulas ("(CH2)") is not read again for each
    text = " ".join(before.split()[-min(n + 5, 2 * n) :]).lower()
    at = len(text) - 1
    for k in range(len(letters) - 1, -1, -1):
        while at >= 0 and (text[at] != letters[k] or (k == 0 and at > 0 and text[at - 1].isalnum())):
            at -= 1
        if at < 0:
            return None
        at -= 1
    long = text[at + 1 :]
    return long if len(long.split()) > 1 else None


def defined(texts: list[str]) -> dict[str, tuple[str, ...]]:
    """Each abbreviation the texts define, as :func:`~spg.lint.clauses.words` reads it, singular and plural → the
    words of its long form."""
    out: dict[str, tuple[str, ...]] = {}
    for text in texts:
        if "(" not in text:
            continue
        for m in _IN_PARENTHESES.finditer(text):
            short = m.group(1)
            if sum(ch.isupper() for ch in short) < 2:
                continue
            long = _long_form(short, text[: m.start()])
            said = words(short)
            if long is not None and len(said) == 1:
                # "VRF" and "VRFs", "VPNs" and "VPN": one abbreviation (content words are compared singular)
                one = said[0][:-1] if said[0].endswith("s") else said[0]
                for form in (one, one + "s"):
                    out.setdefault(form, words(long))
    return out


def spelled_out(said: tuple[str, ...], abbreviations: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """``said`` with each abbreviation written as its long form, and the abbreviation left out where it follows its
    long form (its definition)."""
    if not abbreviations or abbreviations.keys().isdisjoint(said):
        return said
    out: list[str] = []
    for w in said:
        long = abbreviations.get(w)
        if long is None:
            out.append(w)
        elif tuple(out[-len(long) :]) != long:
            out.extend(long)
    return tuple(out)

"""The term map: every claim term, where it is introduced and each claim that refers to it.

A term is a noun phrase the claims introduce ("a lever", "a plurality of arms") and refer back to ("the lever",
"said arms"). The antecedent reader (:mod:`spg.lint.antecedent`) already reads every phrase and finds each
reference's introduction; the map is that reading kept instead of thrown away, so it agrees with the antecedent
findings by construction: a reference with no basis is no reference of any term; its first occurrence, which the
rest of its claim and the claims below lean on, is listed as a term introduced with "the".
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import NamedTuple

from spg.forest import Forest
from spg.lint.antecedent.findings import AntecedentFinding, _read
from spg.lint.antecedent.reader import _Reader

_DETERMINER = re.compile(r"(?:an?|the|said)\s+", re.IGNORECASE)
# "of", and modifiers the reader left out of the phrase after it ("curved"), never a function word
_OF = re.compile(r"\s+of\s+(?:(?!(?:to|for|on|in|at|of|with|by|from|and|or|the|an?|said)\b)[\w-]+\s+){0,3}",
                 re.IGNORECASE)
# what counts the phrase after its "of" ("a pair of arms"): one term with it, not a term of its own
_COUNTS = frozenset((w,) for w in ("pair", "plurality", "multiplicity", "number", "series", "set", "couple", "group"))


class Mention(NamedTuple):  # a tuple: a long claim has hundreds of thousands, made and hashed in C
    """Where a term is written: ``forest.by_num[claim].text[start:end] == text``."""

    claim: int
    start: int
    end: int
    text: str

    def to_dict(self) -> dict:
        return {"claim": self.claim, "start": self.start, "end": self.end, "text": self.text}


@dataclass(frozen=True)
class Term:
    """A claim term: its name (the introduction without its article), the introduction, and its references in
    claim order."""

    name: str
    introduced: Mention
    references: tuple[Mention, ...]

    @property
    def claims(self) -> list[int]:
        """The claims that refer to the term, each once, in the order they first do."""
        return list(dict.fromkeys(m.claim for m in self.references))

    def to_dict(self) -> dict:
        return {"term": self.name, "introduced": self.introduced.to_dict(), "claims": self.claims,
                "references": [m.to_dict() for m in self.references]}


def term_map(forest: Forest) -> list[Term]:
    """Every term of the claim set in the order it is introduced: each phrase introduced with "a"/"an", each
    definite one with no antecedent (its first occurrence), and any other introduction ("levers", "two arms") a
    reference leans on."""
    terms: list[Term] = []
    read_terms(forest, terms, report=False)
    return terms


def read_terms(forest: Forest, terms: list[Term], report: bool = True) -> list[AntecedentFinding]:
    """The antecedent findings (:func:`~spg.lint.antecedent.check_antecedents`), and the term map appended to
    ``terms``, from one reading of the claims."""
    reader = _Reader(forest)
    reader.links = []
    findings = _read(forest, report, reader)[0]
    terms += _terms(reader)
    return findings


def _terms(reader: _Reader) -> list[Term]:
    referred: dict[int, list] = {}  # id(introduction) → its references
    roots = {}
    for ref, intro in reader.links:
        root = intro.same or intro  # another reading of a written phrase ("a pair of arms" → "a first arm")
        roots[id(root)] = root
        referred.setdefault(id(root), []).append(ref)
    for chunks in reader.index.values():
        for ch in chunks:
            root = ch.same or ch
            # "a lever"; "the spring" with no antecedent (reported), which the claims after it lean on
            if root.article or root.definite:
                roots.setdefault(id(root), root)
    terms: list[Term] = []
    count: Mention | None = None  # "a pair" waiting for the phrase after its "of"
    for root in sorted(roots.values(), key=lambda c: (c.claim, c.start)):
        introduced = _mention(reader, root)
        refs = sorted(referred.get(id(root), ()), key=lambda c: (c.claim, c.start))
        # a reference is listed once even when read twice (a coordination's readings: "the first and second arms")
        mentions = tuple(dict.fromkeys(_mention(reader, r) for r in refs))
        if count is not None and count.claim == introduced.claim and _OF.fullmatch(
            reader.claims[root.claim].text, count.end, introduced.start
        ):
            # "a pair of curved rockers" is one term, named by the whole phrase
            start, text = count.start, reader.claims[root.claim].text
            introduced = Mention(introduced.claim, start, introduced.end, text[start : introduced.end])
            terms.pop()
        count = introduced if root.words in _COUNTS and not mentions else None
        terms.append(Term(_name(introduced.text, root.raw[-1]), introduced, mentions))
    return terms


def _mention(reader: _Reader, ch) -> Mention:
    start, end = reader.span(ch)
    claim = reader.claims[ch.claim]
    return Mention(claim.num, start, end, sys.intern(claim.text[start:end]))  # "the lever" kept once, however often


def _name(text: str, head: str) -> str:
    """A term's name: its introduction without the article, up to its head ("a step pivotally" → "step": the
    reader skips an adverb inside a phrase, whose span then holds it)."""
    name = _DETERMINER.sub("", text, count=1)
    at = name.lower().rfind(head.lower())
    return " ".join((name[: at + len(head)] if at >= 0 else name).split())

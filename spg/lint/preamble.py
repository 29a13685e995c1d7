"""``preamble-mismatch`` (MPEP 608.01(n) II–III): a dependent claim whose preamble names another subject or
statutory category than the claim it refers to.

A dependent claim "shall contain a reference to a claim previously set forth and then specify a further limitation
of the subject matter claimed" (35 USC 112(d)): it claims the same thing as its parent, narrowed. "The method of
claim 1" under an apparatus claim, "The medium of claim 5" under a method claim, "The vehicle of claim 1" under "A
sensor" do not (the test of MPEP 608.01(n) III: a claim that could be infringed without infringing its parent is
not a proper dependent claim). Real claim sets shorten and vary the preamble, and this rule reads them so:

* the dependent claim's subject head (the last word of what it names: "The sensor device of claim 1" → "device")
  is a word of the parent's subject ("A semiconductor sensor device comprising" → semiconductor, sensor, device), of
  any claim up the chain, in singular or plural; or the letters of an abbreviation of one ("The LED of claim 1"
  under "A light emitting diode (LED)");
* a generic name of the parent's category: "The device of claim 1" under "A garment", "The method of claim 1" under
  "A process for …", "The composition of claim 1" under "A formulation" (not under "A device", nor "The device"
  under "A composition");
* a plural of a word the chain names only in the singular is another subject: "The widgets of claim 1" under "A
  widget" claims several where claim 1 claims one (the plural head);
* the opening names the parent after a subject of its own ("Method for operating the apparatus according to claim
  1", EP style; "An apparatus for carrying out the process of claim 1"): a claim of another category that cites
  one, which the statute allows; but not after "the" or "said" where the cited claim is a method and the opening
  names no method: "The system for performing the method of claim 1" presents itself as a dependent claim of a
  method claim that claims no system (the definite other category);
* a Jepson parent ("In a television receiver, the improvement comprising") names no subject to compare with;
* "A method according to claim 2" (an indefinite article, then only the subject) is a dependent claim like "The
  method of claim 2", European style, and is compared, as is "One or more probes of claim 2" (or "At least one");
  "A method of calibrating the sensor according to claim 2" names a subject of its own first and is not;
* a subject read short at a comma ("A non-naturally occurring, pore-forming, … protein comprising") is also read
  whole, up to the words that end a subject; a purpose is not part of it ("A controller for an industrial robot"
  claims no robot system); "A compound or a salt thereof" names the compound.
"""

from __future__ import annotations

import itertools
import re
from collections import deque
from collections.abc import Iterable, Iterator

from spg.forest import Forest
from spg.lint.clauses import PARTS_FOLLOW, SUBJECT_ENDS, Reading, ancestry, read_claims, singular
from spg.lint.finding import Finding

_PROCESS = frozenset({"method", "process", "procedure", "use"})
_MEDIUM = frozenset({"medium", "media", "program", "software"})
# what a dependent claim may call any claim of its parent's category
GENERIC = {
    "process": _PROCESS,
    "product": frozenset({
        "apparatus", "device", "system", "assembly", "article", "product", "unit", "machine", "structure",
        "arrangement", "equipment", "kit", "combination", "invention", "composition", "formulation", "mixture",
        "material", "module", "installation", "mechanism", "means",
    }),
    "medium": frozenset({"medium", "media", "product", "program", "software"}),
}
# generic names of two kinds of product that do not name each other: "The composition of claim 1" under "A device"
_MACHINES = frozenset({"apparatus", "device", "system", "assembly", "machine", "unit", "module", "installation",
                       "mechanism", "equipment", "arrangement", "structure"})
_MATTER = frozenset({"composition", "formulation", "mixture", "material", "compound"})
_NO_SUBJECT = frozenset({"improvement", "claim", "claims"})
# a claim that opens with "the" or "said" presents itself as its parent's subject, named before
_DEFINITE = re.compile(r"\W*(?:the|said)\b", re.IGNORECASE)


def category(subject: tuple[str, ...]) -> str:
    """The statutory category a subject names: "process", "medium" (a storage medium or program) or "product"."""
    if subject and subject[-1] in _PROCESS:
        return "process"
    return "medium" if not _MEDIUM.isdisjoint(subject) else "product"


def _abbreviates(word: str, subject: tuple[str, ...]) -> bool:
    """Whether ``word`` spells the initials of consecutive words of ``subject`` ("led": light emitting diode)."""
    word = singular(word)
    initials = "".join(w[0] for w in subject)
    return 1 < len(word) <= 6 and word in initials


def _names(head: str, parent: tuple[str, ...]) -> bool:
    # hyphenation varies within one claim set ("The step-stool of claim 1" under "A step stool", and back)
    head = singular(head.split("-")[-1])
    parent = tuple(part for w in parent for part in w.split("-") if part)
    return any(singular(w) == head for w in parent) or _abbreviates(head, parent)


def _plural_of_singular(head: str, chain: Iterable[tuple[str, ...]]) -> bool:
    """Whether ``head`` is a plural ("widgets") of a word the ``chain`` says only in the singular ("A widget")."""
    word = head.split("-")[-1]
    said = {part for s in chain for w in s for part in w.split("-")}
    return word != singular(word) and word not in said and singular(word) in said


def _names_another(modifiers: tuple[str, ...], openings: list[tuple[str, ...]]) -> bool:
    """Whether the words before a generic head name something the chain does not claim: "The solid-state imaging
    device of claim 8" under "A camera including the imaging device of claim 1", "The airbag apparatus of claim 1"
    under "A steering wheel having an airbag apparatus" (a part of the claimed thing, or another thing). Compared
    with each chain claim's opening up to where its parts follow, so that "The interconnecting structure" under "An
    electronic module to substrate interconnecting structure, comprising" passes, as do "The device of claim 1" and
    "The sensor device" under "A sensor"."""
    named = [tuple(itertools.takewhile(lambda w: w not in PARTS_FOLLOW and w != "for", o)) for o in openings]
    return bool(modifiers) and not any(_names(w, n) for w in modifiers for n in named if n)


def _head(subject: tuple[str, ...]) -> str:
    # "A 1,3,4-oxadiazole compound or a salt thereof according to claim 12" names the compound
    if subject[-1] == "thereof" and "or" in subject[1:]:
        return subject[subject.index("or", 1) - 1]
    return subject[-1]


def _subjects(r: Reading) -> tuple[tuple[str, ...], ...]:
    """The subjects a claim gives the claims under it to name: its subject, and its opening up to where the subject
    ends when a comma cut the subject short ("A non-naturally occurring, pore-forming, anti-neoplastic … protein")."""
    if not r.subject:
        return ()
    whole = tuple(itertools.takewhile(lambda w: w not in SUBJECT_ENDS, r.opening))
    return (r.subject, whole) if whole and whole != r.subject else (r.subject,)


def _chain(c, forest: Forest, readings: dict[int, Reading], above: tuple[int, ...],
           subjects: dict[int, tuple[tuple[str, ...], ...]]) -> Iterator[tuple[str, ...]]:
    """The subjects a dependent claim may name, nearest first: its parents' and theirs, up the chain, up to and
    including a claim of another category that cites one ("A medium storing instructions to perform the method of
    claim 6"): what that claim cites is part of it, not what a claim under it claims, so "The method of claim 11"
    under that medium is no method claim of claim 6. ``subjects`` keeps each claim's :func:`_subjects`, read once
    for all the claims under it. Read as far as asked (:func:`_named_up`)."""
    allowed, seen = set(above), set()
    todo = deque(c.parents)
    while todo:
        p = todo.popleft()
        if p in seen or p not in allowed:
            continue
        seen.add(p)
        if p not in subjects:
            subjects[p] = _subjects(readings[p])
        yield from subjects[p]
        if not readings[p].restates:
            todo.extend(forest.by_num[p].parents)


def _named_up(head: str, opening: tuple[str, ...], chain: Iterable[tuple[str, ...]]) -> bool:
    """Whether a dependent claim whose subject ends in ``head`` names a subject of its ``chain`` (:func:`_chain`), or
    its ``opening`` ends in one (it cites that subject, "Method for operating the apparatus according to claim 1"),
    or the chain names none (a Jepson claim's "improvement"). Most name their parent's, the chain's first: the rest
    of the chain is read only where they do not."""
    read = []
    for s in chain:
        if _names(head, s):
            return True
        read.append(s)
    return any(s[-1] in _NO_SUBJECT for s in read) or bool(opening) and any(_names(opening[-1], s) for s in read)


def check_preambles(forest: Forest, readings: dict[int, Reading] | None = None,
                    above: dict[int, tuple[int, ...]] | None = None) -> list[Finding]:
    """``preamble-mismatch`` findings, in claim order: each dependent claim whose subject matches none of the
    subjects of the claims it refers to (first parent chain included), under the readings of the module docstring."""
    readings = readings if readings is not None else read_claims(forest)
    above = above if above is not None else ancestry(forest)
    subjects: dict[int, tuple[tuple[str, ...], ...]] = {}
    out = []
    for c in forest.claims:
        r = readings[c.num]
        if not c.parents or not r.subject or forest.by_num[c.num] is not c or not above.get(c.num):
            continue
        cited = [p for p in c.parents if p in above and readings[p].subject]
        if not cited:
            continue
        parent = readings[cited[0]].subject
        mine, theirs = category(r.subject), category(parent)
        definite = _DEFINITE.match(c.text) is not None
        crossed = definite and theirs == "process" and mine != "process"  # the definite other category
        if r.restates and not crossed:  # a claim of its own that cites one
            continue
        head = _head(r.subject)
        plural = False
        if not r.restates and _named_up(head, r.opening, _chain(c, forest, readings, above[c.num], subjects)):
            # most claims end here: the whole chain is read again only where the plural head or the definite other
            # category may apply
            maybe = crossed or singular(head) != head
            chain = list(_chain(c, forest, readings, above[c.num], subjects)) if maybe else []
            plural = _plural_of_singular(head, chain)
            if not plural and not (crossed and not any(_names(head, s) for s in chain)):
                continue
        generic = singular(head)
        # a generic name of the parent's category, unless matter under a machine or the reverse, or words before it
        # that name another thing
        if not plural and mine == theirs and generic in GENERIC[mine] and not (
            (generic in _MATTER and singular(parent[-1]) in _MACHINES)
            or (generic in _MACHINES and singular(parent[-1]) in _MATTER)
        ) and not _names_another(r.subject[:-1], [readings[a].opening for a in above[c.num]]):
            continue
        named = " ".join(r.subject)
        what = " ".join(parent)
        if mine != theirs:
            why = f"claims a {mine} ('{named}') but claim {cited[0]} claims a {theirs} ('{what}')"
        else:
            why = f"names '{named}', which is not what claim {cited[0]} claims ('{what}')"
        out.append(Finding(
            "preamble-mismatch", "warning", c.num,
            f"{why}; a dependent claim claims its parent's subject, further limited (a claim of another category "
            "opens with 'A'/'An' and cites the claim for part of it)", None, None, named,
        ))
    return out

"""``contradicts-parent`` (35 USC 112(b), (d); MPEP 608.01(n) III): a dependent claim that says of an element the
opposite of what a claim in its parent chain says of it ("1. … an upper step that is fixed to the front frame …
2. The step stool of claim 1, wherein the upper step is pivoted to the front frame").

Such a claim does not include every limitation of the claim it refers to (it could be infringed without infringing
its parent: the infringement test of MPEP 608.01(n) III), and the two limitations cannot both hold, so the claim is
indefinite (35 USC 112(b)). Language models drafting claims write them: the dependent is "broader than its parent".

What is read is a table (:data:`EXCLUSIVE`): each row holds groups of predicates no two of which can be said of one
element in relation to one object ("fixed" or "fixedly" against "pivoted", "rotatable", "slidable", "movable" …;
"integral" against "removable", "detachable"; "rigid" against "flexible"; "above" against "below" …). A predicate is
read in a limitation's comma-free segment (:func:`statements`) with

* its **subject**: the words just before it (and before a copula, or a placing participle: "disposed above"),
  back to the start of the segment, "and", "comprising", "having", "with", "wherein" or "such that"; where anything
  else comes first (a preposition: "a lever extending from the frame fixed to …"), whose predicate it is the words
  do not tell, and nothing is read, but for an adjective right after its noun ("on a plane parallel to the rail");
  a segment that opens with a participle speaks of the element the segment before opens with (:func:`_lead`);
* its **object**: the words after an attaching preposition ("to", "on", "in", "relative to" …, one form for all:
  "fixed to the frame" and "rotatable in the frame" speak of one frame; "with" and "from" another) up to the next
  joining word (:func:`_relation`, :func:`_object`);
* an adverb of the table reads with the participle it qualifies ("pivotally connected to the frame", "located in
  the frame detachably").

A dependent claim gets the finding when one of its statements has the subject and object (each compared as
:func:`~spg.lint.clauses.gist` reads it) of a statement of a claim up its chain and a predicate of another group of
the same row. Left alone, because they do not contradict or the words do not say that they do:

* another object ("pivoted to the rear frame" under "fixed to the front frame") or another subject;
* a predicate of the same group, which narrows or restates ("welded to" is no predicate of the table; "hinged"
  under "pivoted");
* alternatives, negations and conditions anywhere in the limitation ("fixed or pivoted", "is not fixed", "when the
  latch is engaged, the lever is fixed": a state that changes);
* a predicate qualified by an adverb that is not in the table ("axially fixed" and "rotatable" hold together,
  "selectively fixed" and "pivoted" too), or an adverb of the table before a participle it does not qualify
  ("rotatably fixed": fixed against rotation);
* a word of the table used as a name ("a fixed frame", "the hollow shaft"): nothing before it is a subject.

Each claim is read against earlier claims only, so a partial claim set (the claims ``spg generate`` has so far)
gets the findings the whole set would have for those claims.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spg.forest import Forest
from spg.lint.clauses import COPULA, Reading, against_chain, ancestry, gist, read_claims, words
from spg.lint.finding import Finding

# Each row: groups of predicates that exclude one another when said of one element in relation to one object. Only
# what is exclusive by its plain meaning: "rotatable" and "slidable" may both hold (a shaft in a bearing), so may
# "removable" and "fixed" (screwed on), so they share a group or a row apart.
EXCLUSIVE: tuple[tuple[frozenset[str], ...], ...] = tuple(tuple(map(frozenset, row)) for row in (
    # held still, or able to move
    (("fixed", "fixedly", "immovable", "immovably", "stationary", "rigidly", "nonmovable", "non-movable"),
     ("pivoted", "pivotally", "pivotable", "pivotably", "hinged", "hingedly", "rotatable", "rotatably",
      "rotateable", "slidable", "slidably", "slideable", "slideably", "movable", "movably", "moveable", "moveably",
      "displaceable", "translatable", "swivelable", "swivelably", "swiveled", "journaled", "journalled",
      "telescopically")),
    # one piece, or parts that come apart
    (("integral", "integrally", "unitary", "monolithic", "monolithically", "permanently"),
     ("removable", "removably", "detachable", "detachably", "releasable", "releasably", "separable", "separate",
      "separately")),
    (("rigid", "inflexible"), ("flexible", "pliable")),
    (("hollow",), ("solid",)),
    (("solid",), ("liquid",), ("gaseous",)),
    (("horizontal", "horizontally"), ("vertical", "vertically")),
    (("parallel",), ("perpendicular", "perpendicularly", "orthogonal", "orthogonally")),
    (("open",), ("closed",)),
    (("above",), ("below", "beneath", "underneath")),
    (("inside", "internal", "internally"), ("outside", "external", "externally")),
    (("upstream",), ("downstream",)),
))
# word → (row, group) of each row it is in ("solid": against "hollow" and against "liquid")
_PLACES: dict[str, tuple[tuple[int, int], ...]] = {}
for _row, _groups in enumerate(EXCLUSIVE):
    for _group, _words in enumerate(_groups):
        for _w in _words:
            _PLACES[_w] = _PLACES.get(_w, ()) + ((_row, _group),)
# predicates that place a thing against an object, which follows them ("above the base", "upstream of the pump")
PLACING = frozenset({"above", "below", "beneath", "underneath", "inside", "outside", "upstream", "downstream"})
_MOTION = EXCLUSIVE[0][0] | EXCLUSIVE[0][1]
# properties, said with a copula ("the tube is hollow"); before a preposition without one they are names ("an
# insulation liquid in the tank")
PROPERTIES = frozenset({"rigid", "inflexible", "flexible", "pliable", "hollow", "solid", "liquid", "gaseous",
                         "horizontal", "vertical", "open", "closed"})
# adjectives that follow the noun they speak of ("an axis parallel to the rail", "a source external to the system")
_ADJECTIVES = frozenset(w for row in EXCLUSIVE for g in row for w in g
                        if not w.endswith(("ed", "ly", "able", "ible")) and w not in PROPERTIES) - PLACING
# participles an adverb of the table qualifies ("pivotally connected"), or that place a thing ("disposed above")
_JOINING = frozenset({
    "mounted", "connected", "coupled", "attached", "secured", "supported", "joined", "fastened", "held", "linked",
    "arranged", "disposed", "received", "carried", "fitted", "retained", "positioned", "located", "situated",
    "formed", "provided", "placed", "inserted", "oriented", "orientated", "extending", "engaged", "affixed",
    "bonded", "guided", "suspended", "hung", "installed", "assembled", "extended",
})
# prepositions that relate a predicate to its object, read as one ("fixed to the frame", "rotatable in the frame",
# "movable relative to the frame"); "with" and "from" are read as one other (:func:`_relation`)
_ATTACHING = frozenset({"to", "on", "onto", "upon", "at", "in", "into"})
# hedges that leave a predicate what it is ("substantially parallel" still excludes "perpendicular")
_HEDGES = frozenset({"substantially", "generally", "essentially", "approximately", "also", "each", "both", "been",
                     "respectively"})
# words ending as adverbs do that are nouns ("a mounting frame assembly pivotably attached")
_LY_NOUNS = frozenset({"assembly", "subassembly", "supply", "family", "anomaly", "ply", "fly", "belly", "jelly",
                       "reply", "poly", "monopoly", "trolly", "dolly", "tally", "rally"})
# where a subject may start: the segment's start or a word that opens an element or a statement
_OPENERS = frozenset({"and", "comprising", "comprises", "comprise", "including", "includes", "include", "having",
                      "has", "have", "with", "wherein", "whereby", "where", "further", "characterized",
                      "characterised", "such", "so"})
# a copula, or a verb that says as much ("the pad remains stationary on the workpiece")
_BE = COPULA | {"remains", "remain", "remaining", "stays", "stay"}
# words a subject or an object does not run over (a subject or object of its own, or a clause of its own)
_STOPS = frozenset({
    "to", "on", "onto", "upon", "at", "in", "into", "within", "with", "from", "by", "for", "via", "through",
    "between", "over", "under", "along", "about", "around", "against", "toward", "towards", "across", "behind",
    "beneath", "beside", "near", "relative", "respect", "so", "such", "as", "than", "and", "or", "but", "while",
    "whereby", "wherein", "where", "when", "comprising", "comprises", "including", "includes", "having", "has",
    "have", "is", "are", "be", "being", "been", "can", "may", "will", "thereby", "thereto", "therein",
    "thereon", "therefrom",
}) | _OPENERS
# a limitation holding any of these is not read: alternatives ("fixed or pivoted"), negation ("is not fixed") and
# conditions or states in time ("when the latch is engaged, the lever is fixed", "initially closed")
_UNREAD = frozenset({
    "or", "either", "optionally", "alternatively", "selectively", "may", "can", "not", "never", "no", "neither",
    "nor", "non", "cannot", "without", "unless", "when", "whenever", "if", "while", "until", "before", "after",
    "during", "once", "initially", "subsequently", "thereafter", "then",
})
# nor is a segment naming a state the element may leave ("the lid is closed in the stowed position")
_STATES = frozenset({"position", "positions", "state", "states", "configuration", "configurations", "mode", "modes"})
LONGEST_SUBJECT = 8  # words ("the alignment of the liquid crystal of the first pixel region")
# a count before an element says nothing of it, and the "or" of "one or more" names no alternatives
_COUNT = re.compile(r"\b(?:at least (?:one|two)|one or more|two or more|at least)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Statement:
    """What one segment says of an element: ``subject`` and ``object`` as :func:`~spg.lint.clauses.gist` reads
    them, the predicate's word, and the words that say it, as written less articles (for the message)."""

    subject: tuple[str, ...]
    object: tuple[str, ...]
    predicate: str
    said: str


def _adverb(word: str) -> bool:
    return word.endswith("ly") and word not in _LY_NOUNS


def _relation(got: tuple[str, ...], i: int, end: int) -> tuple[str, int] | None:
    """(the preposition that relates ``got[i]`` to its object, read as one form, where the object starts) for the
    words from ``end`` on; ("", end) where no preposition follows, none where a name follows ("a fixed frame")."""
    word, nxt = got[i], got[end] if end < len(got) else ""
    if word in PLACING:
        # "above the base", "upstream of the pump", "outside of the housing"
        end += nxt in ("of", "from", "to")
        return ("", end) if end < len(got) and got[end] not in _STOPS else None
    if nxt in ("relative", "respect"):
        return ("to", end + 1 + (got[end + 1 : end + 2] == ("to",)))
    if nxt == "with":
        # "movable with the rod", "rotatable with the shaft": together with it, which "fixed" does not exclude
        # ("pivotally connected with the rod" is attached to it)
        return None if word in _MOTION and end == i + 1 else ("with", end + 1)
    if nxt == "from":
        return ("with", end + 1)  # "detachable from the base" against "integral with the base"
    if nxt in _ATTACHING:
        # "movable to the loading station": a place it goes to, not what it is attached to
        return None if nxt == "to" and word.endswith("able") else ("to", end + 1)
    return ("", end) if not nxt or nxt in _STOPS else None


def _object(got: tuple[str, ...], start: int) -> tuple[str, ...]:
    """The words of an object from ``start`` to the next joining word; after "and", the object a second preposition
    shares ("attached to and extending from the flange", "parallel to and opposite from the surface")."""
    if got[start : start + 1] == ("and",):
        start = next((n + 1 for n in range(start + 1, min(start + 5, len(got)))
                      if got[n] in _ATTACHING or got[n] in ("from", "with")), len(got))
    end = start
    while end < len(got) and got[end] not in _STOPS and end - start < LONGEST_SUBJECT:
        end += 1
    return got[start:end]


def _statement(got: tuple[str, ...], i: int) -> Statement | None:
    """The statement whose predicate is ``got[i]``, a word of :data:`EXCLUSIVE`, read as the module docstring says;
    none where the words do not tell what it is said of."""
    word = got[i]
    j = i - 1
    while j >= 0 and got[j] in _HEDGES:
        j -= 1
    if _adverb(word) and got[i + 1 : i + 2] in ((), *((w,) for w in _STOPS)) and not (j >= 0 and got[j] in _JOINING):
        # "located in the frame body detachably": read as "detachably located in the frame body"
        p = next((p for p in range(i - 2, max(-1, i - 2 - LONGEST_SUBJECT), -1) if got[p] in _JOINING), None)
        if p is None or _STOPS.intersection(got[p + 2 : i]) or got[p + 1] not in _ATTACHING | {"with", "from"}:
            return None
        return _statement(got[:p] + (word,) + got[p:i] + got[i + 1 :], p)
    # an adverb after a participle ("disposed internally to", "affixed generally horizontally to"), a place after
    # one ("disposed above")
    placed = (word in PLACING or _adverb(word)) and j >= 0 and got[j] in _JOINING
    end = i + 1
    if _adverb(word) and not placed:
        # "pivotally connected": the adverb qualifies a participle; "rotatably fixed" (fixed against rotation) says
        # nothing this table reads, nor does an adverb alone
        if end >= len(got) or got[end] not in _JOINING:
            return None
        end += 1
    related = _relation(got, i, end)
    if related is None:
        return None
    how, start = related
    thing = _object(got, start) if how or word in PLACING else ()
    if (how or word in PLACING) and not thing:
        return None
    j -= placed
    copula = False
    while j >= 0 and (got[j] in _BE or got[j] in _HEDGES):
        copula |= got[j] in _BE
        j -= 1
    if j < 0 or _adverb(got[j]) or got[j][-1].isdigit():
        return None  # "axially fixed", "selectively fixed": fixed in one way only
    k = j
    while k >= 0 and got[k] not in _STOPS and j - k < LONGEST_SUBJECT:
        k -= 1
    # after a preposition, only an adjective that follows its noun says something of it ("on a plane parallel to
    # the rail"); a participle there may be said of the noun or of what the preposition follows ("a lever extending
    # from the frame fixed to the base")
    postpositive = not copula and not placed and bool(thing) and word in _ADJECTIVES
    if k == j or (k >= 0 and got[k] not in _OPENERS and not postpositive):
        return None
    if not copula and not (placed if word in PLACING else thing and word not in PROPERTIES):
        return None  # "an insulation liquid in the conservator", "the pressure upstream of the filter": names
    said = " ".join(got[k + 1 : i + 1] + got[i + 1 : start] + thing)
    return Statement(gist(got[k + 1 : j + 1]), (how, *gist(thing)) if thing else (), word, said)


def _lead(got: tuple[str, ...]) -> tuple[str, ...]:
    """The element a segment opens with, where what follows it is no other element ("a glass layer for limiting ion
    transport" → "glass layer"; not "a housing having a lid", whose next segment may speak of the lid)."""
    end = 0
    while end < len(got) and got[end] not in _STOPS:
        end += 1
    if end > LONGEST_SUBJECT or (end < len(got) and got[end] in _OPENERS):
        return ()
    return got[:end]


def statements(r: Reading) -> list[Statement]:
    """Every statement of :data:`EXCLUSIVE` a claim makes, from each segment (between commas) of each limitation
    that holds no word of :data:`_UNREAD`; a segment that opens with a participle or a predicate ("…, positioned
    above the first layer") speaks of the element the segment before it opens with (:func:`_lead`)."""
    # most claims say no word of the table: their words, split where a hyphen or an apostrophe joins two, tell so at
    # once (a count or a label taken out of a part below leaves such pieces whole, never a new word)
    if _PLACES.keys().isdisjoint(" ".join(r.body).replace("-", " ").replace("'", " ").replace("’", " ").split()):
        return []
    out = []
    for part in r.parts:
        part = _COUNT.sub(" ", part)
        every = words(part)
        if _PLACES.keys().isdisjoint(every) or not _UNREAD.isdisjoint(every):
            continue
        before: tuple[str, ...] = ()
        for segment in part.split(","):
            got = words(segment)
            if not _PLACES.keys().isdisjoint(got) and _STATES.isdisjoint(got):
                if got and (got[0] in _JOINING or got[0] in _PLACES) and (lead := _lead(before)):
                    got = lead + got
                out += [s for i, w in enumerate(got) if w in _PLACES and (s := _statement(got, i)) is not None]
            before = got
    return out


def _excludes(a: str, b: str) -> bool:
    """Whether predicates ``a`` and ``b`` are in two groups of one row of :data:`EXCLUSIVE`."""
    return any(ra == rb and ga != gb for ra, ga in _PLACES[a] for rb, gb in _PLACES[b])


def check_contradictions(forest: Forest, readings: dict[int, Reading] | None = None,
                         above: dict[int, tuple[int, ...]] | None = None) -> list[Finding]:
    """``contradicts-parent`` findings, in claim order: each dependent claim with a statement that a statement of a
    claim up its chain excludes (the first one, at the dependent claim)."""
    readings = readings if readings is not None else read_claims(forest)
    return [
        Finding(
            "contradicts-parent", "warning", num,
            f"says '{s.said}' where claim {a} says '{t.said}': the two cannot both hold, so this claim does not "
            "include every limitation of the claim it refers to (35 USC 112(d)) and is indefinite (35 USC 112(b))",
            None, None, s.said,
        )
        for num, s, a, t in against_chain(
            forest, above if above is not None else ancestry(forest), lambda n: statements(readings[n]),
            lambda s, t: s.subject == t.subject and s.object == t.object and _excludes(s.predicate, t.predicate))
    ]

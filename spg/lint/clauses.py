"""A claim read as a drafter writes it: its opening ("The stool of claim 1", "A step stool"), the citation, and the
limitations (clauses) it recites, each normalised so that two recitations of one limitation compare equal.

What the drafting rules (spg/lint/redundancy.py, spg/lint/preamble.py) share. A limitation ends at a semicolon, a
colon, a sentence end, "wherein"/"whereby", ", and" or a transition inside the first clause ("characterized in
that", "comprising the steps of"); it is compared without articles ("a lower step is pivoted"
and "the lower step pivoted" recite one limitation; so do relative pronouns), reference numerals, list labels ("(a)") and the connectives
that only join it to the claim ("and", "further comprising"). A regular-expression reading, not a parser: the rules
run after every claim while ``spg generate`` decodes, so a claim set costs well under a millisecond per claim.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import filterfalse
from typing import TypeVar

from spg.forest import Forest
from spg.parse import extract_references

_WORD = re.compile(r"[a-z0-9]+(?:['’-][a-z0-9]+)*")
# reference numerals and list labels: "(12)", "(184; 236)", "(1a, 1b)", "(a)", "(iv)", "a)"; standing alone, not in a
# chemical name ("(R)-2-amino", "(1R,2S)-")
_LABEL = re.compile(
    r"(?<![\w)\]-])(?:\(\s*(?:\d[\w\s,;'.-]{0,30}|[a-z]{1,4})\s*\)|[a-z0-9]{1,3}\))(?=[\s,;.:]|$)", re.IGNORECASE
)
# words a restatement adds or drops without changing what it says: articles and relative pronouns ("a pawl that is
# a steel plate", "the pawl is a steel plate"); the copula too, where a restatement is looked for (COPULA)
_ARTICLES = frozenset({"a", "an", "the", "said", "that", "which"})
COPULA = frozenset({"is", "are", "being", "be"})
# what joins a limitation to the claim without being part of it
_CONNECTIVES = frozenset({
    "and", "or", "wherein", "whereby", "further", "comprising", "comprises", "comprise", "including", "includes",
    "also", "then", "in", "which", "that", "where", "characterized", "characterised", "by", "the", "step", "steps",
    "of", "having", "has", "with",
})
# a colon before a number is a name's ("SEQ ID NO: 4"), a period before a lower-case word an abbreviation's ("wt. %");
# a transition after a preamble that names a part of its own ("… an enzyme having nitrilase activity, which comprises
# the steps of …", "… of formula I, characterized in that …") ends the preamble's words, not a limitation's. Each
# alternative opens with a character, its word boundary checked behind it ("[Ww](?<!\w[Ww])here" is "\b[Ww]here"):
# the regular expression engine then skips to the characters that may open one, where a "\b" first had it try
# every position (0.6 × the split's time); "comprising the steps of", which opens at a letter as common as "c" or
# "i", is looked for only in the few texts that say "step" (0.6 × again)
_SPLIT_AT = (r";|:(?!\s*\d)|\.(?=\s+[A-Z(]|\s*$)|[Ww](?<!\w[Ww])here(?:in|by)\b|,\s*[Aa]nd\b|\n"
             r"|[Cc](?<!\w[Cc])haracteri[sz]ed\s+(?:in\s+that|by)\b")
_SPLIT = re.compile(_SPLIT_AT)
# where a claim's one sentence (MPEP 608.01(m)) ends and another begins: a period, not one of the abbreviations a
# claim cites a document or a figure with ("U.S. Pat. No. 5,000,000", "Fig. 2"), then a capitalised word
_AFTER_THE_SENTENCE = re.compile(
    r"(?<!\bU\.S)(?<!\bPat)(?<!\bNo)(?<!\bNos)(?<!\bFig)(?<!\bFigs)(?<!\bSer)(?<!\bEx)(?<!\bal)\.\s+(?=[A-Z][a-z])"
)
_SPLIT_STEPS = re.compile(_SPLIT_AT + r"|[ci](?<!\w[ci])(?:omprises|omprising|ncludes|ncluding)\s+the\s+steps?\s+of\b")
# the transitional phrase after an independent claim's preamble (MPEP 2111.03)
_TRANSITION = re.compile(
    r"(?<![\w-])(?:comprising|comprises|comprise|(?<!group )consisting|consists|including|includes|having|"
    r"characteri[sz]ed|wherein|containing|contains)(?![\w-])|:"
)
# an opening that claims something of its own and cites a claim for part of it: "An apparatus for carrying out the
# process of claim 1", "At least one medium storing instructions to perform the method of claim 8", "Automatic machine
# … characterised by the fact that it includes at least one unit as in claim 1"
_OWN_CLAIM = re.compile(
    r"^\s*(?:an?|at least one|one or more|(?:the\s+)?use|kit)\b|(?<![\w-])(?:comprising|comprises|including|includes|containing|"
    r"contains|having|characteri[sz]ed|which|that|storing|stores|perform|performing|executing|using|made)(?![\w-])"
)
# an opening's count of what it claims, which "An" would say for one (_OWN_CLAIM opens with them too)
_COUNTED = frozenset({("one", "or", "more"), ("at", "least", "one")})
# where the words naming a claimed thing end in a preamble: its parts and contents follow
PARTS_FOLLOW = frozenset({"comprising", "comprises", "including", "includes", "having", "has", "containing", "contains",
                          "consisting", "wherein", "which", "that", "with", "characterized", "characterised"})
# a thing named by an article after the first word, not one of alternatives ("A compound or a salt thereof")
_NAMES_ITS_THING = re.compile(r"\b(?!or\b)\w+\s+(?:the|said|an?)\s")
# the words between the subject and the citation: "of", "according to", "as claimed in", "as recited in" …
_CITING_TAIL = re.compile(
    r"(?:\s|,)*(?:\b(?:of|to|in|by|with|under|per|from|according|accordance|as|claimed|recited|defined|set|forth|"
    r"described|specified|any|one|the|preceding|following|each|either|claim|claims)\b(?:\s|,)*)*$"
)


# where the words naming what is claimed end: its purpose, owner or place, a participle or the transition ("a
# method for fabricating a transistor", "a controller of an industrial robot", "an element configured to")
SUBJECT_ENDS = frozenset({
    "for", "of", "in", "with", "to", "by", "on", "at", "from", "under", "within", "according", "as", "which", "that",
    "wherein", "where", "when", "whose", "configured", "adapted", "arranged", "operable", "capable", "used", "usable",
    "suitable", "comprising", "comprises", "comprised", "including", "includes", "having", "has", "containing",
    "contains", "consisting", "storing", "stores", "being", "is", "are", "characterized", "characterised", "using",
    "made", "readable", "executable", "embodying", "obtained", "obtainable", "produced", "prepared",
})
_SUBJECT_END = re.compile(r",(?=\s)|;|:|(?<![\w-])(?:" + "|".join(sorted(SUBJECT_ENDS)) + r")(?![\w-])")
_QUANTIFIER = re.compile(r"^\s*(?:(?:a|an|the|said|at least one|one or more|two or more)\b\s*)*")
# "In an apparatus comprising an engine, a method of …" (a Jepson-style opening): the subject follows the place
_PLACE_FIRST = re.compile(r"^\s*(?:in|for|with|at|on|within)\s+(?:an?|the)\s")


def subject(phrase: str) -> tuple[str, ...]:
    """The words of a preamble or a dependent claim's opening that name what is claimed, without articles: "A
    method for fabricating a transistor" → ("method",), "The light emitting diode according to" → ("light",
    "emitting", "diode"); none for a claim that opens with a place ("In an apparatus …, a method …")."""
    phrase = phrase.lower()
    if _PLACE_FIRST.match(phrase):
        # "In an apparatus comprising an engine, an exhaust conduit, …, a method of …": where the place ends and
        # the subject starts, commas do not tell; such a claim is compared with nothing
        return ()
    phrase = phrase[_QUANTIFIER.match(phrase).end() :]
    end = _SUBJECT_END.search(phrase)
    return words(phrase[: end.start()] if end else phrase) or words(phrase)


# What a restatement changes without changing what it says, as language models restate a limitation (issue 30's
# "non-distinctive claim repetition"): duplicate-claim and not-further-limiting compare limitations in this form
# (:func:`gist`). Each entry is why two wordings claim the same thing; no content word is touched, so "wherein the
# X is copper" and "wherein the X is aluminium" stay two limitations.
_SAME_SENSE = {
    # the open transitions: "comprising" is synonymous with "including" and "containing" (MPEP 2111.03), and a
    # drafter restating "a housing having a slot" as "the housing comprises a slot" claims the same slot
    **dict.fromkeys(("comprises", "comprising", "include", "includes", "including", "contain", "contains",
                     "containing", "has", "have", "having"), "comprise"),
}
# a capability stated as fitness for a purpose: "adapted to" and "configured to" are read alike (MPEP 2173.05(g)
# names both; the drafter's choice between them carries no limitation), "operable to", "arranged to" as well
_FIT_FOR = frozenset({"adapted", "operable", "operative", "arranged", "designed"})
# words that point back or join and say nothing of the thing: demonstratives as articles ("this layer", "the
# layer"), the copula ("the lever is pivoted", "the lever pivoted"), and the connectives a restatement moves
# ("wherein the method further comprises X" after "further comprising X")
_NO_SENSE = frozenset({"this", "these", "those", "is", "are", "be", "being", "been", "further", "also", "wherein",
                       "whereby", "where", "which", "that"})
# prepositions whose two objects may come in either order
_PAIRED = frozenset({"of", "between", "to", "with", "from", "for", "in", "on", "by", "at", "into", "onto"})
# what a thing is made of, as drafters vary it: "made of wood", "formed of wood", "made from wood" (the material, not
# how it was worked, is the limitation; "formed by" and "formed in" are left alone)
_MADE = frozenset({"made", "formed", "composed", "constructed", "fabricated", "manufactured"})
# "the step of heating" is "heating" ("at least one X" and "one or more X" are not read as "an X": sibling claims
# reciting "a unique probe" and "one or more unique probes" are written as two claims on purpose)
_EMPTY_PHRASES = {"step": ("step", "of"), "steps": ("steps", "of")}
# a number said as a word of claim drafting: "a plurality of" means at least two (York Products v. Central Tractor,
# Fed. Cir. 1996), so "two or more ribbed rolls" and "a plurality of ribbed rolls" claim the same rolls
_PLURALITY = {"two": ("two", "or", "more"), "at": ("at", "least", "two")}
# the words gist reads with the words after them
_READ_WITH_NEXT = frozenset(_EMPTY_PHRASES) | frozenset(_PLURALITY) | _FIT_FOR | _MADE


def singular(word: str) -> str:
    """One form of a noun's number and a verb's person ("levers"/"lever", "heats"/"heat", "boxes"/"box",
    "bodies"/"body"); a light rule, not a dictionary: both sides of a comparison go through it, so a word it cuts
    wrongly ("gases" → "gase") only misses a match."""
    if len(word) <= 3 or not word.endswith("s") or word.endswith(("ss", "us", "is", "'s")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses", "zzes")):
        return word[:-2]
    return word[:-1]


def _lemma(word: str) -> str:
    """:func:`singular` of a word, the open transitions read as one (:data:`_SAME_SENSE`)."""
    return singular(_SAME_SENSE.get(word, word))


@functools.lru_cache(maxsize=1 << 16)  # a claim set says its words again and again; gist reads each of them
def _forms(word: str) -> tuple[str, ...]:
    # "wearer-contacting" written "wearer contacting"
    return tuple(map(_lemma, word.split("-"))) if "-" in word else (_lemma(word),)


def _read_with_next(clause: tuple[str, ...]) -> list[str]:
    """:func:`gist`'s words of a clause holding a word read with the words after it (:data:`_READ_WITH_NEXT`)."""
    got: list[str] = []
    i = 0
    while i < len(clause):
        w = clause[i]
        phrase = _EMPTY_PHRASES.get(w)
        if phrase and clause[i : i + len(phrase)] == phrase:
            i += len(phrase)
            continue
        phrase = _PLURALITY.get(w)
        if phrase and clause[i : i + len(phrase)] == phrase:
            i += len(phrase)
            got += ["plurality", "of"] if clause[i : i + 1] != ("of",) else ["plurality"]
            continue
        i += 1
        if w in _NO_SENSE:
            continue
        if w in _FIT_FOR and clause[i : i + 1] == ("to",):
            w = "configured"
        if w in _MADE and clause[i : i + 1] in (("of",), ("from",)):
            got += ["made", "of"]
            i += 1
            continue
        got += _forms(w)
    return got


def gist(clause: tuple[str, ...], subject: tuple[str, ...] = ()) -> tuple[str, ...]:
    """A limitation (:func:`limitation`) as its restatements read (:data:`_SAME_SENSE` and the sets above): one form
    of each word, without the words that say nothing, "step of" dropped, "the <subject> further comprises X" read as
    "X" (a dependent claim's "wherein the method further comprises X" is its "further comprising X"), and the
    conjuncts an "and" joins in sorted order ("a frame and a seat", "a seat and a frame"; "of water and malt", "of
    malt and water")."""
    if _READ_WITH_NEXT.isdisjoint(clause):  # most clauses: each word's forms, whatever stands around it
        got = [f for w in clause if w not in _NO_SENSE for f in _forms(w)]
    else:
        got = _read_with_next(clause)
    # "wherein the method further comprises X" adds X as "further comprising X" does; without "further", "wherein
    # the composition comprises X" may choose X from the parent's list (a compound of a Markush group), so it stays.
    # Cut before X ("comprises the steps of" ends a clause), the subject left alone says nothing either.
    if subject and clause[: len(subject)] == subject and "further" in clause[len(subject) : len(subject) + 2]:
        said = tuple(f for w in subject for f in _forms(w))
        if tuple(got[: len(said)]) == said and got[len(said) : len(said) + 1] in ([], ["comprise"]):
            got = got[len(said) + 1 :]
    got = list(_limitation(tuple(got)))
    if "and" not in got:
        return tuple(got)
    # two one-word objects of a preposition ("of water and malt", "between the backsheet and the topsheet"): where
    # the second ends, the words do not say (the comma is gone), so they are sorted in place
    for i in range(2, len(got) - 1):
        if got[i] == "and" and got[i - 2] in _PAIRED and got[i + 1] < got[i - 1]:
            got[i - 1], got[i + 1] = got[i + 1], got[i - 1]
    parts: list[list[str]] = [[]]
    for w in got:
        if w == "and":
            parts.append([])
        else:
            parts[-1].append(w)
    return tuple(" and ".join(sorted(" ".join(p) for p in parts if p)).split())


def _unlabelled(text: str) -> str:
    # most claims have no parenthesis: the label pattern is then not run at all
    return _LABEL.sub(" ", text) if "(" in text or ")" in text else text


def words(text: str) -> tuple[str, ...]:
    """The words of ``text`` in lower case without articles (:data:`_ARTICLES`), reference numerals or list labels."""
    return tuple(filterfalse(_ARTICLES.__contains__, _WORD.findall(_unlabelled(text).lower())))


def _limitation(got: tuple[str, ...]) -> tuple[str, ...]:
    start, end = 0, len(got)
    while start < end and got[start] in _CONNECTIVES:
        start += 1
    # "the portion is a leg portion and wherein …": the "and" that joins it to the next clause is no part of it
    while end > start and got[end - 1] == "and":
        end -= 1
    return got[start:end]


# What a restatement in other words keeps (issue 30's "non-distinctive claim repetition" as language models write it:
# "the material is contained in the layer" for "the layer contains the material", "applied in a non-uniform manner"
# for "applied non-uniformly", "made of a resin material" for "formed from resin"): the words that say what is
# claimed, each without its inflection (_base: "contained"/"contains", "detects"/"detecting"). Left out are the
# words that only relate, point back or join (_RELATING) and those a restatement adds or drops without changing the
# limitation (_IDLE); negations, numbers, ordinals and quantities ("one of") stay, and so does "consisting" (closed,
# where "comprising" is open: MPEP 2111.03).
_RELATING = frozenset({
    "is", "are", "be", "being", "been", "was", "were", "has", "have", "having", "comprise", "comprises",
    "comprising", "comprised", "include", "includes", "including", "contain", "contains", "containing", "of", "to",
    "in", "on", "at", "by", "for", "with", "from", "into", "onto", "within", "inside", "upon", "as", "and", "or", "nor",
    "but", "than", "then", "it", "its", "their", "they", "them", "there", "thereof", "therein", "thereto", "thereon",
    "wherein", "whereby", "where", "when", "while", "further", "also", "respectively", "such", "this", "these",
    "those", "who", "whose", "claim", "claims",
}) | _ARTICLES
_IDLE = frozenset({"substantially", "essentially", "approximately", "generally", "manner", "state", "shaped", "shape",
                   "type", "material", "materials", "each", "both"})
# words drafters use for one another where nothing else changes: where a thing is ("positioned in", "located in",
# "disposed in"); what it is made of is read as in gist (_MADE before "of"/"from")
_PLACED = frozenset({"located", "positioned", "disposed", "situated", "placed"})
# more such words, each read as one stem only before the words that make it say the same (ninth round, built on the
# written sets' train side): a word of place before a place ("a recess formed in the housing", "provided in",
# "arranged in"; not "provided with", which has), of function before its object ("configured to", "adapted to",
# "operable to", "suitable for"), "under" said three ways, "prior to" for "before", "therebetween" for "between";
# and "about" before a number is idle, as "approximately" is
_AT_A_PLACE = frozenset({"in", "on", "at", "between", "within", "inside", "under", "beneath", "below", "above",
                         "adjacent", "along", "around", "near", "over", "across", "behind", "outside"})
_SAME_BEFORE: dict[str, tuple[str, frozenset[str] | None]] = {
    "provided": ("locat", _AT_A_PLACE), "arranged": ("locat", _AT_A_PLACE), "formed": ("locat", _AT_A_PLACE),
    "mounted": ("locat", _AT_A_PLACE),
    "configured": ("configur", frozenset({"to", "for"})), "adapted": ("configur", frozenset({"to", "for"})),
    "operable": ("configur", frozenset({"to", "for"})), "suitable": ("configur", frozenset({"to", "for"})),
    "beneath": ("under", None), "below": ("under", None), "underneath": ("under", None),
    "prior": ("befor", frozenset({"to"})), "therebetween": ("between", None),
}
_INFLECTED = re.compile(r"(?:ied|ing|ed|ly)$")
# participles no suffix rule reaches ("the signal is sent" for "sending the signal"), and "use", whose stem the rule
# cuts two ways ("used", "using")
_IRREGULAR = {"sent": "send", "held": "hold", "built": "build", "bent": "bend", "fed": "feed", "led": "lead",
              "bound": "bind", "wound": "wind", "shown": "show", "drawn": "draw", "given": "give", "taken": "take",
              "kept": "keep", "left": "leave", "lost": "lose", "brought": "bring", "caught": "catch", "sought": "seek",
              "spun": "spin", "stuck": "stick", "struck": "strike", "laid": "lay", "slid": "slide", "used": "us",
              "using": "us", "worn": "wear", "torn": "tear", "known": "know", "grown": "grow", "thrown": "throw"}
# a bound said after its number ("500 or more angstroms", "5 mm or less"), read as "at least" / "at most" say it
OR_BOUND = {"more": "least", "greater": "least", "higher": "least", "larger": "least", "above": "least",
            "less": "most", "fewer": "most", "lower": "most", "smaller": "most", "below": "most"}
# the words content() reads with the word before or after them
READ_WITH_NEIGHBOURS = _PLACED | frozenset(_SAME_BEFORE) | {"about"} | frozenset(OR_BOUND) | _MADE


def _base(word: str) -> str:
    """``word`` without its inflection (number, person, tense, participle) or an adverb's "-ly", and without a final
    "e", so that the forms of one word meet ("compare", "compared", "comparing" → "compar"). Hand-written: Snowball's
    stemmer also strips derivation ("humanized" → "human", "organic" → "organ"), which merges siblings a claim set
    writes on purpose, and a dictionary lemmatizer (lemminflect) takes 0.4 s to load, beyond spg lint's start-up. A
    word it cuts wrongly ("speed" → "spe") only misses a match: both sides of a comparison go through it."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 3 or not word.isalpha():
        return word
    suffix = _INFLECTED.search(word) if len(word) > 4 else None
    if word.endswith("s"):
        word = singular(word)
    elif suffix is not None:
        cut = suffix.group()
        if cut == "ied":
            word = word[:-3] + "y"
        elif cut == "ly":
            word = word if len(word) <= 6 or word[-3] in "pb" else word[:-2]  # not "supply", "assembly"
        elif len(word) > len(cut) + 2:
            word = word[: -len(cut)]
            if word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # "stopped" → "stop"
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


_RELATING_STEMS = frozenset(map(_base, _RELATING)) | _RELATING
# a prefix written hyphenated or joined is one word ("non-uniform", "nonuniform"; "co-extruded", "coextruded"): never
# read apart, as "non-human" is no "human"
_PREFIXES = frozenset({"non", "co", "multi", "semi", "pre", "anti", "sub", "inter", "un"})


@functools.cache
def _stems(word: str) -> tuple[str, ...]:
    parts = [p for p in word.split("-") if p and p not in _IDLE]
    if len(parts) > 1 and parts[0] in _PREFIXES:
        parts = [parts[0] + parts[1], *parts[2:]]
    stems = (_base(p) for p in parts)
    return tuple(stem for stem in stems if stem not in _RELATING_STEMS)  # "contained" relates as "contains" does


@functools.lru_cache(maxsize=4096)  # a claim is compared with each claim below it; the checker re-reads the set
def content(said: tuple[str, ...]) -> tuple[tuple[int, str], ...]:
    """(position in ``said``, stem) of each word of ``said`` (:func:`words`) that says what is claimed."""
    if READ_WITH_NEIGHBOURS.isdisjoint(said):  # most claims (four in five): each word's stems, nothing else to ask
        return tuple([(i, stem) for i, stems in enumerate(map(_stems, said)) for stem in stems])
    out = []
    for i, w in enumerate(said):
        if w not in READ_WITH_NEIGHBOURS:  # most words: their stems, whatever stands around them
            for stem in _stems(w):
                out.append((i, stem))
            continue
        after = said[i + 1] if i + 1 < len(said) else ""
        if w in _PLACED:
            out.append((i, "locat"))
        elif w in _SAME_BEFORE and (_SAME_BEFORE[w][1] is None or after in _SAME_BEFORE[w][1]):
            out.append((i, _SAME_BEFORE[w][0]))
        elif w == "about" and any(ch.isdigit() for ch in after):
            continue
        elif w in OR_BOUND and i and said[i - 1] == "or":
            # before its number, where "at least" stands ("5 mm or more": "at least 5 mm")
            at = next((k for k in range(len(out) - 1, max(len(out) - 3, -1), -1) if out[k][1][:1].isdigit()), None)
            if at is None:
                out += [(i, stem) for stem in _stems(w)]
            else:
                out.insert(at, (out[at][0], OR_BOUND[w]))
        elif w in _MADE and after in ("of", "from"):
            out.append((i, "made"))
        else:
            out += [(i, stem) for stem in _stems(w)]
    return tuple(out)


def limitation(text: str) -> tuple[str, ...]:
    """One clause as a limitation: :func:`words` without the connectives that open it."""
    return _limitation(words(text))


@dataclass(frozen=True)
class Reading:
    """One claim as the drafting rules read it.

    ``subject``: the words naming what is claimed (:func:`subject`) in a dependent claim's opening before its
    citation or an independent claim's preamble.
    ``opening``: every word of a dependent claim's opening, or of an independent claim's preamble.
    ``restates``: a claim of its own that cites another ("An apparatus for carrying out the process of claim 1");
    "A method according to claim 2", an indefinite article before the subject alone, is a dependent claim.
    ``limitations``: the normalised clauses of the text after the citation (a dependent claim) or after the
    transition (an independent one), empty ones left out.
    ``body``: the words of that text, the citation replaced by nothing, for comparing whole claims.
    ``gists``: each limitation as its restatements read (:func:`gist`), for the rules that look for one.
    ``parts``: the text of each limitation as written (list labels removed), for a rule that needs its commas
    (spg/lint/contradiction.py).
    """

    subject: tuple[str, ...]
    opening: tuple[str, ...]
    restates: bool
    limitations: tuple[tuple[str, ...], ...]
    body: tuple[str, ...]
    gists: tuple[tuple[str, ...], ...] = ()
    parts: tuple[str, ...] = ()


def _reading(said: tuple[str, ...], opening: tuple[str, ...], restates: bool,
             read: tuple[tuple[tuple[str, ...], ...], tuple[str, ...], frozenset[int], tuple[str, ...]],
             before: tuple[str, ...] = ()) -> Reading:
    limitations, body, alternatives, parts = read
    # an item before "; or" is one of alternatives, as a clause holding "or" is: its gist says so
    gists = tuple(g + ("or",) * (i in alternatives) for i, x in enumerate(limitations) if (g := gist(x, said)))
    return Reading(said, opening, restates, limitations, before + body, gists, parts)


def one_sentence(text: str) -> str:
    """``text`` up to the end of its first sentence: a claim is one sentence (MPEP 608.01(m)), and what a language
    model writes after it ("… 100 to 140 mg/L. Here is the additional claim:") limits nothing."""
    if ". " in text and (end := _AFTER_THE_SENTENCE.search(text)) is not None:
        return text[: end.start() + 1]
    return text


def _clauses(text: str) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...], frozenset[int], tuple[str, ...]]:
    """(the limitations of ``text``, all its words, those followed by a clause opening with "or", the text of each
    limitation): one pass over the text, as this runs after every claim."""
    clauses = []
    parts = []
    every: list[str] = []
    alternatives = set()
    article = _ARTICLES.__contains__
    text = one_sentence(_unlabelled(text))
    for part in (_SPLIT_STEPS if "step" in text else _SPLIT).split(text):
        got = tuple(filterfalse(article, _WORD.findall(part.lower())))
        every += got
        if got[:1] == ("or",) and clauses:
            alternatives.add(len(clauses) - 1)
        got = _limitation(got)
        if got:
            clauses.append(got)
            parts.append(part)
    return tuple(clauses), tuple(every), frozenset(alternatives), tuple(parts)


def read_claim(text: str, num: int, dependent: bool) -> Reading:
    # a dependent claim cites its parent in its opening: reading the first 200 characters finds it at a fraction of
    # the cost on long claims (a citation later in the text stays in the limitations)
    refs = (extract_references(text[:200], num) or extract_references(text, num)) if dependent else []
    if refs:
        opening, rest = text[: refs[0].start], text[refs[0].end :]
        opening = _CITING_TAIL.sub("", opening.lower())
        opened, said = words(opening), subject(opening)
        # "A method according to claim 2" is a dependent claim with an indefinite article (European style) and claims
        # what claim 2 claims; "A method of making the device according to claim 2" names a subject of its own first,
        # as does "A polynucleotide encoding the polypeptide of claim 6" (or "a polypeptide"), which names a thing of
        # claim 6 to do so
        # "One or more oligonucleotides of claim 5" counts what claim 5 claims as "An oligonucleotide of claim 5" does
        counted = opened[3:] if opened[:3] in _COUNTED else opened
        restates = _OWN_CLAIM.search(opening) is not None and (
            counted != said or not PARTS_FOLLOW.isdisjoint(opened) or _NAMES_ITS_THING.search(opening) is not None)
        return _reading(said, opened, restates, _clauses(rest), opened)
    lowered = text.lower()
    cut = _TRANSITION.search(lowered, 0, 400)
    if cut is None:
        return _reading((), (), False, _clauses(text))
    # the limitations are the body's; the whole claim, preamble included, is compared as a whole
    preamble = lowered[: cut.start()]
    opening = words(preamble)
    return _reading(subject(preamble), opening, False, _clauses(text[cut.end() :]), opening + words(cut.group()))


def read_claims(forest: Forest) -> dict[int, Reading]:
    """:func:`read_claim` of every claim (the first claim of a repeated number)."""
    out: dict[int, Reading] = {}
    for c in forest.claims:
        if c.num not in out:
            out[c.num] = read_claim(c.text, c.num, bool(c.parents))
    return out


# how far up a chain the drafting rules look: a dependent claim restates a claim a few levels up, and a 10,000-deep
# chain (tests/test_robustness.py) must stay linear
ANCESTORS = 64


def ancestry(forest: Forest) -> dict[int, tuple[int, ...]]:
    """Claim → the earlier claims it depends on, directly or through its parents, nearest first, at most
    :data:`ANCESTORS` of them (citations of later or missing claims, which the structure rules report, are left
    out)."""
    out: dict[int, tuple[int, ...]] = {}
    for c in forest.claims:
        if c.num in out:
            continue
        got: list[int] = []
        seen: set[int] = set()
        for p in c.parents:
            if p in out and p not in seen:
                got.append(p)
                seen.add(p)
        if len(got) == 1:  # one parent: it, then its own ancestry (which holds neither it nor a repeat), no walk
            out[c.num] = (got[0], *out[got[0]][: ANCESTORS - 1])
            continue
        for p in list(got):
            for a in out[p]:
                if a not in seen:
                    got.append(a)
                    seen.add(a)
        out[c.num] = tuple(got[:ANCESTORS])
    return out


def on_every_path(forest: Forest, above: dict[int, tuple[int, ...]]) -> dict[int, tuple[int, ...]]:
    """Claim → the claims of its ancestry (``above``, :func:`ancestry`) that stand on every path up from it. A claim
    citing claims 1 to 23 in the alternative claims what each of them claims, so a limitation that only one of them
    recites narrows the others ("An acoustical tile according to Claim 24, in which the binder is starch" under "A
    tile made from a composition according to any preceding claim", one of which names starch)."""
    out: dict[int, tuple[int, ...]] = {}
    for c in forest.claims:
        if c.num in out:
            continue
        parents = [p for p in dict.fromkeys(c.parents) if p in out]
        if len(parents) == 1 and out[parents[0]] == above[parents[0]]:
            out[c.num] = above[c.num]  # one path, through a parent whose whole ancestry is on its every path
            continue
        paths = [{p, *out[p]} for p in parents]
        out[c.num] = tuple(a for a in above[c.num] if all(a in path for path in paths))
    return out


T = TypeVar("T")


def against_chain(forest: Forest, above: dict[int, Sequence[int]], said: Callable[[int], Sequence[T]],
                  clash: Callable[[T, T], bool]) -> Iterator[tuple[int, T, int, T]]:
    """(claim, what it says, claim up its chain, what that one says) for each dependent claim (the first of its
    number) where something ``said`` by it ``clash``es with something said by a claim of ``above[claim]``: the first
    such pair, in claim order, each claim read once (the rules that read a dependent against its parent chain:
    spg/lint/contradiction.py, spg/lint/ranges.py): a dependent's reading is kept for the claims below it."""
    read: dict[int, Sequence[T]] = {}
    for c in forest.claims:
        if not c.parents or forest.by_num[c.num] is not c or not above.get(c.num):
            continue
        mine = read.get(c.num)
        if mine is None:
            mine = read[c.num] = said(c.num)
        if not mine:
            continue
        for a in above[c.num]:
            if a not in read:
                read[a] = said(a)
        hit = next(((s, a, t) for s in mine for a in above[c.num] for t in read[a] if clash(s, t)), None)
        if hit is not None:
            yield c.num, *hit

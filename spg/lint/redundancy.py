"""Repetition a drafter (or a language model) leaves in a claim set, as an examiner objects to it.

* ``duplicate-claim`` (MPEP 706.03(k); 37 CFR 1.75(b)): two claims with the same parent(s), or both independent,
  that read the same once whitespace, numbering, articles and the citation are set aside, or that recite the same
  limitations in another order, or the same content words but for a few that change nothing or say what a word of
  the other says (_near: "intermittent time and location information" for "intermittent time information and
  location information", "formed of plastic" for "plastic", "at least 60 mm" for "equal to or greater than 60 mm",
  "in engagement with" for "engaged with"). The same words under *different* parents ("… of claim 26, wherein X",
  "… of claim 27, wherein X") claim different things and are no finding. A language model also copies a claim it
  was shown and breaks off, or copies it whole and runs on past its final period into chat text ("… a PCSK9
  inhibitor. This claim is a new dependent claim …"): both are that claim again (_Copies).
* ``not-further-limiting`` (35 USC 112(d); MPEP 608.01(n) III): a dependent claim each of whose limitations its
  parent chain already recites (a wherein-clause copied from the parent, a restated limitation), or that adds no
  text at all. A limitation the parent recites among alternatives ("… or …", "at least one of", "optionally") is a
  choice, which narrows; a claim whose restated limitations are all shorter than three words ("further
  comprising a hinge") may add a second element, which is the antecedent analysis's business.
* ``repeated-limitation``: the same limitation twice in one claim ("a pawl is a flat steel plate …; a pawl is a flat
  steel plate …"), also restated with a participle for a relative clause, "having" for "has", or as one half of a
  clause an "and" joins to another (_restated, _joined), or as the words after the last open transition of an
  independent claim's first clause, where the preamble's own "having" ended what the reader took for the preamble
  (_after_transition). Short clauses (under four words, articles not counted, unless three words that say something: "debugging the program", "the anolyte is a gel", "the body comprises a sleeve") are left out: lists of elements name short things twice for
  good reasons ("a first housing; …; a housing cover"); so are the items of a Markush group ("consisting of: …;
  …") that name compounds by their locants, alternatives whose names the text may not tell apart (stereo descriptors
  lost in publication), and claims listing lettered alternatives ("any one of the following proteins (a), (b) and
  (c) …", "… or (b) …"), each of which restates what they share.

Each rule reads a claim against earlier claims only, so a partial claim set (the first k claims, as ``spg
generate`` has them while decoding) gets the findings the whole set would have for those claims.
"""

from __future__ import annotations

import re
import string
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from difflib import SequenceMatcher
from functools import lru_cache
from itertools import filterfalse
from operator import itemgetter

from spg.forest import Forest
from spg.lint.abbreviations import defined, spelled_out
from spg.lint.clauses import (
    COPULA,
    OR_BOUND,
    Reading,
    ancestry,
    content,
    gist,
    on_every_path,
    one_sentence,
    read_claims,
    singular,
)
from spg.lint.finding import Finding

# words that make a recited limitation one of several alternatives, so that a dependent claim choosing it narrows
_ALTERNATIVE = frozenset({"or", "optionally", "either", "may", "can", "alternatively", "preferably"})
_INDEFINITE = re.compile(r"\s*an?\s", re.IGNORECASE)
# a claim ending where a formula or a structure the publication lost stood
_CUT_SHORT = re.compile(r"(?:\b(?:is|are|of|the|an?|formula|structure|by)|:)\s*$", re.IGNORECASE)
# a claim listing lettered alternatives ("any one of the following proteins (a), (b) and (c)", "… or (b) …")
# restates what each alternative shares; "at least one of the following: X; Y; and Z" without letters lists
# alternatives that share nothing, so a limitation restated after such a list is still a repetition ("o(?<!\wo)" is
# "\bo", the regular expression engine skipping to the characters that open a match: see _LISTS_ALTERNATIVES)
_LETTERED_ALTERNATIVES = re.compile(
    r"o(?<!\wo)ne of the following\b.*?(?<![\w(])\(?a\)|o(?<!\wo)r\s+\(?[b-h]\)", re.IGNORECASE | re.DOTALL
)
_DIGIT = re.compile(r"[0-9]")
# a claim whose parts are alternatives ("comprising at least one of: A) treating …; B) stabilizing …"): a dependent
# restating words of one part chooses it, wherever in the long claim they stand
# ("o(?<!\wo)" is "\bo": an opening character lets the regular expression engine skip to the places it may match,
# where "\b" had it try every position, half the time of the search)
_LISTS_ALTERNATIVES = re.compile(r"o(?<!\wo)ne (?:or more )?of\s*:", re.IGNORECASE)
_MARKUSH = {("consisting", "of"), ("selected", "from")}
_MARKUSH_WORDS = frozenset(w for w, _ in _MARKUSH)
# what else makes a recited limitation a range a dependent claim may narrow: "one of", "the other of", examples ("such
# as poultry"), and bounds ("at least 80% identity to", "up to", "more than"); a dependent saying a bound again
# restates it (_chooses)
_BOUND_PAIRS = frozenset({("at", "least"), ("at", "most"), ("up", "to"), ("more", "than"), ("less", "than")})
_CHOICE_PAIRS = _BOUND_PAIRS | {("one", "of"), ("other", "of"), ("such", "as"), ("identity", "to")}
# a limitation restated as LLM drafters restate one: a participle for a relative clause ("the lever pivoted to the
# frame", "the lever that is pivoted to the frame", "the lever, which is pivoted …"; relative pronouns and articles
# are no words already), "having" for "has" (see _restated)
_SAME_VERB = {"has": "has", "have": "has", "having": "has", "comprises": "comprises", "comprise": "comprises",
              "comprising": "comprises", "includes": "includes", "include": "includes", "including": "includes"}
_RESTATED = COPULA | frozenset(_SAME_VERB)
SHORTEST_NARROWING = 3  # words: shorter added clauses are taken to narrow
CLOSE = 1.25  # how much longer than a restatement the stretch of its parent it restates may be (_said_closely)
# the same in an independent claim: in its length a dependent's few words stand close together by chance more often
CLOSE_INDEPENDENT = 1.1
LEAD = 6  # words around such a stretch read for alternatives it is one of ("one of the inner and outer elements")
SHORTEST_REPEATED = 4  # words: shorter clauses repeated inside a claim are no finding, but for a step or a statement


def _acts(clause: tuple[str, ...]) -> bool:
    """Whether a clause says something (a copula, a participle or gerund, a verb of having: "debugging the program",
    "the anolyte is a gel", "the body comprises a sleeve") rather than naming a thing a list may name twice ("the
    first, the second and the third treatment")."""
    return any(w in _RESTATED or w.endswith(("ing", "ed")) for w in clause)


def _named(clause: tuple[str, ...]) -> bool:
    """Whether a Markush item names a compound by its locants ("2-(pyrrolidin-2-yl)benzo[d]oxazole-7-carboxamide"):
    two such items read alike where the publication lost their stereo descriptors; items in words ("GPS locating
    means, …") lose nothing, so one recited twice is repeated, and so does a clause with a copula, which defines a
    variable ("m is 0, 1, 2 or 3", "R8 is selected from …") and names no compound (sixth round)."""
    return COPULA.isdisjoint(clause) and any(ch.isdigit() for w in clause for ch in w)


def _restated(clause: tuple[str, ...]) -> tuple[str, ...]:
    """A clause as compared for a repetition inside one claim: without the copula, with one form of "has",
    "comprises" and "includes" (:data:`_SAME_VERB`)."""
    if _RESTATED.isdisjoint(clause):
        return clause  # most clauses: nothing to change
    # a list, not a generator, made into a tuple: tuple() resumed a generator once a word
    return tuple([_SAME_VERB.get(w, w) for w in clause if w not in COPULA])


def _shape(clause: tuple[str, ...]) -> tuple[int, str, str]:
    return (len(clause), clause[0], clause[-1]) if clause else (0, "", "")


def _joined(said: tuple[str, ...], clause: tuple[str, ...], shapes: set[tuple[int, str, str]]) -> list[tuple[str, ...]]:
    """The two clauses an "and" joins inside one ("a lever pivoted to the frame and a seat fixed to the lever"), each
    :func:`_restated`: a drafter recites either again on its own. Only where both halves say something (:func:`_acts`)
    and are long enough to count (a pair of nouns, "a frame and a seat", is no two limitations), and the second
    has a subject of its own. A half is only ever compared with a whole clause of its claim, so only halves of the
    length and first and last words (``shapes``, :func:`_shape`) of one are made: a long clause of many "and"s made
    one half per "and", each as long as the clause (time and memory quadratic in its length). ``clause``: ``said``
    :func:`_restated`."""
    out: list[tuple[str, ...]] = []
    if len(said) <= 2 * SHORTEST_REPEATED or "and" not in said:
        return out
    # a half is shorter than the clause and opens with its first word or ends with its last: where no clause of the
    # claim is such, no half is made (most claims; looking for one cost a third of the rule's time)
    if not any(n < len(clause) and (first == clause[0] or last == clause[-1]) for n, first, last in shapes):
        return out
    # whether the words before and after each "and" say something, from the first and last word that does
    acting = [k for k, w in enumerate(said) if w in _RESTATED or w.endswith(("ing", "ed"))]  # _acts per word
    if not acting:
        return out
    # where each word of ``clause`` stands in ``said``: each half's shape without making it
    at = [k for k, w in enumerate(said) if w not in COPULA]
    for i in [k for k in range(SHORTEST_REPEATED, len(said) - SHORTEST_REPEATED) if said[k] == "and"]:
        # "… connected to the switch and disposed at …": the second shares its subject
        if not _acts(said[i + 1 : i + 2]) and acting[0] < i < acting[-1]:
            # said[i] is "and", so clause[before] is the "and" itself and the second half starts after it
            before = bisect_left(at, i)  # words of ``clause`` before position i
            first = (before, clause[0], clause[before - 1]) if before else (0, "", "")
            then = (len(clause) - before - 1, clause[before + 1], clause[-1]) if before + 1 < len(clause) else (0, "", "")
            if first in shapes or then in shapes:
                out += [_restated(said[:i]), _restated(said[i + 1 :])]
    return out


def _counts(clause: tuple[str, ...]) -> bool:
    """Whether a clause is long enough to count as a repeated limitation (:data:`SHORTEST_REPEATED` words, or one
    fewer where it says something)."""
    return len(clause) >= SHORTEST_REPEATED or (len(clause) == SHORTEST_REPEATED - 1 and _acts(clause))


# the open transitions, where a preamble the reader took for the first limitation ends ("A method for predicting
# the progression of fibrosis in a subject having fibrosis, the method comprising determining …": the transition the
# reader cut at is the "having" of the preamble's own words)
_OPEN_TRANSITIONS = frozenset({"comprising", "comprises", "including", "includes"})


def _after_transition(first: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The words of an independent claim's first clause after its last open transition, :func:`_restated`, where
    they count (:func:`_counts`): the first limitation as a drafter recites it again on its own."""
    at = max((i for i, w in enumerate(first) if w in _OPEN_TRANSITIONS), default=-1)
    tail = first[at + 1 :]
    return [_restated(tail)] if at > 0 and _counts(tail) else []


def _cut_short(text: str) -> bool:
    """Whether a claim ends as :data:`_CUT_SHORT` reads its last 40 characters: searched in the last 10 of them
    before the trailing space, where a match must stand (its longest word, "structure", and the character before it),
    since searching the 40 cost as much as all the rule's comparisons."""
    # a claim whose one sentence ends with a period, a language model's chat after it ending as a cut claim does
    # ("Here is the additional claim:"), is not cut short: read only where its end matches, one claim in fifty
    return _CUT_SHORT.search(text[-40:].rstrip()[-10:]) is not None and len(one_sentence(text)) == len(text)


def _cited(parents: tuple[int, ...]) -> str:
    return "independent" if not parents else "citing claim " + ", ".join(map(str, parents))


def _said(r: Reading) -> tuple | None:
    """What a claim says as a restatement reads it: its subject's words and the conjuncts of its limitations, each
    a :func:`~spg.lint.clauses.gist`, as a sorted list ("…, wherein A and B" is "…, wherein B; and A")."""
    if not r.gists:
        return None
    parts = (part for g in r.gists for part in " ".join(g).split(" and "))
    return gist(r.opening), tuple(sorted(parts))


def _swapped(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether ``b`` is ``a`` with two stretches of words exchanged around an unchanged middle ("a loop material …
    a hook material" and "a hook material … a loop material"; "provided at the door … at the body" and the other
    way round): sibling claims that give the two elements each other's role, which claim two things. A restatement
    in other words changes the middle too ("the layer contains the material", "the material is contained in the
    layer")."""
    if len(a) != len(b) or a == b:
        return False
    i = next(k for k in range(len(a)) if a[k] != b[k])
    j = next(k for k in range(len(a), 0, -1) if a[k - 1] != b[k - 1])
    x, y = a[i:j], b[i:j]
    n = len(x)
    return any(
        x[:first] == y[n - first :] and x[n - last :] == y[:last] and x[first : n - last] == y[last : n - first]
        for first in range(1, n)
        for last in range(1, n - first + 1)
    )


def _bag(said: _Words) -> tuple[str, ...]:
    """What a claim says in any order and with other forms of its words (:func:`~spg.lint.clauses.content`)."""
    return tuple(sorted(said.stems))


# words whose presence or absence in a restatement changes nothing it claims: "each respectively", "so as to", "made
# of plastic" for "plastic", "8 percent" for "8%" (the sign is no word)
_IDLE_DIFFERENCE = frozenset({"each", "respectiv", "both", "so", "made", "percent", "such"})
# a bound said two ways: "at least 60 mm", "equal to or greater than 60 mm", "60 mm or more" (not "at least one of the
# mutations" for "each of the mutations": a word of a bound needs one on the other side)
_BOUNDS = (frozenset({"least", "greater", "equal", "more", "minimum"}), frozenset({"most", "less", "fewer", "maximum"}))
# "the at least one sensor" points back to "at least one sensor" as "the sensor" does ("at least one of the sensors",
# no article before it, chooses)
_BACK_TO_AT_LEAST_ONE = re.compile(r"\b(?:the|said)\s+at\s+least\s+one\b", re.IGNORECASE)
_AT_LEAST_ONE = frozenset({"least", "one"})
# content words: in longer claims words recur across clauses, and the same words in other places say other things
# ("a first electrode along the outer edge, a second along the second surface" after "inner and outer edges, a first
# surface … and a second surface"); the restatements found on train and dev have at most 15
NEAR_LONGEST = 24
MOST_ADDED = 3  # content words a restating sibling adds from its chain (_adds_what_its_chain_says)
# endings that make a noun of a verb ("engaged", "engagement"; "removed", "removal")
_NOMINAL = ("ment", "ement", "al", "ion", "ation")


@lru_cache(maxsize=1 << 16)  # bounded: a corpus run meets new words for hours
def _kin(stem: str) -> frozenset[str]:
    """The words that say what a word left over between near-duplicate claims (a stem) says: its noun or the verb of
    it ("engag", "engagement"), or a word of one bound with it (:data:`_BOUNDS`). A set, for a pair of claims compares
    each word left on one side with those left on the other. Synonyms in WordNet were tried and left out: on the
    written development sets they found no repetition more, and they merge siblings written on purpose ("an integral
    casting", "an integral molding")."""
    got = {w for bound in _BOUNDS if stem in bound for w in bound}
    got.update(stem + ending for ending in _NOMINAL if len(stem) >= 4)
    got.update(stem[: -len(ending)] for ending in _NOMINAL if stem.endswith(ending) and len(stem) - len(ending) >= 4)
    return frozenset(got)


def _orders(stems: list[str], keep: set[str]) -> tuple[list[str], list[str]]:
    """The words of ``keep`` in the order they first come in ``stems``, and in the order they last come."""
    first = list(dict.fromkeys(s for s in stems if s in keep))
    last = list(dict.fromkeys(s for s in reversed(stems) if s in keep))[::-1]
    return first, last


class _Words:
    """What the sibling tests read of a claim (:class:`_Siblings`, :func:`_near`), read once however many siblings
    it is compared with (each pair read its two claims' words, subjects and parts again: a fifth of the rule's time
    on the shared set, more on sets of many siblings). A claim of more than :data:`NEAR_LONGEST` content words is
    compared by its words alone, so the rest is not read."""

    __slots__ = ("stems", "kinds", "named", "back", "numbers")

    def __init__(self, r: Reading) -> None:
        self.stems = [s for _, s in content(r.body)]  # its content words (:func:`~spg.lint.clauses.content`), in order
        if len(self.stems) > NEAR_LONGEST:
            return
        self.kinds = frozenset(self.stems)
        self.named = frozenset(s for _, s in content(r.subject))  # its subject's content words
        # how often it says "the at least one", searched for only where it says "least" (most claims do not); casefold,
        # not lower: the pattern, blind to case, reads "ſ" as "s"
        said = " ".join(r.parts)
        self.back = len(_BACK_TO_AT_LEAST_ONE.findall(said)) if "least" in said.casefold() else 0
        self.numbers = _numbers(r.body)


def _near(new: _Words, old: _Words) -> bool:
    """Whether two sibling claims recite the same limitations in other words. Their content words
    (:func:`~spg.lint.clauses.content`) are the same, but for words that change nothing (:data:`_IDLE_DIFFERENCE`),
    words of the subject both name ("… on a light emitting side of the device"), the "at least one" of a claim
    pointing back with "the at least one" more often, and words each of which says what a word left on the other
    side says (:func:`_kin`); their numbers are the same; a word only one of them says more
    often, not each a word of its own more often ("receipt of a program description" and "receipt of program list
    information" say two things); and the words they share come in the same order, read from the first time each
    comes or from the last ("intermittent time information and location information", "intermittent time and
    location information"): two elements given each other's places ("the recess comprises a magnetic member and the
    wrench a magnetized member", and the other way round) claim two things."""
    if max(len(new.stems), len(old.stems)) > NEAR_LONGEST:
        return False
    shared = new.kinds & old.kinds
    if len(shared) < SHORTEST_NARROWING:
        return False
    idle = _IDLE_DIFFERENCE | (new.named & old.named)
    back_a, back_b = new.back, old.back
    left_a = [s for s in new.kinds if s not in shared and s not in idle and not (back_a > back_b and s in _AT_LEAST_ONE)]
    left_b = [s for s in old.kinds if s not in shared and s not in idle and not (back_b > back_a and s in _AT_LEAST_ONE)]
    if any(_kin(x).isdisjoint(left_b) for x in left_a) or any(_kin(y).isdisjoint(left_a) for y in left_b):
        return False
    count_a = Counter(s for s in new.stems if s in shared)
    count_b = Counter(s for s in old.stems if s in shared)
    if count_a - count_b and count_b - count_a:
        return False
    first_a, last_a = _orders(new.stems, shared)
    first_b, last_b = _orders(old.stems, shared)
    # the numbers last: the siblings asked (_Siblings.near) have the same ones
    return (first_a == first_b or last_a == last_b) and new.numbers == old.numbers


def _chain_clauses(chain: list[Reading]) -> list[str]:
    """The content words of each clause of ``chain`` a restating sibling may take words from
    (:func:`_adds_what_its_chain_says`), space-delimited for a containment test: not a clause naming alternatives,
    nor any clause of a claim with a Markush group, where siblings choose."""
    return [" " + " ".join(s for _, s in content(x)) + " " for r in chain if _MARKUSH_WORDS.isdisjoint(r.body)
            for x in r.limitations if not _chooses(x)]


def _adds_what_its_chain_says(new: Reading, old: Reading, chain: list[str]) -> bool:
    """Whether a claim says what its sibling ``old`` says, in the same order, and beside it only runs of words (at most
    :data:`MOST_ADDED` in all) that its chain says in the same place: each run, with a word next to it, stands
    together in a clause of one claim of the chain ("said air mattress is releasably attached to said support frame"
    after "said air mattress is releasably attached", where the chain attaches it "to said support frame"). A word
    the chain says elsewhere ("a graph neural network" after "a neural network" under "a knowledge graph") narrows;
    so does a word from a clause naming alternatives or from a claim with a Markush group, where siblings choose
    ("… comprises AcYGK…-OH conjugated to tetanus toxoid" after "… comprises AcYGK…-OH" under a claim listing both
    in its group; Pap2Pat train and dev). ``chain``: :func:`_chain_clauses` of the claims up its chain."""
    mine, theirs = [s for _, s in content(new.body)], [s for _, s in content(old.body)]
    if len(mine) > NEAR_LONGEST or len(theirs) < SHORTEST_NARROWING:
        return False
    edits = [(tag, i, j) for tag, _, _, i, j in SequenceMatcher(None, theirs, mine, autojunk=False).get_opcodes()
             if tag != "equal"]
    if not edits or any(tag != "insert" for tag, _, _ in edits) or sum(j - i for _, i, j in edits) > MOST_ADDED:
        return False
    return all(any(f" {' '.join(run)} " in text for text in chain for run in (mine[max(i - 1, 0) : j], mine[i : j + 1])
                   if len(run) > j - i) for _, i, j in edits)


def _numbers(said: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """The words of ``said`` that hold a digit, each with how often it says it, sorted."""
    # a reading's words are ASCII (clauses.words): a digit is 0-9. Most claims say no number (five in six on the
    # shared set): one search of the joined words tells, not one search a word
    if _DIGIT.search(" ".join(said)) is None:
        return ()
    return tuple(sorted(Counter(filter(_DIGIT.search, said)).items()))


class _Siblings:
    """The earlier claims with the same parents that :func:`_near` and :func:`_adds_what_its_chain_says` may find a
    claim repeating, found by what both ask of the two claims, in claim order: compared with every sibling, a claim
    set of many claims citing claim 1 took time quadratic in its size. :func:`_near`: both at most
    :data:`NEAR_LONGEST` content words, with the same numbers; :func:`_adds_what_its_chain_says`: the sibling's
    content words are the claim's with one to :data:`MOST_ADDED` words inserted, so it is that much shorter, and
    its first and last words are among the claim's first and last ``MOST_ADDED + 1``. Each claim's words are read
    once (:meth:`words`)."""

    def __init__(self, readings: dict[int, Reading]) -> None:
        self.readings = readings
        self.read: dict[int, _Words] = {}
        self.order: dict[int, int] = {}  # claim → its place among the siblings kept
        self.by_numbers: dict[tuple, list[int]] = {}
        self.by_ends: dict[tuple, dict[str, list[int]]] = {}  # (parents, length, first stem) → last stem → claims

    def words(self, num: int) -> _Words:
        got = self.read.get(num)
        if got is None:
            got = self.read[num] = _Words(self.readings[num])
        return got

    def add(self, num: int, parents: tuple[int, ...]) -> None:
        self.order[num] = len(self.order)
        said = self.words(num)
        stems = said.stems
        if len(stems) <= NEAR_LONGEST:
            self.by_numbers.setdefault((parents, said.numbers), []).append(num)
        if len(stems) >= SHORTEST_NARROWING:
            self.by_ends.setdefault((parents, len(stems), stems[0]), {}).setdefault(stems[-1], []).append(num)

    def near(self, num: int, parents: tuple[int, ...]) -> int | None:
        """The first sibling :func:`_near` finds ``num`` repeating."""
        said = self.words(num)
        if len(said.stems) > NEAR_LONGEST:
            return None
        return next((e for e in self.by_numbers.get((parents, said.numbers), ()) if _near(said, self.read[e])), None)

    def fewer(self, num: int, parents: tuple[int, ...]) -> list[int]:
        mine = self.words(num).stems
        if len(mine) > NEAR_LONGEST or not self.order:
            return []
        firsts, lasts = set(mine[: MOST_ADDED + 1]), set(mine[-MOST_ADDED - 1 :])
        found = {e for n in range(len(mine) - MOST_ADDED, len(mine)) for first in firsts
                 if (by_last := self.by_ends.get((parents, n, first))) for last in lasts for e in by_last.get(last, ())}
        return sorted(found, key=self.order.__getitem__)


class _Copies:
    """The earlier claims' texts (white space normalised), found by their first :data:`COPY_KEY` letters and digits,
    for the copies a language model writes of a claim it was shown (learned from the LLM corpus's train and dev
    items, docs/lint.md): a claim whose letters and digits are an earlier one's cut short (punctuation, spaces and
    case aside, as a copy changes them: "a)," for "a)", "Dalton;" for "Dalton, and …"; perhaps inside a word), not
    ending a sentence; or an earlier one's whole text, then a new sentence after its final period (an upper-case
    letter or a digit opens it: "90° C. for 5 minutes" goes on with the same sentence). Both at least
    :data:`COPY_SHORTEST` words; a claim ending where a formula or structure was lost (_cut_short) is not compared,
    as for the other readings."""

    def __init__(self) -> None:
        self.by_opening: dict[str, list[tuple[int, str]]] = {}
        self.letters: dict[int, str] = {}  # an earlier claim's, read only when a shorter claim opens alike

    @staticmethod
    def opening(text: str) -> str | None:
        """The index key of a claim long enough to compare: its first letters and digits, lower case."""
        if text.count(" ") + 1 < COPY_SHORTEST:
            return None
        return _letters(text[:COPY_LOOK])[:COPY_KEY]

    def add(self, num: int, text: str, opening: str | None) -> None:
        if opening is not None:
            self.by_opening.setdefault(opening, []).append((num, text))

    def find(self, text: str, opening: str | None) -> tuple[int, str] | None:
        """(the earlier claim ``text`` copies, how), or None."""
        mine = None
        for num, earlier in self.by_opening.get(opening, ()) if opening is not None else ():
            if len(text) < len(earlier):
                if text.endswith("."):  # a whole sentence is no copy cut short
                    continue
                mine = mine or _letters(text)
                theirs = self.letters.get(num) or self.letters.setdefault(num, _letters(earlier))
                if theirs.startswith(mine):
                    return num, "its words, cut short"
            elif (len(text) > len(earlier) + 1 and text.startswith(earlier) and earlier.endswith(".")
                  and (text[len(earlier) + 1].isupper() or text[len(earlier) + 1].isdigit())):
                return num, "its whole text, then more after its final period"
        return None


def _spaced(text: str) -> str:
    """``text`` with its white space normalised; parsed claims mostly are already, which three searches tell."""
    if "  " in text or "\n" in text or "\t" in text or text[:1].isspace() or text[-1:].isspace():
        return " ".join(text.split())
    return text


def _letters(text: str) -> str:
    return text.lower().translate(_UNPUNCTUATED)


COPY_SHORTEST = 10  # words of a claim and of the claim it copies (_Copies)
COPY_LOOK = 80  # characters whose letters and digits make a claim's index key (_Copies.opening) ...
COPY_KEY = 40  # ... the first this many of them
_UNPUNCTUATED = {ord(ch): None for ch in string.punctuation + " "}


def check_duplicates(forest: Forest, readings: dict[int, Reading], above: dict[int, tuple[int, ...]]) -> list[Finding]:
    """``duplicate-claim``: each claim that repeats an earlier one with the same parents, word for word, with its
    limitations in another order or other words (:func:`_said`), or with the same words that say what is claimed
    in another order and form (:func:`_bag`; not two elements swapping roles, :func:`_swapped`)."""
    exact: dict[tuple, int] = {}
    reworded: dict[tuple, int] = {}
    bags: dict[tuple, list[int]] = {}
    siblings = _Siblings(readings)
    copies = _Copies()
    out = []
    for c in forest.claims:
        r = readings[c.num]
        if forest.by_num[c.num] is not c or not r.body or _cut_short(c.text):
            continue  # "The method of claim 1 wherein the compound is" (a formula lost): nothing to compare
        text = _spaced(c.text)
        key = (c.parents, r.body)
        said = _said(r)
        order = (c.parents, said) if said is not None else None
        bag = (c.parents, _bag(siblings.words(c.num)))
        earlier = exact.get(key)
        how = "the same text"
        if earlier is None and order is not None:
            earlier = reworded.get(order)
            how = "the same limitations, reordered or in other words"
        if earlier is None:
            earlier = next((e for e in bags.get(bag, ()) if not _swapped(readings[e].body, r.body)), None)
            how = "the same limitations in other words"
        if earlier is None:
            earlier = siblings.near(c.num, c.parents)
        if earlier is None and above.get(c.num) and (fewer := siblings.fewer(c.num, c.parents)):
            chain = _chain_clauses([readings[a] for a in above[c.num]])
            earlier = next((e for e in fewer if _adds_what_its_chain_says(r, readings[e], chain)), None)
            how = "the same limitations, with words its chain already says"
        opening = copies.opening(text)
        if earlier is None and (copied := copies.find(text, opening)):
            earlier, how = copied
        if earlier is not None:
            out.append(Finding(
                "duplicate-claim", "warning", c.num,
                f"repeats claim {earlier} ({how}, {_cited(c.parents)}); a duplicate claim claims nothing new and "
                "must be cancelled or changed", 0, len(c.text),
            ))
            continue
        exact.setdefault(key, c.num)
        copies.add(c.num, text, opening)
        if order is not None:
            reworded.setdefault(order, c.num)
        if bag[1]:
            bags.setdefault(bag, []).append(c.num)
            siblings.add(c.num, c.parents)
    return out


def _plain(clause: tuple[str, ...]) -> str:
    """A clause joined for a containment test, without the copula ("a lower step pivoted to …" is restated by "the
    lower step is pivoted to …")."""
    return " " + " ".join(filterfalse(COPULA.__contains__, clause)) + " "


def _recited(clause: tuple[str, ...], every: str, plain: str) -> bool:
    """Whether ``clause`` stands, word for word, inside a clause of the chain: ``every`` its claims' every clause
    :func:`_plain`, ``plain`` those that name no alternatives, each joined by newlines (which no clause holds, so no
    match runs across two)."""
    # restating the alternatives themselves chooses none of them
    return _plain(clause) in (plain if _ALTERNATIVE.isdisjoint(clause) else every)


def _all_recited(clauses: tuple[tuple[str, ...], ...], every: str, plain: str) -> bool:
    """Whether each of ``clauses`` stands in a clause of the chain (``every`` and ``plain``: its claims' clauses
    joined as :func:`_recited` reads them, once for all of them)."""
    return all(_recited(clause, every, plain) for clause in clauses)


def _content_after(body: tuple[str, ...], start: int) -> tuple[tuple[int, str], ...]:
    """:func:`~spg.lint.clauses.content` of ``body[start:]`` (a dependent claim's words after its opening), each word
    by its position in ``body``: the pairs of the whole ``body`` from ``start`` on, which duplicate-claim read already
    (reading the words again cost as much as the rest of :func:`_said_closely`), kept as they are, not renumbered
    (only the few dependents a claim of their chain holds read the positions). A word reads the word after it alike in
    both; only a bound said after its number (``OR_BOUND``: "5 mm or more") reads the words before it, which the
    opening may hold, so those are read anew."""
    said = body[start:]
    if not OR_BOUND.keys().isdisjoint(said):
        return tuple([(i + start, stem) for i, stem in content(said)])
    where = content(body)
    return where[bisect_left(where, start, key=itemgetter(0)) :]  # content gives the words in order


def _said_closely(body: tuple[str, ...], start: int, chain: Sequence[int], words: _ChainWords) -> bool:
    """Whether every word of a dependent claim's ``body`` after its opening (``start`` words) that says what is
    claimed (:func:`~spg.lint.clauses.content`; at least :data:`SHORTEST_NARROWING` of them) stands in one stretch
    of the words of a claim of ``chain`` at most ``close`` times as long (each claim with its own,
    :class:`_ChainWords`), in any order and form, and that stretch names no alternatives: the dependent restates
    that part of its parent in other words ("wherein the ridges each have a continuously rounded surface" under
    "wherein the ridges present continuously rounded surfaces"). Words gathered from all over a long claim are a new
    combination, which narrows."""
    where = _content_after(body, start)
    stems = tuple(map(itemgetter(1), where))
    if len(stems) < SHORTEST_NARROWING:
        return False
    need = Counter(stems)
    held = words.holding(need, chain)
    if not held:
        return False
    own, passive = _bounds_said(body[start:]), _forms(where, body, "ed")  # what the restatement itself says
    return any(_close(need, words.body[a], stems, words.close[a], own, passive) for a in held)


class _ChainWords:
    """The chain claims a restatement may stand in (:func:`_said_closely`), each read once however many dependents
    compare with it: its words (``body``), how close a restatement must stand in them (``close``: CLOSE, or
    CLOSE_INDEPENDENT in an independent claim), and which of them hold each word. A dependent is compared only with
    the claims of its chain that hold each word it needs: found from the word fewest claims hold (most often its
    own number or term, which no claim up its chain holds), not by asking each of the 64 claims of its chain."""

    def __init__(self) -> None:
        self.body: dict[int, tuple[str, ...]] = {}
        self.close: dict[int, float] = {}
        self.counted: dict[int, Counter[str]] = {}
        self.holders: dict[str, list[int]] = {}  # word (stem) → the claims read that hold it, in the order read

    def add(self, num: int, body: tuple[str, ...], close: float) -> None:
        self.body[num], self.close[num] = body, close
        counted = self.counted[num] = Counter(map(itemgetter(1), content(body)))
        for stem in counted:
            got = self.holders.get(stem)
            if got is None:
                self.holders[stem] = [num]
            else:
                got.append(num)

    def holding(self, need: Counter[str], chain: Sequence[int]) -> list[int]:
        """The claims of ``chain`` read here that hold each word of ``need`` as often."""
        holders = self.holders
        rarest = min((holders.get(stem, ()) for stem in need), key=len)
        keys, counted = need.keys(), self.counted
        if len(rarest) < len(chain):
            within = set(chain)
            found = [a for a in rarest if a in within and keys <= counted[a].keys()]
        else:
            found = [a for a in chain if a in counted and keys <= counted[a].keys()]
        return [a for a in found if all(counted[a][stem] >= n for stem, n in need.items())]


def _bounds_said(said: tuple[str, ...]) -> frozenset[tuple[str, str]]:
    """The bounds (:data:`_BOUND_PAIRS`) a dependent's words ``said`` say themselves."""
    return frozenset(pair for pair in zip(said, said[1:]) if pair in _BOUND_PAIRS)


def _chooses(stretch: tuple[str, ...], own: frozenset[tuple[str, str]] = frozenset()) -> bool:
    """Whether a stretch of words (with the few around it) names alternatives: "or", "one of", "the other of", a
    Markush group ("selected from the group consisting of"); a dependent claim restating one of them chooses it,
    which narrows. A bound the dependent says itself (``own``, :func:`_bounds_said`: "the at least one native N
    channel transistor …" restating "at least one native N channel transistor …") is no choice; alternatives it
    says again are (n is "0 or 1" under "0, 1, 2 or 3")."""
    # "500 or more", "5 mm or less" is a bound, not two alternatives ("one or more" of a list is: LEU2 chosen from
    # "one or more reporter genes" of a list, Pap2Pat on train)
    alternatives = {w for k, w in enumerate(stretch) if not (
        w == "or" and stretch[k + 1 : k + 2] and stretch[k + 1] in OR_BOUND
        and any(ch.isdigit() for before in stretch[max(k - 2, 0) : k] for ch in before))}
    return not _ALTERNATIVE.isdisjoint(alternatives) or not _MARKUSH_WORDS.isdisjoint(stretch) or any(
        pair in _CHOICE_PAIRS and pair not in own for pair in zip(stretch, stretch[1:]))


def _forms(pairs: Iterable[tuple[int, str]], said: tuple[str, ...], ending: str) -> set[str]:
    """The stems of ``pairs`` ((position in ``said``, stem), as :func:`~spg.lint.clauses.content` gives them) whose
    word in ``said`` ends in ``ending``."""
    return {stem for i, stem in pairs if said[i].endswith(ending)}


def _unturned(stretch: Sequence[tuple[int, str]], body: tuple[str, ...], need: Counter[str], order: tuple[str, ...],
              passive: set[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The needed stems of a stretch (its (position, stem) pairs in ``body``) and the restatement's ``order`` of them,
    both without a verb the restatement says in the passive (``passive``) where the stretch has a step ("the
    programming step is repeated" under "repeating the programming step"): a verb moved behind its object is no two
    parts exchanged (:func:`_swapped`). Not the other way round: a step of "generating the approximation" under "wherein the
    approximation is generated …" adds the step to the method (Pap2Pat on train)."""
    turned = passive & _forms(stretch, body, "ing")
    return (tuple(x for _, x in stretch if x in need and x not in turned),
            tuple(x for x in order if x not in turned))


def _close(need: Counter[str], body: tuple[str, ...], order: tuple[str, ...], close: float,
           own: frozenset[tuple[str, str]], passive: set[str]) -> bool:
    """Whether the stems ``need`` (each as often as counted) all stand in one stretch of a claim's words ``body`` at most
    ``close`` times as many as they are, a stretch that names no alternatives (but for the restatement's ``own``
    bounds) and does not give two parts of the restatement (its stems in ``order``; ``passive``: its verbs in the
    passive) each other's place ("from the conservator to the compartment" is not restated by "from the compartment
    to the conservator")."""
    total = sum(need.values())
    where = content(body)
    have: Counter[str] = Counter()
    missing, lo = total, 0
    for hi, (_, stem) in enumerate(where):  # the shortest stretches holding every needed word, left to right
        if have[stem] < need[stem]:
            missing -= 1
        have[stem] += 1
        while missing == 0:
            first, last = where[lo][0], where[hi][0]
            if (hi - lo + 1 <= close * total and not _chooses(body[max(first - LEAD, 0) : last + LEAD + 1], own)
                    and not _swapped(*_unturned(where[lo : hi + 1], body, need, order, passive))):
                return True
            gone = where[lo][1]
            have[gone] -= 1
            if have[gone] < need[gone]:
                missing += 1
            lo += 1
    return False


def _another_thing(text: str, r: Reading, parent: Reading) -> bool:
    """Whether a dependent claim opening with an indefinite article claims a thing of its parent rather than what its
    parent claims ("A nanoparticle-antibody conjugate according to claim 1" under "A method of immunoassay … with a
    nanoparticle-antibody conjugate"): it claims another thing, so whether it narrows its parent is no question ("A
    method according to claim 2" claims what claim 2 claims)."""
    if not _INDEFINITE.match(text) or not r.subject or not parent.subject:
        return False
    return singular(r.subject[-1]) not in {singular(w) for w in parent.subject}


def _same_members(r: Reading, chain: Iterable[Reading]) -> bool:
    """Whether a dependent claim naming a Markush group ("selected from the group consisting of …") names it with all
    the members a claim of its chain gives it: its clauses, one per member, each stand in the parent's longer list, but
    fewer members narrow ("… ruthenium, palladium, platinum, iridium, and rhodium" under "… rhodium, nickel, copper,
    and iron"). Its words must end where a limitation of that claim ends."""
    if all(_MARKUSH_WORDS.isdisjoint(x) for x in r.limitations):
        return True  # most claims: no word of a group's opening, looked for first
    said = [w for x in r.limitations for w in x if w not in COPULA]
    if not any(pair in _MARKUSH for pair in zip(said, said[1:])):
        return True
    return any(_ends_a_limitation(said, [w for x in a.limitations for w in [*(_plain(x).split() or [""]), "|"]])
               for a in chain)


def _ends_a_limitation(said: list[str], words: list[str]) -> bool:
    """Whether ``said`` stands in ``words`` (a claim's limitations, each followed by "|"; one with no word but the
    copula as "") word for word, a "|" allowed between two of its words, and a "|" right after it: what a pattern
    of its words would search for, without compiling one per claim (that compilation cost more than the rest of
    the rule on Pap2Pat's long Markush claims)."""
    n = len(words)
    for start, word in enumerate(words):
        if word != said[0]:
            continue
        at = start + 1
        for w in said[1:]:
            at += at < n and words[at] == "|"
            if at >= n or words[at] != w:
                break
            at += 1
        else:
            if at < n and words[at] == "|":
                return True
    return False


def check_not_further_limiting(forest: Forest, readings: dict[int, Reading],
                               above: dict[int, tuple[int, ...]]) -> list[Finding]:
    """``not-further-limiting``: dependent claims whose every limitation their parent chain recites already, each
    compared as restatements read it (:func:`~spg.lint.clauses.gist`), or whose words that say what is claimed all
    stand close together in one claim of the chain (:func:`_said_closely`); the chain of a claim citing several in
    the alternative is what they share (``above``: :func:`~spg.lint.clauses.on_every_path`)."""
    # (the pattern needs a colon: looked for first, in C; searching every claim for the pattern cost more)
    listing = {n for n, c in forest.by_num.items() if ":" in c.text and _LISTS_ALTERNATIVES.search(c.text)}
    # each claim of a chain read once for all its dependents: its clauses joined (every one, and those that name no
    # alternatives) and, unless it lists alternatives, its words
    every: dict[int, str] = {}
    plain: dict[int, str] = {}
    joined: dict[tuple[int, ...], tuple[str, str]] = {}  # a chain's, for the siblings that share it
    words = _ChainWords()
    out = []
    for c in forest.claims:
        r = readings[c.num]
        if not c.parents or r.restates or forest.by_num[c.num] is not c or not above.get(c.num):
            continue
        if _another_thing(c.text, r, readings[above[c.num][0]]):
            continue
        if _cut_short(c.text):
            continue  # "… comprises one or more of:" (the list lost): what it adds is not there to compare
        chain = above[c.num]
        for a in [a for a in chain if a not in every]:  # most of a chain was read for the claims before
            clauses = readings[a].gists
            listed = a in listing
            plains = list(map(_plain, clauses))
            every[a] = "\n".join(plains)
            plain[a] = "\n".join(p for p, x in zip(plains, clauses) if _ALTERNATIVE.isdisjoint(x) and not listed)
            if not listed:
                words.add(a, readings[a].body, CLOSE if forest.by_num[a].parents else CLOSE_INDEPENDENT)
        if not r.limitations:
            why = "adds no limitation to"
        elif not _same_members(r, (readings[a] for a in chain)):
            continue
        elif r.gists and any(len(_plain(clause).split()) >= SHORTEST_NARROWING for clause in r.gists) and _all_recited(
            r.gists, *(joined.get(chain) or joined.setdefault(
                chain, ("\n".join(map(every.__getitem__, chain)), "\n".join(map(plain.__getitem__, chain)))))
        ):
            why = "only restates what is recited in"
        elif _said_closely(r.body, len(r.opening), chain, words):
            why = "only restates, in other words, what is recited in"
        else:
            continue
        cited = ", ".join(map(str, c.parents))
        out.append(Finding(
            "not-further-limiting", "warning", c.num,
            f"{why} claim {cited} or the claims it depends on; a dependent claim must further limit the claim it "
            "refers to (35 USC 112(d))", 0, len(c.text),
        ))
    return out


def check_repeated_limitations(forest: Forest, readings: dict[int, Reading]) -> list[Finding]:
    """``repeated-limitation``: a clause of at least :data:`SHORTEST_REPEATED` words that a claim recites twice
    (reported once per repeated clause, at the claim)."""
    out = []
    for c in forest.claims:
        # (each of its alternatives ends in a parenthesis: looked for first, in C)
        if forest.by_num[c.num] is not c or ")" in c.text and _LETTERED_ALTERNATIVES.search(c.text):
            continue
        markush: set[tuple[str, ...]] = set()
        seen: set[tuple[str, ...]] = set()
        joined: set[tuple[str, ...]] = set()  # the halves of clauses joined by "and" (_joined)
        reported: set[tuple[str, ...]] = set()
        # in the items of a Markush group ("A compound selected from the group consisting of: …; …")
        items = readings[c.num].opening[-2:] in _MARKUSH
        counted = [(k, said, _restated(said)) for k, said in enumerate(readings[c.num].limitations) if _counts(said)]
        shapes = {_shape(clause) for _, _, clause in counted}
        for k, said, clause in counted:
            halves = _joined(said, clause, shapes)
            if k == 0 and not c.parents:
                halves += _after_transition(said)
            # a half against a whole clause, either way round ("A and B" then "A and C" may say A of two things)
            again = clause if clause in seen or clause in joined else None
            if again is None and halves:
                again = next((x for x in halves if x in seen), None)
            if again is not None and again not in reported and not (items and again in markush and _named(said)):
                reported.add(again)
                shown = " ".join(said if again is clause else again)
                shown = shown if len(shown) <= 60 else shown[:59] + "…"
                out.append(Finding(
                    "repeated-limitation", "warning", c.num,
                    f"recites the limitation '{shown}' more than once; say it once", None, None, shown,
                ))
            seen.add(clause)
            joined.update(halves)
            if items:
                markush.add(clause)
                markush.update(halves)
            if clause[-2:] in _MARKUSH:
                items, markush = True, set()
    return out


def check_redundancy(forest: Forest, readings: dict[int, Reading] | None = None,
                     above: dict[int, tuple[int, ...]] | None = None) -> list[Finding]:
    """The findings of the three rules (``readings``: :func:`~spg.lint.clauses.read_claims` of the forest, ``above``:
    its :func:`~spg.lint.clauses.ancestry`, when the caller has them). Claims are compared with the abbreviations the set defines spelled out
    (:mod:`spg.lint.abbreviations`)."""
    readings = readings if readings is not None else read_claims(forest)
    short = defined([c.text for c in forest.claims])
    compared = readings
    if short:
        compared = {n: r if (body := spelled_out(r.body, short)) is r.body else replace(r, body=body)
                    for n, r in readings.items()}
    above = on_every_path(forest, above if above is not None else ancestry(forest))
    return (
        check_duplicates(forest, compared, above)
        + check_not_further_limiting(forest, compared, above)
        + check_repeated_limitations(forest, readings)
    )

"""Judging each definite reference against the introductions in its scope (the claim and every claim it depends
on), and the two public readers: :func:`check_antecedents` and :func:`reference_counts`."""

from __future__ import annotations

import heapq
import re
import sys
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from spg.forest import Claim, Forest
from spg.lint.antecedent.chunks import _Chunk, _chunks
from spg.lint.antecedent.words import (
    _ACTION_HEADS,
    _AFTER_HEAD,
    _CONTRAST,
    _FACES,
    _HAVING_ONLY_RE,
    _HAVING_RE,
    _IDIOM_HEADS,
    _ING_NOUNS,
    _IRREGULAR_PARTICIPLES,
    _NAMED,
    _NOMINAL_SUFFIXES,
    _NON_RESTRICTIVE,
    _OF_OWNER_RE,
    _ORDINALS_SET,
    _OWNER_ENDS,
    _PARTS,
    _POSITIONAL,
    _POSTPOSITIVE,
    _PREPOSITIONS,
    _PROPERTIES,
    _TOKEN_RE,
    _american,
    _bare_verb,
    _compound_nouns,
    _modifier_only,
    _plural_form,
    _singular,
)
from spg.parse import bare_citation, claim_parents

# ("A step stool designed to fold flat and have removable lids and a lower step …": "have" and "has" end a preamble
# as "having" does)
_TRANSITIONS = frozenset({"comprising", "comprises", "including", "includes", "consisting", "having", "has", "have",
                          ":"})
# where a claim recites an element of its own (what comes after "having", "with", "of" is a part or property of
# the element before it, which two elements may each have)
_ELEMENT_OPENERS = frozenset({";", ",", ":", "and", "comprising", "comprises", "comprise", "wherein", ""})
_PART_OPENERS = frozenset({"having", "has", "have", "with", "including", "includes", "each", "of"})
_LONGEST_PART = 12  # tokens of one item of a list of parts ("a fore side, an aft side facing the tail, and …")
_LISTED_AFTER_OF = frozenset({"a", "an", "at", "one", "two", "three", "four", "several", "multiple", "plural",
                              "first", "second", "each", "said"})
_LIST_OPENERS = frozenset({";", ":", "comprising", "comprises", "comprise", "wherein"})
# what may follow an element without telling it from another of the same name: nothing, a predicate ("a lower step is
# pivoted …"), or a relative pronoun with a copula, which is one ("a lower step that is fixed …; a lower step that is
# pivoted …" says two things of one element, as "is" does; "a processor that processes …" restricts, as "for" does)
_PREDICATES = frozenset({(), (";",), (",",), (".",), (":",), ("and",), ("is",), ("are",), ("being",), ("wherein",)})
_RELATIVE_PREDICATES = frozenset((pronoun, copula) for pronoun in ("that", "which") for copula in ("is", "are"))
_MARKUSH = r"\b(?:consisting of|(?:selected|chosen) (?:from|among))"  # a Markush group's opening
_MARKUSH_RE = re.compile(_MARKUSH + r"\b")
_MARKUSH_LIST_RE = re.compile(_MARKUSH + r"\s*:")
_DEPENDENT_WORDS = 8  # words after an element that tell a dependent claim's from its parent's (told_apart)


@dataclass(frozen=True)
class AntecedentFinding:
    """A reference without (or with ambiguous) antecedent basis: ``forest.by_num[claim].text[start:end] == term``."""

    claim: int
    start: int
    end: int
    term: str
    rule: str  # "antecedent" or "antecedent-ambiguous"
    message: str


def _cited(claim: Claim, i: int, index: dict[int, int]) -> list[int]:
    """Document indices of the claims ``claim`` (at index ``i``) depends on: its parents that exist, or else a
    parent its opening names in a way the parser leaves independent (an earlier claim only: a reading, not a
    citation)."""
    cited = sorted({index[p] for p in claim.parents if p in index and index[p] != i})
    if cited:
        return cited
    # "The printhead according to 1, wherein said notch …": a parent cited by its number alone is the claim's scope
    # all the same (the parser leaves such a claim independent, as the gold links do)
    bare = bare_citation(claim.text, claim.num)
    if bare is not None and bare in index and index[bare] < i:
        return [index[bare]]
    if "cl" in claim.text[:60].lower():
        # "The fastener of clam 27, wherein the cushion members …": a citation in the opening that the gold links
        # (USPTO reference tags) do not know, a misspelt "claim", is the claim's scope too; the parser reads it
        # (claim_parents), only the links handed to it leave the claim independent
        return sorted({index[n] for n in claim_parents(claim.text[:60], claim.num) if n in index and index[n] < i})
    return []


def _reading_order(cited: list[list[int]]) -> list[int]:
    """Document indices in an order that reads every claim after the claims it cites, otherwise in document order
    (the earliest ready claim first). A claim in a citation cycle never becomes ready: the earliest one left is read
    next, without the parents not read yet. O(n log n)."""
    waiting = [len(ps) for ps in cited]
    children: list[list[int]] = [[] for _ in cited]
    for i, ps in enumerate(cited):
        for p in ps:
            children[p].append(i)
    ready = [i for i, w in enumerate(waiting) if w == 0]
    order: list[int] = []
    placed = [False] * len(cited)
    stuck = 0  # the earliest claim that may be left in a cycle
    while len(order) < len(cited):
        if not ready:
            while placed[stuck]:
                stuck += 1
            ready = [stuck]
        i = heapq.heappop(ready)
        if placed[i]:
            continue
        placed[i] = True
        order.append(i)
        for child in children[i]:
            waiting[child] -= 1
            if waiting[child] == 0:
                heapq.heappush(ready, child)
    return order


class _Ancestry:
    """``is_ancestor(a, c)`` for claim indices in O(1): tree intervals, bit sets under multiple dependency.

    Indices are positions in the reading order (``claims``, ``order``): every claim after the claims it cites, so
    a claim citing a later one ("2. The grinder of claim 3") is read with its real chain, 2 → 3 → 1, in scope; the
    forward reference itself is the structure rule's finding."""

    def __init__(self, forest: Forest) -> None:
        index = {c.num: i for i, c in reversed(list(enumerate(forest.claims)))}
        cited = [_cited(c, i, index) for i, c in enumerate(forest.claims)]
        self.order = _reading_order(cited)
        self.claims = [forest.claims[i] for i in self.order]
        position = [0] * len(cited)
        for k, i in enumerate(self.order):
            position[i] = k
        # a claim in a citation cycle keeps only the parents read before it (the structure rules report the cycle)
        self.parents = [sorted(position[p] for p in cited[i] if position[p] < k) for k, i in enumerate(self.order)]
        n = len(self.parents)
        children: list[list[int]] = [[] for _ in range(n)]
        self.multi = [False] * n  # the claim or one of its ancestors cites several parents
        for i, ps in enumerate(self.parents):
            self.multi[i] = len(ps) > 1 or any(self.multi[p] for p in ps)
            if len(ps) == 1:
                children[ps[0]].append(i)
        self.tin, self.tout = [0] * n, [0] * n
        clock = 0
        for root in range(n):
            if len(self.parents[root]) == 1:
                continue
            stack = [(root, False)]
            while stack:  # iterative: a 9,999-deep chain must not hit the recursion limit
                node, done = stack.pop()
                if done:
                    self.tout[node] = clock
                else:
                    self.tin[node] = clock
                    stack.append((node, True))
                    stack.extend((child, False) for child in children[node])
                clock += 1
        self.bits: dict[int, int] = {}

    def bits_of(self, c: int) -> int:
        """Ancestors of a claim under a multiple dependency, as a bit set (memoised, walked without recursion)."""
        stack = [c]
        while stack:
            node = stack[-1]
            if node in self.bits:
                stack.pop()
                continue
            pending = [p for p in self.parents[node] if p not in self.bits]
            if pending:
                stack.extend(pending)
                continue
            got = 0
            for p in self.parents[node]:
                got |= (1 << p) | self.bits[p]
            self.bits[node] = got
            stack.pop()
        return self.bits[c]

    def is_ancestor(self, a: int, c: int) -> bool:
        if a >= c:
            return False
        if not self.multi[c]:
            return self.tin[a] < self.tin[c] and self.tout[c] < self.tout[a]
        return bool(self.bits_of(c) >> a & 1)


def _contradicts(mods: tuple[str, ...], introduced: list[_Chunk]) -> bool:
    """Whether a positional modifier of a reference excludes every introduction of its head in scope."""
    for m in mods:
        group = _CONTRAST.get(m)
        if (
            group is not None
            and not any(m in c.words for c in introduced)
            and any(_CONTRAST.get(w) == group for c in introduced for w in c.words[:-1])
        ):
            return True
    return False


def _ends_with(words: tuple[str, ...], head: str) -> bool:
    """Whether a phrase ends in ``head``, or would have but for a participle after it ("a layer covering …")."""
    last = len(words) - 1
    return any(w == head and (j == last or words[j + 1].endswith(("ing", "ed"))) for j, w in enumerate(words))


def _supports(intro: _Chunk, head: str, mods: tuple[str, ...]) -> bool:
    """Whether ``intro`` holds ``head`` with every modifier in ``mods`` before it ("a first panel element" supports
    "the element", "the panel" and "the first panel element", not "the second panel element")."""
    words = intro.words
    if not mods:
        return head in words or head in intro.parts
    for j in range(len(words) - 1, 0, -1):
        if words[j] == head:
            before = words[:j]
            if not [m for m in mods if m not in before]:
                return True
    return False


def _spells(words: tuple[str, ...], target: str, headed: bool = False) -> bool:
    """Whether consecutive words (or hyphenated parts) of ``words``, ending at the end of a word (with ``headed``,
    of the last word), join to ``target``."""
    parts = [(part, m == len(w.split("-")) - 1) for w in words for m, part in enumerate(w.split("-"))]
    for end in range(len(parts) - 1, -1, -1):
        if not parts[end][1]:
            continue
        if headed and end < len(parts) - 1:
            break
        joined = ""
        for i in range(end, -1, -1):
            joined = parts[i][0] + joined
            if joined == target:
                return True
            if len(joined) >= len(target):
                break
    return False


def _stem(verb: str) -> str:
    """ "determining", "determined" → "determin": what a gerund, a participle and a nominalisation share."""
    return verb[:-3] if verb.endswith("ing") else verb[:-2] if verb.endswith("ed") else verb


# nouns ending as postpositive adjectives do ("a cable", "a turntable")
_ABLE_NOUNS = frozenset({"table", "cable", "variable", "vegetable", "consumable", "disposable", "deliverable",
                         "receivable", "collectible", "syllable", "stable", "turntable", "timetable", "constable"})
# what opens the object of a participle right after it ("a vector encoding a protein", "a liquid filling at least a
# majority of the grooves", "a frame holding each wheel"): a noun is not followed so
_OBJECT_OPENERS = frozenset({"the", "a", "an", "said", "each", "at", "one"})


def _bare(ch: _Chunk, tokens: list[str]) -> tuple[str, ...]:
    """An element's words as a drafter recites the element again on its own: without a last postpositive adjective
    ("inner element rotatable" → "inner element"), or without a last "-ing" word that an adverb before it or an
    object after it (:data:`_OBJECT_OPENERS`) shows to be a participle, not a noun ("an articulating joint assembly
    rotatably coupling the first member …" → "articulating joint assembly", "a vector encoding a protein" → "vector";
    "a drive coupling" keeps its noun)."""
    words = ch.words
    if len(words) > 1 and words[-1].endswith(("able", "ible")) and words[-1] not in _ABLE_NOUNS:
        return words[:-1]
    if len(words) > 1 and words[-1].endswith("ing") and (
        ch.adverb_last or (ch.end < len(tokens) and tokens[ch.end].lower() in _OBJECT_OPENERS)
    ):
        return words[:-1]
    return words



class _Markush:
    """Where one claim's text (lower case) has Markush groups, semicolons and "wherein", found once: in_markush asks
    for each element whether a group stands between the last of them and the element, and searching back from each
    made a long claim quadratic. A group found in the whole text is one :meth:`in_markush` found between two places,
    as the element starts a word (a group's last letter is no word of its own)."""

    def __init__(self, text: str) -> None:
        self.groups = [m.span() for m in _MARKUSH_RE.finditer(text)]
        self.lists = [m.span() for m in _MARKUSH_LIST_RE.finditer(text)]
        self.semicolons = [m.start() for m in re.finditer(";", text)]
        self.wherein = [m.start() for m in re.finditer("wherein", text)]

    @staticmethod
    def after(starts: list[int], end: int) -> int:
        """The last of ``starts`` before ``end``, or -1 (``str.rfind``)."""
        k = bisect_left(starts, end)
        return starts[k - 1] if k else -1

    @staticmethod
    def group_in(spans: list[tuple[int, int]], start: int, end: int) -> bool:
        k = bisect_right(spans, (start, -1))
        return k < len(spans) and spans[k][1] <= end


class _Reader:
    """One forest's state while its claims are read in order."""

    def __init__(self, forest: Forest) -> None:
        self.ancestry = _Ancestry(forest)
        self.claims = self.ancestry.claims  # in reading order: a chunk's ``claim`` indexes this list
        self.index: dict[str, list[_Chunk]] = {}  # word → introductions holding it, in reading order
        self.acted: dict[str, list[tuple[int, int, str]]] = {}  # action prefix → (claim, token, word)
        # claim → character offsets of its tokens, start and end of each in turn (an array: a tuple each took a
        # fifth of the memory a long claim needs)
        self.spans: dict[int, array] = {}
        self.text = ""  # the whole claim set in lower case, joined only where a finding needs it
        self.named: dict[tuple[int, int], _Chunk] = {}  # (claim, end token) → a definite reference with basis
        self.again: list[tuple[_Chunk, _Chunk]] = []  # (introduction, the earlier one of the claim it repeats)
        self.body = 0  # the token where the claim being read leaves its preamble (an independent claim's)
        # claim → (its tokens, where its body starts, the words naming what it claims: "step", "stool"), kept for
        # the claims read before: a dependent claim's introduction is compared with its parents' in their own words
        self.context: dict[int, tuple[list[str], int, tuple[str, ...]]] = {}
        # (claim, words without a last postpositive "-able" word) → the first two of the body's introductions read so
        # that introduced_again compares with (_first_alone): the first, and the first in other words than it
        self.bare: dict[tuple[int, tuple[str, ...]], list[_Chunk]] = {}
        self.links: list[tuple[_Chunk, _Chunk]] | None = None  # (reference, its introduction), kept for the term map
        self.markush: dict[int, _Markush] = {}  # claim → where its Markush groups are (in_markush)

    def mentions(self, word: str) -> int:
        """How often ``word`` occurs in the claim set (as a substring: an over-count only keeps a finding)."""
        if not self.text:
            self.text = " ".join(c.text for c in self.claims).lower()
        return self.text.count(word)

    def span(self, ch: _Chunk) -> tuple[int, int]:
        """Character offsets of a chunk in its claim's text (tokens are only located where a finding needs them)."""
        spans = self.spans.get(ch.claim)
        if spans is None:
            found = _TOKEN_RE.finditer(self.claims[ch.claim].text)
            spans = self.spans[ch.claim] = array("q", (i for m in found for i in m.span()))
        return spans[2 * ch.start], spans[2 * ch.end - 1]

    def quote(self, ch: _Chunk) -> str:
        start, end = self.span(ch)
        return f"'{self.claims[ch.claim].text[start:end]}' (claim {self.claims[ch.claim].num})"

    def in_scope(self, claim: int, token: int, ref: _Chunk) -> bool:
        return (claim == ref.claim and token < ref.start) or self.ancestry.is_ancestor(claim, ref.claim)

    def introduce(self, ch: _Chunk) -> None:
        if ch.article and ch.clean and not ch.preamble and ch.recited:
            earlier = self.matches(ch, ch.words[-1], ch.words[:-1], exact=True)
            if earlier and earlier[0].taken and earlier[0].claim != ch.claim and earlier[0].same is None:
                ch.reintroduces = earlier[0]
        if ch.article and not ch.preamble and ch.start >= self.body and ch.recited:
            # a phrase cut at a participle ("an electric" of "an electric powered brake system") too: the words
            # after it tell two such introductions apart or not (introduced_again)
            # the phrase reader keeps a postpositive "-able" word in the phrase ("an inner element rotatable within
            # …"): a drafter recites that element again without it ("…; and an inner element"), or the other way
            key = (ch.claim, _bare(ch, self.tokens))
            earlier = self.matches(ch, ch.words[-1], ch.words[:-1], exact=True, articled=True)
            earlier += [c for c in self.bare.get(key, ()) if c.words != ch.words][:1]
            self.introduced_again(ch, earlier)
            self.keep_bare(key, ch)
        index = self.index
        for w in ch.words:  # a word twice in one phrase lists it twice: harmless, matches() stops at two
            got = index.get(w)
            if got is None:
                index[w] = [ch]
            else:
                got.append(ch)
            if "-" in w:  # "a strip-line" is found for "the strip line" too (compounded())
                index.setdefault(w.replace("-", ""), []).append(ch)
                parts = _compound_nouns(w)
                if parts:
                    ch.parts += parts
                    for part in parts:
                        index.setdefault(part, []).append(ch)

    def introduced_again(self, ch: _Chunk, earlier: list[_Chunk]) -> None:
        """Record ``ch`` when its claim's body recited the same element before, word for word, each time as an
        element of its own ("…; a lower step pivoted to …; a lower step connected to …"), or when a claim it depends
        on did, as an element of its own there ("1. A stool comprising a frame … 3. The stool of claim 1, further
        comprising a frame"): rule ``multiple-introduction``.
        Not a part recited for each of two owners ("a bumper having a fore side …, a landing gear having a fore
        side"), alternatives ("an anode or a cathode, … the other of an anode or a cathode", a Markush group) or what
        a reference numeral or modifier tells apart ("a second frame", "an additional frame", "another frame" and "a
        plurality of frames" are no such introduction: the phrase reader gives them other words or no article)."""
        # a phrase read whole across a participle ("a gas supplying means") is compared whole as well as cut (the
        # participle may take an object: "a memory storing instructions")
        if len(ch.words[-1]) < 2 or (ch.same is not None and not ch.joined):
            return
        alone = self.recited_alone(ch)
        for c in earlier:
            if not c.article or c.implied or (c.same is not None and not c.joined):
                continue
            if c.claim == ch.claim:
                if alone and self.recited_alone(c):
                    if not (self.in_markush(c) or self.told_apart(c, ch)):
                        self.again.append((ch, c))
                    return
            elif (
                # c is in a claim ch's claim depends on (matches() reads only the scope), in every claim it cites,
                # and each is recited as an element of its own claim; a dependent claim adds an element with a longer
                # restrictive phrase than a list item has ("further comprising a mechanism configured and operable
                # for positioning the door" under "a mechanism configured and operable for moving the cob …"): the
                # words after each are compared further
                alone
                and not ch.implied
                and c.recited
                and self.in_every_parent(c.claim, ch.claim)
                and self.recited_alone(c)
                and not self.told_apart(c, ch, _DEPENDENT_WORDS)
                and not self.in_markush(c)
                and not self.in_markush(ch)
            ):
                self.again.append((ch, c))
                return

    def keep_bare(self, key: tuple[int, tuple[str, ...]], ch: _Chunk) -> None:
        """Keep ``ch`` under its bare words if it is the first, or the first in other words, that introduced_again
        would compare with: every one read so is in the same claim, where only the first element of its own (not
        implied, recited alone) counts, so keeping them all made a long claim repeating one element quadratic."""
        kept = self.bare.setdefault(key, [])
        if len(kept) == 2 or (kept and kept[0].words == ch.words):
            return
        if ch.article and not ch.implied and (ch.same is None or ch.joined) and self.recited_alone(ch):
            kept.append(ch)

    def in_every_parent(self, earlier: int, claim: int) -> bool:
        """Whether claim index ``earlier`` is in the scope of every claim ``claim`` cites: a claim citing "any of
        claims 1 to 11" is read with each alone, and introduces what only some of them introduced."""
        anc = self.ancestry
        return all(p == earlier or anc.is_ancestor(earlier, p) for p in anc.parents[claim])

    def owned_by_claim(self, claim: int, i: int) -> bool:
        """ "the step stool having a lower step" in a step stool's claim: what the claimed thing itself has is an
        element of the claim, as after its transition, not a part of some other element."""
        tokens, _, subject = self.context[claim]
        n = len(subject)
        return 0 < n < i and tokens[i - n - 1].lower() in ("the", "said") and all(
            t.lower().startswith(w) for t, w in zip(tokens[i - n : i], subject)
        )

    def recited_alone(self, c: _Chunk) -> bool:
        """Whether ``c`` is recited as an element of its claim's own, read in its own claim's words."""
        tokens, body, _ = self.context[c.claim]
        if c.start < body:
            return False
        before = tokens[c.start - 1].lower() if c.start > 0 else ""
        after = tokens[c.end].lower() if c.end < len(tokens) else ""
        if after in ("or", "of", "'", "'s", "’", "’s"):
            return False  # "an address of the client" names what something else has
        if before not in _ELEMENT_OPENERS and not (before in _PART_OPENERS and self.owned_by_claim(c.claim, c.start - 1)):
            return False
        if before == ",":
            # an item of a list of alternatives: "R2 is a hydrogen atom, a halogen atom, alkyl, or …"
            for t in tokens[c.end : c.end + 40]:
                if t in (";", "."):
                    break
                if t.lower() == "or":
                    return False
        if before in (",", "and"):
            # a list goes on what opened it: "a bumper having a fore side and an aft side" lists parts; an item
            # as long as a clause ("…, the probe being rotatable relative to the first member, and a grip") ends
            # no list of parts: what follows it is the claim's next element
            # "of" opens such a list with an element of its own or a "said" list ("each of said displaying a
            # list, a preview, and …"), not "the commencement of tracking, and a controller"
            # the list walked back stops at the transition: a list the body opens is the claim's elements
            item, nxt = 0, ""
            for m in range(c.start - 2, max(c.start - 41, body - 1), -1):
                t = tokens[m].lower()
                if t in _PART_OPENERS and (nxt in _LISTED_AFTER_OF if t == "of" else nxt not in ("the", "said")):
                    return self.owned_by_claim(c.claim, m)
                nxt = t
                if t in _LIST_OPENERS or item > _LONGEST_PART:
                    break
                item = 0 if t == "," else item + 1
        return True

    def told_apart(self, a: _Chunk, b: _Chunk, words: int = 3) -> bool:
        """Whether what follows two introductions of the same words names two elements. "a means for executing …;
        a means for determining …", "a pointer to a file, a pointer to an engine": a restrictive phrase after each
        names two elements ("a lower step is pivoted …; a lower step is fixed …" says two things of what reads as
        one, and "…; and a lower step." adds one the reader cannot tell apart). A reference numeral is no such
        phrase: two numerals tell two elements apart ("a gear (12) …; a gear (14)"), a numeral on one of them alone
        tells nothing ("a gear on the shaft; and a gear (12)"). ``words``: how many words after each are compared."""
        (numeral_a, at_a), (numeral_b, at_b) = self.numeral(a), self.numeral(b)
        if numeral_a and numeral_b:
            return numeral_a != numeral_b
        after = [tuple(t.lower() for t in self.context[x.claim][0][i : i + words]) for x, i in ((a, at_a), (b, at_b))]
        return after[0] != after[1] and not any(x[:1] in _PREDICATES or x[:2] in _RELATIVE_PREDICATES for x in after)

    def numeral(self, x: _Chunk) -> tuple[tuple[str, ...], int]:
        """(the reference numeral right after a chunk, "(12)", or nothing; the token after both)."""
        tokens = self.context[x.claim][0]
        i = x.end
        if i < len(tokens) and tokens[i] == "(":
            close = next((k for k in range(i + 1, min(i + 8, len(tokens))) if tokens[k] == ")"), 0)
            if close and any(d.isdigit() for t in tokens[i + 1 : close] for d in t):
                return tuple(tokens[i + 1 : close]), close + 1
        return (), i

    def in_markush(self, c: _Chunk) -> bool:
        """Whether a Markush group lists ``c`` as an alternative: in its clause ("selected from the group consisting
        of water, a solvent, and …"), or, opened by a colon, in its "wherein" clause ("wherein R1 is chosen from: a
        hydrogen atom; a phenyl radical; …")."""
        where = self.markush.get(c.claim)
        if where is None:
            where = self.markush[c.claim] = _Markush(self.claims[c.claim].text.lower())
        first = self.span(c)[0]
        return where.group_in(where.groups, where.after(where.semicolons, first) + 1, first) or where.group_in(
            where.lists, max(where.after(where.wherein, first - len("wherein") + 1), 0), first)

    def act(self, claim: int, actions: list[tuple[str, int]]) -> None:
        for word, token in actions:
            stem = _stem(word)
            if len(stem) > 2:
                self.acted.setdefault(stem[:3], []).append((claim, token, stem))

    def matches(
        self,
        ref: _Chunk,
        head: str,
        mods: tuple[str, ...],
        exact: bool = False,
        headed: bool = False,
        explicit: bool = False,
        ending: bool = False,
        articled: bool = False,
    ) -> list[_Chunk]:
        """Introductions in ``ref``'s scope that support (head, mods), most recent first (at most two); ``exact``:
        only those reading exactly so, ``headed``: only those whose head is ``head``, ``explicit``: not the
        ordinals a count implies, ``ending``: only those whose last word is ``head``, ``articled``: only those with
        "a"/"an" (two mentions of "another electrode" after "an electrode" must not hide it from a third "an
        electrode": only the two most recent are returned)."""
        out = []
        claim, start, anc, singular = ref.claim, ref.start, self.ancestry, ref.singular
        # the scope test of in_scope, unrolled: it runs for every candidate of every reference
        multi = anc.multi[claim]
        bits = anc.bits_of(claim) if multi else 0
        tin, tout = anc.tin, anc.tout
        tin_c, tout_c = tin[claim], tout[claim]
        for c in reversed(self.index.get(head, ())):
            cc = c.claim
            if cc == claim:
                if c.start >= start:
                    continue
            elif multi:
                if not bits >> cc & 1:
                    continue
            elif not (tin[cc] < tin_c and tout_c < tout[cc]):
                continue
            if (headed and not _ends_with(c.words, head)) or (explicit and c.implied) or (c.collective and singular):
                continue
            if (ending and c.words[-1] != head) or (articled and not c.article):
                continue
            if (c.words[-1] == head and c.words[:-1] == mods) if exact else _supports(c, head, mods):
                out.append(c)
                if len(out) == 2:
                    break
        return out

    def find(self, ref: _Chunk, head: str, mods: tuple[str, ...], explicit: bool = False) -> list[_Chunk]:
        """:meth:`matches`, and if none, again without the reference's participle modifiers ("the heated gas" ←
        "a gas")."""
        found = self.matches(ref, head, mods, explicit=explicit)
        if not found and any(r.endswith(("ed", "ing")) for r in ref.raw[:-1]):
            plain = tuple(w for w, r in zip(mods, ref.raw) if not r.endswith(("ed", "ing")))
            found = self.matches(ref, head, plain, explicit=explicit)
        return found

    def ordinals_named(self, ref: _Chunk, head: str) -> bool:
        """Whether an explicit introduction in ``ref``'s scope gives ``head`` an ordinal ("a first strap section")."""
        return any(
            not c.implied
            and c.words[-1] == head
            and not _ORDINALS_SET.isdisjoint(c.words)
            and self.in_scope(c.claim, c.start, ref)
            for c in self.index.get(head, ())
        )

    def owned_part(self, ref: _Chunk, words: tuple[str, ...]) -> bool:
        """ "said dome plate outer portion" ← "a dome plate having … an outer portion": a part named after its owner
        (the outer portion of said dome plate) has basis when the owner is an element in scope and the part, with
        its positional modifiers, is introduced in scope. The owner carries no positional modifier of its own."""
        for s in range(1, len(words) - 1):
            owner, part = words[:s], words[s:]
            if not _POSITIONAL.isdisjoint(owner):
                break
            if _POSITIONAL.isdisjoint(part[:-1]):
                continue  # an unmodified face is the rule above
            if self.matches(ref, owner[-1], owner[:-1], headed=True, explicit=True) and self.matches(
                ref, part[-1], part[:-1], explicit=True
            ):
                return True
        return False

    def has_part(self, ref: _Chunk, owner: tuple[str, ...], in_scope: list[_Chunk]) -> bool:
        """ "the voltage follower output" ← "a voltage follower having an input and an output": a part named after
        its owner has basis when the claim introduced the part as the owner's: the owner's introduction followed
        by "having", "comprising", "with" … and, within a few words, the part (MPEP 2173.05(e)). The owner may be
        named by a reference with basis as well ("said elevator having a … motor": "the elevator motor"), and the
        part may be any element, not only a part or property: what a claim says an element has is that element's.
        Such an element must follow the verb directly ("having a … motor"): "detect contact with the object and
        produce a pressure signal" gives "contact" no signal."""
        direct = ref.words[-1] not in _PARTS
        parts = [c for c in in_scope if not c.definite and not c.implied]
        if not parts:
            return False
        pairs = [
            (o, c)
            for o in self.matches(ref, owner[-1], owner[:-1], headed=True, explicit=True, ending=True)
            for c in parts
            if c.claim == o.claim and o.end <= c.start <= o.end + 20
        ]
        # an owner named by a reference, looked up by where it ends (a constant number of places per part: no scan
        # of every reference of the claim set)
        named = self.named
        for c in parts:
            for end in range(c.start, max(c.start - 21, 0), -1):
                d = named.get((c.claim, end))
                if d is not None and d.words == owner and self.in_scope(d.claim, d.start, ref):
                    pairs.append((d, c))
        for o, c in pairs:
            text = self.claims[c.claim].text
            between = text[self.span(o)[1] : self.span(c)[0]]
            if direct:
                if _HAVING_ONLY_RE.fullmatch(between):
                    return True
            elif _HAVING_RE.match(between) and not re.search(r"[;.]", between):
                return True
        return False

    def of_owner(self, ref: _Chunk, in_scope: list[_Chunk]) -> bool:
        """ "the right retainer flange segment" ← "a right segment of the retainer flange", "the thermal oxide layer"
        ← "a layer of a thermal oxide": "X of the Y" and the compound "the Y X" are one element (a noun names its
        owner or material before it or after it with "of"; MPEP 2173.05(e) asks only that the referent be clear), and
        so are "X at/on/in the Y" and "the Y X" ("said distal tip contact electrode" ← "a contact electrode at said
        distal tip"). The reference must read the introduction's modifiers and the owner as the introduction's
        phrase writes it, whole, the owner before or after those modifiers, then its head: a swapped or added
        first/second, inlet/outlet … modifier still finds nothing."""
        words = ref.words
        for c in in_scope:
            k = len(c.words) - 1
            if c.definite or c.implied or len(words) - 1 <= k:
                continue
            if words[:k] == c.words[:-1]:
                owner = words[k:-1]  # "the right retainer flange segment" ← "a right segment of the retainer flange"
            elif words[-k - 1 :] == c.words:
                owner = words[: -k - 1]  # "said distal tip contact electrode" ← "a contact electrode at said distal tip"
            else:
                continue
            text = self.claims[c.claim].text
            end = self.span(c)[1]
            got = _OF_OWNER_RE.match(text, end)
            if got is None:
                continue
            tail = _TOKEN_RE.findall(text[got.end() : got.end() + 120])
            n = len(owner)
            if (
                len(tail) >= n
                and tuple(_american(_singular(t.lower())) for t in tail[:n]) == owner
                # the owner ends there: punctuation, a function word or nothing after it, not a noun it modifies
                and (len(tail) == n or not tail[n][0].isalpha() or tail[n].lower() in _OWNER_ENDS)
            ):
                return True
        return False

    def reordered(self, ref: _Chunk, in_scope: list[_Chunk]) -> bool:
        """ "the fibrous non-cellulosic material" ← "non cellulosic fibrous material": the same modifiers in another
        order (a hyphen or a space between the parts of one) name the same element; a modifier added, dropped or
        swapped ("the second upper layer" after "an upper first layer") is no reordering."""
        words = ref.words
        key = sorted(p for w in words[:-1] for p in w.split("-") if p)
        return any(
            c.words != words and not c.implied and sorted(p for w in c.words[:-1] for p in w.split("-") if p) == key
            for c in in_scope
        )

    def acted_before(self, ref: _Chunk, gerund: str) -> bool:
        """Whether the claim, in ``ref``'s scope, performs the action ``gerund`` names ("determining …")."""
        named = _stem(gerund)
        return any(w == named and self.in_scope(c, t, ref) for c, t, w in self.acted.get(named[:3], ()))

    def named_action(self, ref: _Chunk) -> bool:
        """ "the determining step" after "determining …"; "the determination" after "determining …"."""
        words = ref.words
        head = words[-1]
        if ref.raw[0].endswith("ing") and (
            len(words) == 1
            or (
                head in _ACTION_HEADS
                # the action's object may stand between ("said adding weight step" after "the step of adding weight")
                and all(w in _ACTION_HEADS or self.matches(ref, w, ()) for w in words[1:-1])
            )
        ):
            return self.acted_before(ref, ref.raw[0])
        if len(words) == 2 and head in _ACTION_HEADS:
            # "the communication step" after "communicating …": the nominalisation names the action, as "the
            # communicating step" would
            head = ref.raw[0]
        if len(head) > 5 and head.endswith(_NOMINAL_SUFFIXES) and _POSITIONAL.isdisjoint(words):
            # a positional modifier names one of several things ("the first position", "the right vertical
            # extension"), not the action "positioned", "extending" names
            for c, t, stem in self.acted.get(head[:3], ()):
                common = next((m for m, (x, y) in enumerate(zip(stem, head)) if x != y), min(len(stem), len(head)))
                if common >= max(3, len(stem) - 2) and self.in_scope(c, t, ref):
                    return True
        return False

    def compounded(self, ref: _Chunk, words: tuple[str, ...], headed: bool = False) -> bool:
        """Whether an introduction in scope spells ``words`` as one compound, written open, hyphenated or closed
        ("the foot plate" ← "a footplate", "the strip-line" ← "a strip line", "the machine interface" ← "a
        man-machine interface"): the same letters, from the start of a word (or of a hyphenated part) to the end
        of a word of the introduction (with ``headed``, of its last word)."""
        target = "".join(words).replace("-", "")
        if len(target) < 6:
            return False
        index = self.index
        for p in range(len(target) - 2):
            for c in index.get(target[p:], ()):
                if c.implied or (c.collective and ref.singular):
                    continue
                if _spells(c.words, target, headed) and self.in_scope(c.claim, c.start, ref):
                    return True
        return False

    def based(self, ref: _Chunk, cut: int, loose: bool = True, strict: bool = False) -> bool:
        """Whether the first ``cut`` words of ``ref`` have basis as a phrase of their own, ending at an
        introduction's head; with ``loose``, a participle modifier may be added as in :meth:`judge` ("the opened
        film tube" ← "opened film tube", whose participle opens no phrase); with ``strict``, only an introduction
        that ends there, as written, counts ("said body allowing access" ← "a body", not "a body holding ledge")."""
        forms = [(r, w) for r, w in zip(ref.raw[:cut], ref.forms[:cut]) if r not in _NON_RESTRICTIVE]
        if not forms:
            return False
        head = forms[-1][1]
        mods = tuple(w for _, w in forms[:-1])
        if (
            len(forms) == 1
            and forms[0][0].endswith("ing")
            and forms[0][0] not in _ING_NOUNS
            and not (cut == len(ref.raw) - 1 and ref.after in ("is", "are", "was", "were", "being"))
            # "the towing performed by", "the annealing takes place": an action named by its gerund ("towing the
            # cable …") is the phrase, as named_action reads "the towing" alone; a word the verb "are" follows is
            # the head, not a verb ("the flanking regions are", after "DNA flanking the gene")
            and self.acted_before(ref, forms[0][0])
        ):
            return True
        if strict:
            return bool(self.matches(ref, head, mods, headed=True, explicit=True, ending=True))
        if self.matches(ref, head, mods, headed=True, explicit=True):
            return True
        # "the machine interface controls" ← "a man-machine interface"
        if self.compounded(ref, mods + (head,), headed=True):
            return True
        if not loose:
            return False
        plain = tuple(w for r, w in forms[:-1] if not r.endswith(("ed", "ing")))
        return plain != mods and bool(self.matches(ref, head, plain, headed=True, explicit=True))

    def object_of(self, ref: _Chunk, cut: int) -> None:
        """A reference read up to the verb at ``cut``: the words after that verb are its object, a noun phrase with
        no determiner, which introduces them as any bare noun phrase does ("the narrowband transmitter sends
        instructions", then "said instructions"; "the first assignment representing initial clustering")."""
        tail = tuple(w for r, w in zip(ref.raw[cut + 1 :], ref.forms[cut + 1 :]) if r not in _NON_RESTRICTIVE)
        if tail:
            part = _Chunk(ref.claim, ref.end - 1, ref.end, tail, ref.raw[cut + 1 :])
            part.singular = ref.singular
            self.introduce(part)
        return None

    def judge(self, ref: _Chunk) -> tuple[str, list[_Chunk]] | None:
        """None when ``ref`` has basis; else ("antecedent", [closest]) or ("antecedent-ambiguous", [two])."""
        words = ref.words
        head, mods = words[-1], words[:-1]
        found = self.find(ref, head, mods)
        if found and found[0].implied and self.ordinals_named(ref, head):
            # a claim set that introduces "a first strap section" itself counts its members explicitly: "two strap
            # sections" then implies no ordinal (a first/second slip there is still found)
            found = self.find(ref, head, mods, explicit=True)
        if found:
            latest = found[0]
            latest.taken = True
            if self.links is not None:
                self.links.append((ref, latest))
            if (
                latest.reintroduces is not None
                and latest.claim != ref.claim
                and latest.words == words
                and ref.clean
                and ref.singular
            ):
                # a claim that re-introduces an element and then refers to it means its own, nearest introduction
                # ("further comprising a widget, wherein the widget is blue"; "said hinge assembly comprises a
                # hinge body …, said hinge body being …"); a claim below it may mean either
                return "antecedent-ambiguous", [latest.reintroduces, latest]
            return None
        same_head = [c for c in reversed(self.index.get(head, ())) if c.words[-1] == head]
        in_scope = [c for c in same_head if self.in_scope(c.claim, c.start, ref)]
        if ref.inherent and not _contradicts(mods, in_scope):
            return None
        base = (in_scope[0].same or in_scope[0]).words if in_scope else ()  # what was written, not a reading of it
        # "a second plurality of tubular receptacles" writes "second" for its members, as a plural reference
        # reads them ("said second shorter tubular receptacles"; a singular one does not say which)
        if (
            not ref.singular
            and in_scope
            and any(
                all(m in words or m not in _POSITIONAL for m in mods)
                for words in [base] + [c.words for c in in_scope if c.collective]
            )
        ):
            return None  # a plural reference to what several introductions of its head share: "the ASIC chips"
        if self.named_action(ref) or self.compounded(ref, words):
            return None
        if ref.of_named and self.mentions(head) == 1:
            # "the body of said shoe": a part named once, with its owner, is that owner's (MPEP 2173.05(e)); a noun
            # the claims return to is an element they track, and it needs an introduction of its own
            return None
        if (
            mods
            and head in _FACES
            and _POSITIONAL.isdisjoint(mods)
            and self.matches(ref, mods[-1], mods[:-1], headed=True)
        ):
            return None  # a face of an element named before it: "the organic tissue surface" ← "an organic tissue"
        if head in _PARTS and len(mods) > 1 and self.owned_part(ref, words):
            return None
        if mods and _POSITIONAL.isdisjoint(mods) and self.has_part(ref, mods, in_scope):
            return None
        if len(mods) > 1 and (self.of_owner(ref, in_scope) or self.reordered(ref, in_scope)):
            return None
        raw = ref.raw
        if ref.adverb_last and self.based(ref, len(raw) - 1):
            # an adverb before the last word: that word is a predicate, not a head ("said retention member
            # rotatably moveable about an axis"); an adverb modifies a verb or adjective, never a head noun
            return None
        for cut in range(len(raw) - 1, 0, -1):
            # it ran into a verb ("the oxygen content falls", "the third layer employs RTCP"): read up to it
            verb = raw[cut]
            last = cut == len(raw) - 1
            ran_into_verb = (
                (last and verb.endswith(("ed", "ing")) and (verb not in _ING_NOUNS or ref.complement))
                # an irregular participle with its complement: "the pull bolt held by", "the address sent to"
                or (last and verb in _IRREGULAR_PARTICIPLES and ref.complement)
                # a bare verb agreeing with a plural or coordinated subject, with its complement after it: "the
                # arm and the ridge create a wall", "the microcarrier elements flow into", "the brushhead move"
                or (last and ref.plural_subject and ref.complement)
                # a postpositive adjective or adverb particle closing the phrase: "drawing the nozzle assembly
                # forward and …"
                or (last and verb in _POSTPOSITIVE)
                # a bare verb right after a plural noun it agrees with, with its object or complement after it:
                # "said annular grooves prevent side loading", "the elements instantiate engines"
                or (_plural_form(raw[cut - 1]) and _bare_verb(verb) and (not last or ref.complement))
                # a verb in "-s" with its object or complement: "the washing water penetrates through"
                or (verb.endswith("s") and not verb.endswith("ss") and (not last or ref.complement))
                # and one after a singular noun with a preposition of level ("said measured oxygen content falls
                # below a minimum"): a plural noun takes those itself ("the electrodes below the layer"), a singular
                # one is not written in "-s"
                or (
                    last
                    and verb.endswith("s")
                    and not verb.endswith(("ss", "us", "is"))
                    and ref.after in ("below", "above", "beneath")
                    and not raw[cut - 1].endswith("s")
                )
                # one in "-s" taking a gerund: "said reproducing means starts reproducing said scene"
                or (
                    last
                    and verb.endswith("s")
                    and not verb.endswith("ss")
                    and len(ref.after) > 4
                    and ref.after.endswith("ing")
                    and ref.after not in _ING_NOUNS
                )
            )
            if ran_into_verb and self.based(ref, cut):
                self.object_of(ref, cut)
                return None
            if (
                # an irregular participle with a prepositional complement: "the information sent in the sending
                # step", "the welder set at about 7" (a noun takes "of": "the data set of", never read so)
                (last and verb in _IRREGULAR_PARTICIPLES and ref.after in _PREPOSITIONS)
                # "output" and "input" are participles too, and with an agent after them nothing else: "the data
                # output by the demultiplexer"
                or (last and verb in ("output", "input") and ref.after == "by")
                # a predicate adjective in "-ive" after its noun, alone or with its complement: "the interface
                # responsive to", "making the counter inoperative", "the network indicative of"
                or (last and len(verb) > 6 and verb.endswith("ive") and verb not in _POSITIONAL)
                # and one in "-able"/"-ible" with its complement (alone it is as often a noun, "the variable"):
                # "the program code executable by a processor", "the marker detectable in"
                or (last and len(verb) > 6 and verb.endswith(("able", "ible")) and ref.after in _PREPOSITIONS)
                # a bare verb before a determiner: a noun phrase never runs into "the", "a" or "said" (a missing
                # semicolon or agreement: "the posterior region satisfy the relation", "the second cluster
                # calculate a combined workload")
                # (a fronted prepositional phrase before its subject is not one: "in said pre-treatment step a
                # mixture is used")
                or (last and ref.after in ("the", "a", "an", "said") and _bare_verb(verb) and ref.before not in _PREPOSITIONS)
                # an "-ing" participle with its object and "to" before a noun phrase: "said body allowing access
                # to said chamber" (a compound noun is written so too, "the heat treating region", but hardly ever
                # right before the preposition "to"; "the image partitioning process to generate" is infinitive)
                or (
                    cut == len(raw) - 2
                    and verb.endswith("ing")
                    and verb not in _ING_NOUNS
                    and ref.after == "to the"
                )
                # a bare verb after a plural noun with an adverb of relation after it: "the side plates move
                # relative to the housing", "the arms move apart"
                or (last and _plural_form(raw[cut - 1]) and _bare_verb(verb) and ref.after in _AFTER_HEAD)
                # an "-ing" participle right after a plural noun, with its object after it: a reduced relative clause
                # ("said first and second tabs facilitating location of said device"); a plural noun is seldom a
                # modifier of a compound ("the tab facilitating location" would be read as before)
                or (
                    not last
                    and verb.endswith("ing")
                    and verb not in _ING_NOUNS
                    and raw[cut - 1] != ref.forms[cut - 1]
                    and _plural_form(raw[cut - 1])
                )
            ) and self.based(ref, cut, strict=True):
                # each reads the phrase up to that word only against an introduction ending there as written, so
                # a swapped head ("a body holding gasket" for "a body holding ledge") is still found
                self.object_of(ref, cut)
                return None
            if (
                # an ordinal after a noun opens a second noun phrase, the object of a verb taking two ("receiving from
                # the first remote server first information", "sending the client second data"); a part named after
                # its owner keeps it ("said housing first end"), and so does a modifier before it ("the upper first")
                not last
                and verb in _ORDINALS_SET
                and not _modifier_only(raw[cut - 1])
                and not raw[cut - 1].endswith(("ed", "ing"))
                and ref.forms[-1] not in _PARTS
                and self.based(ref, cut, strict=True)
            ):
                self.object_of(ref, cut - 1)
                return None
            # a last word in "-s" may be a verb or a plural head ("the background labels"): read up to it, but
            # then only as the introduction reads (a phrase ran_into_verb found no basis for has none so either)
            if not ran_into_verb and verb.endswith("s") and not verb.endswith("ss") and self.based(ref, cut, loose=False):
                return None
        # One element of that kind in scope and modifiers that set it against nothing: the referent is clear
        # ("the golf club shaft" when the claim has one shaft; Energizer v. ITC, MPEP 2173.05(e)). A positional
        # or ordinal modifier the introduction lacks ("the second layer" after "a layer") is never added freely.
        if (
            in_scope
            and len({(c.same or c).words for c in in_scope}) == 1
            and all(m in base or m not in _POSITIONAL for m in mods)
        ):
            return None
        # out of scope, the message names the introduction the claim would need: the same words if written, not
        # merely the latest of that head ("a front frame" for "the front frame", not the "a rear frame" after it)
        elsewhere = [c for c in same_head if not c.definite]
        return "antecedent", in_scope[:1] or ([c for c in elsewhere if c.words == words] or elsewhere)[:1]


def _read(forest: Forest, report: bool, reader: _Reader | None = None) -> tuple[list[AntecedentFinding], int, int]:
    """(findings when ``report``, definite references, those with basis) — one pass for every public reader."""
    reader = reader or _Reader(forest)
    claims = reader.claims
    findings: list[AntecedentFinding] = []
    blocks: list[tuple[int, int]] = []  # (document index, where its claim's findings start), in reading order
    total = resolved = 0
    for ci, claim in enumerate(claims):
        here = len(findings)
        blocks.append((reader.ancestry.order[ci], here))
        tokens = list(map(sys.intern, _TOKEN_RE.findall(claim.text)))  # a word once, however often it recurs
        dependent = bool(reader.ancestry.parents[ci])
        chunks, actions = _chunks(tokens, ci, dependent)
        reader.body = 0 if dependent else _body_start(tokens)
        reader.tokens = tokens
        reader.context[ci] = (tokens, reader.body, chunks[0].words if chunks and chunks[0].start <= 1 else ())
        reader.act(ci, actions)
        reported: set[tuple[str, ...]] = set()
        flagged: set[int] = set()  # chunks reported in this claim, by id
        for ch in chunks:
            if not ch.definite:
                reader.introduce(ch)
                continue
            if ch.subject or (
                ch.words[-1] in _IDIOM_HEADS
                and (len(ch.words) == 1 or (ch.words[-1] not in _NAMED and _POSITIONAL.isdisjoint(ch.words)))
            ):
                if ch.defines and ch.words[-1] in _PROPERTIES:
                    # a symbol defined as a quantity names that quantity ("t is the total optical path length");
                    # one defined as a thing classifies it ("R is the aliphatic side chain") and introduces nothing
                    reader.introduce(ch)
                continue
            total += 1
            verdict = reader.judge(ch)
            if verdict is not None and ch.alone is not None:
                shared = ch.words, ch.raw, ch.forms
                ch.words, ch.raw, ch.forms = ch.alone
                if reader.judge(ch) is None:
                    verdict = None
                else:
                    ch.words, ch.raw, ch.forms = shared
            if verdict is None:
                resolved += 1
                reader.named[ch.claim, ch.end] = ch  # an owner for has_part ("said elevator having a motor")
                continue
            rule, related = verdict
            if rule == "antecedent":
                reader.introduce(ch)  # reported once: later mentions here and in dependent claims lean on it
            if report and ch.words not in reported and not (ch.partner is not None and id(ch.partner) in flagged):
                # "said first and second members" with neither introduced is one missing phrase, reported once
                reported.add(ch.words)
                flagged.add(id(ch))
                findings.append(_finding(reader, ch, rule, related))
        if reader.again:
            if report:
                findings += _introduced_again(reader)
                findings[here:] = sorted(findings[here:], key=lambda f: f.start)
            reader.again.clear()
    if report:  # back to claim order
        ends = [start for _, start in blocks[1:]] + [len(findings)]
        findings = [f for (_, start), end in sorted(zip(blocks, ends)) for f in findings[start:end]]
    return findings, total, resolved


def _body_start(tokens: list[str]) -> int:
    """The token after an independent claim's transitional phrase ("comprising", "including", ":" …; the first
    60 tokens), or 0: what the preamble introduces ("A step stool for a ladder comprising: a ladder …") the body may
    recite again."""
    for i, t in enumerate(tokens[:60]):
        if t.lower() in _TRANSITIONS:
            return i + 1
    return 0


def _introduced_again(reader: _Reader) -> list[AntecedentFinding]:
    """``multiple-introduction`` findings of the claim just read, one per element."""
    out, seen = [], set()
    for ch, earlier in reader.again:
        # one element, once: its words, or its place where two readings of one phrase ("a gas" and "a gas supplying
        # means") both repeat an earlier one
        if ch.words in seen or ch.start in seen:
            continue
        seen.update((ch.words, ch.start))
        num = reader.claims[ch.claim].num
        start, end = reader.span(ch)
        term = reader.claims[ch.claim].text[start:end]
        out.append(AntecedentFinding(
            num, start, end, term, "multiple-introduction",
            f"'{term}' introduces again what {reader.quote(earlier)} introduced; a later 'the …' could mean either "
            "(say 'the …' for the same element, or tell the two apart: 'a first …', 'a second …')",
        ))
    return out


def _finding(reader: _Reader, ref: _Chunk, rule: str, related: list[_Chunk]) -> AntecedentFinding:
    num = reader.claims[ref.claim].num
    start, end = reader.span(ref)
    term = reader.claims[ref.claim].text[start:end]
    if rule == "antecedent-ambiguous":
        a, b = related
        message = (
            f"'{term}' in claim {num} could refer to {reader.quote(a)} or to {reader.quote(b)}, which introduces "
            "it again after it was referred to"
        )
    else:
        message = f"'{term}' has no antecedent basis in claim {num} or the claims it depends on"
        if related and reader.in_scope(related[0].claim, related[0].start, ref):
            message += f" (closest: {reader.quote(related[0])})"
        elif related:
            message += f" ({reader.quote(related[0])} introduces it, but claim {num} does not depend on that claim)"
    return AntecedentFinding(num, start, end, term, rule, message)


def check_antecedents(forest: Forest) -> list[AntecedentFinding]:
    """Every definite reference without antecedent basis, or ambiguous between two introductions, in claim order
    and then by position (how claims are read: the module docstring)."""
    return _read(forest, True)[0]


def reference_counts(forest: Forest) -> tuple[int, int]:
    """(definite references, those with unambiguous antecedent basis), as :func:`check_antecedents` reads them."""
    _, total, resolved = _read(forest, False)
    return total, resolved

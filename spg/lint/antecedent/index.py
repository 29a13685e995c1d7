"""The introductions of a claim set as it is read: each word's introductions in reading order, their scope, and the
elements a claim recites twice (rule ``multiple-introduction``)."""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right

from spg.forest import Forest
from spg.lint.antecedent.chunks import _Chunk
from spg.lint.antecedent.order import _Ancestry
from spg.lint.antecedent.support import _bare, _ends_with, _stem, _supports
from spg.lint.antecedent.words import _compound_nouns, _offsets, _Tokens

# where a claim recites an element of its own (what comes after "having", "with", "of" is a part or property of
# the element before it, which two elements may each have)
_ELEMENT_OPENERS = frozenset({";", ",", ":", "and", "comprising", "comprises", "comprise", "wherein", ""})
_PART_OPENERS = frozenset({"having", "has", "have", "with", "including", "includes", "each", "of"})
_LONGEST_PART = 12  # tokens of one item of a list of parts ("a fore side, an aft side facing the tail, and …")
_LISTED_AFTER_OF = frozenset({"a", "an", "at", "one", "two", "three", "four", "several", "multiple", "plural",
                              "first", "second", "each", "said"})
_LIST_OPENERS = frozenset({";", ":", "comprising", "comprises", "comprise", "wherein"})
_SENTENCE_STOPS = frozenset({";", "."})
# what may follow an element without telling it from another of the same name: nothing, a predicate ("a lower step is
# pivoted …"), or a relative pronoun with a copula, which is one ("a lower step that is fixed …; a lower step that is
# pivoted …" says two things of one element, as "is" does; "a processor that processes …" restricts, as "for" does)
_PREDICATES = frozenset({(), (";",), (",",), (".",), (":",), ("and",), ("is",), ("are",), ("being",), ("wherein",)})
_RELATIVE_PREDICATES = frozenset((pronoun, copula) for pronoun in ("that", "which") for copula in ("is", "are"))
_MARKUSH = r"\b(?:consisting of|(?:selected|chosen) (?:from|among))"  # a Markush group's opening
_MARKUSH_RE = re.compile(_MARKUSH + r"\b")
_MARKUSH_LIST_RE = re.compile(_MARKUSH + r"\s*:")
_DEPENDENT_WORDS = 8  # words after an element that tell a dependent claim's from its parent's (told_apart)


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


class _Index:
    """One forest's introductions while its claims are read in order: what each word introduced where, which of
    them are in a reference's scope (:meth:`matches`), and the elements a claim introduces again."""

    def __init__(self, forest: Forest) -> None:
        self.ancestry = _Ancestry(forest)
        self.claims = self.ancestry.claims  # in reading order: a chunk's ``claim`` indexes this list
        self.index: dict[str, list[_Chunk]] = {}  # word → introductions holding it, in reading order
        self.acted: dict[str, list[tuple[int, int, str]]] = {}  # action prefix → (claim, token, word)
        # claim → character offsets of its first tokens, start and end of each in turn, as far as a finding needed
        # them (an array: a tuple each took a fifth of the memory a long claim needs)
        self.spans: dict[int, array] = {}
        self.text = ""  # the whole claim set in lower case, joined only where a finding needs it
        self.named: dict[tuple[int, int], _Chunk] = {}  # (claim, end token) → a definite reference with basis
        self.again: list[tuple[_Chunk, _Chunk]] = []  # (introduction, the earlier one of the claim it repeats)
        self.body = 0  # the token where the claim being read leaves its preamble (an independent claim's)
        self.read: _Tokens | None = None  # the claim being read, its tokens: where introductions and references are read
        # claim → (its tokens, where its body starts, the words naming what it claims: "step", "stool", its tokens in
        # lower case), kept for the claims read before: a dependent claim's introduction is compared with its
        # parents' in their own words (lowered once: recited_alone reads up to 40 tokens around each introduction)
        self.context: dict[int, tuple[tuple[str, ...], int, tuple[str, ...], tuple[str, ...]]] = {}
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
            spans = self.spans[ch.claim] = array("q")
        if len(spans) < 2 * ch.end:
            _offsets(self.claims[ch.claim].text, self.context[ch.claim][0], spans, ch.end)
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
            key = (ch.claim, _bare(ch, self.read.tokens))
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
        _, _, subject, lows = self.context[claim]
        n = len(subject)
        return 0 < n < i and lows[i - n - 1] in ("the", "said") and all(
            t.startswith(w) for t, w in zip(lows[i - n : i], subject)
        )

    def recited_alone(self, c: _Chunk) -> bool:
        """Whether ``c`` is recited as an element of its claim's own, read in its own claim's words."""
        if c.element is None:  # kept: the first element of a long claim is asked again for each repeat of it
            c.element = self._recited_alone(c)
        return c.element

    def _recited_alone(self, c: _Chunk) -> bool:
        _, body, _, lows = self.context[c.claim]
        if c.start < body:
            return False
        before = lows[c.start - 1] if c.start > 0 else ""
        after = lows[c.end] if c.end < len(lows) else ""
        if after in ("or", "of", "'", "'s", "’", "’s"):
            return False  # "an address of the client" names what something else has
        if before not in _ELEMENT_OPENERS and not (before in _PART_OPENERS and self.owned_by_claim(c.claim, c.start - 1)):
            return False
        if before == ",":
            # an item of a list of alternatives: "R2 is a hydrogen atom, a halogen atom, alkyl, or …" (an "or" before
            # the next ";" or ".", found by list searches in C: a long claim asks this of each of its elements)
            ahead = lows[c.end : c.end + 40]
            if "or" in ahead and _SENTENCE_STOPS.isdisjoint(ahead[: ahead.index("or")]):
                return False
        if before in (",", "and") and not _PART_OPENERS.isdisjoint(lows[max(c.start - 41, body - 1) + 1 : c.start - 1]):
            # a list goes on what opened it: "a bumper having a fore side and an aft side" lists parts; an item
            # as long as a clause ("…, the probe being rotatable relative to the first member, and a grip") ends
            # no list of parts: what follows it is the claim's next element
            # "of" opens such a list with an element of its own or a "said" list ("each of said displaying a
            # list, a preview, and …"), not "the commencement of tracking, and a controller"
            # the list walked back stops at the transition: a list the body opens is the claim's elements (walked only
            # where a part opener stands within its reach: without one it ends in True)
            item, nxt = 0, ""
            for m in range(c.start - 2, max(c.start - 41, body - 1), -1):
                t = lows[m]
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
        after = [tuple(self.context[x.claim][3][i : i + words]) for x, i in ((a, at_a), (b, at_b))]
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
        if c.markush is None:  # kept: the first element of a long claim is asked again for each repeat of it
            c.markush = self._in_markush(c)
        return c.markush

    def _in_markush(self, c: _Chunk) -> bool:
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
        whole = mods + (head,) if exact else None  # what ``exact`` asks for
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
            if c.words == whole if exact else _supports(c, head, mods):
                out.append(c)
                if len(out) == 2:
                    break
        return out

"""What the restatement reader reads of one dependent claim: a few numbers comparing the text after its citation
with the claims up its chain and with its earlier siblings (the claims citing the same parents before it).

Words are compared as the drafting rules compare them (:func:`spg.lint.clauses.content`: content words without
their inflection), meanings by the static vectors' cosine (:mod:`spg.lint.meaning.vectors`), so that "tallying"
under "counting" and a limitation said in other words count as the chain's. Each claim is read once per set.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from functools import cached_property
from itertools import chain as chained

import numpy as np

from spg.forest import Forest
from spg.lint.clauses import OR_BOUND, READ_WITH_NEIGHBOURS, Reading, content
from spg.lint.meaning.vectors import Vectors

FEATURES = (
    "new_chain", "new_chain_words", "cos_chain", "cos_chain_least", "trigrams_chain", "new_like_chain", "new_sibling",
    "lost_sibling", "differ_sibling", "cos_sibling", "trigrams_sibling", "self_repeat", "words", "new_words",
    "has_sibling",
)


class _Read:
    """One claim's words as the features compare them: the content words of its limitations (a dependent claim's
    text after its citation; an independent claim's after its transition) or of its whole text (``body``, whose
    content words the word rules have read already: :func:`content` keeps them). Its vectors are filled in by
    :class:`SetFeatures`, for all claims of a set at once."""

    def __init__(self, reading: Reading, whole: bool) -> None:
        said = reading.body if whole else tuple(chained.from_iterable(reading.limitations))
        got = content(said)
        places, stems = zip(*got) if got else ((), ())
        self.stems = frozenset(stems)
        # a word with two readings keeps its first: content() gives the words in order, a word's stems together, so
        # read back to front the stem a place keeps last is its first
        first = dict(zip(places[::-1], stems[::-1]))
        seq = list(first.values())[::-1]
        grams = len(seq) - 2
        self.trigrams = frozenset(zip(seq, seq[1:], seq[2:]))
        # a model caught in a loop says the same run of words again and again within one claim
        self.self_repeat = 1 - len(self.trigrams) / grams if grams > 0 else 0.0
        self.said = frozenset(said)
        self.places = list(first)[::-1]  # where its content words stand, in order
        self.words = list(map(said.__getitem__, self.places))
        self.text = said  # the words read, in order
        self._columns = places, stems
        self.word_ids: frozenset[int] = frozenset()
        self.vector: np.ndarray | None = None
        self.clause_vectors: np.ndarray | None = None  # each limitation's content words, the same for both readings

    @cached_property
    def by_stem(self) -> dict[str, str]:
        """The word each stem was last read from (asked of a dependent claim's words new to its chain only)."""
        places, stems = self._columns
        return dict(zip(stems, map(self.text.__getitem__, places)))


def _clause_words(reading: Reading, own: _Read | None, whole: _Read | None) -> list[list[str]]:
    """The content words of each limitation that has one. Where no word of a limitation reads across its ends in
    :func:`content` (its last word is none read with the word after it, and none of its words is a bound said after
    its number, ``OR_BOUND``, which reads the word before it and looks back past it), the places content() reads in
    it are those it reads in the same words anywhere: ``own`` (the claim's limitations read together) or else
    ``whole`` (its whole text, where every limitation stands in order) holds them already, its words a slice of theirs.
    """
    clauses = []
    at = start = 0  # where the limitation starts in the limitations read together, where it was last found in whole
    for lim in reading.limitations:
        end = at + len(lim)
        if lim[-1] in READ_WITH_NEIGHBOURS or not OR_BOUND.keys().isdisjoint(lim):
            clauses.append([lim[p] for p in dict.fromkeys(p for p, _ in content(lim))])
        elif own is not None:
            clauses.append(own.words[bisect_left(own.places, at) : bisect_left(own.places, end)])
        else:
            body = whole.text  # the first run of the limitation's words after the last one found: never past its own
            start = body.index(lim[0], start)
            while body[start : start + len(lim)] != lim:
                start = body.index(lim[0], start + 1)
            clauses.append(whole.words[bisect_left(whole.places, start) : bisect_left(whole.places, start + len(lim))])
            start += len(lim)
        at = end
    return [c for c in clauses if c]


class _Chain:
    """What the claims up one chain say together (siblings share their chain: read once for all of them)."""

    def __init__(self, chain: tuple[int, ...], up: list[_Read], unit_rows: np.ndarray) -> None:
        self.stems = frozenset().union(*(u.stems for u in up))
        self.trigrams = frozenset().union(*(u.trigrams for u in up))
        self.said = frozenset().union(*(u.said for u in up))
        words = frozenset().union(*(u.word_ids for u in up))
        # each word's vector of length 1 (numpy reads a list of indices number by number: an array, made in one
        # call, is taken faster)
        self.word_rows = unit_rows[np.fromiter(words, np.intp, len(words))]
        self.owners = [a for a, u in zip(chain, up) if u.clause_vectors is not None for _ in range(len(u.clause_vectors))]
        self.clauses = np.concatenate([u.clause_vectors for u in up if u.clause_vectors is not None]) \
            if self.owners else None


class SetFeatures:
    """The features of the dependent claims of one claim set (``readings`` and ``above`` as the drafting rules read
    them: :func:`spg.lint.clauses.read_claims`, :func:`spg.lint.clauses.ancestry`)."""

    def __init__(self, forest: Forest, readings: dict[int, Reading], above: dict[int, tuple[int, ...]],
                 vectors: Vectors) -> None:
        self.forest, self.readings, self.vectors = forest, readings, vectors
        self.chains: dict[tuple[int, ...], _Chain] = {}
        # the claims citing one set of parents, in order (the first of each number): a claim's siblings
        self.by_parents: dict[tuple[int, ...], list[tuple[int, int]]] = {}
        for index, c in enumerate(forest.claims):
            if c.parents and forest.by_num.get(c.num) is c:
                self.by_parents.setdefault(tuple(c.parents), []).append((index, c.num))
        # every claim read once, each way it is compared: its own limitations (a dependent claim) and its whole text
        # (a claim up some chain)
        own = list(dict.fromkeys(c.num for c in forest.claims if c.parents and c.num in readings))
        # the claims up each one's chain that have a reading, nearest first
        self.up = {num: tuple(a for a in above.get(num, ()) if a in readings) for num in own}
        whole = list(dict.fromkeys(a for num in own for a in self.up[num]))
        self.own = {num: _Read(readings[num], False) for num in own}
        self.whole = {num: _Read(readings[num], True) for num in whole}
        clauses = {num: _clause_words(readings[num], self.own.get(num), self.whole.get(num))
                   for num in dict.fromkeys([*own, *whole])}
        # then every word of the set looked up in one call and every vector summed in one numpy call, in the order
        # the claims are read (:meth:`_reads`): a word's row is numbered where first met, and the matrix of the
        # new_like_chain feature follows that numbering to the last bit
        groups: list[tuple[_Read | None, int, list[str]]] = []
        for r, num in self._reads(clauses):
            if r is None:
                groups += [(None, num, c) for c in clauses[num]]
            else:
                groups.append((r, num, r.words))
        flat = vectors.ids([w for _, _, words in groups for w in words])
        summed: list[list[int]] = []
        of: list[_Read | int] = []  # what each summed vector is: a claim's own words, or one limitation of a claim
        at = 0
        for r, num, words in groups:
            got = flat[at:at + len(words)]
            at += len(words)
            if r is not None:
                r.word_ids = frozenset(got)
            if r is None or r is self.own.get(num):
                summed.append(got)
                of.append(num if r is None else r)
        # each reading's vector a row of the set's matrix, and a claim's limitations (summed one after another) a
        # block of its rows: views, where a copy each cost more than the products read from them
        units = vectors.units(summed)
        clause_rows: dict[int, list[int]] = {}
        for row, who in enumerate(of):
            if isinstance(who, _Read):
                who.vector = units[row]
            else:
                clause_rows.setdefault(who, []).append(row)
        for num, rows in clause_rows.items():
            for r in (self.own.get(num), self.whole.get(num)):
                if r is not None:
                    r.clause_vectors = units[rows[0] : rows[-1] + 1]

    def _reads(self, clauses: dict[int, list[list[str]]]):
        """(a claim's :class:`_Read`, or None for its limitations, its number) in the order :meth:`features` reads
        them for each dependent claim in turn: its limitations and own words; then, where there is something to
        compare, each claim up its chain (limitations, whole text) and its siblings."""
        owned, wholes, summed = set(), set(), set()  # the claims whose own words, whole text, limitations are in

        def limitations(num: int):
            if num not in summed:
                summed.add(num)
                yield None, num

        def own(num: int):
            if num not in owned:
                owned.add(num)
                yield from limitations(num)
                yield self.own[num], num

        claims = self.forest.claims
        first = [i for i, c in enumerate(claims) if c.parents and self.forest.by_num.get(c.num) is c]
        rest = [i for i, c in enumerate(claims) if c.parents and self.forest.by_num.get(c.num) is not c]
        for index in first + rest:  # a repeated number's later claims last, as only the training script reads them
            num = claims[index].num
            chain = self.up.get(num)
            if not chain or self.readings[num].restates:
                continue
            yield from own(num)
            if not self.own[num].stems or not clauses[num]:
                continue
            for a in chain:
                if a not in wholes:
                    wholes.add(a)
                    yield from limitations(a)
                    yield self.whole[a], a
            for sibling in self.siblings(index):
                yield from own(sibling)

    def _chain(self, chain: tuple[int, ...]) -> _Chain:
        if chain not in self.chains:
            self.chains[chain] = _Chain(chain, [self.whole[a] for a in chain], self.vectors.unit_rows)
        return self.chains[chain]

    def siblings(self, index: int) -> list[int]:
        """The earlier claims citing what ``forest.claims[index]`` cites (the first of each number)."""
        claim = self.forest.claims[index]
        group = self.by_parents.get(tuple(claim.parents), [])
        return [num for _, num in group[: bisect_left(group, (index, -1))] if num != claim.num]

    def features(self, index: int) -> tuple[list[float], int] | None:
        """(:data:`FEATURES`, the claim it reads closest to) for the dependent claim ``forest.claims[index]``; None
        where there is nothing to read (no chain, or no content word after its citation)."""
        claim = self.forest.claims[index]
        chain = self.up.get(claim.num)
        if not chain or self.readings[claim.num].restates:
            return None
        me = self.own[claim.num]
        if not me.stems or me.clause_vectors is None:
            return None
        up = self._chain(chain)
        new = me.stems - up.stems
        best_chain, cos_chain, least = chain[0], 0.0, 0.0
        if up.owners:
            # the products as numpy gave them (their last bits follow the shapes BLAS is called with), read in Python:
            # a few numbers each, where numpy's reductions cost more than they do
            sims = (me.clause_vectors @ up.clauses.T).tolist()
            whole = (up.clauses @ me.vector).tolist()
            at = max(range(len(whole)), key=whole.__getitem__)  # the first of equals, as argmax
            best_chain, cos_chain = up.owners[at], whole[at]
            least = min(map(max, sims))
        # how alike the new words are to the chain's words: a synonym is new to the word rules, not to a reader
        like = 1.0
        if new:
            like = 0.0
            if len(up.word_rows):
                rows = self.vectors.unit_rows
                sims = rows[self.vectors.ids([me.by_stem[s] for s in sorted(new)])] @ up.word_rows.T
                best = sims.max(1)
                # best.mean() to the last bit (float32 sum, then the division), without numpy's Python-level wrapper;
                # one word's is its own
                like = float(best[0]) if len(best) == 1 else float(np.float32(float(best.sum()) / len(best)))
        # the sibling read closest; siblings written on purpose differ in a word or two either way ("greater"
        # against "less", "away from" against "to"), so what it says that this claim does not counts too
        nums = self.siblings(index)
        sibs = [self.own[num] for num in nums]
        new_sib, lost_sib, differ, cos_sib, tri_sib, best_sib = 1.0, 1.0, 1.0, 0.0, 0.0, None
        if sibs:
            cos = (np.array([s.vector for s in sibs]) @ me.vector).tolist()
            cos = [c if s.stems else -math.inf for c, s in zip(cos, sibs)]
            at = max(range(len(cos)), key=cos.__getitem__)
            if cos[at] > 0:
                s = sibs[at]
                cos_sib, best_sib = cos[at], nums[at]
                new_sib = len(me.stems - s.stems) / len(me.stems)
                lost_sib = len(s.stems - me.stems) / len(s.stems)
                differ = len(me.said ^ s.said) / len(me.said | s.said)
                tri_sib = len(me.trigrams & s.trigrams) / len(me.trigrams) if me.trigrams else 0.0
        tri_chain = len(me.trigrams & up.trigrams) / len(me.trigrams) if me.trigrams else 0.0
        closest = best_sib if best_sib is not None and cos_sib > cos_chain else best_chain
        return [
            len(new) / len(me.stems), len(me.said - up.said) / len(me.said), cos_chain, least, tri_chain, like,
            new_sib, lost_sib, differ, cos_sib, tri_sib, me.self_repeat, math.log1p(len(me.stems)),
            math.log1p(len(new)), float(bool(sibs)),
        ], closest

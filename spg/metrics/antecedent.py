"""Antecedent basis: every definite reference ("the X", "said X") needs an earlier indefinite one ("a X").

One implementation serves two readers:

* PatentScore_rule's Antecedent Consistency (appendix, Eq. ante) scores a claim set given as **plain text**
  and, as the paper says, resolves a reference against the indefinite introductions *occurring earlier in
  the text* — the whole claim set before it, whatever claim they sit in.
* ``spg lint`` checks a :class:`~spg.forest.Forest` and scopes each claim as patent practice does: a claim's
  antecedents are its own earlier text plus the full text of its ancestors (every cited parent, transitively).
  A dependent claim cannot lean on a sibling claim, which the plain-text reading would allow.

Noun phrases come from a pattern, not a parser (see docs/patentscore.md for every choice):

* a mention is a determiner followed by up to four words, ending before a stop word (preposition,
  conjunction, verb, pronoun…), punctuation, a number or a fifth word;
* indefinite determiners: "a", "an", "one or more", "at least one", "a plurality of";
  definite: "the", "said", and those followed by "at least one", "one or more", "plurality of";
* keys are lowercased and crudely singularised ("layers" → "layer"); a one-word reference is resolved by an
  earlier introduction with the same head noun (last word), a longer one by an introduction ending in the
  same bigram ("the first layer" needs "a first layer", "the layer" is satisfied by "a first layer");
* a definite reference that is the subject of a claim reference ("The method of claim 1", "said claim") is a
  "claim k" reference and resolved automatically; idioms ("the same", "the other", "the group consisting of"…)
  are not references.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from spg.forest import Forest


def _wordset(*chunks: str) -> frozenset[str]:
    return frozenset(w for chunk in chunks for w in chunk.split())


# Words that end a noun phrase: function words, pronouns, and the verbs and participles claims put after a noun.
_STOP = _wordset(
    "a an the said this that these those it its their his her them they which who whom whose what where when "
    "while wherein whereby whereas whereof wherefrom thereof therein thereto thereby therefrom thereon such "
    "and or but nor not no so if than then as each every any all some both either neither other another "
    "of in on at to for with from by into onto over under between through about within without across along "
    "via per upon against toward towards around among after before during beyond below above behind near "
    "outside inside up down out off adjacent one "
    "is are was were be been being has have having had do does did can could may might must shall should will "
    "would comprising comprises comprise including includes include consisting consists consist containing "
    "contains contain characterized characterised configured adapted arranged operable operative capable "
    "extending extends extend using according covering surrounding connecting facing defining forming holding "
    "receiving supporting "
    "further also only then substantially respectively preferably approximately generally",
)
# A determiner after a space (or at the start) and up to four following words, in lowercased text with single
# spaces (preprocessed text has them; a line break or a "(" right before a determiner hides it). The words are
# trimmed at the first stop word in Python; only determiners are kept out of the run here, so that no mention
# swallows the next one.
_DETERMINERS = (
    r"(?:the|said) (?:at least one|one or more|plurality of)|a plurality of|one or more|at least one|an|a|the|said"
)
# The third group is the text after the words, up to punctuation: enough for the claim-reference test below, so
# that test needs no offsets and the mentions can be read as tuples (findall), without a match object each.
_MENTION_RE = re.compile(  # run on " " + text: the leading literal space lets the engine skip to spaces
    rf" ({_DETERMINERS}) ([a-z][\w-]*(?: (?!(?:the|said|an?|one or|at least|plurality)\b)[a-z][\w-]*){{0,3}})"
    r"(?=([^,.;:]{0,52}))"
)
# The subject of a dependent claim's preamble ("The method of claim 1", "as claimed in any preceding claim"): "claim"
# within 45 characters after the noun phrase, no punctuation between.
_CLAIM_REF_AFTER_RE = re.compile(r"[^,.;:]{0,45}?\bclaims?\b")
# Modifiers that do not narrow the reference ("the respective layers" refers back to "layers").
_NON_RESTRICTIVE = _wordset("respective entire whole aforementioned aforesaid above-mentioned")
# Set phrases with "the" that do not refer to a claimed element ("the group consisting of", "comprising the
# steps of", "in the form of", "in the vicinity of").
_IDIOMS = _wordset(
    "same other like following foregoing preceding former latter art group step steps form vicinity basis "
    "presence absence case fact extent"
)
# Modifiers that share the head of a coordination: "the first and second layers" = first layer + second layer.
_POSITIONAL = _wordset(
    "first second third fourth fifth sixth upper lower inner outer left right front rear top bottom proximal "
    "distal input output"
)
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True)
class AntecedentIssue:
    """A definite reference without antecedent basis: ``text[start:end] == term``.

    ``claim`` is the claim number when a Forest was checked (positions are then within that claim's text);
    None for plain text (positions within the whole text).
    """

    claim: int | None
    term: str
    start: int
    end: int

    def __str__(self) -> str:
        where = f"claim {self.claim}" if self.claim is not None else "claim set"
        return f"{where}: '{self.term}' (chars {self.start}-{self.end}) has no antecedent basis"


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _noun_phrase_end(words: list[str], start: int) -> int:
    """Index of the first word from ``start`` on that is not part of the noun phrase."""
    for n in range(start, len(words)):
        w = words[n]
        if w in _STOP or (n > start and len(w) > 4 and w.endswith("ed") and not w.endswith("eed")):
            return n
    return len(words)


def _keys(words: list[str]) -> tuple[str, ...]:
    """(singular head noun, final bigram) of a noun phrase; just the head for one word."""
    if not _NON_RESTRICTIVE.isdisjoint(words):
        words = [w for w in words if w not in _NON_RESTRICTIVE] or words
    head = _singular(words[-1])
    return (head, f"{words[-2]} {head}") if len(words) > 1 else (head,)


def _phrase(run: str) -> tuple[int, tuple[str, ...], tuple[str, ...], bool]:
    """Read the words after a determiner (lowercased, single spaces; memoised in ``_PHRASES``: phrases repeat).

    Returns (length in characters of the noun phrase, 0 if there is none; the keys a definite reference needs,
    all of them; the keys an indefinite introduction provides; whether the phrase is an idiom).
    The noun phrase runs up to the first stop word or, after its first word, a past participle
    ("a layer deposited on" → "layer"). Keys are the singularised head noun and the final bigram: a one-word
    reference needs the head ("the layer" ← "a first layer"), a longer one the bigram ("the first layer"
    ← "a first layer", not ← "a second layer"). A coordination continues the phrase: "the first and second
    layers" needs "first layer" and "second layer" (a positional modifier shares the head), "the seat and back
    rest" needs "seat" and "back rest".
    """
    words = run.split(" ")
    end = _noun_phrase_end(words, 0)
    if not end:
        return 0, (), (), False
    first = words[:end]
    if end + 1 < len(words) and words[end] in ("and", "or") and words[end + 1] not in _STOP:
        after = _noun_phrase_end(words, end + 1)
        second = words[end + 1 : after]
        if len(first) == 1 and first[0] in _POSITIONAL:
            first = first + second[-1:]
        keys, more = _keys(first), _keys(second)
        return len(" ".join(words[:after])), (keys[-1], more[-1]), keys + more, words[0] in _IDIOMS
    keys = _keys(first)
    return len(" ".join(first)), (keys[-1],), keys, words[0] in _IDIOMS


_PHRASES: dict[str, tuple[int, tuple[str, ...], tuple[str, ...], bool]] = {}
_PHRASES_MAX = 1 << 17


def _lowered(text: str) -> str:
    """`text` lowercased, with " " in front (the mention pattern opens with a space); offsets stay exact."""
    low = text.lower()
    if len(low) != len(text):  # a few non-ASCII capitals lengthen when lowercased
        low = text.translate(_ASCII_LOWER)
    return " " + low


def _definite_references(low: str, introduced: set[str] | _Scope) -> list[tuple[int, int, bool]]:
    """(mention index, noun-phrase length, has basis) of each definite reference in ``low`` (from :func:`_lowered`).

    The index counts every match of :data:`_MENTION_RE` in ``low``. Indefinite mentions go into ``introduced``,
    which starts with the keys the scope already provides and grows as the text is read, so only introductions
    *earlier* than a reference count.
    """
    out = []
    for i, (det, run, after) in enumerate(_MENTION_RE.findall(low)):
        info = _PHRASES.get(run)
        if info is None:
            if len(_PHRASES) >= _PHRASES_MAX:
                _PHRASES.clear()
            info = _PHRASES[run] = _phrase(run)
        length, needed, keys, idiom = info
        if not length:
            continue
        if det[0] not in "ts":  # a, an, one or more, at least one, a plurality of
            introduced.update(keys)
        elif not idiom:
            tail = run[length:] + after  # the run has no punctuation, so this is the text up to the next one
            claim_ref = needed == ("claim",) or ("claim" in tail[:52] and _CLAIM_REF_AFTER_RE.match(tail) is not None)
            out.append((i, length, claim_ref or all(k in introduced for k in needed)))
    return out


class _Scope:
    """The introductions a claim's text may lean on: those of its ancestors (a bit mask of their positions,
    checked against each key's mask of the claims introducing it), plus the claim's own as it is read.

    Masks instead of sets of keys: a claim's ancestry is its parents' ancestries joined, which as sets of keys
    costs the size of the whole scope per claim (quadratic in a 10,000-deep chain); as masks it is a few machine
    words per 64 claims, and the same answer for any cited parents (multiple dependency included).
    """

    __slots__ = ("ancestors", "by_key", "own")

    def __init__(self, ancestors: int, by_key: dict[str, int]):
        self.ancestors, self.by_key, self.own = ancestors, by_key, set()

    def __contains__(self, key: str) -> bool:
        return key in self.own or bool(self.by_key.get(key, 0) & self.ancestors)

    def update(self, keys: Iterable[str]) -> None:
        self.own.update(keys)


def _checked(source: Forest | str) -> Iterator[tuple[int | None, str, str, list[tuple[int, int, bool]]]]:
    """(claim, text, lowered text, its definite references as :func:`_definite_references` gives them) for each
    text to check, in reading order.

    The one definition of scope behind both readers: a string is read as the paper reads it (one text, nothing in
    scope before it, so introductions anywhere earlier in the text count); a Forest claim by claim, each starting
    with the introductions of every ancestor's text: every earlier claim it cites, directly or through its
    parents (multiple dependency: all of them). A claim number names its first claim.
    """
    if isinstance(source, str):
        low = _lowered(source)
        yield None, source, low, _definite_references(low, set())
        return
    order = {c.num: i for i, c in reversed(list(enumerate(source.claims)))}
    valid = {num: [p for p in claim.parents if p in order and order[p] < order[num]]
             for num, claim in source.by_num.items()}
    waiting = {num: 0 for num in valid}  # later claims that still need this claim's ancestry
    for parents in valid.values():
        for p in parents:
            waiting[p] += 1
    ancestry: dict[int, int] = {}  # claim number -> mask of its ancestors' positions, while a claim needs it
    by_key: dict[str, int] = {}  # key -> mask of the positions of the claims that introduce it
    for i, claim in enumerate(source.claims):
        first = order[claim.num] == i
        if first:
            mask = 0
            for p in valid[claim.num]:
                mask |= ancestry[p] | (1 << order[p])
                waiting[p] -= 1
                if not waiting[p]:
                    del ancestry[p]
            if waiting[claim.num]:
                ancestry[claim.num] = mask
        else:  # a claim reusing a number: the scope of the first claim with it
            mask = _mask_of(source, claim.num, order, valid)
        scope = _Scope(mask, by_key)
        low = _lowered(claim.text)
        references = _definite_references(low, scope)
        if first:
            bit = 1 << i
            for key in scope.own:  # all of its introductions: the scope started without any of its own
                by_key[key] = by_key.get(key, 0) | bit
        yield claim.num, claim.text, low, references


def _mask_of(source: Forest, num: int, order: dict[int, int], valid: dict[int, list[int]]) -> int:
    """The ancestors' mask of claim ``num`` computed afresh (for the rare claim that repeats a number)."""
    mask, stack, seen = 0, [num], set()
    while stack:
        for p in valid[stack.pop()]:
            if p not in seen:
                seen.add(p)
                mask |= 1 << order[p]
                stack.append(p)
    return mask


def antecedent_counts(source: Forest | str) -> tuple[int, int]:
    """(definite references, those with antecedent basis) — Eq. ante's |D| and numerator for a string."""
    total = resolved = 0
    for _, _, _, references in _checked(source):
        total += len(references)
        resolved += sum(ok for _, _, ok in references)
    return total, resolved


def unsupported_references(source: Forest | str) -> list[AntecedentIssue]:
    """Every definite reference lacking antecedent basis, in reading order (scopes as in :func:`_checked`)."""
    issues = []
    for num, text, low, references in _checked(source):
        missing = [(i, length) for i, length, ok in references if not ok]
        if missing:
            mentions = list(_MENTION_RE.finditer(low))  # offsets, only where there is something to report
            for i, length in missing:
                start = mentions[i].start(1) - 1  # ``low`` has one leading space more than ``text``
                end = mentions[i].start(2) + length - 1
                issues.append(AntecedentIssue(num, text[start:end], start, end))
    return issues

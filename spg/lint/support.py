"""Description support (37 CFR 1.75(d)(1); MPEP 608.01(o)): "the terms and phrases used in the claims must find
clear support or antecedent basis in the description".

What is checked is the narrowest reading a program can be sure of: the **head of a claim term** (the noun a
determiner's phrase names: "flange" in "a retaining flange") that appears in the description **in no form**. A
claim word counts as present when a description word starts with its stem: the word without its inflection
("couplings" → "coupl", found in "coupled"), cut to its length minus three letters, at least five
("circumferential" is supported by "circumference"). Claim-drafting words ("plurality", "first", "configured")
and generic nouns ("method", "device") need no support. Each unsupported word is reported once per claim set,
where it first appears.

Hand-written, not a library stemmer (Porter in NLTK would do): ``spg lint`` depends on nothing but PyYAML, so that
it runs on any install; a crude stem errs towards a shorter prefix, which can only hide a missing word, never
invent one.
"""

from __future__ import annotations

import functools
import re

from spg.forest import Forest
from spg.lint.finding import Finding

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
# A description's words are the runs of [a-z0-9] of its lower-cased text, from their first letter: this table
# lower-cases A-Z and makes every other byte a space (UTF-8 gives no other character, nor a lone surrogate, such a
# byte), so that str.lower(), a fifth of the vocabulary's time, is needed only where one of the characters it makes
# ASCII (:data:`_LOWER_TO_ASCII`) is in the text.
_ONLY_WORDS = bytes(c + 32 if 65 <= c <= 90 else c if c in b"abcdefghijklmnopqrstuvwxyz0123456789" else 32
                    for c in range(256))
# The characters other than A-Z whose str.lower() holds an ASCII character: I with a dot above ("i" and a combining
# dot) and the Kelvin sign ("k"); a test holds this to the running Python's Unicode database.
_LOWER_TO_ASCII = ("\u0130", "\u212a")
_DIGITS = range(48, 58)  # the bytes of 0-9
# A claim term: a determiner and up to four words, none of them a stop word (see _NOT_TERM).
# The words are read in a lookahead, so that a run swallowing the next determiner ("a chair comprising a seat")
# does not hide the term that determiner opens. The lookahead of the determiners' first letters lets the scan pass
# over most word starts with one test instead of seven (a quarter of its time).
_TERM = re.compile(
    r"\b(?=[atsop])(?:an?|the|said|one or more|at least one|a plurality of|plurality of)\s+"
    r"(?=((?:[A-Za-z][\w-]*)(?:\s+[A-Za-z][\w-]*){0,3}))",
    re.IGNORECASE,
)
# Longest first, so that every inflection of a word ends in the same fold ("portions" and "portion" → "port").
_SUFFIXES = ("ingly", "ments", "edly", "ings", "ions", "ment", "ing", "ied", "ies", "ion", "ed", "es", "ly", "s")


def _words(text: str) -> list[str]:
    return text.split()


@functools.lru_cache(maxsize=1 << 16)  # words repeat across claims and descriptions
def fold(word: str) -> str:
    """A word without its inflection, lowercased ("couplings", "coupled" → "coupl")."""
    word = word.lower()
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


# Words that end a claim term (function words, verbs claims put after a noun) and words that need no support in
# the description because they belong to the language of claims, not to the invention.
_NOT_TERM = frozenset(_words("""
    a an the said this that these those it its their them they which who whose what where when while wherein whereby
    and or but nor not no so if than then as each every any all some both either neither other another same such
    of in on at to for with from by into onto over under between through about within without across along via per
    upon against toward towards around among after before during beyond below above behind near adjacent
    is are was were be been being has have having had do does did can could may might must shall should will would
    comprising comprises comprise including includes include consisting consists consist containing contains
    contain characterized characterised configured adapted arranged operable operative capable
    therebetween thereunder thereover thereunderneath prior less more except sufficient manner fashion purpose
    away entire whole
"""))
_NO_SUPPORT_NEEDED = frozenset(fold(w) for w in _words("""
    claim claims claimed plurality least first second third fourth fifth sixth seventh eighth ninth tenth
    one two three four five six seven eight nine ten further respective respectively substantially predetermined
    selected corresponding preceding foregoing aforementioned aforesaid recited defined forth thereof therein
    method process apparatus system device machine medium media article assembly member portion part element unit
    means step steps structure body surface end side group combination set amount number type kind pair
"""))


class Vocabulary:
    """The words of a description, for look-ups by stem: its text reduced to runs of [a-z0-9] between spaces, in
    which a claim word's stem is searched at the start of a run (bytes.find, at C speed). Splitting, deduplicating
    and sorting the tens of thousands of words of a description took longer than the few dozen look-ups a claim
    set makes."""

    def __init__(self, description: str):
        if any(c in description for c in _LOWER_TO_ASCII):
            description = description.lower()
        self.text = b" " + description.encode("utf-8", "surrogatepass").translate(_ONLY_WORDS)

    def supports(self, word: str) -> bool:
        """Whether a description word starts with ``word``'s stem: its fold without a final "y" ("copy" →
        "cop", for "copies"), cut to its length minus three letters (at least five letters), so that
        "circumferential" finds "circumference"."""
        stem = fold(word).removesuffix("y") if len(word) > 3 else word.lower()
        prefix = stem[: max(5, len(stem) - 3)].encode()  # ASCII: a claim word is [A-Za-z][A-Za-z0-9]*
        if b" " + prefix in self.text:
            return True
        # a word also starts after the digits that open its run ("42abc" is the word "abc")
        at = self.text.find(prefix)
        while at != -1:
            before = at - 1
            while self.text[before] in _DIGITS:
                before -= 1
            if self.text[before] == 32:
                return True
            at = self.text.find(prefix, at + 1)
        return False


# Words that qualify a noun but never name the thing a term is about: adjectives that may follow their noun ("a
# position proximal the base", "an axis perpendicular to", "a program readable by"), irregular participles ("the
# signal sent by"). As the last word of a term they give way to the word before them.
_NEVER_HEAD = frozenset(_words("""
    proximal distal remote perpendicular parallel normal tangential transverse proximate indicative responsive
    readable executable accessible removable available suitable nearest closest farthest furthest opposite
    smaller larger greater higher lower longer shorter wider narrower thicker thinner safe individual
    sent driven made held built given taken known shown worn cut
"""))
# What opens the word after a verb in the third person ("said processor solicits said user", "the pressure returns to").
_AFTER_VERB = re.compile(r"\s+(?:an?|the|said|to)\b", re.IGNORECASE)
_ADVERB_ENDINGS = ("ally", "ably", "ibly", "ively", "ately", "ously", "arly")


def _not_a_noun(word: str, n: int, text: str, end: int) -> bool:
    """Whether the last word of a term (its ``n``-th), ending at ``end`` in ``text``, cannot be its head: a word of
    :data:`_NEVER_HEAD`, an adverb ("a vertically oriented"), an adjective in -able after the noun ("a second panel
    openable"), or a verb in the third person ("the member belongs to")."""
    w = word.lower()
    if w in _NEVER_HEAD or (w.endswith(_ADVERB_ENDINGS) and len(w) > 5):
        return True
    return n > 0 and (
        (w.endswith(("able", "ible")) and len(w) > 6 and w != "variable")
        or (w.endswith("s") and not w.endswith("ss") and fold(w) not in _NO_SUPPORT_NEEDED  # "means to"
            and _AFTER_VERB.match(text, end) is not None)
    )


def _term_heads(text: str):
    """(head word match, start in ``text``, the term) of each claim term in ``text``: the term runs from its
    determiner to a stop word or, after its first word, to a participle or an adverb ("a layer deposited on" →
    "layer"); its head is its last word, the thing it names ("a retaining flange" → "flange"), unless that cannot be
    a noun (:func:`_not_a_noun`: "an axis perpendicular to" → "axis"), and then the word before it. Modifiers are
    not checked: "opposite", "inner", "coupled" name relations, and a description may well not use them."""
    for term in _TERM.finditer(text):
        run = term.group(1)
        words = []
        for n, word in enumerate(_WORD.finditer(run)):
            w = word.group(0).lower()
            if w in _NOT_TERM or (n and w.endswith(("ed", "ing", "ly")) and len(w) > 5):
                break
            words.append(word)
        while words and _not_a_noun(words[-1].group(0), len(words) - 1, text, term.start(1) + words[-1].end()):
            words.pop()
        if words:
            head = words[-1]
            yield head, term.start(1) + head.start(), run[: head.end()]


def check_description_support(forest: Forest, description: str) -> list[Finding]:
    """Each claim-term word that the description never uses, at its first place in the claim set."""
    vocabulary = Vocabulary(description)
    reported: set[str] = set()
    supported: set[str] = set()  # looked up once each: a look-up scans the description, and terms recur
    out = []
    for claim in forest.claims:
        for word, start, term in _term_heads(claim.text):
            w = word.group(0)
            key = fold(w)
            if len(w) < 3 or key in _NO_SUPPORT_NEEDED or key in reported or w in supported:
                continue
            if vocabulary.supports(w):
                supported.add(w)
                continue
            reported.add(key)
            out.append(Finding(
                "description-support", "warning", claim.num,
                f"'{w}' (in '{term}') appears nowhere in the description, in no form",
                start, start + len(w), w,
            ))
    return out

"""Claim text → claims, claim references and a :class:`~spg.forest.Forest` (paper §3.1).

Two jobs:

* **Splitting** a claim set into numbered claims (:func:`split_claims`). HUPD stores a claim set
  as one flat string ("1. A device comprising: ... 2. The device of claim 1, wherein ..."), and
  claim bodies are full of numbers followed by a period ("about 2. 5 mm", "FIG. 3.", "claim 8.").
  Every "N." is only a *candidate* boundary; the split is the chain of candidates that best fits
  the claim numbering (1, 2, 3, ... with rare gaps where cancelled claims were dropped), scored by
  how much each candidate looks like the start of a claim (after a sentence end, before a capital).
* **References** (:func:`extract_references`, :func:`claim_parents`): every way US and EP claims
  cite other claims ("of claim 3", "as claimed in claims 1 to 4", "according to any preceding
  claim", OCR noise such as "claim1" or "claims l-3"). A claim citing several claims keeps all of
  them; the single-parent rule lives in :func:`spg.forest.single_parent`.

Nothing here raises on arbitrary text.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple

from spg.forest import Claim, Diagnostic, Forest


class Reference(NamedTuple):  # a tuple: one is made for nearly every claim parsed
    """A citation of other claims: ``text[start:end]`` is the whole phrase ("claims 1 to 3")."""

    start: int
    end: int
    nums: tuple[int, ...]


# ---------------------------------------------------------------------------------------------
# References
# ---------------------------------------------------------------------------------------------

# The word "claim(s)" including typing and OCR variants ("clam 27" is in a granted US patent;
# OCR turns "cl" into "d" and "m" into "rn"). No letter may follow, so "claimed"/"claimant" are
# not references, but a digit may ("claim1"). Read: \b(?:claim|clam|cliam|c1aim|ciaim|daim|clairn)s?
# It opens with a character class, the word boundary and first letter checked by lookbehinds,
# because then the regex engine jumps from one c/d to the next instead of trying every position:
# the same matches in half the time, and this runs on every claim.
_CLAIM_WORD = re.compile(
    r"[cd](?<!\w[cd])(?:(?<=c)(?:laim|lam|liam|1aim|iaim|lairn)|(?<=d)aim)s?(?![a-z])", re.IGNORECASE
)
# A misspelt "claim" only counts after a citing word ("the fastener of clam 27"), so that a
# shellfish ("a clam 5 cm long") is not a citation.
_CITING_WORD_BEFORE = re.compile(r"\b(?:of|to|in|with|by|on|under|per)\s*$", re.IGNORECASE)

# One cited number. OCR reads "1" as "l" or "I" ("claims l-3", "claim I wherein"); those are only
# taken when they stand alone. "claim 1(a)" / "claim 2a" cite claims 1 and 2. A period may sit
# between the word and the number ("claim. 2", a typo seen in granted EP claims). A number of any
# length up to 18 digits is read, so that "claim 10000" is reported as missing rather than ignored.
#
# Every pattern here runs in time linear in the text: no two repeats that can match the same
# characters follow each other ("\s*\.?\s*" is written "\s*(?:\.\s*)?"), or a run of spaces after
# "claim" would be split every possible way before the match fails (benchmarks/parse_speed.py).
_NUM = r"(\d{1,18}(?!\d)|(?-i:[lI])(?!\w)(?!-[a-zA-Z]))(?:\s?\([a-z]\)|[a-z](?![a-z]))?"
_FIRST_NUM = re.compile(r"\s*(?:\.\s*)?" + _NUM)
# A later member of a list must not be a quantity ("claims 1 and 2 to 3 and 90-0% by weight") nor a
# chemical locant ("the compound of claim 1, 2-amino-..." or "..., 2,3-dimethyl", "2'-").
_LATER_NUM = _NUM + r"(?!\s*(?:%|°|[-–]\s*\d+\s*(?:%|°)|\.\d|/\d)|(?:,\d+)*[-–]\s*[a-zA-Z(\[]|['′])"
# "claims 1 to 3", "1-3", "1 – 3", "1 through 3", "1 to 3 inclusive", "claim 7 to claim 12".
_RANGE = re.compile(
    r"\s*(?:-|–|—|‑|\bto\b|\bthrough\b|\bthru\b|\buntil\b)\s*(?:claims?\s*)?"
    + _LATER_NUM
    + r"(?:\s*(?:,\s*)?inclusive\b)?",
    re.IGNORECASE,
)
# Further members of a list: "claim 1 or 2", "claims 1, 2 and 4", "claim 1 or claim 2",
# "claim 1 or any one of claims 4 to 7", "claims 1 and 9 or claims 4 and 9".
_LIST_ITEM = re.compile(
    r"\s*(?:,\s*(?:(?:and/or|and|or)\s*)?|(?:\band/or\b|\band\b|\bor\b|&)\s*)"
    r"(?:(?:any|either|one)\s+(?:one\s+)?of\s+)?(?:the\s+)?(?:(?:claim|clam)s?\s*(?:\.\s*)?)?" + _LATER_NUM,
    re.IGNORECASE,
)
# Citations of "every earlier claim": "any preceding claim", "any one of the preceding claims",
# "one or more of the previous claims", "any of the foregoing claims", "the claims above".
_PRECEDING = re.compile(
    r"(?:\b(?:any|all|each|either|one)(?:\s+(?:one|or\s+more|or\s+several|or\s+other))?(?:\s+of)?\s+(?:the\s+)?"
    r"|\bthe\s+)"
    r"(?P<which>preceding|previous|foregoing|above|prior|aforementioned|aforesaid|above-mentioned|earlier)\s+"
    r"(?P<word>claims?)\b"
    r"|\b(?:any|one)\s+(?:(?:one\s+)?of\s+)?(?:the\s+)?(?P<word2>claims?)\s+(?:above|hereinbefore|before)\b",
    re.IGNORECASE,
)
# Substrings without which _PRECEDING cannot match: a cheap test that lets most claims skip it.
_PRECEDING_HINTS = ("preced", "previous", "foregoing", "above", "prior", "afore", "earlier", "before")
# "claim 7 when dependent on claim 5" narrows claim 7 to one of its versions; claim 5 is not
# another parent, so citations behind these words are not references.
_QUALIFIER_BEFORE = re.compile(
    r"(?:(?:when|as|if|insofar\s+as(?:\s+it\s+is)?)\s+(?:dependent|depending|appended)\s+(?:up)?(?:on|to)"
    r"(?:\s+(?:any\s+(?:one\s+)?of\s+)?(?:the\s+)?)?)\s*$",
    re.IGNORECASE,
)


# The most claims one citation names ("claims 1 to 500", "any preceding claim" in claim 501). More than real
# claim sets cite at once, and a bound on what a few characters of text can expand to.
_MOST_CITED = 500
_FIRST_CLAIMS = tuple(range(1, _MOST_CITED + 1))  # shared by every "any preceding claim"


def _number(token: str) -> int:
    return 1 if token in ("l", "I") else int(token)


def _explicit_reference(text: str, word: re.Match) -> Reference | None:
    """The numbered citation that starts at the word "claim(s)", if a number follows it."""
    first = _FIRST_NUM.match(text, word.end())
    if not first:
        return None
    nums = {_number(first.group(1))}
    end = last = first.end()
    previous = _number(first.group(1))
    while True:
        step = _RANGE.match(text, end)
        if step:
            high = _number(step.group(1))
            # A "range" running backwards or over hundreds of claims is a measurement, not a citation.
            if previous < high and len(nums) + high - previous <= _MOST_CITED:
                nums.update(range(previous + 1, high + 1))
                end = last = step.end()
                previous = high
                continue
            break
        step = _LIST_ITEM.match(text, end)
        if not step:
            break
        previous = _number(step.group(1))
        nums.add(previous)
        end = last = step.end()
    return Reference(word.start(), last, tuple(sorted(nums)))


def _preceding_reference(match: re.Match, num: int | None) -> Reference:
    """'any preceding claim' in claim ``num`` cites 1..num-1 (at most the first :data:`_MOST_CITED`);
    'the preceding claim' cites num-1."""
    singular = (match.group("word") or match.group("word2") or "").lower() == "claim"
    definite = match.group(0).lower().startswith("the ")
    if num is None or num <= 1:
        nums: tuple[int, ...] = ()
    elif singular and definite:
        nums = (num - 1,)
    else:
        nums = _FIRST_CLAIMS[: num - 1]
    return Reference(match.start(), match.end(), nums)


def _preceding_references(text: str, num: int | None, lowered: str | None = None) -> list[Reference]:
    """The citations of "every earlier claim" in claim ``num`` ("any one of the preceding claims"), in text order;
    ``lowered`` is ``text.lower()`` when the caller has it."""
    if not any(map((lowered if lowered is not None else text.lower()).__contains__, _PRECEDING_HINTS)):
        return []
    return [
        _preceding_reference(match, num)
        for match in _PRECEDING.finditer(text)
        if not _FIRST_NUM.match(text, match.end())  # "the preceding claims 1 to 3": the numbers decide
    ]


# The misspellings _CLAIM_WORD accepts. Lowercased ASCII text without any of them can only say "claim(s)", and a
# pattern opening with that literal finds the same words faster: the regex engine searches for the literal.
_MISSPELLINGS = ("clam", "cliam", "c1aim", "ciaim", "clairn", "daim")
_CLAIM_WORD_LOWER = re.compile(r"claim(?<!\wclaim)s?(?![a-z])")


def _claim_words(text: str, lowered: str) -> list[re.Match]:
    """The matches of :data:`_CLAIM_WORD` in ``text`` (same offsets); ``lowered`` is ``text.lower()``."""
    if text.isascii() and not any(map(lowered.__contains__, _MISSPELLINGS)):
        return list(_CLAIM_WORD_LOWER.finditer(lowered))
    return list(_CLAIM_WORD.finditer(text))


def extract_references(text: str, num: int | None = None) -> list[Reference]:
    """Every citation of other claims in ``text`` (the body of claim ``num``), in text order.

    Ranges are expanded ("claims 2 to 4" → 2, 3, 4) and "any preceding claim" becomes 1..num-1
    (empty when ``num`` is unknown). Citations that only qualify another one ("claim 7 when
    dependent on claim 5") are left out.
    """
    if not isinstance(text, str):
        return []
    lowered = text.lower()
    words = _claim_words(text, lowered)
    if not words:
        return []  # every citation, "any preceding claim" included, has the word: most claims stop here
    refs = _preceding_references(text, num, lowered)
    taken = [(r.start, r.end) for r in refs]  # in text order, not overlapping
    covered_until, t = -1, 0
    for word in words:
        at = word.start()
        while t < len(taken) and taken[t][1] <= at:
            t += 1
        if at < covered_until or (t < len(taken) and taken[t][0] <= at):
            continue
        if not word.group(0).lower().startswith("claim") and not _CITING_WORD_BEFORE.search(text, max(0, at - 12), at):
            continue
        ref = _explicit_reference(text, word)
        if ref is None:
            continue
        covered_until = ref.end
        before = max(0, at - 60)
        # Every qualifier has "dependent", "depending" or "appended": a cheap test before the slow pattern.
        if "pend" in text[before:at].lower() and _QUALIFIER_BEFORE.search(text, before, at):
            continue
        refs.append(ref)
    if taken:
        refs.sort()  # "any preceding claim" citations came from a pass of their own: back to text order
    return refs


# A citing word, a short word and a number: "according to cam 1". Whether the word is a misspelt "claim"
# is decided in Python (:func:`_near_claim`). A dependent claim names its parent in its opening: the text
# before the first comma, colon or semicolon, within the first 100 characters.
_OPENING = re.compile(r"[^,;:]{0,100}")
_CITATION_SHAPE = re.compile(
    r"\b(?:of|to|in|with|by|on|under|per)\s+([a-z]{2,8})\s*(?:\.\s*)?(\d{1,18})(?![\d.,]\d)", re.IGNORECASE
)


def _edit_distance(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        diagonal, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (x != y))
    return row[-1]


def _near_claim(word: str) -> bool:
    """A misspelling of "claim(s)" the parser does not read ("cam", "calim", "clai"): two edits at most, same
    first letter, or "d" for an OCR'd "cl"."""
    word = word.lower()
    return word[0] in "cd" and min(_edit_distance(word, "claim"), _edit_distance(word, "claims")) <= 2


def unread_citations(forest: Forest) -> list[Diagnostic]:
    """Claims read as independent whose opening seems to cite an earlier claim through a misspelt "claim" that
    the parser does not take ("The widget according to cam 1, wherein"): warnings, since such a claim may be
    dependent. Only the opening is read: "A cam having a lobe, the lobe of cam 1" cites nothing."""
    out = []
    seen: set[int] = set()
    for claim in forest.claims:
        if claim.independent:
            opening = _OPENING.match(claim.text).group(0)
            for match in _CITATION_SHAPE.finditer(opening):
                word, cited = match.group(1), int(match.group(2))
                if cited in seen and _near_claim(word) and not _CLAIM_WORD.fullmatch(word):
                    out.append(Diagnostic(
                        "unread-citation", claim.num,
                        f"'{match.group(0)}' may cite claim {cited}; read as an independent claim", "warning",
                    ))
                    break
        seen.add(claim.num)
    return out


# A dependent claim that cites its parent by number alone: "The thermal printhead according to 1, wherein", "The
# port of 8, wherein", "The method as claimed in 14, wherein". A definite opening ("The …": an independent claim
# opens with "A"/"An"), a citing phrase, a bare number and right after it the end of the opening (a comma not
# followed by another number, "wherein", "in which", "further", "characterised", …): a quantity ("the mixture of 5,
# 10 or 20 parts", "the tube of 5 mm") never ends an opening so.
_BARE_CITATION = re.compile(
    r"\s*the\b[^,;:.()\d]{1,80}?\b(?:according\s+to|as\s+(?:claimed|defined|recited|described)\s+in"
    r"|as\s+set\s+forth\s+in|as\s+in|of|in)\s+(\d{1,4})"
    r"(?=\s*,(?!\s*\d)|\s+(?:wherein|where|whereby|in\s+which|further|characteri[sz]ed|comprising|including|claims?)\b)",
    re.IGNORECASE,
)


def bare_citation(text: str, num: int) -> int | None:
    """The claim that claim ``num`` cites by its number alone in its opening ("The printhead according to 1,
    wherein …"), if it is an earlier one; None otherwise. The gold links of the shared corpus (USPTO reference tags)
    know only citations with the word "claim", so :func:`claim_parents` leaves these claims independent, and readers
    that need a claim's scope (the antecedent analysis of ``spg lint``) ask this."""
    if not isinstance(text, str) or text[:8].lstrip()[:3].lower() != "the":
        return None
    match = _BARE_CITATION.match(text)
    if match is None:
        return None
    cited = int(match.group(1))
    return cited if 0 < cited < num else None


def claim_parents(text: str, num: int | None = None) -> tuple[int, ...]:
    """Sorted unique claim numbers cited by claim ``num``; () means the claim is independent."""
    return _cited(extract_references(text, num))


def _cited(refs: list[Reference]) -> tuple[int, ...]:
    if len(refs) == 1:
        return refs[0].nums  # already sorted and unique
    return tuple(sorted({n for ref in refs for n in ref.nums}))


def _claim(num: int, text: str) -> Claim:
    """Claim ``num`` with the parents its citations name, the citations kept as its ``references`` (the cached
    property's own slot: what it would read again)."""
    refs = extract_references(text, num)
    claim = Claim(num, text, _cited(refs))
    claim.__dict__["references"] = refs
    return claim


# ---------------------------------------------------------------------------------------------
# Splitting a claim set into claims
# ---------------------------------------------------------------------------------------------

# A candidate claim start: "12." "12)" "12:" "12 -", optionally "Claim 12." or "[Claim 12]" as model
# outputs print it, or a cancelled range "1-18." / "1.-18.". No letter, digit or "(" may come just
# before it, so "A1.", "(10)" and "802.16." are never candidates; "layer.2. The" (no space) is one.
_MARKER = re.compile(
    r"(?<![\w,/(\[-])(?P<open>\[(?=claim))?(?P<word>claim\s+)?(?P<num>\d{1,18})"
    r"(?:\s*(?:\.\s*)?[-–]\s*(?P<to>\d{1,18}))?"
    r"(?P<punct>(?(open)\s*\][.:]?|(?:\s*\.|\s*\)|\s*:|\s+-)))(?=\s*\S|\s*\Z)",
    re.IGNORECASE,
)
# Placeholders of cancelled claims ("(canceled)", "Cancelled.", "(deleted)"): not claims.
_CANCELLED = re.compile(r"\(?\s*(?:canceled|cancelled|deleted)\s*\)?\s*[.;]?", re.IGNORECASE)
# US amendment status identifiers that prefix a claim body in a claim listing.
_STATUS = re.compile(
    r"\(\s*(?:original|currently\s+amended|previously\s+presented|new|withdrawn(?:\s*-\s*currently\s+amended)?"
    r"|amended|not\s+entered)\s*\)\s*",
    re.IGNORECASE,
)
# A heading before claim 1: a short text naming the claims ("What is claimed is:", "I claim:",
# "Claims") or a line of its own ending in a colon ("Here is the claim set:\n1. ..."). A colon
# without a line break ("A method comprising: 1. heating; 2. cooling.") opens a single claim.
# Matched against the text with its leading whitespace stripped, so that no run of it is tried twice.
_HEADING = re.compile(r"(?:[^\n]{0,60}\bclaim[^\n]{0,40}|[^\n]{0,100}:[ \t]*\n)\s*", re.IGNORECASE)
# Words after which "N." names something else ("claim 8.", "FIG. 3.", "step 1.", "SEQ ID NO: 2.").
# fmt: off
_LABEL_WORDS = frozenset({
    "claim", "claims", "fig", "fig.", "figs", "figs.", "figure", "figures", "step", "steps", "no", "no.", "nos",
    "nos.", "number", "table", "formula", "example", "sec", "sec.", "section", "par", "par.", "paragraph", "page",
    "col", "col.", "column", "line", "item",
})
_LABEL_CHARS = tuple("-,=<>±×~+/")
# Words after which "N." is usually a quantity ("about 2. 5 mm", "between 1 and 10."); weaker,
# since a claim whose chemical formula was an image can end "... and X is" right before "28.".
_QUANTITY_WORDS = frozenset({
    "about", "approximately", "of", "to", "and", "or", "than", "from", "between", "is", "are", "least", "most",
    "being", "by", "in", "at",
})
# Abbreviations whose period is not a sentence end ("FIG. 3 shows", "No. 5").
_ABBREVIATIONS = frozenset({
    "fig.", "figs.", "no.", "nos.", "e.g.", "i.e.", "approx.", "ca.", "ref.", "eq.", "ex.", "vol.", "pat.", "ser.",
    "appl.",
})
# fmt: on

# A dependent claim opens by citing an earlier claim ("The method of claim 1"): strong evidence.
_EARLY_CITATION = re.compile(r"^[^.;]{0,120}?\b(?:claim|clam)s?\s*(\d{1,18})", re.IGNORECASE)

_GAP_PENALTY = 3.0  # a numbering gap needs a strong claim start to be believed (cancelled claims)
_REPEAT_PENALTY = 3.0  # a repeated number happens (misprints) but rarely


class _Candidate(NamedTuple):  # a tuple: thousands are made per corpus, at a third of a dataclass's cost
    start: int  # where the marker begins
    body: int  # where the claim text begins
    low: int
    high: int
    score: float


# The citation _EARLY_CITATION looks for, read where a "cla" was found.
_CITATION_AT = re.compile(r"\b(?:claim|clam)s?\s*(\d{1,18})", re.IGNORECASE)


def _early_citation(following: str) -> int | None:
    """The claim number :data:`_EARLY_CITATION` reads at the start of ``following``, if any.

    The pattern's lazy prefix tries every position up to the first "." or ";"; a citation can only start
    at a "cla", so in ASCII text (where lowercasing keeps offsets) only those positions are tried.
    """
    if not following.isascii():
        cited = _EARLY_CITATION.match(following) if "cl" in following.lower() else None
        return int(cited.group(1)) if cited else None
    low = following.lower()
    limit = 120
    for stop in (low.find(".", 0, limit), low.find(";", 0, limit)):
        if 0 <= stop < limit:
            limit = stop
    at = low.find("cla", 0, limit + 3)
    while at >= 0:
        cited = _CITATION_AT.match(following, at)
        if cited:
            return int(cited.group(1))
        at = low.find("cla", at + 1, limit + 3)
    return None


def _start_score(text: str, match: re.Match) -> float:
    """How much the candidate at ``match`` looks like the start of a claim (positive = likely)."""
    start, body = match.start(), match.end()
    before = text[max(0, start - 40) : start]
    stripped = before.rstrip()
    last = stripped.rsplit(None, 1)[-1].lower().lstrip("([{'\"") if stripped else ""  # the word before the number
    score, boundary = 1.0, True  # boundary: a claim may start here (text start, sentence end, new line)
    if not stripped and start == len(before):
        score += 3.0
    elif last.rstrip(":") in _LABEL_WORDS or last.endswith(_LABEL_CHARS):
        score, boundary = score - 3.0, False
    elif last in _QUANTITY_WORDS:
        score, boundary = score - 1.5, False
    elif last.endswith((".", ";")) and last not in _ABBREVIATIONS:
        # "layer.2. The" (no space) is a sentence end too, but so is the "1." of "1.5." at times.
        score += 2.0 if stripped != before or stripped[-2:-1].isalpha() else 0.0
    elif last.endswith(")") and _CANCELLED.search(stripped[-14:]):
        score += 2.0  # right after "(canceled)"
    else:
        boundary = False
    if "\n" in before[len(stripped) :]:
        score, boundary = score + 1.5, True  # a line break before the number: claims one per line
    if match.group("open"):
        score += 3.0  # "[Claim 2]" only ever numbers a claim, wherever it stands
    elif match.group("word") and not boundary:
        score -= 3.0  # "as in claim 2." cites claim 2; only "Claim 2:" opening a line numbers one
    if not match.group("open") and match.group("punct").strip() != ".":
        score -= 1.0  # "2)" and "2:" mostly number items inside a claim
    following = text[body : body + 160].lstrip()
    if following[:1].isupper() or following[:1] in "(\"'[":
        score += 1.0
    elif following[:1].isdigit():
        score -= 2.0
    elif following[:1].islower():
        score -= 1.0
    cited = _early_citation(following)
    if cited is not None and cited < int(match.group("num")):
        score += 1.0
    if match.group("to") and not _CANCELLED.match(following):
        score -= 4.0  # "1-18." only numbers a block of cancelled claims
    return score


# The part of _MARKER from the number on (its lookbehind moved after the first digit), opening with a
# character class so that the regex engine skips to the next digit; every marker's number matches it.
_MARKER_FROM_NUMBER = re.compile(r"(\d(?<![\w,/(\[-]\d)\d{0,17})(?:\s*(?:\.\s*)?[-–]\s*\d{1,18})?(?:\s*[.):\]]|\s+-)")


def _markers(text: str) -> Iterator[re.Match]:
    """The matches of ``_MARKER.finditer(text)``, found in half the time.

    _MARKER opens with a lookbehind and an optional word, so the engine tries it at every character.
    Here it is only tried where :data:`_MARKER_FROM_NUMBER` finds a number, or at a "claim" word right
    before that number; positions in between cannot start a marker.
    """
    pos = 0
    while (hit := _MARKER_FROM_NUMBER.search(text, pos)) is not None:
        number = hit.start()
        word = number
        while word > pos and text[word - 1].isspace():
            word -= 1
        match = None
        if word - 6 >= pos and text[word - 6] == "[":
            match = _MARKER.match(text, word - 6)  # "[claim" + whitespace + number
        if match is None and word - 5 >= pos:
            match = _MARKER.match(text, word - 5)  # "claim" + whitespace + number
        if match is None or not match.group("word"):
            match = _MARKER.match(text, number)
        if match is None:
            pos = hit.end(1)  # inside a run of digits no marker can start (a digit precedes)
        else:
            yield match
            pos = match.end()


def _candidates(text: str) -> list[_Candidate]:
    out = []
    for match in _markers(text):
        low = int(match.group("num"))
        high = int(match.group("to")) if match.group("to") else low
        if high < low:
            continue
        out.append(_Candidate(match.start(), match.end(), low, high, _start_score(text, match)))
    return out


class _PrefixBest:
    """Best (score, candidate) among chains ending at claim numbers ≤ n (a Fenwick tree of maxima over the
    claim numbers that occur, so that claim 10,000,000 costs no more than claim 10), so that the gap transitions
    of :func:`_chain_scores` cost O(log n) instead of a scan."""

    def __init__(self, numbers: Iterable[int]):
        self.numbers = sorted(set(numbers))
        self.tree: list[tuple[float, int]] = [(float("-inf"), -1)] * (len(self.numbers) + 1)

    def update(self, n: int, item: tuple[float, int]) -> None:
        i = bisect_left(self.numbers, n) + 1  # n is one of self.numbers
        while i < len(self.tree):
            self.tree[i] = max(self.tree[i], item)
            i += i & -i

    def query(self, n: int) -> tuple[float, int]:
        best, i = (float("-inf"), -1), bisect_right(self.numbers, n)
        while i > 0:
            best = max(best, self.tree[i])
            i -= i & -i
        return best


def _chain_scores(cands: list[_Candidate]) -> tuple[list[float], list[int | None]]:
    """The dynamic programme behind :func:`_best_chain`: for each candidate, the score of the best chain of
    candidates with rising numbers that ends there, and the candidate before it in that chain (None: it starts).

    Consecutive numbers cost nothing, a gap costs ``_GAP_PENALTY`` (the numbering normally starts
    at 1, so starting higher counts as a gap), a repeated number ``_REPEAT_PENALTY``. On ties the
    earlier option in that order wins (hence the strict comparisons).
    """
    best: list[float] = []
    back: list[int | None] = []
    ending: dict[int, int] = {}  # claim number → candidate ending the best chain there, so far
    below = _PrefixBest(c.high for c in cands)
    for j, c in enumerate(cands):
        total, prev = (0.0 if c.low == 1 else -_GAP_PENALTY), None
        k = ending.get(c.low - 1)
        if k is not None and best[k] > total:
            total, prev = best[k], k
        k = ending.get(c.low) if c.low == c.high else None
        if k is not None and best[k] - _REPEAT_PENALTY > total:
            total, prev = best[k] - _REPEAT_PENALTY, k
        gap_score, gap_from = below.query(c.low - 2)
        if gap_from >= 0 and gap_score - _GAP_PENALTY > total:
            total, prev = gap_score - _GAP_PENALTY, gap_from
        best.append(total + c.score)
        back.append(prev)
        k = ending.get(c.high)
        if k is None or best[j] > best[k]:
            ending[c.high] = j
            below.update(c.high, (best[j], j))
    return best, back


def _line_chain(text: str, cands: list[_Candidate]) -> list[_Candidate]:
    """The candidates opening the lines from the first numbered one on, in the order written, if every such
    line opens with a likely claim start and no two share a number: one claim per line. Else none."""
    by_start = {c.start: c for c in cands}
    chain: list[_Candidate] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        start = offset + len(line) - len(line.lstrip())
        offset += len(line)
        if not line.strip():
            continue
        cand = by_start.get(start)
        if cand is None and not chain:
            continue  # a heading
        if cand is None or cand.score <= 0:
            return []
        chain.append(cand)
    return chain if len({c.low for c in chain}) == len(chain) > 1 else []


def _best_chain(cands: list[_Candidate]) -> list[_Candidate]:
    """The highest-scoring sequence of candidates with rising numbers (see :func:`_chain_scores`); none if its
    score is not positive."""
    if not cands:
        return []
    best, back = _chain_scores(cands)
    j: int | None = max(range(len(best)), key=best.__getitem__)
    if best[j] <= 0:
        return []
    chain = []
    while j is not None:
        chain.append(cands[j])
        j = back[j]
    return chain[::-1]


def _clean_body(body: str) -> str:
    body = " ".join(body.split())
    status = _STATUS.match(body)
    return body[status.end() :] if status else body


# A line that opens as a dependent claim of its own ("The method of claim 1, wherein …", "A device according to claim
# 2"): a claim the input forgot to number, not a continuation of the claim above.
_UNNUMBERED = re.compile(r"\n[ \t]*(?=(?:The|A|An|In the)\s[^\n.;:]{0,120}?\b(?:claim|claims)\s*\d)")


def split_claims(flat: str) -> list[tuple[int, str]]:
    """A numbered claim set as one string (HUPD style, or one claim per line) → [(num, body)].

    ``body`` is the claim without its number, whitespace normalised. Placeholders of cancelled
    claims ("2. (Canceled)", "1-18. (canceled)") are dropped, which leaves a gap in the numbers.
    Text before the first number is a heading ("What is claimed is:") and dropped, or the
    unnumbered claim before it when the first number is above 1. Otherwise the numbers only
    count items inside one claim ("A method comprising: 1. heating; 2. cooling."), as do
    numbers in a text without any claim start: such a text is one claim. A line inside a claim
    that opens as a dependent claim ("The method of claim 1, wherein …") is a claim the input
    did not number: it gets the number after the claim before it (:func:`unnumbered_claims`), which
    may then be used twice.
    """
    return _split(flat)[0]


def unnumbered_claims(flat: str) -> list[int]:
    """The positions (in :func:`split_claims`'s list) of the claims the input did not number."""
    return _split(flat)[2]


_LINE_BREAK = re.compile(r"[\r\n]")


def _split(flat: str) -> tuple[list[tuple[int, str]], list[int], list[int]]:
    """:func:`split_claims`, the numbers of the cancelled claims it dropped and the positions of unnumbered claims."""
    if not isinstance(flat, str) or not flat.strip():
        return [], [], []
    cands = _candidates(flat)
    chain = _best_chain(cands)
    by_line = _line_chain(flat, cands)
    if not set(by_line) <= set(chain):
        # Numbered lines that the chain of rising numbers skips are claims out of order ("1.", "3.", "2."): as
        # written, each line one claim, like the same claims given as JSON.
        chain = by_line
    prefix = flat[: chain[0].start] if chain else flat
    preamble = bool(prefix.strip()) and not _HEADING.fullmatch(prefix.lstrip())
    if not chain or (preamble and chain[0].low <= 1):
        return [(1, " ".join(flat.split()))], [], []
    out: list[tuple[int, str]] = []
    cancelled: list[int] = []
    unnumbered: list[int] = []
    if preamble:
        out.append((chain[0].low - 1, " ".join(prefix.split())))
    ends = [c.start for c in chain[1:]] + [len(flat)]
    bodies = [_clean_body(flat[cand.body : end]) for cand, end in zip(chain, ends, strict=True)]
    every_empty = not any(bodies) and not preamble  # "1.  2.  3.": numbers and nothing else
    # where each line starts, found once: rfind("\r") from each claim back to the start of a text with none read the
    # whole text before every claim (quadratic)
    breaks = array("q", (m.start() for m in _LINE_BREAK.finditer(flat)))
    for cand, end, body in zip(chain, ends, bodies, strict=True):
        before = bisect_left(breaks, cand.start)
        line_start = breaks[before - 1] + 1 if before else 0
        alone = not flat[line_start : cand.start].strip() and (
            end == len(flat) or bool(_LINE_BREAK.search(flat[cand.body : end]))
        )
        if not body and not every_empty and not alone:
            # in running text a number with nothing before the next ("... Nav1.9. 10. An ...", "1.2.") is no claim;
            # a line holding only "2." (or a text of numbers alone) is a claim left empty, which lint reports
            continue
        if _CANCELLED.fullmatch(body):
            # cancelled claims are not claims, but their numbers are no gap; a range wider than any real claim set
            # ("2.-999999999. (Cancelled)") is no list of them
            if cand.high - cand.low < _MOST_CITED:
                cancelled += range(cand.low, cand.high + 1)
        elif cand.high == cand.low:  # a range that says nothing of cancelling numbers no claim
            # an empty body too: a numbered claim with no text is an error to report
            parts = _UNNUMBERED.split(flat[cand.body : end]) if body and "\n" in flat[cand.body : end] else [body]
            out.append((cand.low, _clean_body(parts[0]) if len(parts) > 1 else body))
            for part in parts[1:]:
                unnumbered.append(len(out))
                out.append((out[-1][0] + 1, _clean_body(part)))
    return out, cancelled, unnumbered


# ---------------------------------------------------------------------------------------------
# Any claim-set input → Forest
# ---------------------------------------------------------------------------------------------

# The number that opens a single claim text ("3. The method", "Claim 3: The method", "[Claim 3] The method").
_LEADING_NUMBER = re.compile(
    r"\s*(?P<open>\[(?=claim))?(?:claim\s+)?(\d{1,18})(?(open)\s*\][.:]?|\s*(?:\.|\)|:|\s-)(?!\d))\s*",
    re.IGNORECASE,
)


def _strip_number(text: str) -> tuple[int | None, str]:
    match = _LEADING_NUMBER.match(text)
    if not match:
        return None, " ".join(text.split())
    return int(match.group(2)), " ".join(text[match.end() :].split())


def _as_int(value: object) -> int | None:
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None


def _from_records(records: Sequence[Mapping]) -> Forest:
    claims, cancelled = [], []
    for position, record in enumerate(records, start=1):
        printed, text = _strip_number(str(record.get("text", "") or ""))
        text = _clean_body(text)
        num = _as_int(record.get("num"))
        num = num if num is not None else printed if printed is not None else position
        if _CANCELLED.fullmatch(text):
            cancelled.append(num)
            continue
        gold = record.get("parents")
        if isinstance(gold, (list, tuple)):
            # Gold links come from a source's reference tags, which only mark numbered citations: the claims
            # that "any one of the preceding claims" cites are added from the wording.
            tagged = {n for n in map(_as_int, gold) if n is not None}
            parents = tuple(sorted(tagged.union(*(ref.nums for ref in _preceding_references(text, num)))))
            claims.append(Claim(num, text, parents))
        else:
            claims.append(_claim(num, text))
    return Forest.from_claims(claims, cancelled)


def _from_texts(texts: Sequence[object]) -> Forest:
    claims, cancelled, previous = [], [], 0
    for item in texts:
        printed, text = _strip_number(str(item))
        text = _clean_body(text)
        if not text:
            continue
        num = printed if printed is not None else previous + 1
        previous = num
        if _CANCELLED.fullmatch(text):
            cancelled.append(num)
        else:
            claims.append(_claim(num, text))
    return Forest.from_claims(claims, cancelled)


def _from_string(source: str) -> Forest:
    pairs, cancelled, unnumbered = _split(source)
    lines = [line for line in source.splitlines() if line.strip()]
    if lines and _HEADING.fullmatch(lines[0].lstrip() + "\n"):
        lines = lines[1:]
    if len(pairs) <= 1 and len(lines) > 1 and not _LEADING_NUMBER.match(lines[0]):
        return _from_texts(lines)  # unnumbered, one claim per line
    return Forest.from_claims(
        (_claim(num, body) for num, body in pairs), cancelled, unnumbered
    )


def parse_claims(source: str | Sequence[str] | Sequence[Mapping]) -> Forest:
    """Any claim-set input as a forest of claims with all their cited parents.

    ``source`` is a flat numbered string (HUPD), one claim per line (numbered or not), a list of
    claim texts (numbered or not), or records ``{"num", "text", "parents"?}`` whose ``parents``,
    when a list, are taken as gold instead of being read from the text (with the claims an "any preceding
    claim" in the text cites added, since tag-derived gold never holds those). Never raises.
    """
    if isinstance(source, (bytes, bytearray)):
        source = source.decode("utf-8", "replace")
    if isinstance(source, str):
        return _from_string(source)
    if isinstance(source, Mapping):
        source = [source]
    if not isinstance(source, Iterable):
        return Forest()
    items = list(source)
    if items and all(isinstance(item, Mapping) for item in items):
        return _from_records(items)
    return _from_texts([item for item in items if not isinstance(item, Mapping)])

"""``range-outside-parent`` (35 USC 112(d); MPEP 608.01(n) III): a dependent claim giving a quantity a range that
reaches outside the range a claim up its chain gives it ("4. … a void volume from about 5% to about 50%. 5. The method
of claim 4, wherein the permeable body has a void volume from about 1% to about 70%").

Such a claim does not include every limitation of the claim it refers to: a body with a void volume of 60 % infringes
it and not its parent (the infringement test of MPEP 608.01(n) III). It is the broadening language models write most
often when they draft a next claim ("lower than 0.5" under "lower than 0.3", "twelve or less" under "eight or less").

What is read, in each limitation (:func:`bounds`), is a table of phrases (:data:`_FORMS`): each gives a lower bound, an
upper bound or both ("between a and b", "from a to b", "a-b %", "at least a", "a or less", "up to a", "a, b or c" …),
"about a" read as a; small number words ("eight or less") are read as digits. Each bound has

* its **unit** (:data:`UNITS`: "%", "wt%", "atomic percent", "°C", "nm" … one spelling for each: "microns" is "μm"),
  or, where no unit follows, the words it counts ("at least 4 carbon atoms"); bounds in two units are not compared
  (no conversion: "mm" and "μm" stay apart);
* its **quantity**: the content words (:func:`~spg.lint.clauses.content`) just before it in its clause, back to a
  comma, "and", "or", "wherein", "which", "that" or the bound before it ("the diameter of the microsphere is between
  …"); for a share ("%", "wt%" …) with no words before it, the words after it ("from 5 to 30 atomic percent
  platinum").

A dependent claim gets the finding when a bound it gives a quantity lies outside the bound a claim up its chain gives
the same quantity (the same content words, the same unit): a lower bound below the ancestor's lower bound or above its
upper one, an upper bound above the ancestor's upper bound or below its lower one. Only the sides the dependent states
are compared: "at least 2 nm" under "1 to 10 nm" narrows (the upper bound still holds). Left alone:

* a quantity the words do not name (nothing before the bound, "and at most 5 nm" after another bound), or a quantity a
  claim names twice with two ranges (which of them is meant the words do not tell);
* a bound next to "or" (alternative ranges: "1 to 5 or 10 to 20 nm"), in a limitation with "respectively" or a
  condition ("when the temperature is above 100 °C"), or a number in a name or formula ("claim 2", "C1-C6", "SEQ ID
  NO: 2", "2×10−5") or a stretch of a sequence ("amino acids 1 to 323").

Each claim is read against earlier claims only, so a partial claim set (the claims ``spg generate`` has so far) gets
the findings the whole set would have for those claims.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from spg.forest import Forest
from spg.lint.clauses import ANCESTORS, Reading, against_chain, content, read_claims, words
from spg.lint.finding import Finding

# unit → its spellings after a number (each unit written one way: "microns" and "μm" are one unit)
UNITS: dict[str, tuple[str, ...]] = {
    "wt%": ("wt%", "wt.%", "wt. %", "wt %", "weight %", "weight percent", "percent by weight", "% by weight",
            "weight-%", "mass %", "mass%", "% by mass", "percent by mass", "mass percent"),
    "mol%": ("mol%", "mol %", "mol. %", "mole %", "mole percent", "mol percent", "molar percent", "% by mole"),
    "at%": ("atomic percent", "atomic %", "at%", "at. %", "at %", "atom %", "atom percent"),
    "vol%": ("vol%", "vol %", "vol. %", "volume %", "volume percent", "% by volume", "percent by volume"),
    "%": ("%", "percent", "per cent"),
    "°C": ("°c", "° c", "ºc", "º c", "℃", "degrees c", "degrees celsius", "degree celsius", "deg c"),
    "°F": ("°f", "° f", "degrees f", "degrees fahrenheit"),
    "°": ("°", "º", "degrees", "degree"),
    "nm": ("nm", "nanometers", "nanometres", "nanometer", "nanometre"),
    "μm": ("μm", "µm", "um", "microns", "micron", "micrometers", "micrometres", "micrometer", "micrometre"),
    "mm": ("mm", "millimeters", "millimetres", "millimeter", "millimetre"),
    "cm": ("cm", "centimeters", "centimetres", "centimeter", "centimetre"),
    "m": ("m", "meters", "metres", "meter", "metre"),
    "in": ("inches", "inch", "″", '"'),
    "Å": ("å", "angstroms", "angstrom"),
    "ms": ("ms", "milliseconds", "millisecond", "msec"),
    "μs": ("μs", "µs", "microseconds", "microsecond"),
    "s": ("s", "sec", "seconds", "second"),
    "min": ("min", "minutes", "minute"),
    "h": ("h", "hr", "hrs", "hours", "hour"),
    "day": ("days", "day"),
    "mg": ("mg", "milligrams", "milligram"),
    "g": ("g", "grams", "gram"),
    "kg": ("kg", "kilograms", "kilogram"),
    "lb": ("lb", "lbs", "pounds", "pound"), "oz": ("oz", "ounces", "ounce"), "N": ("newtons", "newton"),
    "Pa": ("pa", "pascals"), "kPa": ("kpa",), "MPa": ("mpa",), "GPa": ("gpa",), "psi": ("psi",), "bar": ("bar",),
    "Hz": ("hz",), "kHz": ("khz",), "MHz": ("mhz",), "GHz": ("ghz",),
    "V": ("v", "volts", "volt"), "mV": ("mv",), "kV": ("kv",), "mA": ("ma",), "W": ("w", "watts", "watt"),
    "ppm": ("ppm",), "rpm": ("rpm",), "dB": ("db",), "Ω": ("ω", "ohms", "ohm"),
}
_SPELLED = sorted(((s, u) for u, spellings in UNITS.items() for s in spellings), key=lambda x: -len(x[0]))
_UNIT = "|".join(re.escape(s) for s, _ in _SPELLED)
_UNIT_OF = dict(_SPELLED)
# shares: a quantity may follow them ("5 to 30 atomic percent platinum")
_SHARES = frozenset({"%", "wt%", "mol%", "at%", "vol%"})
_NUMBER_WORDS = {w: str(n) for n, w in enumerate((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"))}
_SPELLED_NUMBER = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b")
# a number ("about 5", "0.5", "1,000"), not part of a name or formula ("C1", "R6", "1,1-bis", "No. 2")
_ABOUT = r"(?:(?:about|approximately|around|roughly|substantially|nearly|ca\.|~)\s*)?"
_N = r"(?<![\w.,/−+-])(?P<n{k}>\d{{1,3}}(?:,\d{{3}})+(?![\d-])|\d+(?:\.\d+)?)"
# a number's unit: a spelling of UNITS, "per" what ("0.5 percent per 1000 hours")
_U = rf"(?:\s*(?P<unit{{k}}>{_UNIT})(?![\w%])(?:\.(?=\s))?(?P<per{{k}}>\s*(?:/|\bper\b)\s*(?:\d+\s*)?[a-zμµ]+\b)?)?"


def _number(k: int) -> str:
    return _ABOUT + _N.format(k=k) + _U.format(k=k)


# Each row: how bounds are said, and which of (lower, upper) the numbers give; "set": alternatives, read as the span
# from the least to the greatest ("n is 1 or 2"). Longer phrases first: "greater than or equal to" before "greater than".
_LOWER = (r"at least|not less than|no less than|not lower than|greater than or equal to|more than or equal to|equal to "
          r"or greater than|equal to or more than|greater than|more than|larger than|higher than|above|exceeding|in "
          r"excess of|(?:a )?minimum of|≥|>=|>")
_UPPER = (r"at most|not more than|no more than|not greater than|no greater than|not higher than|not exceeding|not to "
          r"exceed|less than or equal to|equal to or less than|lower than or equal to|less than|lower than|smaller than|"
          r"fewer than|below|up to|(?:a )?maximum of|≤|<=|<")
_TO = ("to", "through", "-", "–", "—")
_OR_MORE = ("or more", "or greater", "or higher", "or larger", "or above", "and above", "and more")
_OR_LESS = ("or less", "or lower", "or fewer", "or smaller", "or below", "and below", "and less")
_FORMS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), kind) for p, kind in (
    (rf"\bbetween\s+{_number(1)}\s*(?:and|to|-|–)\s*{_number(2)}", "both"),
    (rf"(?:\b(?:from|of|ranging from|range of|range from)\s+)?{_number(1)}\s*(?:{'|'.join(_TO)})\s*{_number(2)}",
     "both"),
    (rf"\b(?:{_LOWER})\s*{_number(1)}", "lower"),
    (rf"{_number(1)}\s*(?:{'|'.join(_OR_MORE)})\b", "lower"),
    (rf"\b(?:{_UPPER})\s*{_number(1)}", "upper"),
    (rf"{_number(1)}\s*(?:{'|'.join(_OR_LESS)})\b", "upper"),
    (rf"(?:=|\bis\b|\bare\b|\bof\b)\s*{_number(1)}(?:\s*,\s*\d+(?:\.\d+)?)*\s*,?\s*or\s+{_number(2)}", "set"),
))
# the words one of which each row's pattern holds as written, looked for first (in C): most limitations with a number
# hold none of them, and Python's regular expressions try these patterns at every character, which made them most of
# the rule's time
_NEEDS: tuple[tuple[str, ...], ...] = (
    ("between",),
    _TO,
    # a word (or sign) of each phrase of _LOWER and _UPPER
    ("least", "less", "lower", "greater", "more", "larger", "higher", "above", "exceed", "excess", "minimum", "≥", ">"),
    _OR_MORE,
    ("most", "more", "greater", "higher", "exceed", "less", "lower", "smaller", "fewer", "below", "up to", "maximum",
     "≤", "<"),
    _OR_LESS,
    ("or",),
)
# how many numbers each row's pattern reads: one that reads two ("from a to b") needs two runs of digits, each
# number starting one (the character before it is no digit), which most limitations with a number do not have
_NUMBERS = tuple(2 if "n2" in pattern.groupindex else 1 for pattern, _ in _FORMS)
_DIGITS = re.compile(r"\d+")
# where a quantity's words start: the clause boundary before them
_BOUNDARY = re.compile(r"[,;:]|\b(?:and|or|wherein|whereby|where|while|whilst|but)\b")
# limitations read as a whole or not at all: "respectively" pairs quantities with ranges, conditions say when
_UNREAD = re.compile(r"\b(?:respectively|when(?! (?:compared|measured|tested|determined))|whenever|if|unless|until|"
                     r"before|after|during|optionally|preferably|selected from|group consisting)\b")
# alternatives left once the bounds are taken out ("alkyl of 1 to 8 carbon atoms, or alkoxy of 1 to 4 carbon atoms")
_OR = re.compile(r"\bor\b")
# a number in a citation, a name or a formula
_NAMED = re.compile(r"(?:\bclaims?|\bformula|\bfig(?:ure)?s?\.?|\bno\.?|\bnumber|\bseq id no:?|\bstep|\bitem)\s*$")
# a number run on into a formula ("2×10−5", "10^3", "5a1")
_FORMULA = re.compile(r"\s*(?:[×x]\s*10|\^|[a-z]?\d)")
# a stretch of a sequence ("amino acids 1 to 323 of SEQ ID NO: 1", "a start-end position from 4713000 to …")
_STRETCH = re.compile(r"\b(?:amino acids?|residues?|positions?|nucleotides?|bases?|exons?|chromosomes?)\s*$")
# words before a bound that say nothing of what is bounded ("in the range of", "a value of")
_FILLER = frozenset({"range", "ranging", "value", "within", "selected", "integer", "independent", "independently"})
# words that end what a bound counts ("at least 4 carbon atoms in its alcohol fraction")
_NOT_COUNTED = frozenset({
    "in", "of", "on", "at", "to", "for", "with", "by", "from", "per", "is", "are", "each", "than", "within", "between",
    "along", "over", "under", "across", "below", "above", "after", "before", "during", "and", "or", "which", "that",
    "wherein", "where", "when", "while", "so", "such", "as", "relative", "thereof", "therein",
})
# words that say how much without saying of what ("present, on a dry solids basis, in an amount of"): a quantity of
# these alone is unclear
_GENERIC = frozenset(s for w in ("amount", "amounts", "content", "concentration", "level", "proportion", "quantity",
                                 "number", "percentage", "portion", "present", "total", "basis", "dry", "weight",
                                 "ratio", "value", "values", "degree", "each", "one") for _, s in content((w,)))
LONGEST = 6  # content words of a quantity (the last ones before its bound)


@dataclass(frozen=True)
class Bound:
    """A range a limitation gives a quantity: ``quantity`` (the stems of the words naming it, sorted), ``unit`` (a
    unit of :data:`UNITS`, the stems of the words counted, or ""), ``low``/``high`` (none where not stated) and the
    words that say it, from the quantity's first word, in lower case (for the message)."""

    quantity: tuple[str, ...]
    unit: str
    low: float | None
    high: float | None
    said: str


# the most characters _NAMED's and _STRETCH's words take before their spaces ("chromosomes", "amino acids"); a test
# holds both patterns to it
_LONGEST_NAME = 11


def _ends_in(phrase: re.Pattern[str], text: str, end: int) -> bool:
    """Whether ``text[:end]`` ends in ``phrase`` (:data:`_NAMED`, :data:`_STRETCH`: words of at most
    :data:`_LONGEST_NAME` characters, then spaces), searched only where those words may start, before the spaces:
    searching all the text before each number took time growing with a limitation's length times its numbers. A word
    boundary at the start of the search still sees the character before it."""
    return phrase.search(text, max(0, len(text[:end].rstrip()) - _LONGEST_NAME), end) is not None


def _value(text: str) -> float:
    return float(text.replace(",", ""))


def _counted(after: str) -> str:
    """The stems of the words a bound counts, where no unit follows its number ("4 carbon atoms in …" → "carbon
    atom"): up to three words, to the next clause boundary or preposition."""
    got = []
    for w in words(re.split(r"[,;:()]", after)[0])[:3]:
        if not w.replace("-", "").isalpha() or w in _NOT_COUNTED:
            break
        got.append(w)
    return " ".join(s for _, s in content(tuple(got)))


def _quantity(before: str) -> tuple[tuple[str, ...], str]:
    """(the stems naming the quantity a bound follows, its words as written) from the text before the bound."""
    cut = list(_BOUNDARY.finditer(before))
    written = before[cut[-1].end() :] if cut else before
    stems = [s for _, s in content(words(written)) if s not in _FILLER]  # numbers too: "SEQ ID No. 2" is no "No. 1"
    return tuple(sorted(set(stems[-LONGEST:]))), " ".join(written.split()[-2 * LONGEST :])


def bounds(part: str) -> list[Bound]:
    """Every bound the text of one limitation gives a quantity whose words and unit it names (module docstring)."""
    text = _SPELLED_NUMBER.sub(lambda m: _NUMBER_WORDS[m.group(1)], part.lower())
    runs = len(_DIGITS.findall(text))
    if not runs or _UNREAD.search(text) or "×" in text:
        return []
    # the earliest phrase, and of those the longest: "not greater than 0.5" is no "greater than 0.5"
    forms = (form for form, needs, reads in zip(_FORMS, _NEEDS, _NUMBERS)
             if reads <= runs and (not needs or any(word in text for word in needs)))
    found = sorted(((m.start(), -m.end(), m, kind) for pattern, kind in forms for m in pattern.finditer(text)),
                   key=lambda t: t[:2])
    taken: list[tuple[int, int, re.Match[str], str]] = []
    for start, end, m, kind in found:
        if not taken or start >= taken[-1][1]:
            taken.append((start, -end, m, kind))
    rest, previous = "", 0
    for start, end, _, _ in taken:
        rest, previous = rest + text[previous:start] + " ", end
    if _OR.search(rest + text[previous:]):
        return []
    out = []
    previous = 0
    for start, end, m, kind in taken:
        before, after = text[previous:start], text[end:]
        previous = end
        if _ends_in(_NAMED, text, m.start("n1")) or _ends_in(_STRETCH, text, start) or _FORMULA.match(after):
            continue
        spelled = {_UNIT_OF[m.group(f"unit{k}")] + " ".join(("",) + words(m.group(f"per{k}") or ""))
                   for k in (1, 2) if m.groupdict().get(f"unit{k}")}
        if len(spelled) > 1:
            continue  # "5% to 50 wt%": which unit holds, the words do not say
        unit = spelled.pop() if spelled else ""
        if not unit and re.match(r"[a-zμµ°%]", after):
            continue  # a number run into a word this table does not know ("5x", "10k")
        if not unit:
            unit = _counted(after)
        quantity, named = _quantity(before)
        if unit.split(" ")[0] in _SHARES:
            # a share may name what it is a share of after it ("5 to 30 atomic percent platinum", "35 wt% cis-pinane")
            quantity = tuple(sorted({*quantity, *_counted(re.sub(r"^\s*of\b", "", after)).split()}))
        if _GENERIC.issuperset(quantity):
            continue  # no words, or none that say of what ("present, on a dry solids basis, in an amount of")
        numbers = sorted(_value(m.group(f"n{k}")) for k in (1, 2) if m.groupdict().get(f"n{k}"))
        if kind == "set":  # "is 1, 2 or 3": each alternative
            numbers = sorted(map(_value, re.findall(r"(?<![\d.])\d+(?:\.\d+)?", m.group(0)[: m.end("n2") - start])))
        low = numbers[0] if kind != "upper" else None
        high = numbers[-1] if kind != "lower" else None
        out.append(Bound(quantity, unit, low, high, f"{named} {m.group(0).strip()}".strip()))
    return out


def claim_bounds(r: Reading) -> dict[tuple[tuple[str, ...], str], Bound]:
    """(quantity, unit) → the bound one claim gives it, for every quantity the claim bounds once (one quantity
    bounded twice, "a first thickness of 1-5 nm … a thickness of 10-20 nm", is left out: which is meant is unclear)."""
    got: dict[tuple[tuple[str, ...], str], list[Bound]] = {}
    for part in r.parts:
        for b in bounds(part):
            got.setdefault((b.quantity, b.unit), []).append(b)
    return {key: found[0] for key, found in got.items() if len({(b.low, b.high) for b in found}) == 1}


def outside(mine: Bound, theirs: Bound) -> bool:
    """Whether a side ``mine`` states lies outside ``theirs`` (see the module docstring)."""
    low = -math.inf if theirs.low is None else theirs.low
    high = math.inf if theirs.high is None else theirs.high
    return (mine.low is not None and (mine.low < low or mine.low > high)) or (
        mine.high is not None and (mine.high > high or mine.high < low))


def chains(forest: Forest) -> dict[int, tuple[int, ...]]:
    """Claim → the claims it depends on up a chain of claims that each cite one earlier claim, nearest first, at most
    :data:`ANCESTORS`: a claim citing alternatives ("claim 1 or 2", "any preceding claim") is narrowed by each of
    them in its own way (their ranges may differ), so the chain stops there. A claim's chain is its parent and the
    parent's chain, so each is built once, lowest number first."""
    out: dict[int, tuple[int, ...]] = {}
    for num in sorted(forest.by_num):
        parents = forest.by_num[num].parents
        p = parents[0] if len(parents) == 1 else num
        out[num] = (p, *out[p][: ANCESTORS - 1]) if p < num and p in forest.by_num else ()
    return out


def check_ranges(forest: Forest, readings: dict[int, Reading] | None = None) -> list[Finding]:
    """``range-outside-parent`` findings, in claim order: each dependent claim with a bound outside the bound a claim
    up its chain gives the same quantity (the first one, at the dependent claim)."""
    readings = readings if readings is not None else read_claims(forest)
    up = chains(forest)
    above = {c.num: up[c.num] for c in forest.claims if c.parents and forest.by_num[c.num] is c}
    return [
        Finding(
            "range-outside-parent", "warning", num,
            f"says '{b.said}' where claim {a} says '{t.said}': a dependent claim's range "
            "must lie within the range the claims it depends on give that quantity, or it does not include every "
            "limitation of the claim it refers to (35 USC 112(d))",
            None, None, b.said,
        )
        for num, b, a, t in against_chain(
            forest, above, lambda n: list(claim_bounds(readings[n]).values()),
            lambda b, t: (b.quantity, b.unit) == (t.quantity, t.unit) and outside(b, t))
    ]

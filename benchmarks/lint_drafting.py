"""``spg lint``'s drafting rules (issue 30: the errors LLM drafters make) on real claims: recall on injected defects,
findings on unmodified granted claims, the real LLM outputs at hand, and speed.

The rules: duplicate-claim, not-further-limiting, repeated-limitation, multiple-introduction, preamble-mismatch,
contradicts-parent, range-outside-parent (docs/lint.md). Printed:

* **recall on injected defects** in the granted US and EP claim sets of the shared USPTO set, one defect of each kind
  (an element introduced twice in every independent claim) per document where the document allows it, read by
  ``spg.lint.find_all`` at the claim it was put in:

  - *claim copied*: a claim (a random one, not one citing "any preceding claim": a copy of that cites one claim
    more) added again at the end, with the same citation;
  - *claim copied, reworded*: the same claim in other words (its text after the citation reworded by ``reword``:
    "the"/"said", "comprises"/"includes", "configured to"/"adapted to", a plural for a singular, two conjuncts
    swapped, "further comprising X" as ", wherein the <subject> further comprises X"), as LLM drafters repeat one;
  - *parent limitation copied*: a new dependent claim at the end, citing a claim P with P's opening, whose only
    limitation is a clause of P or of a claim P depends on, on every path up from P (one of several claims P cites
    in the alternative may recite what narrows the others: ``spg.lint.clauses.on_every_path``) ("The stool of claim
    2, wherein the hinge is …"); *parent limitation reworded*: the same with the clause reworded;
  - *limitation repeated*: a clause of a claim (five words or more, without the connectives that open it; not a
    lead-in before a colon, "further comprising the steps of:") recited again at its end ("…; and <clause>.");
  - *preamble: another category*: a dependent claim's subject replaced by "method" (its chain claims a product)
    or "apparatus" (a process); *preamble: another subject*: under a product or medium claim, by the subject of
    another document's independent claim of the same category that names nothing of this chain and is no generic
    name of the category ("device", "system", "composition" … claim anything of it: spg.lint.preamble);
  - *element introduced twice*: in every independent claim, an element its body recites as its own ("…; a lower
    step …") recited again at its end ("…; and a lower step."), read whole (not "a head" of "a head covering or balaclava",
    "a section adjacent" of "a section adjacent to", "a non-transitory" of "a non-transitory computer-readable
    memory").
  - *parent limitation contradicted*: a new dependent claim at the end, citing a claim P with P's opening, whose
    only limitation is a clause of P or of a claim P depends on with one word of spg.lint.contradiction's table of
    exclusive predicates, said of something (``contradict``: not a name such as "a fixed frame"), swapped for a word
    of another group of its row ("fixed to the front frame" → "pivoted to the front frame"); clauses naming
    alternatives, a negation, a condition or a possibility are left out, since a swap there contradicts nothing.
    Drawn from a random generator of its own, so the other injections draw what they drew before.
  - *parent range widened*: a new dependent claim at the end, citing a claim P with P's opening, whose only
    limitation is a clause of P or of a claim P depends on through claims citing one claim each, one of its ranges
    (``widen``: "between a and b", "from a to b", "at least a", "not more than a" …) reaching outside what it was, a
    lower bound halved or an upper bound doubled; clauses naming alternatives, ranges paired "respectively" or a
    condition are left out. Drawn from a random generator of its own too.

* **findings per claim on the unmodified claims** by kind (US grants, EP, US applications) and rule, on the test
  side of ``spg.data.checker_split`` (never looked at while the rules were written) and, labelled as development
  data, on train and dev; every finding on the test side's granted US and EP claims is listed, to be read.
* **the HUPD-DCG sample**: findings of each rule per system (each system's claim set of the one published record).
* with ``--draft-outputs FILE``: the same for a JSON Lines file of ``spg generate`` results (each record's claims),
  and the structure errors in them.
* **claims/s** of the drafting rules alone and of every check (``find_all``), in one run (a ratio, not a timing
  goal), min-max of ``--repeat`` alternated runs.

    .venv/bin/python benchmarks/lint_drafting.py [--seed 0] [--repeat 3] [--draft-outputs FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from common import shared_file, shared_records

from spg.data import checker_split
from spg.forest import Forest
from spg.lint import find_all
from spg.lint.clauses import ancestry, on_every_path, read_claims, subject
from spg.lint.contradiction import EXCLUSIVE, PLACING, PROPERTIES
from spg.lint.preamble import GENERIC, category, check_preambles
from spg.lint.ranges import chains as one_citation_chains
from spg.lint.redundancy import check_redundancy
from spg.parse import extract_references, parse_claims

RULES = ("duplicate-claim", "not-further-limiting", "repeated-limitation", "multiple-introduction",
         "preamble-mismatch", "contradicts-parent", "range-outside-parent")
SHORT = {"duplicate-claim": "dup", "not-further-limiting": "nfl", "repeated-limitation": "rep",
         "multiple-introduction": "mi", "preamble-mismatch": "pre", "contradicts-parent": "con",
         "range-outside-parent": "rng"}
KINDS = {"grant": "US grants", "ep": "EP", "application": "US applications"}
STRUCTURE_ERRORS = {"empty", "no-independent", "duplicate-number", "self-reference", "missing-parent",
                    "forward-reference", "broken-parent", "multiple-dependency-cumulative", "multiple-dependent-basis"}
# what may open a clause without being part of it
# a limitation as drafters set them apart: between semicolons (or after the transition's colon), to the final period
_CLAUSE_END = re.compile(r";|:(?!\s*\d)|\.\s*$")
# a colon opens a list: what stands before it ("wherein the controller is configured to:", "further comprising the
# steps of:") is a lead-in, no limitation of its own
_LEAD_IN = re.compile(r"(;|:(?!\s*\d)|\.\s*$)")
# the transition that ends an independent claim's preamble, looked for before its first clause ends (a "comprising"
# deep in a one-clause claim is inside a limitation: "… a hinge comprising a second collar …")
_TRANSITION = re.compile(r"\b(?:comprising|comprises|including|includes|containing|contains|consisting of|"
                         r"characteri[sz]ed in that|wherein)\b|:")
_PRECEDING = re.compile(r"\b(?:preceding|previous|foregoing|above)\b", re.IGNORECASE)
_OPENER = re.compile(r"^(?:\s*(?:and|or|wherein|whereby|further|comprising|including)\b[\s,]*)+", re.IGNORECASE)
# an element recited as its own: after a semicolon or the transition's colon, "a"/"an" and up to four words that
# end before a function word, a participle, a number or punctuation
_STOP = {"to", "of", "for", "with", "having", "being", "that", "which", "is", "are", "and", "or", "on", "in", "at",
         "by", "from", "configured", "adapted", "wherein", "each", "the", "said", "a", "an", "between", "into",
         "through", "when", "where", "so", "as", "such", "about", "has", "have", "can", "may", "will", "not",
         "including", "comprising", "behind", "over", "under", "within", "along", "across", "around", "against",
         "above", "below", "near", "onto", "upon", "via", "after", "before", "during", "without", "toward",
         "towards", "beneath", "beside", "inside", "outside", "one", "two", "three", "four", "first", "second",
         "third", "fourth", "comprises", "includes", "contains", "containing", "since", "than", "other", "among"}
# ordinals: inside a phrase ("a back second half shared pole", "a different second material") they do not end it
_ORDINALS = {"first", "second", "third", "fourth"}
# adjectives that follow their noun with a complement ("a section adjacent to the end", "a shaft parallel to the
# axis", "an inner element rotatable within"), as "-able" words do; before a noun they modify it ("a removable lid",
# "a computer readable medium", "an opposite end")
_POSTPOSITIVE = {"adjacent", "proximate", "parallel", "perpendicular", "opposite", "transverse", "coaxial",
                 "integral", "flush", "responsive", "remote", "next", "close", "distal", "proximal"}
# nouns that end as adverbs, adjectives or participles do
_NOUNS = {"assembly", "subassembly", "supply", "family", "anomaly", "trolley", "cable", "table", "variable",
          "ring", "spring", "string", "bearing", "housing", "opening", "fitting", "coating", "casing", "wiring",
          "building", "ceiling", "setting", "lining", "mounting", "coupling", "bushing", "packing", "padding",
          "railing", "seating", "drawing", "recording", "thing", "wing", "bed", "seed", "feed", "shed", "speed",
          "reed", "sled", "head", "bead", "thread", "bread", "steed", "covering"}
_ELEMENT = re.compile(r"[;:]\s*(?:and\s+)?(an?\s+[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,5}(?:[\s,;.:()]|$))")


def _records_of(forest: Forest) -> list[dict]:
    return [{"num": c.num, "text": c.text} for c in forest.claims]


def _hit(records: list[dict], rule: str, claim: int) -> bool:
    return any(f.rule == rule and f.claim == claim for f in find_all(parse_claims(records)))


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


def _clauses(text: str, num: int) -> list[str]:
    """The limitations of a claim as written: the clauses (of five words or more, without their opening
    connectives; not the lead-in before a colon) of its text after its citation, or after an independent claim's
    transition ("comprising", a colon … before its first clause ends)."""
    refs = extract_references(text, num)
    if refs:
        text = text[refs[0].end :]
    else:
        first = _CLAUSE_END.search(text)
        opening = _TRANSITION.search(text, 0, first.end() if first else len(text))
        text = text[opening.end() :] if opening else ""
    out = []
    pieces = _LEAD_IN.split(text)
    for part, end in zip(pieces[::2], pieces[1::2] + [""]):
        # the connectives that open a clause (", further comprising", "and wherein") are no part of it
        part = _OPENER.sub("", part.strip(" ,.")).strip(" ,.")
        if end.startswith(":"):
            continue  # a lead-in
        if len(part.split()) >= 5 and "claim" not in part.lower() and _balanced(part):
            out.append(part)
    return out


def _single_citation(text: str, num: int):
    refs = extract_references(text, num)
    return refs[0] if len(refs) == 1 and len(refs[0].nums) == 1 else None


def _element(text: str) -> str | None:
    """The first element a claim's body recites as its own (see the module docstring): "a"/"an" and up to five words
    before punctuation or a function word (a participle inside the phrase, "a light detecting element", belongs to
    it; one at its end does not; a postpositive adjective ends it only before its complement: "a section adjacent
    to", "a member rotatable within", not "a computer-readable medium"); none where "of" follows ("a plurality of …"
    counts what it names), nor where the phrase goes on past where it was cut: an "or" after it ("a head covering or
    balaclava", "an exogenous upstream or downstream activator"), an ordinal inside it ("a different second
    material")."""
    for m in _ELEMENT.finditer(text):
        words = m.group(1).split()
        kept = [words[0]]
        rest = text[m.end(1) :]
        following = re.match(r"\s+([a-z][a-z-]*)", rest)
        nxt = following.group(1) if following else ""
        for i, w in enumerate(words[1:], 1):
            after = words[i + 1] if i + 1 < len(words) else nxt
            postpositive = w in _POSTPOSITIVE or (w.endswith(("able", "ible")) and "-" not in w)
            if w in _STOP or (w.endswith("ly") and w not in _NOUNS) or (
                postpositive and w not in _NOUNS and (after in _STOP or not after)
            ):
                nxt = w
                break
            kept.append(w)
        else:
            continue  # no end in sight within six words: not a phrase read whole
        phrase = " ".join(kept)
        then = re.match(r"\s+(\w+)", text[m.start(1) + len(phrase) :])
        cut_inside = nxt in _ORDINALS and len(kept) > 1
        goes_on = then is not None and then.group(1) == "or"
        while len(kept) > 1 and kept[-1].endswith(("ed", "ing")) and kept[-1] not in _NOUNS:
            nxt = kept.pop()
        if len(kept) >= 2 and nxt != "of" and not cut_inside and not goes_on:
            return " ".join(kept)
    return None


# rewordings a language model makes when it says a limitation again (issue 30's "non-distinctive claim repetition"):
# each a (pattern, replacement) applied by :func:`reword`, none changing a content word
_REWORDINGS = (
    (re.compile(r"\bthe\b"), "said"),
    (re.compile(r"\bsaid\b"), "the"),
    (re.compile(r"\bcomprises\b"), "includes"),
    (re.compile(r"\bincludes\b"), "comprises"),
    (re.compile(r"\bcomprising\b"), "including"),
    (re.compile(r"\bincluding\b"), "comprising"),
    (re.compile(r"\bhaving\b"), "comprising"),
    (re.compile(r"\bconfigured to\b"), "adapted to"),
    (re.compile(r"\badapted to\b"), "configured to"),
    # singular for plural: "the lever is …" → "the levers are …"
    (re.compile(r"\b(the|said) ([a-z]{3,}[^s\W]) is\b"), r"\1 \2s are"),
    # conjuncts reordered: "a frame and a seat" → "a seat and a frame"
    (re.compile(r"\b((?:an?|the|said) [a-z]+) and ((?:an?|the|said) [a-z]+)(?=[,;.]| (?:to|of|on|in|at|with)\b)"),
     r"\2 and \1"),
)
_FURTHER = re.compile(r"^,?\s*(?:further\s+)?(?:comprising|including)\b", re.IGNORECASE)


def reword(text: str, rng: random.Random, subject: tuple[str, ...] = ()) -> str:
    """``text`` (a claim's text after its citation, or a limitation) said again in other words: each rewording of
    :data:`_REWORDINGS` that applies, each at its first place, half of them at random (at least one); with the
    claim's ``subject``, "further comprising X" becomes ", wherein the <subject> further comprises X"."""
    options = [(p, r) for p, r in _REWORDINGS if p.search(text)]
    if subject and _FURTHER.search(text):
        options.append((_FURTHER, f", wherein the {' '.join(subject)} further comprises"))
    if not options:
        return text
    chosen = [o for o in options if rng.random() < 0.5] or [rng.choice(options)]
    for pattern, replacement in chosen:
        text = pattern.sub(replacement, text, count=1)
    return text


# where a word of spg.lint.contradiction's table is said of something (not a name: "a fixed frame"): after a word
# that is no article or preposition (a copula or "substantially" between; a copula for a property: "an insulation
# liquid in the tank" names a liquid), before a preposition, a participle and one (adverbs: "pivotally connected
# to"), a comma or the clause's end
_TABLE_WORD = re.compile(r"\b(" + "|".join(sorted({w for row in EXCLUSIVE for g in row for w in g}, key=len,
                                                   reverse=True)) + r")\b", re.IGNORECASE)
_BEFORE = re.compile(r"([A-Za-z][\w-]*)\s+(?P<copula>(?:is|are|being|be)\s+)?(?:(?:substantially|generally)\s+)?$")
_AFTER = re.compile(r"^(?:\s+[a-z]+(?:ed|ing))?\s+(?:to|on|onto|upon|at|in|into|with|from|of|relative to|with "
                    r"respect to)\b|^\s*(?:[,;.]|$)")
_NOT_SUBJECT = {"a", "an", "the", "said", "to", "of", "on", "in", "at", "with", "from", "by", "for", "and", "but", "or",
                "not", "comprising", "including", "having", "into", "onto", "is", "are", "being", "be"}
# a swap contradicts nothing among alternatives, under a negation, a condition ("when the flow is internal to the
# range") or a possibility ("can be removably formed")
_NO_CONTRADICTION = re.compile(r"\b(?:or|not|either|optionally|can|may|if|when|whenever|while|until)\b",
                               re.IGNORECASE)


def _form(word: str) -> str:
    if word in PLACING:
        return "place"  # "above the base", never "integral the base"
    return next((end for end in ("ly", "able", "ible", "ed") if word.endswith(end)), "")


def contradict(clause: str, rng: random.Random) -> str | None:
    """``clause`` with one word of the exclusive-predicate table said of something swapped for a word of another
    group of its row (of the same form where there is one: "fixed" → "pivoted", "pivotally" → "fixedly"); none where
    the clause has no such word, or a word of :data:`_NO_CONTRADICTION`)."""
    if _NO_CONTRADICTION.search(clause):
        return None
    options = []
    for m in _TABLE_WORD.finditer(clause):
        before = _BEFORE.search(clause[: m.start()])
        # next to another word of the table ("pivotally movable", "rotatably fixed") a swap says nothing plain
        beside = _TABLE_WORD.search(before.group(0)) if before else None
        if (before and not beside and before.group(1).lower() not in _NOT_SUBJECT
                and _AFTER.search(clause[m.end() :]) and not _TABLE_WORD.match(clause[m.end() :].lstrip())
                and (before.group("copula") or m.group(1).lower() not in PROPERTIES)):
            options.append(m)
    if not options:
        return None
    m = rng.choice(options)
    word = m.group(1).lower()
    others = sorted({w for row in EXCLUSIVE if any(word in g for g in row) for g in row if word not in g for w in g})
    alike = [w for w in others if _form(w) == _form(word)] or others
    return clause[: m.start()] + rng.choice(alike) + clause[m.end() :]


# a range a clause gives a quantity, as drafters write one (the benchmark's own reading, not spg.lint.ranges'): a
# number not in a name ("C1", "claim 2"), "about" before it read with it
_NUM = r"(?<![\w.,/−+-])((?:about |approximately )?)(\d+(?:\.\d+)?)(?![\d.,]?\d|[a-z]\d|\s*[×x]\s*10)"
_RANGES = tuple((re.compile(p, re.IGNORECASE), sides) for p, sides in (
    (rf"\bbetween\s+{_NUM}\s*(?:%|[a-zμ°]+\.?)?\s*(?:to|and|-)\s+{_NUM}", "both"),
    (rf"\b(?:from|of|is|are)\s+{_NUM}\s*(?:%|[a-zμ°]+\.?)?\s*(?:to|-)\s+{_NUM}", "both"),
    # "not more than 5" is no "more than 5"
    (rf"(?<!not )(?<!no )\b(?:at least|not less than|no less than|greater than|more than|above|in excess of)\s+{_NUM}", "lower"),
    (rf"(?<!not )(?<!no )\b(?:less than|lower than|not more than|no more than|not greater than|at most|up to|below|not exceeding)"
     rf"\s+{_NUM}", "upper"),
))
# a widened range need not reach outside alternatives ("1 to 5 or 10 to 20 nm"), ranges paired "respectively", or a
# condition ("when the temperature is above 100 °C")
_NO_WIDENING = re.compile(r"\b(?:or|respectively|when|whenever|if|unless|until|selected)\b", re.IGNORECASE)


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def widen(clause: str, rng: random.Random) -> str | None:
    """``clause`` with one of its ranges (:data:`_RANGES`) reaching outside what it was: a lower bound halved or an
    upper bound doubled ("from 5 to 50%" → "from 2.5 to 50%" or "from 5 to 100%", "at least 4" → "at least 2");
    none where the clause has no range, or a word of :data:`_NO_WIDENING`."""
    if _NO_WIDENING.search(clause):
        return None
    # (the match, the group of the number to move, whether it is a lower bound)
    found = [(m, group, group == 2 and sides != "upper") for pattern, sides in _RANGES for m in pattern.finditer(clause)
             for group in ((2, 4) if sides == "both" else (2,))
             if float(m.group(group)) > 0 and (sides != "both" or float(m.group(2)) < float(m.group(4)))]
    if not found:
        return None
    m, group, lower = rng.choice(found)
    value = float(m.group(group))
    widened = _number(value / 2 if lower else value * 2)
    return clause[: m.start(group)] + widened + clause[m.end(group) :]


def _recited_again(records: list[dict], num: int, words: str, rule: str, kind: str,
                   missed: list[tuple[str, int, str]] | None) -> bool:
    """Whether ``rule`` reports claim ``num`` once ``words`` are recited again at its end ("…; and <words>."); a miss
    is appended to ``missed`` where given."""
    changed = [dict(r, text=r["text"].rstrip(" .") + f"; and {words}.") if r["num"] == num else r for r in records]
    found = _hit(changed, rule, num)
    if missed is not None and not found:
        missed.append((kind, num, next(r["text"] for r in changed if r["num"] == num)))
    return found


def _added_dependent(records: list[dict], c, parent: str, clause: str, rule: str, kind: str,
                     missed: list[tuple[str, int, str]] | None) -> bool:
    """Whether ``rule`` reports a new dependent claim added at the end, citing what claim ``c`` cites (with ``c``'s
    opening), whose only limitation is ``clause`` (``parent``'s clause changed); a miss is appended to ``missed``
    where given."""
    num = max(r["num"] for r in records) + 1
    ref = _single_citation(c.text, c.num)
    clause = re.sub(r"^(?:an?|the|said)\s", "the ", clause, flags=re.IGNORECASE)
    text = f"{c.text[: ref.end]}, wherein {clause}."
    found = _hit(records + [{"num": num, "text": text}], rule, num)
    if missed is not None and not found:
        missed.append((kind, num, f"{parent} → {text}"))
    return found


def inject(forest: Forest, rng: random.Random, subjects: dict[str, list[tuple[str, ...]]],
           missed: list[tuple[str, int, str]] | None = None, reworder: random.Random | None = None,
           contradictor: random.Random | None = None, widener: random.Random | None = None) -> list[tuple[str, bool]]:
    """(kind, whether ``find_all`` reported it at the claim it was put in) for each injection this claim set allows:
    one of each kind, but an element introduced twice into every independent claim that has one (each miss, as
    (kind, claim, the claim's changed text), appended to ``missed`` where given). The reworded injections draw from
    ``reworder``, the contradicted parent limitation from ``contradictor`` (none without them), so that the other
    injections draw what they drew before them."""
    records = _records_of(forest)
    nums = [c.num for c in forest.claims]
    if len(set(nums)) != len(nums) or not nums:
        return {}
    last = max(nums)
    readings = read_claims(forest)
    above = ancestry(forest)
    out = {}

    # a claim citing "any preceding claim" cites the claim it copies as well: a copy of it has other parents
    copied = rng.choice([c for c in forest.claims if not _PRECEDING.search(c.text)] or [forest.claims[0]])
    out["claim copied"] = _hit(records + [{"num": last + 1, "text": copied.text}], "duplicate-claim", last + 1)
    # the same claim in other words: only its text after the citation is reworded (the citation names the parent)
    ref = _single_citation(copied.text, copied.num) if copied.parents else None
    cut = ref.end if ref else 0
    text = copied.text[:cut] + reword(copied.text[cut:], reworder, readings[copied.num].subject) if reworder else ""
    if text and text != copied.text:
        out["claim copied, reworded"] = _hit(records + [{"num": last + 1, "text": text}], "duplicate-claim",
                                             last + 1)
        if missed is not None and not out["claim copied, reworded"]:
            missed.append(("claim copied, reworded", last + 1, f"{copied.num} → {text}"))

    dependents = [c for c in forest.claims if c.parents and _single_citation(c.text, c.num)
                  and not readings[c.num].restates and readings[c.num].subject]
    # only what every path up from P recites: a limitation of one of the claims P cites in the alternative narrows
    shared = on_every_path(forest, above)
    options = [(c, a, clause) for c in dependents for a in (c.parents[0], *shared.get(c.parents[0], ()))
               if a in forest.by_num for clause in _clauses(forest.by_num[a].text, a)]
    if options:
        c, _, clause = rng.choice(options)
        ref = _single_citation(c.text, c.num)
        clause = re.sub(r"^(?:an?|the|said)\s", "the ", clause, flags=re.IGNORECASE)
        text = f"{c.text[: ref.end]}, wherein {clause}."
        out["parent limitation copied"] = _hit(records + [{"num": last + 1, "text": text}], "not-further-limiting",
                                               last + 1)
        again = reword(clause, reworder) if reworder else clause
        if again != clause:
            text = f"{c.text[: ref.end]}, wherein {again}."
            out["parent limitation reworded"] = _hit(records + [{"num": last + 1, "text": text}],
                                                     "not-further-limiting", last + 1)
            if missed is not None and not out["parent limitation reworded"]:
                missed.append(("parent limitation reworded", last + 1, f"{clause} → {text}"))

    options = [(c, clause) for c in forest.claims for clause in _clauses(c.text, c.num)]
    if options:
        c, clause = rng.choice(options)
        out["limitation repeated"] = _recited_again(records, c.num, clause, "repeated-limitation",
                                                    "limitation repeated", missed)

    if dependents:
        c = rng.choice(dependents)
        ref = _single_citation(c.text, c.num)
        chain = [readings[a].subject for a in above[c.num] if readings[a].subject]
        if chain:
            theirs = category(readings[c.parents[0]].subject or chain[0])
            other = "apparatus" if theirs == "process" else "method"
            text = f"The {other} of {c.text[ref.start:]}"
            changed = [dict(r, text=text) if r["num"] == c.num else r for r in records]
            out["preamble: another category"] = _hit(changed, "preamble-mismatch", c.num)
            named = {w for s in chain for w in s}
            pool = [s for s in subjects.get(theirs, ()) if named.isdisjoint(s) and s[-1] not in GENERIC[theirs]]
            if pool and theirs != "process":
                text = f"The {' '.join(rng.choice(pool))} of {c.text[ref.start:]}"
                changed = [dict(r, text=text) if r["num"] == c.num else r for r in records]
                out["preamble: another subject"] = _hit(changed, "preamble-mismatch", c.num)

    # every independent claim: one drawn at random read 28 to 30 of 31 on the test side as the draw changed (stop 38)
    twice = [("element introduced twice", _recited_again(records, c.num, element, "multiple-introduction",
                                                          "element introduced twice", missed))
             for c in forest.claims if not c.parents and (element := _element(c.text))]

    if contradictor is not None:
        # a new dependent claim citing a claim P (with P's opening) whose only limitation is a clause of P or of a
        # claim P depends on, a predicate of that clause swapped for one it excludes
        options = [(c, clause) for c in dependents for a in (c.parents[0], *above[c.num]) if a in forest.by_num
                   for clause in _clauses(forest.by_num[a].text, a) if _TABLE_WORD.search(clause)]
        contradicted = [(c, parent, swapped) for c, parent in options if (swapped := contradict(parent, contradictor))]
        if contradicted:
            c, parent, clause = contradictor.choice(contradicted)
            out["parent limitation contradicted"] = _added_dependent(
                records, c, parent, clause, "contradicts-parent", "parent limitation contradicted", missed)

    if widener is not None:
        # a new dependent claim citing a claim P (with P's opening) whose only limitation is a clause with a range of
        # P or of a claim P depends on through claims citing one claim each (spg.lint.ranges.chains), the range widened
        up = one_citation_chains(forest)
        options = [(c, clause) for c in dependents for a in (c.parents[0], *up[c.parents[0]])
                   if a in forest.by_num for clause in _clauses(forest.by_num[a].text, a)]
        widened = [(c, parent, wide) for c, parent in options if (wide := widen(parent, widener))]
        if widened:
            c, parent, clause = widener.choice(widened)
            out["parent range widened"] = _added_dependent(records, c, parent, clause, "range-outside-parent",
                                                           "parent range widened", missed)
    return [*out.items(), *twice]


def subject_pool(records) -> dict[str, list[tuple[str, ...]]]:
    """Subjects of the independent claims of ``records`` by category, for the "another subject" injection (taken
    from other documents: a document's own subjects are excluded where they are used)."""
    pool: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for r in records:
        for c in r.claims.claims:
            if not c.parents:
                got = subject(c.text.split(",")[0].split(" comprising")[0])
                if 1 <= len(got) <= 3 and all(w.isalpha() for w in got):
                    pool[category(got)].append(got)
    return pool


def percent(hits: int, total: int) -> str:
    return f"{hits}/{total} ({100 * hits / total:.1f}%)" if total else "-"


def drafting_findings(forest: Forest) -> list:
    return [f for f in find_all(forest) if f.rule in RULES]


def print_unmodified(records, side: str, listed: bool) -> None:
    print(f"\nfindings per claim on unmodified claims, {side}:")
    print(f"  {'kind':16s} {'docs':>5s} {'claims':>6s}  " + "  ".join(f"{SHORT[r]:>6s}" for r in RULES) + "     all")
    shown = []
    for kind, name in KINDS.items():
        group = [r for r in records if r.fields.get("kind") == kind]
        claims = sum(len(r.claims) for r in group)
        counts: Counter = Counter()
        for r in group:
            for f in drafting_findings(r.claims):
                counts[f.rule] += 1
                if kind in ("grant", "ep"):
                    shown.append((r, f))
        per = "  ".join(f"{counts[rule] / claims if claims else 0:6.4f}" for rule in RULES)
        total = sum(counts.values()) / claims if claims else 0
        print(f"  {name:16s} {len(group):5d} {claims:6d}  {per}  {total:6.4f}")
    if listed:
        print(f"  every finding on the granted US and EP claims ({len(shown)}), to be read:")
        for r, f in shown:
            text = " ".join(r.claims.by_num[f.claim].text.split())
            print(f"    {r.id} claim {f.claim} [{f.rule}] {f.message[:110]}")
            print(f"      {text[:160]}")


def print_system_findings(title: str, sets: list[tuple[str, Forest]]) -> None:
    print(f"\n{title}:")
    print(f"  {'claim set':28s} {'claims':>6s}  " + "  ".join(f"{SHORT[r]:>4s}" for r in RULES)
          + "  structure errors")
    for name, forest in sets:
        found = find_all(forest)
        counts = Counter(f.rule for f in found)
        errors = sum(f.rule in STRUCTURE_ERRORS for f in found)
        print(f"  {name[:28]:28s} {len(forest):6d}  " + "  ".join(f"{counts[r]:4d}" for r in RULES)
              + f"  {errors:16d}")


def draft_outputs(path: str) -> list[tuple[str, Forest]]:
    out = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            result = json.loads(line)
        except json.JSONDecodeError as e:
            sys.exit(f"error: {path} line {n}: not valid JSON ({e.msg}); expected spg generate results")
        if not isinstance(result, dict) or "claims_text" not in result:
            continue  # a run's header or summary line
        out.append((str(result.get("id", n)), parse_claims(result["claims_text"] or "")))
    return out


def rates(records, repeat: int) -> dict[str, tuple[float, float]]:
    claims = sum(len(r.claims) for r in records)

    def drafting(forest: Forest) -> None:
        readings = read_claims(forest)
        check_redundancy(forest, readings)
        check_preambles(forest, readings)

    contenders = {"drafting rules (no antecedent reader)": drafting, "find_all (every check)": find_all}
    seen: dict[str, list[float]] = defaultdict(list)
    for _ in range(repeat):
        for name, run in contenders.items():
            start = time.perf_counter()
            for r in records:
                run(r.claims)
            seen[name].append(claims / (time.perf_counter() - start))
    return {name: (min(v), max(v)) for name, v in seen.items()}


def list_misses(sides: dict[str, list], seed: int) -> None:
    """Recall on train and dev (seeded apart from the test side's draws) and every defect missed there, to be read
    while tuning; the test side is not read at all."""
    rng, reworder = random.Random(seed), random.Random(f"reword {seed}")
    contradictor = random.Random(f"contradict {seed}")
    widener = random.Random(f"widen {seed}")
    pool = subject_pool(sides["train"])
    for side in ("train", "dev"):
        hits: dict[str, list[bool]] = defaultdict(list)
        missed: list[tuple[str, int, str]] = []
        for r in sides[side]:
            if r.fields.get("kind") in ("grant", "ep"):
                before = len(missed)
                for kind, ok in inject(r.claims, rng, pool, missed, reworder, contradictor, widener):
                    hits[kind].append(ok)
                missed[before:] = [(kind, f"{r.id} claim {num}", text) for kind, num, text in missed[before:]]
        print(f"\nrecall on injected defects, {side} side (development data):")
        for kind, oks in hits.items():
            print(f"  {kind:28s} {percent(sum(oks), len(oks))}")
        for kind, where, text in missed:
            print(f"  missed [{kind}] {where}: {' '.join(text.split())[-400:]}")
    print_unmodified(sides["dev"] + sides["train"], "train + dev sides (development data)", listed=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--seed", type=int, default=0, help="seed of the injected defects (default 0)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of the whole set (default 3)")
    parser.add_argument("--draft-outputs", metavar="FILE", help="also lint a JSON Lines file of spg generate results")
    parser.add_argument("--list-dev", action="store_true", help="also list every finding on train and dev")
    parser.add_argument("--misses", action="store_true",
                        help="only inject on train and dev (the sides to tune on) and list every missed defect and "
                        "every finding on their unmodified claims, nothing of the test side")
    args = parser.parse_args()
    records = [r for r in shared_records() if r.fields.get("kind") in KINDS]
    sides = {side: [r for r in records if checker_split(r.id) == side] for side in ("train", "dev", "test")}
    print(f"shared USPTO set: {len(records)} documents, {sum(len(r.claims) for r in records)} claims; checker split "
          + ", ".join(f"{s} {len(v)}" for s, v in sides.items()))
    if args.misses:
        list_misses(sides, args.seed)
        return

    rng, reworder = random.Random(args.seed), random.Random(f"reword {args.seed}")
    contradictor = random.Random(f"contradict {args.seed}")
    widener = random.Random(f"widen {args.seed}")
    for side in ("test", "dev"):
        pool = subject_pool(sides["train"])  # other documents' subjects, never the side's own
        hits: dict[str, list[bool]] = defaultdict(list)
        for r in sides[side]:
            if r.fields.get("kind") in ("grant", "ep"):
                for kind, ok in inject(r.claims, rng, pool, reworder=reworder, contradictor=contradictor,
                                          widener=widener):
                    hits[kind].append(ok)
        label = "test side" if side == "test" else "dev side (development data)"
        print(f"\nrecall on injected defects, granted US and EP claim sets, {label}:")
        for kind, oks in hits.items():
            print(f"  {kind:28s} {percent(sum(oks), len(oks))}")

    print_unmodified(sides["test"], "test side", listed=True)
    print_unmodified(sides["dev"] + sides["train"], "train + dev sides (development data)", listed=args.list_dev)

    sample = json.loads(shared_file("hupd-dcg/sample_outputs.json").read_text(encoding="utf-8"))
    systems = [("granted claims (HUPD)", parse_claims(sample["claims"]))] + [
        (k.removesuffix("-claim"), parse_claims(v)) for k, v in sample.items() if k.endswith("-claim")
    ]
    print_system_findings("HUPD-DCG sample: findings per system (one description, its real claims first)", systems)

    if args.draft_outputs:
        sets = draft_outputs(args.draft_outputs)
        print_system_findings(f"{args.draft_outputs}: findings per document", sets)
        total = Counter(f.rule for _, forest in sets for f in find_all(forest))
        claims = sum(len(f) for _, f in sets)
        print(f"  all {len(sets)} documents, {claims} claims: "
              + ", ".join(f"{rule} {total[rule]}" for rule in RULES)
              + f"; structure errors {sum(total[r] for r in STRUCTURE_ERRORS)}")

    print(f"\nclaims/s in process over the {len(records)} documents, min-max of {args.repeat} alternated runs:")
    for name, (low, high) in rates(records, args.repeat).items():
        print(f"  {name:40s} {low:7,.0f}-{high:,.0f}")


if __name__ == "__main__":
    main()

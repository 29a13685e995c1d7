"""Claims renumbered consecutively in an order with no forward reference, every citation updated (``spg renumber``).

The order is the given one, except that a claim comes after every claim it cites (37 CFR 1.75(c): a dependent claim
refers back): a stable topological order, the earliest placeable claim first. Claim N of the new order is numbered
N, and each numbered citation ("claim 3", "claims 2 or 3", "any of claims 1-4", "claims 2 to 5") is rewritten
through that mapping; a range whose claims are no longer consecutive is written as a list ("claims 2, 4 or 5").
Citations by position ("any preceding claim") and the numbers of items inside a claim are left as they are.

A citation of a claim that does not exist, a cycle of citations, a number used twice or a cancelled claim leave
no order to write: :class:`~spg.errors.InputError` names the claim. Text comes out one claim per line; a Word
document keeps every paragraph and run as it was, with only the numbers changed and the claims' paragraphs moved.
"""

from __future__ import annotations

import heapq
import re

from spg.errors import InputError
from spg.forest import Forest
from spg.parse import Reference, extract_references

_DIGITS = re.compile(r"\d+")
_RANGE_WORD = re.compile(r"\d\s*(-|–|—|‑|\bto\b|\bthrough\b|\bthru\b)\s*(?:claims?\s*)?\d", re.IGNORECASE)
_ALTERNATIVE_BEFORE = re.compile(r"\b(?:any|either|one)\b(?:\s+\w+){0,3}\s*$", re.IGNORECASE)


def _citations(text: str, num: int) -> list[Reference]:
    """The numbered citations of claim ``num`` (those with a number written; "any preceding claim" has none)."""
    return [r for r in extract_references(text, num) if _DIGITS.search(text, r.start, r.end)]


def new_numbers(forest: Forest) -> dict[int, int]:
    """Old claim number → new number: the claims in a stable topological order of their citations, numbered from 1.
    Raises InputError naming the claim for a citation of a missing claim, a cycle, a duplicate number or a
    cancelled claim."""
    position: dict[int, int] = {}
    for i, c in enumerate(forest.claims):
        if c.num in position:
            raise InputError(f"claim {c.num}: the number is used twice; number each claim once, then renumber")
        position[c.num] = i
    if forest.cancelled:
        first = min(forest.cancelled)
        raise InputError(f"claim {first}: listed as cancelled; a claim set to renumber holds only its claims "
                         "(delete the cancelled ones first)")
    parents: list[set[int]] = []
    for c in forest.claims:
        cited = set()
        for ref in extract_references(c.text, c.num):
            numbered = _DIGITS.search(c.text, ref.start, ref.end) is not None
            for n in ref.nums:
                if n in position:
                    cited.add(position[n])
                elif numbered:  # "any preceding claim" names the claims before it, whichever exist
                    raise InputError(f"claim {c.num}: cites claim {n}, which does not exist; expected citations of "
                                     "claims in the set")
        parents.append(cited)
    order = _stable_order(forest, parents)
    return {forest.claims[i].num: new for new, i in enumerate(order, 1)}


def _stable_order(forest: Forest, parents: list[set[int]]) -> list[int]:
    """Positions in an order where each claim follows the claims it cites, the earliest placeable first (Kahn's
    algorithm with a heap). A claim citing itself, or a ring of claims citing each other, is a cycle."""
    n = len(parents)
    waiting = [len(p) for p in parents]
    children: list[list[int]] = [[] for _ in range(n)]
    for i, cited in enumerate(parents):
        for p in cited:
            children[p].append(i)
    ready = [i for i in range(n) if not waiting[i]]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for child in children[i]:
            waiting[child] -= 1
            if not waiting[child]:
                heapq.heappush(ready, child)
    if len(order) < n:
        raise InputError(f"claim {_cycle(forest, parents, waiting)}; a claim cannot depend on itself, directly or "
                         "through other claims")
    return order


def _cycle(forest: Forest, parents: list[set[int]], waiting: list[int]) -> str:
    """ "2: its citations go round (2 → 3 → 2)": a cycle among the claims never placed, from the earliest of them."""
    at = next(i for i, w in enumerate(waiting) if w)
    step: dict[int, int] = {}  # claim position → its place on the walk (a ring of 100,000 claims stays linear)
    while at not in step:
        step[at] = len(step)
        at = min(p for p in parents[at] if waiting[p])  # an unplaced claim always cites an unplaced one
    ring = list(step)[step[at]:] + [at]
    nums = [str(forest.claims[i].num) for i in ring]
    if len(nums) > 8:  # one line, however long the ring
        nums = [*nums[:4], "…", *nums[-3:]]
    return f"{nums[0]}: its citations go round ({' → '.join(nums)})"


def citation_edits(text: str, num: int, numbers: dict[int, int]) -> list[tuple[int, int, str]]:
    """(start, end, replacement) for each number to change in claim ``num``'s ``text``, in text order: each cited
    number mapped, or a whole citation written again when a range of it is no longer consecutive."""
    edits = []
    for ref in _citations(text, num):
        phrase = text[ref.start : ref.end]
        digits = list(_DIGITS.finditer(phrase))
        wanted = sorted(numbers[n] for n in ref.nums)
        mapped = [(m.start(), m.end(), str(numbers[int(m.group())])) for m in digits if int(m.group()) in numbers]
        if len(digits) == 2 and _RANGE_WORD.search(phrase) and wanted == list(range(wanted[0], wanted[-1] + 1)):
            # a range whose claims are still consecutive ("claims 1-3" of 1, 3, 2): its ends become the new ends
            mapped = [(m.start(), m.end(), str(n)) for m, n in zip(digits, (wanted[0], wanted[-1]))]
        read = extract_references(_applied(phrase, mapped), num)
        if read and list(read[0].nums) == wanted:
            edits += [(ref.start + a, ref.start + b, new) for a, b, new in mapped if phrase[a:b] != new]
        else:  # "claims 2 to 5" whose claims are now 2, 3, 4 and 7
            alternative = " or " in phrase or _ALTERNATIVE_BEFORE.search(text, max(0, ref.start - 30), ref.start)
            edits.append((ref.start, ref.end, _listed(phrase, wanted, "or" if alternative else "and")))
    return edits


def _listed(phrase: str, nums: list[int], conjunction: str) -> str:
    """The citation ``phrase`` written again for ``nums``: its word "claims" as written, runs of three or more as
    ranges in its own style ("2-4", "2 to 4")."""
    word = re.match(r"\S+", phrase).group()
    dash = _RANGE_WORD.search(phrase)
    joiner = f" {dash.group(1)} " if dash and dash.group(1).isalpha() else (dash.group(1) if dash else " to ")
    runs: list[list[int]] = []
    for n in nums:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    items: list[str] = []
    for r in runs:
        items += [f"{r[0]}{joiner}{r[-1]}"] if len(r) >= 3 else list(map(str, r))
    if len(items) == 1:
        return f"{word} {items[0]}"
    return f"{word} {', '.join(items[:-1])} {conjunction} {items[-1]}"


def _applied(text: str, edits: list[tuple[int, int, str]]) -> str:
    out, at = [], 0
    for start, end, new in edits:
        out += [text[at:start], new]
        at = end
    return "".join(out) + text[at:]


def renumber_text(forest: Forest) -> str:
    """The claim set as text, one claim per line ("1. A widget …"), renumbered with citations updated."""
    numbers = new_numbers(forest)
    claims = sorted(forest.claims, key=lambda c: numbers[c.num])
    return "".join(f"{numbers[c.num]}. {_applied(c.text, citation_edits(c.text, c.num, numbers))}\n" for c in claims)


def renumber_docx(data: bytes, name: str) -> bytes:
    """A Word document's claims renumbered: typed claim numbers and citations changed in the runs that hold them
    (every other character, run and paragraph property kept), the claims' paragraphs moved into the new order
    (Word's automatic numbers follow by themselves). Tracked changes are read as accepted."""
    from spg.docx import _CLAIM_START, _dropped, _open, _paragraphs, _read, _saved
    from spg.parse import parse_claims

    document = _open(data, name)
    dropped = _dropped("accept")
    found, groups = _read(document, dropped)
    forest = parse_claims(found.claims_text)
    if not forest.claims:
        raise InputError(f"{name}: no claims found in the Word document; expected numbered claims after a heading "
                         "such as 'What is claimed is:'")
    numbers = new_numbers(forest)
    paragraphs = _paragraphs(document.element.body)
    for c in forest.claims:
        first = found.claim_paragraphs[c.num]
        for index, label in groups[first]:
            p = paragraphs[index]
            text = _paragraph_text(p, dropped)
            edits = citation_edits(text, c.num, numbers)
            typed = _CLAIM_START.match(text) if index == first and not label else None
            if typed:
                group = "bracket" if typed.group("bracket") else "num"
                if numbers[c.num] != int(typed.group(group)):
                    edits.insert(0, (typed.start(group), typed.end(group), str(numbers[c.num])))
            _edit_runs(p, dropped, edits)
    order = [found.claim_paragraphs[c.num] for c in sorted(forest.claims, key=lambda c: numbers[c.num])]
    if order != sorted(order):
        where = {first: f"{name}: claim {num}" for num, first in found.claim_paragraphs.items()}
        _reorder(document.element.body, paragraphs, groups, order, where)
    return _saved(document)


def _paragraph_text(p, dropped) -> str:
    from spg.docx import _pieces

    return "".join(text for _, text in _pieces(p, dropped))


def _edit_runs(p, dropped, edits: list[tuple[int, int, str]]) -> None:
    """Apply ``edits`` (offsets into the paragraph's text) to its ``w:t`` elements: the new text goes into the
    first element an edit covers, the rest of what it covers is cut from the others; last edit first, so that the
    offsets of the earlier ones still hold."""
    from spg.docx import W, _pieces

    pieces, at = [], 0
    for element, text in _pieces(p, dropped):
        pieces.append((element, at, at + len(text)))
        at += len(text)
    for start, end, new in reversed(edits):
        placed = False
        for element, lo, hi in pieces:
            if hi <= start or lo >= end or element.tag != f"{W}t":
                continue
            a, b = max(start, lo) - lo, min(end, hi) - lo
            old = element.text or ""
            element.text = old[:a] + ("" if placed else new) + old[b:]
            placed = True
            if element.text != element.text.strip():
                element.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")


def _reorder(body, paragraphs: list, groups: dict[int, list[tuple[int, str]]], order: list[int],
             where: dict[int, str]) -> None:
    """Move each claim's paragraphs (``groups``: first paragraph index → the claim's (paragraph index, automatic
    label) pairs) so that the
    claims stand in ``order``; what lies between two claims (empty paragraphs) stays in its place. ``where`` names
    each claim by its first paragraph, for the error of one in a table."""
    firsts = sorted(order)
    blocks = {}
    for first in firsts:
        start, last = paragraphs[first], paragraphs[groups[first][-1][0]]
        if start.getparent() is not body or last.getparent() is not body:
            raise InputError(f"{where[first]} is inside a table or text box; spg renumber moves claims only among "
                             "the document's own paragraphs")
        block = [start]
        while block[-1] is not last:
            block.append(block[-1].getnext())
        blocks[first] = block
    segments = []
    for i, first in enumerate(firsts):
        segments.append(first)
        if i + 1 < len(firsts):
            gap, nxt = [], blocks[first][-1].getnext()
            while nxt is not blocks[firsts[i + 1]][0]:
                gap.append(nxt)
                nxt = nxt.getnext()
            segments.append(gap)
    anchor = blocks[firsts[-1]][-1].getnext()
    placed = iter(order)
    elements = [e for seg in segments for e in (blocks[next(placed)] if isinstance(seg, int) else seg)]
    for e in elements:
        body.remove(e)
    for e in elements:
        if anchor is not None:
            anchor.addprevious(e)
        else:
            body.append(e)

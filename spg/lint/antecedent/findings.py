"""One pass over a claim set in reading order, every definite reference judged: the two public readers,
:func:`check_antecedents` (the findings) and :func:`reference_counts` (PatentScore's precise AC)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from spg.forest import Forest
from spg.lint.antecedent.chunks import _Chunk, _chunks
from spg.lint.antecedent.reader import _Reader
from spg.lint.antecedent.words import _IDIOM_HEADS, _NAMED, _POSITIONAL, _PROPERTIES, _token_classes, _Tokens

# ("A step stool designed to fold flat and have removable lids and a lower step …": "have" and "has" end a preamble
# as "having" does)
_TRANSITIONS = frozenset({"comprising", "comprises", "including", "includes", "consisting", "having", "has", "have",
                          ":"})


@dataclass(frozen=True)
class AntecedentFinding:
    """A reference without (or with ambiguous) antecedent basis: ``forest.by_num[claim].text[start:end] == term``."""

    claim: int
    start: int
    end: int
    term: str
    rule: str  # "antecedent" or "antecedent-ambiguous"
    message: str


def _read(forest: Forest, report: bool, reader: _Reader | None = None) -> tuple[list[AntecedentFinding], int, int]:
    """(findings when ``report``, definite references, those with basis) — one pass for every public reader."""
    reader = reader or _Reader(forest)
    claims = reader.claims
    findings: list[AntecedentFinding] = []
    blocks: list[tuple[int, int]] = []  # (document index, where its claim's findings start), in reading order
    total = resolved = 0
    for ci, (read, (chunks, actions)) in enumerate(_read_ahead(claims, reader.ancestry.parents)):
        here = len(findings)
        blocks.append((reader.ancestry.order[ci], here))
        dependent = bool(reader.ancestry.parents[ci])
        reader.body = 0 if dependent else _body_start(read.lower)
        reader.read = read
        reader.context[ci] = (read.tokens, reader.body, chunks[0].words if chunks and chunks[0].start <= 1 else (),
                              read.lower)
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


def _read_ahead(claims: list, parents: list[list[int]], batch: int = 64) -> Iterator[tuple[_Tokens, tuple]]:
    """Each claim's tokens (:func:`_token_classes`) and phrases (:func:`_chunks`), read a batch of claims at a time:
    in one loop the token cache stays in the processor's cache, where reading one claim between the chunker and the
    judge of the one before took half as long again; a batch, not the whole set, so that a long claim set's token
    classes are not all held."""
    for at in range(0, len(claims), batch):
        reads = [_token_classes(c.text) for c in claims[at : at + batch]]
        yield from zip(reads, [_chunks(read, ci, bool(parents[ci])) for ci, read in enumerate(reads, at)])


def _body_start(lower: tuple[str, ...]) -> int:
    """The token after an independent claim's transitional phrase ("comprising", "including", ":" …; the first
    60 tokens, in lower case), or 0: what the preamble introduces ("A step stool for a ladder comprising: a ladder …")
    the body may recite again."""
    for i, t in enumerate(lower[:60]):
        if t in _TRANSITIONS:
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

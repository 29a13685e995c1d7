"""Linearisation of a claim forest (paper §3.1 "Linearization", Eq. 1) and its inverse.

A forest is written tree by tree, trees in the order of their roots' numbers; each tree is its
root wrapped in ``<ind> </ind>`` followed by its dependents depth-first (children by claim number)
wrapped in ``<dep> </dep>``; ``<sep>`` separates trees and ``<eot>`` ends the forest::

    <ind>A chair comprising: a seat.</ind><dep>The chair of claim 1, wherein ...</dep><eot>

Claim numbers are not written: the k-th claim of the sequence *is* claim k. Claims are therefore
renumbered in serialisation order and every "claim N" back-reference in the text is rewritten to
the new numbers, so the sequence is self-consistent and round-trips through :func:`parse_tagged`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from spg.forest import Claim, Forest
from spg.parse import claim_parents, extract_references

IND, IND_END, DEP, DEP_END, SEP, EOT = "<ind>", "</ind>", "<dep>", "</dep>", "<sep>", "<eot>"
STRUCTURE_TOKENS = (IND, IND_END, DEP, DEP_END, SEP, EOT)

_TAG_RE = re.compile("(" + "|".join(re.escape(t) for t in STRUCTURE_TOKENS) + ")")
# Chat-model control tokens (<|eot_id|>, <|im_end|>, </s>) are not part of the forest grammar.
_MODEL_TOKEN_RE = re.compile(r"<\|[^<>|]{1,40}\|>|</s>|<s>")
# Where a reference can be inserted into a dependent claim whose text names no parent.
_PREAMBLE_END_RE = re.compile(r",|:| wherein\b| further\b| comprising\b| including\b| in which\b| characteri[sz]ed\b")


@dataclass(frozen=True)
class Serialized:
    """A linearised forest plus the per-claim targets the pointer head is trained on."""

    text: str
    claims: list[int]  # original claim numbers, in serialisation order
    parents: list[int | None]  # serialisation index of each claim's single parent; None for roots
    depths: list[int]  # root = 1 (Eq. 4)
    trees: list[int]  # tree index of each claim


def serialisation_order(forest: Forest) -> list[int]:
    """Claim numbers in Eq. 1 order; claims with a broken dependency chain are left out."""
    return [num for tree in forest.trees() for num in tree]


def canonical(forest: Forest) -> Forest:
    """The forest renumbered 1..n in Eq. 1 order, with back-references rewritten to match."""
    order = serialisation_order(forest)
    new_num = {old: new for new, old in enumerate(order, start=1)}
    claims = []
    for old in order:
        claim = forest.by_num[old]
        # A multiply dependent claim sits under its single parent (the lowest cited claim). Other cited
        # claims survive only where they keep that parent the lowest and still precede the claim after
        # renumbering, so every reference points backwards and the single-parent rule gives the same tree.
        parent = forest.parent_of(old)
        low = new_num[parent] if parent is not None else 0
        parents = tuple(sorted(q for q in {new_num.get(p, 0) for p in claim.parents} if 0 < low <= q < new_num[old]))
        text = _rewrite_references(claim.text, claim.num, new_num[old], claim.parents, new_num, parents)
        claims.append(Claim(new_num[old], text, parents))
    return Forest.from_claims(claims)


def cite_parents(forest: Forest) -> Forest:
    """The forest with each dependent claim's "claim N" references naming its parents, numbers and order kept.

    Where the words and the structure disagree (an SPG model's pointer chose claim 1, its text says "of claim 2"),
    the structure wins, as in :func:`canonical`: the first reference names the parents and the others go; a
    dependent claim that names none gets "according to claim N" after its preamble. Claims whose words already
    agree are left as written.
    """
    claims = [
        c if set(claim_parents(c.text, c.num)) == set(c.parents)
        else Claim(c.num, _rewrite_references(c.text, c.num, c.num, (), {}, c.parents), c.parents)
        for c in forest.claims
    ]
    return Forest.from_claims(claims, forest.cancelled, forest.unnumbered)


def linearize(forest: Forest) -> Serialized:
    """Eq. 1: the forest as one tagged sequence, plus gold parents, depths and tree ids."""
    order = serialisation_order(forest)
    ordered = canonical(forest)
    index = {old: i for i, old in enumerate(order)}
    pieces: list[str] = []
    parents: list[int | None] = []
    depths: list[int] = []
    trees: list[int] = []
    for tree_id, tree in enumerate(forest.trees()):
        if tree_id:
            pieces.append(SEP)
        for old in tree:
            claim = ordered.claims[index[old]]
            open_tag, close_tag = (IND, IND_END) if claim.independent else (DEP, DEP_END)
            pieces.append(f"{open_tag}{claim.text}{close_tag}")
            parent = forest.parent_of(old)
            parents.append(None if claim.independent else index[parent])
            depths.append(forest.depth(old))
            trees.append(tree_id)
    pieces.append(EOT)
    return Serialized("".join(pieces), order, parents, depths, trees)


@dataclass(frozen=True)
class TaggedParse:
    """A tagged sequence read back: the forest (claims 1..n in sequence order) and its validity."""

    forest: Forest
    trees: list[int]
    kinds: list[str]  # "ind" or "dep" per claim, as tagged
    reasons: list[str] = field(default_factory=list)  # why the output is not valid; empty when valid

    @property
    def valid(self) -> bool:
        return not self.reasons


def strip_model_tokens(text: str) -> str:
    return _MODEL_TOKEN_RE.sub("", text)


def scored_text(seq: str) -> str:
    """The text every text metric and the Stage II reward read of a generated sequence: its own words.

    A tagged sequence loses its structure tags and its claims are numbered in sequence order ("1. …\\n2. …":
    the k-th claim of the sequence is claim k), so it reads like the numbered claims of the reference and of
    plain-text generators. Every piece of text before ``<eot>`` is kept as written, including a claim the token
    budget left open; no back-reference is inserted or rewritten (the pointer's parents serve DEA, never the
    text metrics). Plain text only loses chat-model tokens.
    """
    seq = strip_model_tokens(seq)
    if not any(tag in seq for tag in STRUCTURE_TOKENS):
        return seq
    pieces = _TAG_RE.split(seq.split(EOT, 1)[0])
    claims = [" ".join(p.split()) for p in pieces if p not in STRUCTURE_TOKENS and p.strip()]
    return "\n".join(f"{k}. {text}" for k, text in enumerate(claims, start=1))


def parse_tagged(seq: str, parents: Sequence[int | None] | None = None) -> TaggedParse:
    """Read a generated tagged sequence back into a forest and judge it by the paper's "valid output".

    Valid (appendix "Valid rate"): (i) delimiters balanced and the sequence ends with ``<eot>``,
    (ii) at least one well-formed independent claim, (iii) every dependent claim resolves to a parent
    that exists and precedes it. Parents come from ``parents`` (the pointer's choice: for each claim
    the serialisation index of its parent, None for independent claims) or, when not given, from the
    back-references in the claim text. Text after ``<eot>`` is ignored. Never raises.
    """
    reasons: list[str] = []
    texts: list[str] = []
    kinds: list[str] = []
    trees: list[int] = []
    tree, open_kind, buffer, tree_has_root, ended = 0, None, [], False, False

    def problem(message: str) -> None:
        if message not in reasons:
            reasons.append(message)

    for piece in _TAG_RE.split(strip_model_tokens(seq)):
        if piece == EOT:
            if open_kind:
                problem(f"<eot> inside an open claim ({len(texts) + 1})")
            elif not texts:
                problem("<eot> before any claim")
            elif not tree_has_root:
                problem("<sep> is followed by no tree")
            ended = True
            break
        if piece in (IND, DEP):
            if open_kind:
                problem(f"claim {len(texts) + 1} opened before the previous claim was closed")
            kind = "ind" if piece == IND else "dep"
            if kind == "ind" and tree_has_root:
                tree += 1  # lenient: a new root without <sep> still starts a new tree
            if kind == "dep" and not tree_has_root:
                problem(f"dependent claim {len(texts) + 1} comes before any independent claim of its tree")
            tree_has_root = tree_has_root or kind == "ind"
            open_kind, buffer = kind, []
        elif piece in (IND_END, DEP_END):
            kind = "ind" if piece == IND_END else "dep"
            if open_kind != kind:
                problem(f"{piece} does not close an open <{kind}> claim")
                continue
            text = " ".join("".join(buffer).split())
            if not text:
                problem(f"claim {len(texts) + 1} is empty")
            texts.append(text)
            kinds.append(kind)
            trees.append(tree)
            open_kind = None
        elif piece == SEP:
            if open_kind:
                problem(f"<sep> inside open claim {len(texts) + 1}")
            if not tree_has_root:
                problem("<sep> closes an empty tree")
            tree, tree_has_root = tree + 1, False
        elif open_kind:
            buffer.append(piece)
        elif piece.strip():
            problem("text outside any claim")
    if not ended:
        problem("no <eot>: the sequence is truncated")
    if "ind" not in kinds or all(not t for t, k in zip(texts, kinds) if k == "ind"):
        problem("no well-formed independent claim")

    claims = []
    for i, (text, kind) in enumerate(zip(texts, kinds)):
        num = i + 1
        if kind == "ind":
            cited: tuple[int, ...] = ()
        elif parents is not None:
            p = parents[i] if i < len(parents) else None
            cited = (p + 1,) if p is not None else ()
        else:
            cited = claim_parents(text, num)
        if kind == "dep":
            if not cited:
                problem(f"dependent claim {num} names no parent")
            bad = [p for p in cited if not 1 <= p < num]
            if bad:
                problem(f"dependent claim {num} points to claim {bad[0]}, which does not precede it")
        claims.append(Claim(num, text, cited))
    return TaggedParse(Forest.from_claims(claims), trees, kinds, reasons)


def _format_reference(nums: Sequence[int]) -> str:
    """'claim 3', 'claims 1 or 2', 'claims 1, 2 or 4', 'claims 1 to 4' (runs of three or more); ``nums`` not empty."""
    nums = sorted(nums)
    if len(nums) == 1:
        return f"claim {nums[0]}"
    if len(nums) >= 3 and nums[-1] - nums[0] == len(nums) - 1:
        return f"claims {nums[0]} to {nums[-1]}"
    return "claims " + ", ".join(map(str, nums[:-1])) + f" or {nums[-1]}"


def _rewrite_references(
    text: str,
    old_num: int,
    new_self: int,
    old_parents: Sequence[int],
    new_num: dict[int, int],
    new_parents: Sequence[int],
) -> str:
    """Make the text's "claim N" references name ``new_parents`` under the new numbering."""
    if not new_parents:
        return text
    refs = extract_references(text, old_num)
    if not refs:
        match = _PREAMBLE_END_RE.search(text)
        cut = match.start() if match else len(text.rstrip(". "))
        return f"{text[:cut]} according to {_format_reference(new_parents)}{text[cut:]}"
    cited = {n for r in refs for n in r.nums}
    if cited != set(old_parents) or {new_num.get(n) for n in cited} != set(new_parents):
        # The text and the forest disagree (the pointer chose another parent, or a cited claim was
        # dropped): the forest wins. The first reference names the parents, the others go.
        pieces, cursor = [text[: refs[0].start], _format_reference(new_parents)], refs[0].end
        for r in refs[1:]:
            pieces.append(text[cursor : r.start])
            cursor = r.end
        pieces.append(text[cursor:])
        return "".join(pieces)
    pieces, cursor = [], 0
    for r in refs:
        mapped = sorted(new_num[n] for n in r.nums)
        phrase = text[r.start : r.end]
        # "claims 2 to 4" stays if its numbers do; "any preceding claim" stays if it still means all of them,
        # or if it meant none (it stood in the first claim) and so names nothing to rewrite.
        still_true = (
            mapped == sorted(r.nums)
            if any(ch.isdigit() for ch in phrase)
            else not mapped or mapped == list(range(1, new_self))
        )
        pieces += [text[cursor : r.start], phrase if still_true else _format_reference(mapped)]
        cursor = r.end
    pieces.append(text[cursor:])
    return "".join(pieces)

"""Claim dependency forest (paper §3.1 "Claim Dependency Forest").

A claim set is a forest: independent claims are roots, each dependent claim
cites one or more earlier claims. US practice allows several cited claims
("claim 1 or 2", "any one of claims 1-3"); the paper's forest keeps exactly one
parent per claim. The single-parent rule used everywhere in spg (linearisation,
the pointer's gold targets, DEA) is :func:`single_parent`: **the lowest cited
claim**. It is the root-most choice, so a multiply dependent claim hangs under
the broadest claim it names.

Validation never raises: :meth:`Forest.diagnostics` returns a list of
:class:`Diagnostic`, each naming the claim and the problem.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Claim:
    """One claim. ``text`` is the claim body without its leading number ("1. ").

    ``parents`` lists every claim number the claim cites, sorted and unique;
    an empty tuple marks an independent claim.
    """

    num: int
    text: str
    parents: tuple[int, ...] = ()

    @cached_property
    def references(self) -> list:
        """Every citation of other claims in the text (:func:`spg.parse.extract_references`), read once: the parser
        reads them for ``parents`` and keeps them here, suppression keys read them again."""
        from spg.parse import extract_references  # spg.parse builds claims: imported when first needed

        return extract_references(self.text, self.num)

    @property
    def independent(self) -> bool:
        return not self.parents

    @property
    def parent(self) -> int | None:
        return single_parent(self.parents)


def single_parent(parents: Sequence[int]) -> int | None:
    """The one parent the paper's forest keeps: the lowest cited claim."""
    return min(parents) if parents else None


@dataclass(frozen=True)
class Diagnostic:
    """A structural problem, as data. ``claim`` is None for set-level problems."""

    code: str
    claim: int | None
    message: str
    severity: Severity = "error"

    def __str__(self) -> str:
        where = f"claim {self.claim}" if self.claim is not None else "claim set"
        return f"{self.severity}: {where}: {self.message} [{self.code}]"


@dataclass(frozen=True)
class Forest:
    """A claim set in document order, with the derived tree structure.

    ``cancelled`` holds the numbers the input lists as cancelled ("3. (Canceled)", "2.-5. (Cancelled)", as a claim
    listing under 37 CFR 1.121(c) must): not claims, but no gap in the numbering either. ``unnumbered`` holds the
    positions (in ``claims``) of claims the input did not number (a line "The method of claim 1, wherein …" inside
    claim 1): the parser gave each the number after the claim before it.
    """

    claims: tuple[Claim, ...] = field(default_factory=tuple)
    cancelled: frozenset[int] = frozenset()
    unnumbered: frozenset[int] = frozenset()

    @classmethod
    def from_claims(cls, claims: Iterable[Claim], cancelled: Iterable[int] = (), unnumbered: Iterable[int] = ()) -> Forest:
        return cls(tuple(claims), frozenset(cancelled), frozenset(unnumbered))

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping]) -> Forest:
        """The forest of a generation result's ``forest`` field: ``{num, text, parents}`` rows
        (spg.generation.generator.forest_json)."""
        return cls.from_claims(Claim(row["num"], row["text"], tuple(row["parents"])) for row in rows)

    @classmethod
    def from_parents(cls, texts: Sequence[str], parents: Sequence[Sequence[int]]) -> Forest:
        """Claims numbered 1..n with the given parent lists."""
        return cls(tuple(Claim(i + 1, t, tuple(sorted(set(p)))) for i, (t, p) in enumerate(zip(texts, parents))))

    def __len__(self) -> int:
        return len(self.claims)

    def __iter__(self):
        return iter(self.claims)

    @cached_property
    def by_num(self) -> dict[int, Claim]:
        """First claim with each number (duplicates are reported by diagnostics)."""
        out: dict[int, Claim] = {}
        for c in self.claims:
            out.setdefault(c.num, c)
        return out

    @cached_property
    def _position(self) -> dict[int, int]:
        return {c.num: i for i, c in reversed(list(enumerate(self.claims)))}

    def parent_of(self, num: int) -> int | None:
        """The single parent (lowest cited claim) if it is a valid earlier claim, else None."""
        claim = self.by_num[num]
        p = claim.parent
        if p is None or p not in self.by_num or self._position[p] >= self._position[num]:
            return None
        return p

    @cached_property
    def _depths(self) -> dict[int, int | None]:
        depths: dict[int, int | None] = {}
        for c in self.claims:  # parents precede children when parent_of is not None
            if c.num in depths:
                continue
            if c.independent:
                depths[c.num] = 1
            else:
                p = self.parent_of(c.num)
                pd = depths.get(p) if p is not None else None
                depths[c.num] = pd + 1 if pd is not None else None
        return depths

    def depth(self, num: int) -> int | None:
        """Depth in its tree (root = 1, as in Eq. 4); None for a claim with a broken chain."""
        return self._depths[num]

    def root_of(self, num: int) -> int | None:
        """Number of the independent claim at the top of ``num``'s tree, None if the chain is broken."""
        seen = set()
        while num not in seen:
            seen.add(num)
            c = self.by_num[num]
            if c.independent:
                return num
            p = self.parent_of(num)
            if p is None:
                return None
            num = p
        return None

    @property
    def roots(self) -> list[int]:
        """Numbers of the independent claims that head a tree. A claim whose number was already used is a
        duplicate, outside every tree: a number names one claim, the first one with it."""
        return [c.num for c in self.claims if c.independent and self.by_num[c.num] is c]

    @cached_property
    def _children(self) -> dict[int, list[int]]:
        kids: dict[int, set[int]] = {c.num: set() for c in self.claims}  # a set: a parent may have 80,000
        for c in self.claims:
            p = self.parent_of(c.num) if not c.independent else None
            if p is not None:
                kids[p].add(c.num)
        return {k: sorted(v) for k, v in kids.items()}

    def children(self, num: int) -> list[int]:
        """Claims whose single parent is ``num``, sorted by claim number."""
        return self._children[num]

    def trees(self) -> list[list[int]]:
        """Each tree as its claims in Eq. 1 order: root, then depth-first, children by number."""
        out = []
        for root in sorted(self.roots):
            order: list[int] = []
            stack = [root]
            while stack:
                n = stack.pop()
                order.append(n)
                stack.extend(reversed(self.children(n)))
            out.append(order)
        return out

    @property
    def num_independent(self) -> int:
        return sum(c.independent for c in self.claims)

    @property
    def num_dependent(self) -> int:
        return len(self.claims) - self.num_independent

    @property
    def max_depth(self) -> int:
        """Deepest tree (1 = only independent claims, 0 = no claims)."""
        return max((d for d in self._depths.values() if d is not None), default=0)

    def diagnostics(self) -> list[Diagnostic]:
        return validate(self)

    @property
    def is_valid(self) -> bool:
        return not any(d.severity == "error" for d in self.diagnostics())


def validate(forest: Forest) -> list[Diagnostic]:
    """Every structural problem of a claim set, in claim order. Never raises."""
    out: list[Diagnostic] = []
    if not forest.claims:
        return [Diagnostic("empty", None, "the claim set has no claims")]
    if forest.num_independent == 0:
        out.append(Diagnostic("no-independent", None, "no independent claim: every claim cites another claim"))

    seen: set[int] = set()
    for i, c in enumerate(forest.claims):
        if i in forest.unnumbered:
            out.append(Diagnostic(
                "unnumbered-claim", c.num,
                f"a line that opens as a claim of its own has no number; read as claim {c.num} (number it, or join it "
                "to the claim above if it belongs there)", "warning",
            ))
        if c.num in forest.cancelled:
            out.append(Diagnostic("duplicate-number", c.num, f"claim number {c.num} is listed as cancelled and as a claim"))
        elif c.num in seen:
            out.append(Diagnostic("duplicate-number", c.num, f"claim number {c.num} is used more than once"))
        elif c.num < 1:
            out.append(Diagnostic("bad-number", c.num, f"claim number {c.num} is not a positive number", "warning"))
        if not c.text.strip():
            out.append(Diagnostic("empty-claim", c.num, "a claim number with no claim text after it"))
        seen.add(c.num)
    count, shown = _missing_numbers(sorted(seen | forest.cancelled), 10)
    if count:
        listed = ", ".join(map(str, shown)) + (" …" if count > len(shown) else "")
        out.append(Diagnostic("missing-number", None, f"claim numbers missing from the sequence: {listed}", "warning"))
    for prev, c in zip(forest.claims, forest.claims[1:]):
        if c.num < prev.num:
            out.append(Diagnostic("out-of-order", c.num, f"claim {c.num} follows claim {prev.num}", "warning"))

    position = {c.num: i for i, c in reversed(list(enumerate(forest.claims)))}
    own_broken: set[int] = set()
    for i, c in enumerate(forest.claims):
        for p in c.parents:
            if p == c.num:
                out.append(Diagnostic("self-reference", c.num, f"claim {c.num} cites itself"))
                own_broken.add(c.num)
            elif p not in position:
                gone = "was cancelled" if p in forest.cancelled else "does not exist"
                out.append(Diagnostic("missing-parent", c.num, f"cites claim {p}, which {gone}"))
                own_broken.add(c.num)
            elif position[p] > i:
                out.append(Diagnostic("forward-reference", c.num, f"cites claim {p}, which comes later"))
                own_broken.add(c.num)
    for c in forest.claims:
        if c.num in own_broken or c.independent:
            continue
        p = forest.parent_of(c.num)
        if p is not None and forest.depth(c.num) is None:
            out.append(Diagnostic("broken-parent", c.num, f"its parent claim {p} has a broken dependency chain"))
    return out


def _missing_numbers(nums: list[int], show: int) -> tuple[int, list[int]]:
    """How many of 1..max(nums) are not in the sorted ``nums``, and the first ``show`` of them.

    Counted gap by gap, never listed in full: "claim 100000000" must not build a set of a hundred million numbers.
    """
    count, shown, previous = 0, [], 0
    for n in nums:
        if n > previous + 1:
            count += n - previous - 1
            shown += range(previous + 1, min(n, previous + 1 + show - len(shown)))
        previous = max(previous, n)
    return count, shown

"""The order a claim set is read in, and which claim is in which one's scope: every claim after the claims it cites
(:func:`_reading_order`), and whether one claim is an ancestor of another in O(1) (:class:`_Ancestry`)."""

from __future__ import annotations

import heapq

from spg.forest import Claim, Forest
from spg.parse import bare_citation, claim_parents


def _cited(claim: Claim, i: int, index: dict[int, int]) -> list[int]:
    """Document indices of the claims ``claim`` (at index ``i``) depends on: its parents that exist, or else a
    parent its opening names in a way the parser leaves independent (an earlier claim only: a reading, not a
    citation)."""
    cited = sorted({index[p] for p in claim.parents if p in index and index[p] != i})
    if cited:
        return cited
    # "The printhead according to 1, wherein said notch …": a parent cited by its number alone is the claim's scope
    # all the same (the parser leaves such a claim independent, as the gold links do)
    bare = bare_citation(claim.text, claim.num)
    if bare is not None and bare in index and index[bare] < i:
        return [index[bare]]
    if "cl" in claim.text[:60].lower():
        # "The fastener of clam 27, wherein the cushion members …": a citation in the opening that the gold links
        # (USPTO reference tags) do not know, a misspelt "claim", is the claim's scope too; the parser reads it
        # (claim_parents), only the links handed to it leave the claim independent
        return sorted({index[n] for n in claim_parents(claim.text[:60], claim.num) if n in index and index[n] < i})
    return []


def _reading_order(cited: list[list[int]]) -> list[int]:
    """Document indices in an order that reads every claim after the claims it cites, otherwise in document order
    (the earliest ready claim first). A claim in a citation cycle never becomes ready: the earliest one left is read
    next, without the parents not read yet. O(n log n)."""
    waiting = [len(ps) for ps in cited]
    children: list[list[int]] = [[] for _ in cited]
    for i, ps in enumerate(cited):
        for p in ps:
            children[p].append(i)
    ready = [i for i, w in enumerate(waiting) if w == 0]
    order: list[int] = []
    placed = [False] * len(cited)
    stuck = 0  # the earliest claim that may be left in a cycle
    while len(order) < len(cited):
        if not ready:
            while placed[stuck]:
                stuck += 1
            ready = [stuck]
        i = heapq.heappop(ready)
        if placed[i]:
            continue
        placed[i] = True
        order.append(i)
        for child in children[i]:
            waiting[child] -= 1
            if waiting[child] == 0:
                heapq.heappush(ready, child)
    return order


class _Ancestry:
    """``is_ancestor(a, c)`` for claim indices in O(1): tree intervals, bit sets under multiple dependency.

    Indices are positions in the reading order (``claims``, ``order``): every claim after the claims it cites, so
    a claim citing a later one ("2. The grinder of claim 3") is read with its real chain, 2 → 3 → 1, in scope; the
    forward reference itself is the structure rule's finding."""

    def __init__(self, forest: Forest) -> None:
        index = {c.num: i for i, c in reversed(list(enumerate(forest.claims)))}
        cited = [_cited(c, i, index) for i, c in enumerate(forest.claims)]
        self.order = _reading_order(cited)
        self.claims = [forest.claims[i] for i in self.order]
        position = [0] * len(cited)
        for k, i in enumerate(self.order):
            position[i] = k
        # a claim in a citation cycle keeps only the parents read before it (the structure rules report the cycle)
        self.parents = [sorted(position[p] for p in cited[i] if position[p] < k) for k, i in enumerate(self.order)]
        n = len(self.parents)
        children: list[list[int]] = [[] for _ in range(n)]
        self.multi = [False] * n  # the claim or one of its ancestors cites several parents
        for i, ps in enumerate(self.parents):
            self.multi[i] = len(ps) > 1 or any(self.multi[p] for p in ps)
            if len(ps) == 1:
                children[ps[0]].append(i)
        self.tin, self.tout = [0] * n, [0] * n
        clock = 0
        for root in range(n):
            if len(self.parents[root]) == 1:
                continue
            stack = [(root, False)]
            while stack:  # iterative: a 9,999-deep chain must not hit the recursion limit
                node, done = stack.pop()
                if done:
                    self.tout[node] = clock
                else:
                    self.tin[node] = clock
                    stack.append((node, True))
                    stack.extend((child, False) for child in children[node])
                clock += 1
        self.bits: dict[int, int] = {}

    def bits_of(self, c: int) -> int:
        """Ancestors of a claim under a multiple dependency, as a bit set (memoised, walked without recursion)."""
        stack = [c]
        while stack:
            node = stack[-1]
            if node in self.bits:
                stack.pop()
                continue
            pending = [p for p in self.parents[node] if p not in self.bits]
            if pending:
                stack.extend(pending)
                continue
            got = 0
            for p in self.parents[node]:
                got |= (1 << p) | self.bits[p]
            self.bits[node] = got
            stack.pop()
        return self.bits[c]

    def is_ancestor(self, a: int, c: int) -> bool:
        if a >= c:
            return False
        if not self.multi[c]:
            return self.tin[a] < self.tin[c] and self.tout[c] < self.tout[a]
        return bool(self.bits_of(c) >> a & 1)

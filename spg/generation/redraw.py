"""Checker in the loop: ``spg generate`` never prints a claim that spg lint's claim-level checks block.

As each claim closes, :class:`ClaimCheck` lints the forest of the claims so far (``spg.lint.find_all``, as ``spg
lint`` reads them, parents from the pointer for SPG models). A claim with a blocking finding (a rule of
:data:`REDRAW_RULES`, with ``restatement: read`` those of :data:`READ_RULES` too, or a structure error: severity
``error`` among ``spg.forest`` diagnostics) is rolled back to its start, just after the last good claim, and drawn
again (:func:`settle`); each redraw is sampled at ``redraw_temperature`` with a key derived from the document (its
prompt's tokens), the claim's place and the attempt (:func:`redraw_key`), so greedy and seeded runs stay
deterministic. Redraws are bounded per document by ``redraws`` (claims redrawn) and ``redraw_tokens`` (tokens of
rejected claims); when either is spent the claim set ends at its last good claim, as whole claims only
(spg.generation.whole_claims).

Claims the checker has passed stay good: a later claim is judged on the forest with it added, and the accepted claims
never draw a blocking finding (the check ran on each prefix), so any blocking finding belongs to the new claim.

Where a claim ends: at its closing tag in tagged (SPG) output, at a line break in numbered plain claims (zero-shot), as
spg.generation.whole_claims reads them; a claim the token budget cut is not checked (it is never printed).

:class:`ClaimStop` runs the same check while a single document decodes and stops it at its first blocked claim, so
the tokens after it are not decoded (in a batch of several documents the batch runs on for the others, so there the
check runs when the batch ends).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

import torch
from transformers import PreTrainedTokenizerBase, StoppingCriteria

from spg.forest import Forest
from spg.generation.repetition import token_pieces
from spg.generation.whole_claims import whole_tagged
from spg.linearize import DEP, DEP_END, EOT, IND, IND_END, cite_parents, parse_tagged
from spg.lint import Finding, find_all
from spg.parse import parse_claims

# The spg lint rules that reject a generated claim (issue 30: the errors language models make when they draft claims),
# beside every structure error. docs/generation.md, "Checker in the loop", describes them.
REDRAW_RULES = frozenset({
    "duplicate-claim",  # MPEP 706.03(k); 37 CFR 1.75(b)
    "not-further-limiting",  # 35 USC 112(d); MPEP 608.01(n) III
    "repeated-limitation",  # the same limitation twice inside one claim
    "multiple-introduction",  # one element introduced twice in a claim's scope; MPEP 2173.05(e)
    "preamble-mismatch",  # a dependent's subject or category other than its parent's; MPEP 608.01(n) II-III
    "contradicts-parent",  # a dependent saying the opposite of its parent chain; 35 USC 112(b), (d)
    "range-outside-parent",  # a dependent's range reaching outside its parent chain's for one quantity; 112(d)
    "not-a-claim",  # commentary in a claim's place; lint then drops its multiple-introduction, so it must block
})
# Those a claim cannot lose by growing: checked at each limitation's end (";", ":") while the claim is written, so a
# claim that will be rejected stops there rather than at its end.
PARTIAL_RULES = frozenset({"repeated-limitation", "multiple-introduction"})
# Those a claim keeps once a phrase of it draws them: checked at each phrase's end (a token holding ",") too
# (``redraw_stop_at: phrase``). An element introduced twice stays so whatever follows; a statement of a comma-free
# segment that contradicts the parent chain stays said. Not repeated-limitation (a limitation cut at a comma may
# equal an earlier one that it then outgrows), nor preamble-mismatch (a subject cut at a comma is misread).
# benchmarks/investigations/partial_checks.py: on the train and dev sides' granted US and EP claims (1,921 claims)
# no claim that passes drew either at a phrase's end; docs/generation.md, "Checker in the loop".
PHRASE_RULES = frozenset({"multiple-introduction", "contradicts-parent"})
# With ``restatement: read`` (spg lint --restatement read), also the restatement reader's finding: a dependent claim it
# reads as saying again, in other words, what its chain or an earlier sibling says (a not-further-limiting claim the
# word rules miss). Read at the claim's end only: a claim cut short may restate what its end would add to.
READ_RULES = frozenset({"restatement"})


@dataclass(frozen=True)
class ClaimCheck:
    """Which findings on a forest block its newest claim: those of ``rules`` and structure errors.

    ``findings`` is spg lint's (tests inject their own)."""

    findings: Callable[[Forest], list[Finding]] = find_all
    rules: frozenset[str] = REDRAW_RULES
    partial_rules: frozenset[str] = PARTIAL_RULES
    phrase_rules: frozenset[str] = PHRASE_RULES

    @classmethod
    def reading(cls, restatement: str = "rules") -> ClaimCheck:
        """spg lint's checks as ``spg lint --restatement`` runs them (spg.lint.check.RESTATEMENT_MODES): with ``read`` the
        shipped reader (loaded once per process) reads each claim too, and its finding blocks the claim."""
        if restatement == "rules":
            return cls()
        return cls(functools.partial(find_all, restatement=restatement), REDRAW_RULES | READ_RULES)

    def blocking(self, forest: Forest) -> list[Finding]:
        structure = {d.code for d in forest.diagnostics() if d.severity == "error"}
        return [f for f in self.findings(forest) if f.rule in self.rules or (f.severity == "error" and f.rule in structure)]

    def blocking_so_far(self, forest: Forest, rules: Collection[str] | None = None) -> list[Finding]:
        """The findings of ``rules`` (default: ``partial_rules``) that block the last claim of ``forest``, which is
        still being written."""
        rules = self.partial_rules if rules is None else rules
        last = forest.claims[-1].num if forest.claims else None
        return [f for f in self.findings(forest) if f.rule in rules and f.claim == last]


@functools.lru_cache(maxsize=4)
def line_break_ids(tokenizer: PreTrainedTokenizerBase) -> frozenset[int]:
    """Tokens holding a line break: where a numbered plain claim ends."""
    return frozenset(i for i, piece in enumerate(token_pieces(tokenizer)) if "\n" in piece)


@functools.lru_cache(maxsize=4)
def phrase_end_ids(tokenizer: PreTrainedTokenizerBase) -> frozenset[int]:
    """Tokens holding a comma: where a phrase of a claim ends (ClaimStop checks ``ClaimCheck.phrase_rules`` there)."""
    return frozenset(i for i, piece in enumerate(token_pieces(tokenizer)) if "," in piece)


@dataclass(frozen=True)
class Claims:
    """Reads the claims of one generated row: where each ends, and the forest of the first ones.

    ``parents(ids, states)``: the pointer's parent per tagged claim (None without a pointer: parents from the text).
    ``budget``: the row's token budget (a claim the budget cut is not one); ``constrained``: whether the grammar
    closed such a claim (spg.generation.whole_claims)."""

    tokenizer: PreTrainedTokenizerBase
    tagged: bool
    budget: int
    tags: dict[str, int] = field(default_factory=dict)
    constrained: bool = False
    parents: Callable[[Sequence[int], torch.Tensor], list[int | None]] | None = None

    def ends(self, ids: Sequence[int], final: bool = True) -> list[int]:
        """Where each whole claim of ``ids`` ends (the position after its last token), in order; ``final``: ``ids``
        is the whole row (a plain row the model ended has a last claim with no line break)."""
        if self.tagged:
            closing = {self.tags[IND_END], self.tags[DEP_END]}
            kept, _ = whole_tagged(ids, self.budget, closing, self.tags[EOT], self.constrained)
            return [pos + 1 for pos, tok in enumerate(kept) if tok in closing]
        breaks = line_break_ids(self.tokenizer)
        ends = [pos + 1 for pos, tok in enumerate(ids) if tok in breaks]
        last = ends[-1] if ends else 0
        if final and len(ids) < self.budget and self._text(ids[last:]).strip():
            ends.append(len(ids))
        return ends

    def _text(self, ids: Sequence[int]) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=not self.tagged, clean_up_tokenization_spaces=False)

    def forest(self, ids: Sequence[int], states: torch.Tensor | None) -> Forest:
        """The claims of ``ids`` (which end where a claim ends) as spg lint reads them."""
        if not self.tagged:
            return parse_claims(self._text(ids))
        parents = None if self.parents is None or states is None else self.parents(ids, states)
        forest = parse_tagged(self._text(ids), parents=parents).forest
        return forest if parents is None else cite_parents(forest)  # the claims as spg generate prints them

    def first_blocked(self, ids: Sequence[int], states: torch.Tensor | None, check: ClaimCheck,
                      checked: int = 0, until: int | None = None) -> tuple[int, int, int] | None:
        """The first claim after the ``checked`` first ones (and ending by ``until``, where ``ids`` is still being
        written) that ``check`` blocks, as (its index, where it starts, where it ends); None when none is."""
        ends = self.ends(ids, final=until is None)
        for index in range(checked, len(ends)):
            end = ends[index]
            if until is not None and end > until:
                break
            try:
                blocked = check.blocking(self.forest(ids[:end], states))
            except Exception as error:  # noqa: BLE001 - a claim spg cannot read is not printed either
                blocked = [error]
            if blocked:
                return index, ends[index - 1] if index else 0, end
        return None


def redraw_key(seed: int, prompt: Sequence[int], start: int, attempt: int) -> int:
    """The sampling key of one redraw: the run's seed, the document (its prompt's tokens), where the claim starts and
    the attempt; the same for the same run whatever the batch held."""
    digest = hashlib.sha256(repr((seed, tuple(prompt), start, attempt)).encode()).digest()
    return int.from_bytes(digest[:8], "big") % 2**62


class ClaimStop(StoppingCriteria):
    """Stops a one-document ``generate`` at its first claim ``check`` blocks (the row's tokens start at ``offset``;
    its ``checked`` first claims passed before), and in a claim still being written that already draws a finding it
    cannot lose: at a limitation's end (``separators``) one of ``ClaimCheck.partial_rules``, at a phrase's end
    (``phrases``, limitation ends included when given) one of ``ClaimCheck.phrase_rules``; with ``pause``, also once
    its first new claim has passed (``paused``: a redrawn claim is followed at the run's own settings). ``states()`` gives the
    pointer's states so far (None: no pointer); a closed claim is checked once the state of its last token is there
    (the step after it closed), so the pointer's choice is the one :func:`settle` reads after the call. ``passed``
    is called with the row's tokens up to the end of its last claim that passed, each time one more passes: a claim
    that passed is never rolled back, so a streamer may show it (spg serve's Draft tab)."""

    def __init__(self, claims: Claims, check: ClaimCheck, offset: int, checked: int,
                 states: Callable[[int], torch.Tensor | None] = lambda generated: None,
                 separators: Collection[int] = (), pause: bool = False,
                 passed: Callable[[list[int]], None] | None = None, phrases: Collection[int] = ()):
        self.claims, self.check, self.offset, self.checked, self.states = claims, check, offset, checked, states
        self.passed = passed
        self.pause, self.paused, self.first = pause, False, checked
        self.separators = frozenset(separators)
        self.phrases = frozenset(phrases) | self.separators if phrases else frozenset()
        self.closing = ({claims.tags[IND_END], claims.tags[DEP_END]} if claims.tagged
                        else line_break_ids(claims.tokenizer))
        self.scanned = self.closed = 0
        self.stopped: tuple[int, int] | None = None  # the claim it stopped at: (its index, where it starts)

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor, **kwargs) -> torch.BoolTensor:
        ids = input_ids[0, self.offset :].tolist()
        fresh = ids[self.scanned :]
        self.scanned = len(ids)
        self.closed += sum(tok in self.closing for tok in fresh)
        if self.stopped is None and self.closed > self.checked:
            states = self.states(len(ids))
            ready = len(ids) if states is None else len(states)  # claims whose last token has its state
            found = self.claims.first_blocked(ids, states, self.check, self.checked, until=ready)
            if found is not None:
                self.stopped = found[:2]
            else:
                ends = [e for e in self.claims.ends(ids, final=False) if e <= ready]
                if self.passed is not None and len(ends) > self.checked:
                    self.passed(ids[: ends[-1]])
                self.checked = len(ends)
                self.paused = self.pause and self.checked > self.first
        if self.stopped is None and self.closed == self.checked:
            self.stopped = self._so_far(ids, len(ids) - len(fresh))
        done = self.stopped is not None or self.paused
        return torch.full((input_ids.shape[0],), done, dtype=torch.bool, device=input_ids.device)

    def _so_far(self, ids: list[int], fresh: int) -> tuple[int, int] | None:
        """The open claim, as (its index, where it starts), if what it has written up to the last limitation's or
        phrase's end among its tokens from ``fresh`` on already draws a finding it cannot lose."""
        ends = self.claims.ends(ids, final=False)
        start = max(ends[-1] if ends else 0, fresh)

        def last(cuts: frozenset[int]) -> int | None:
            return max((pos for pos in range(start, len(ids)) if ids[pos] in cuts), default=None)

        limitation, phrase = last(self.separators), last(self.phrases)
        # a limitation's end is a phrase's end too: the rules of both are read there
        at_limitation = self.check.partial_rules | (self.check.phrase_rules if self.phrases else frozenset())
        cuts = [(limitation, at_limitation)] + ([(phrase, self.check.phrase_rules)] if phrase != limitation else [])
        opened = ends[-1] if ends else 0
        for end, rules in cuts:
            if end is not None and rules and self._draws(ids, opened, end, rules):
                return len(ends), opened
        return None

    def _draws(self, ids: list[int], start: int, end: int, rules: frozenset[str]) -> bool:
        """Whether the open claim (from ``start``), read up to its token ``end``, draws a finding of ``rules``."""
        partial = ids[: end + 1]
        if self.claims.tagged:
            opening = {self.claims.tags[IND]: IND_END, self.claims.tags[DEP]: DEP_END}
            kinds = [opening[tok] for tok in ids[start:end] if tok in opening]
            if not kinds:
                return False
            partial = [*partial, self.claims.tags[kinds[-1]]]
        try:
            return bool(self.check.blocking_so_far(self.claims.forest(partial, self.states(len(ids))), rules))
        except Exception:  # noqa: BLE001 - the claim is read again when it closes
            return False


@dataclass(frozen=True)
class Budget:
    redraws: int  # claims redrawn per document at most
    tokens: int  # tokens of rejected claims per document at most
    room: int = 4  # fewest tokens a redraw needs (the shortest forest, spg.generation.constrained)


@dataclass
class Settled:
    """A row after the checker: its tokens and pointer states, the claims redrawn, and whether the budget ended it."""

    ids: list[int]
    states: torch.Tensor | None
    redraws: int = 0
    ended_by_checker: bool = False


# (the accepted tokens the call continues, their pointer states, the attempt: 0 goes on at the run's settings) ->
# (the tokens it adds, their states, the claim a ClaimStop stopped it at: ClaimStop.stopped, whether it paused after
# its first claim passed)
Redraw = Callable[[list[int], torch.Tensor | None, int],
                  tuple[list[int], torch.Tensor | None, tuple[int, int] | None, bool]]


def settle(ids: list[int], states: torch.Tensor | None, stopped: tuple[int, int] | None, claims: Claims,
           check: ClaimCheck, budget: Budget, redraw: Redraw, end: Callable[[list[int]], list[int]]) -> Settled:
    """Roll back and redraw the row's first blocked claim until none is, or the budget is spent (the row then ends
    at its last good claim: ``end(accepted)`` closes it). ``stopped``: the claim a :class:`ClaimStop` stopped the
    row at (blocked, whatever a second reading of the closed claims says: it may not have closed)."""
    checked = redraws = spent = 0
    paused = False
    while True:
        found = claims.first_blocked(ids, states, check, checked, until=None)
        if found is None and stopped is not None:
            found = (*stopped, len(ids))
        if found is None and not paused:
            return Settled(ids, states, redraws)
        if found is None:  # a redrawn claim passed: what follows it is drawn as without the checker
            ends = claims.ends(ids)
            start, attempt, checked = ends[-1], 0, len(ends)
            if claims.budget - start < budget.room:
                return Settled(end(ids[:start]), None if states is None else states[:start], redraws)
        else:
            index, start, stop = found
            spent += stop - start
            if redraws >= budget.redraws or spent > budget.tokens or claims.budget - start < budget.room:
                return Settled(end(ids[:start]), None if states is None else states[:start], redraws, True)
            redraws += 1
            attempt, checked = redraws, index
        kept = None if states is None else states[:start]
        new, new_states, stopped, paused = redraw(ids[:start], kept, attempt)
        ids = ids[:start] + new
        if states is not None:
            states = torch.cat([kept, new_states.to(states.device, states.dtype)])

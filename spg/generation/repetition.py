"""Loop control for small models: no n-gram is written twice inside one generated claim.

Small backbones fall into loops ("wherein the gap ... is uniform" twenty times) and never reach ``<eot>``.
transformers' ``no_repeat_ngram_size`` looks at the whole sequence, prompt included, so it would forbid
copying any n-gram of the description (claims quote their description all the time), and it runs a
Python loop per row. Real claim sets also repeat long passages *across* claims (a system claim restating
a method claim): in the train split 97% of gold claim sets repeat a 16-token n-gram, but only 4% of gold
claims repeat one inside themselves (SmolLM2 tokens; docs/generation.md). So :class:`GeneratedNoRepeatNGram`
looks only at the current claim (the tokens since the last claim boundary: an opening tag, or a newline
for numbered plain claims), works on the whole batch with tensor operations, and never bans an exempt token
(the structure tags and stop tokens), so it cannot fight structure-constrained decoding or keep a row from
stopping.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import torch
from transformers import LogitsProcessor

from spg.generation.constrained import vocabulary_pieces


class GeneratedNoRepeatNGram(LogitsProcessor):
    """Bans each token that would complete a ``size``-gram already present in the current claim of its row
    (the generated tokens after the row's last ``boundaries`` token; all generated tokens without boundaries).

    One instance per ``generate`` call: the first call sees the prompt and remembers its length.
    """

    def __init__(self, size: int, exempt: Iterable[int] = (), boundaries: Iterable[int] = ()):
        if size < 2:
            raise ValueError(f"no-repeat n-gram size must be at least 2, got {size}")
        self.size = size
        self.exempt = torch.tensor(sorted(set(exempt)), dtype=torch.long)
        self.boundaries = torch.tensor(sorted(set(boundaries)), dtype=torch.long)
        self.prompt_length: int | None = None

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self.prompt_length is None:
            self.prompt_length = input_ids.shape[1]
            # moved once: a host-to-device copy per step would make the host wait for the device
            self.exempt, self.boundaries = self.exempt.to(input_ids.device), self.boundaries.to(input_ids.device)
        generated = input_ids[:, self.prompt_length :]
        length, n = generated.shape[1], self.size
        if length < n:  # no (n−1)-gram has a successor yet
            return scores
        windows = generated.unfold(1, n - 1, 1)[:, : length - n + 1]  # every earlier (n−1)-gram with a successor
        tail = generated[:, length - n + 1 :].unsqueeze(1)  # the last n−1 tokens
        repeats = (windows == tail).all(-1)  # [B, length − n + 1]
        if len(self.boundaries):
            positions = torch.arange(length, device=generated.device)
            is_boundary = torch.isin(generated, self.boundaries)
            claim_start = torch.where(is_boundary, positions, -1).amax(1, keepdim=True) + 1
            repeats &= positions[: length - n + 1] >= claim_start
        # Each earlier (n−1)-gram's successor is banned where it repeats, left alone elsewhere (the minimum with +inf),
        # written by token index: the work follows the claim's length, not the vocabulary's
        successors = generated[:, n - 1 :]
        bans = torch.where(repeats, float("-inf"), float("inf")).to(scores.dtype)
        if len(self.exempt):
            bans = bans.masked_fill(torch.isin(successors, self.exempt), float("inf"))
        return scores.scatter_reduce(1, successors, bans, reduce="amin")


class NoRepeatedLimitation(LogitsProcessor):
    """Bans the token that would complete a word-for-word copy of an earlier limitation of the current claim: of the
    text between two ``separators`` (tokens holding ";" or ":"), its leading ``skipped`` tokens ("and", "or", blanks)
    left out, ``min_tokens`` tokens long at least. What spg lint's ``repeated-limitation`` rejects after the claim
    closes (spg.generation.redraw), blocked while decoding, where it costs one token instead of a redrawn claim.

    Tensor operations over the batch, as :class:`GeneratedNoRepeatNGram` (no host-device synchronisation per step):
    each earlier limitation is a segment of the claim, and it is blocked when its length is one more than the
    limitation being written and every one of its tokens but the last equals that limitation's token at the same
    offset. One instance per ``generate`` call.
    """

    def __init__(self, separators: Iterable[int], skipped: Iterable[int], boundaries: Iterable[int],
                 vocab_size: int, min_tokens: int = 4):
        self.separator = torch.zeros(vocab_size, dtype=torch.bool)
        self.separator[sorted(set(separators))] = True
        self.skipped = torch.zeros(vocab_size, dtype=torch.bool)
        self.skipped[sorted(set(skipped))] = True
        self.boundary = torch.zeros(vocab_size, dtype=torch.bool)
        self.boundary[sorted(set(boundaries))] = True
        self.min_tokens = min_tokens
        self.prompt_length: int | None = None
        self._cuts, self._skipped = frozenset(separators), frozenset(skipped)
        self._boundaries = frozenset(boundaries)

    @classmethod
    def from_tokenizer(cls, tokenizer, boundaries: Iterable[int], vocab_size: int) -> NoRepeatedLimitation:
        separators, skipped = limitation_tokens(tokenizer)
        return cls(separators, skipped, boundaries, max(vocab_size, len(tokenizer)))

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self.prompt_length is None:
            self.prompt_length = input_ids.shape[1]
            device = input_ids.device
            self.separator, self.skipped, self.boundary = (
                self.separator.to(device), self.skipped.to(device), self.boundary.to(device))
        g = input_ids[:, self.prompt_length :]
        rows, length = g.shape
        if length < self.min_tokens or (g.device.type == "cpu" and rows == 1 and self._nothing_to_ban(g)):
            return scores
        pos = torch.arange(length, device=g.device).expand(rows, length)
        is_sep, bound = self.separator[g], self.boundary[g]
        cut = is_sep | bound
        claim_start = torch.where(bound, pos, -1).amax(1, keepdim=True) + 1
        last_cut = torch.where(cut, pos, -1).cummax(1).values  # the latest cut at or before each token
        before = torch.cat([last_cut.new_full((rows, 1), -1), last_cut[:, :-1]], 1)  # ... strictly before it
        # Segment c holds the tokens after the cut at c − 1 (c = 0: from the start); the slot `length + 1` is a dump.
        dump = length + 1
        content = ~cut & ~self.skipped[g]
        segment = torch.where(cut, dump, before + 1)
        start = torch.full((rows, length + 2), dump, device=g.device).scatter_reduce(
            1, torch.where(content, segment, dump), pos, reduce="amin")
        end = torch.full((rows, length + 2), -1, device=g.device).scatter_reduce(
            1, torch.where(is_sep, before + 1, dump), pos, reduce="amax")
        current = last_cut[:, -1:] + 1  # the limitation being written
        begun = start.gather(1, current)
        written = (length - begun).clamp(min=0)  # its tokens from its first content token
        offset = pos - start.gather(1, segment.clamp(max=dump))
        counted = (segment != dump) & (offset >= 0) & (offset < written)
        at = (begun + offset).clamp(0, length - 1)
        differs = (counted & (g != g.gather(1, at))).long()
        mismatches = torch.zeros(rows, length + 2, dtype=torch.long, device=g.device).scatter_add(1, segment, differs)
        ids = torch.arange(length + 2, device=g.device).expand(rows, length + 2)
        blocked = (
            (ids < dump) & (end >= 0) & (ids >= claim_start) & (ids != current) & (mismatches == 0)
            & (end - start == written + 1) & (written + 1 >= self.min_tokens)
        )
        last = g.gather(1, (end - 1).clamp(0, length - 1))
        bans = torch.where(blocked, float("-inf"), float("inf")).to(scores.dtype)
        return scores.scatter_reduce(1, last, bans, reduce="amin")

    def _nothing_to_ban(self, g: torch.Tensor) -> bool:
        """Whether no row can have a token banned: in each, the claim being written has no limitation before the
        one being written, or that one is too short to copy one (``min_tokens``). Read on the host for one row on the
        CPU (the main job): the tensor operations above cost ~0.4 ms a call there, called at each position a forward
        checks, and most calls (a dependent claim, a claim's first limitation) ban nothing. Not for a batch: a read of
        every row and a Python walk over each per step is host work that grows with the batch, and on a device it
        would wait for the device every step (issue 41; tests/test_decode_step.py)."""
        for row in g.tolist():
            written = 0  # tokens of the limitation being written from its first content token
            for count, tok in enumerate(reversed(row), 1):
                if tok in self._boundaries:
                    break
                if tok in self._cuts:
                    if written + 1 >= self.min_tokens:
                        return False
                    break
                if tok not in self._skipped:
                    written = count
        return True


@functools.lru_cache(maxsize=4)
def token_pieces(tokenizer) -> tuple[str, ...]:
    """Each token of ``tokenizer`` decoded alone, once per tokenizer: in one call to the Rust tokenizer where there is
    one (spg.generation.constrained.vocabulary_pieces: 0.04 s for SmolLM2's 49k ids; id by id, 0.3-0.45 s of every
    start-up with the checker on)."""
    return tuple(vocabulary_pieces(tokenizer))


@functools.lru_cache(maxsize=4)
def limitation_tokens(tokenizer) -> tuple[list[int], list[int]]:
    """The tokens that end a limitation (";", ":") and those skipped at its start."""
    pieces = token_pieces(tokenizer)
    separators = [i for i, p in enumerate(pieces) if ";" in p or ":" in p]
    skipped = [i for i, p in enumerate(pieces) if p.strip().lower() in ("", "and", "or")]
    return separators, skipped

"""Drafted tokens for transformers' assisted generation: prompt lookup as claims are written (``prompt_lookup_tokens``).

A decoding step checks a few drafted tokens in one forward and keeps those the model would have chosen itself, so the
output is the same token for token (with spg.generation.sampling, sampled outputs too). Claims copy phrases of the
description and restate the claims before them ("The step stool of claim 1, wherein the ..."), so a draft copied from
what follows an earlier occurrence of the last few tokens is often right, and on a CPU a forward over a few tokens
costs little more than over one: weight traffic, not arithmetic, sets a step's time (docs/generation.md).

Hand-written instead of transformers' ``PromptLookupCandidateGenerator`` for two reasons, both measured on the
shipped model's outputs: it copies after the *first* occurrence in the sequence (mostly the description), where
claims follow their own latest wording (tokens kept per forward 2.74 → 2.91 at 5 drafted tokens, replaying greedy
outputs of 6 USPTO documents); and it runs every logits processor once per drafted token on dummy scores, to drop
tokens they forbid, which doubled the processor calls of a step, where a forbidden draft costs only the check of
the tokens after it. transformers has no setting to choose the candidate generator, so :func:`drafting` swaps
``GenerationMixin._get_candidate_generator`` for one call, as spg.generation.pointer_decode's deferred stop check
does (fenced by tests/test_transformers_internals.py).
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator, Sequence

import torch
from transformers import GenerationMixin
from transformers.generation.candidate_generator import CandidateGenerator


class RecentLookup(CandidateGenerator):
    """Drafts up to ``tokens`` tokens: those after the latest earlier occurrence of the sequence's last ``ngram``
    tokens (or fewer, down to one, when none occurred), copied on into the draft itself where the occurrence ends
    close to the end, never past ``max_length`` − 1 (the checking forward's last position must lie inside the
    budget). One row (assisted generation's batch), read once: ``index[n]`` maps each
    n-gram that has a successor to the position after its latest occurrence, and grows by the tokens kept.

    ``rejected``: the attempts the checker in the loop rejected at the claim being drawn again
    (spg.generation.redraw), read first at each n-gram length (longest first), up to the attempt's end: a redraw
    often writes much of the claim it replaces again ("The step stool for claim 1, wherein …" after "The step stool
    of claim 1, wherein …"), which is neither in the prompt nor in the sequence any more. The main job's forwards
    went from 197 to 174 (docs/generation.md, "Checker in the loop")."""

    def __init__(self, tokens: int, ngram: int, max_length: int, rejected: Sequence[Sequence[int]] = ()):
        self.tokens, self.ngram, self.max_length = tokens, ngram, max_length
        self.ids: list[int] = []
        self.index: list[dict[tuple[int, ...], int]] = [{} for _ in range(ngram + 1)]
        # the attempts one after the other, each ended by None (a draft stops there); indexed as ``index``
        self.rejected: list[int | None] = []
        self.rejected_index: list[dict[tuple[int, ...], int]] = [{} for _ in range(ngram + 1)]
        for attempt in rejected:
            offset = len(self.rejected)
            for end in range(len(attempt)):
                for n in range(1, min(ngram, end) + 1):
                    self.rejected_index[n][tuple(attempt[end - n : end])] = offset + end
            self.rejected += [*attempt, None]

    def _read(self, input_ids: torch.LongTensor) -> None:
        for token in input_ids[0, len(self.ids) :].tolist():
            end = len(self.ids)  # the n-grams ending just before this token now have it as their successor
            for n in range(1, min(self.ngram, end) + 1):
                self.index[n][tuple(self.ids[end - n : end])] = end
            self.ids.append(token)

    def get_candidates(self, input_ids: torch.LongTensor, **kwargs) -> tuple[torch.LongTensor, None]:
        self._read(input_ids)
        room = min(self.tokens, self.max_length - len(self.ids) - 1)
        for n in range(min(self.ngram, len(self.ids)), 0, -1):
            last = tuple(self.ids[-n:])
            start = self.rejected_index[n].get(last)
            if start is not None and room > 0:
                draft = list(itertools.takewhile(lambda tok: tok is not None, self.rejected[start : start + room]))
                drafted = torch.tensor([draft], dtype=input_ids.dtype, device=input_ids.device)
                return torch.cat([input_ids, drafted], dim=1), None
            start = self.index[n].get(last)
            if start is not None and room > 0:
                # The copy runs on past the end of the sequence into what it has copied: an occurrence just before
                # the end (a repeated phrase, a run of one token) drafts the repetition, not one or two tokens.
                seen, draft = len(self.ids), []
                for p in range(start, start + room):
                    draft.append(self.ids[p] if p < seen else draft[p - seen])
                drafted = torch.tensor([draft], dtype=input_ids.dtype, device=input_ids.device)
                return torch.cat([input_ids, drafted], dim=1), None
        return input_ids, None

    def update_candidate_strategy(self, input_ids: torch.LongTensor, scores: torch.FloatTensor, num_matches: int):
        """The draft length stays as set: a forward over a few more tokens costs about the same."""


@contextlib.contextmanager
def drafting(tokens: int, ngram: int, rejected: Sequence[Sequence[int]] = ()) -> Iterator[None]:
    """Within the block, ``generate`` calls that ask for prompt lookup (``prompt_lookup_num_tokens``) draft with
    :class:`RecentLookup` (from ``rejected`` attempts too); other assisted generation is left to transformers.
    ``tokens=0``: nothing is swapped. Like
    any swap of a class attribute, not for blocks that overlap in two threads (spg decodes in one)."""
    if not tokens:
        yield
        return
    original = GenerationMixin.__dict__["_get_candidate_generator"]

    def candidates(self, generation_config, *args, **kwargs):
        if generation_config.prompt_lookup_num_tokens is None:
            return original(self, generation_config, *args, **kwargs)
        return RecentLookup(tokens, ngram, generation_config.max_length, rejected)

    GenerationMixin._get_candidate_generator = candidates
    try:
        yield
    finally:
        GenerationMixin._get_candidate_generator = original

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

from collections.abc import Iterable

import torch
from transformers import LogitsProcessor


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

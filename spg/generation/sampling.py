"""Sampling whose token at each position is fixed by the seed and the position, not by the forwards before it.

``argmax(scores / T + G)``, with ``G`` independent standard Gumbel noise over the vocabulary, is a sample of
``softmax(scores / T)`` (the Gumbel-max trick). :class:`PositionalSampling` adds that noise as the last logits
processor and ``generate`` then decodes greedily. The noise of position ``p`` comes from a generator seeded with a key
drawn once per ``generate`` call from torch's global RNG (so ``torch.manual_seed`` and spg's ``seed`` rule it as
before) plus ``p``. Prompt lookup (``prompt_lookup_tokens``: transformers' assisted generation) then keeps a drafted
token exactly when plain decoding would have sampled it, and a run with drafts writes the same tokens as one without:
transformers' own assisted sampling draws a fresh multinomial for every position a forward checks, so the sample, and
with it the claims a user gets for a seed, would change with the number of drafts checked (docs/generation.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from transformers import GenerationConfig, LogitsProcessor, LogitsProcessorList, TopKLogitsWarper, TopPLogitsWarper

# What transformers' generate samples with when neither the model nor the caller sets it (GenerationConfig's defaults):
# spg's sampling went through generate with these until it sampled by position, and keeps them.
DEFAULT_TOP_K, DEFAULT_TOP_P = 50, 1.0


class PositionalSampling(LogitsProcessor):
    """Divides ``scores`` by the temperature (one, or one per batch row: Stage II draws each candidate at its own),
    keeps the ``top_k`` tokens and the ``top_p`` nucleus as transformers' generate does after its temperature, and adds
    the Gumbel noise of each row's next position; greedy selection of the result samples.

    Place it after every processor that masks or rescales scores (spg's grammar, loop control, boundary
    temperature): they act on the model's scores, and the noise is what turns the argmax into a draw.
    """

    def __init__(self, temperature: float | Sequence[float], top_k: int = DEFAULT_TOP_K, top_p: float = DEFAULT_TOP_P,
                 key: int | None = None):
        self.temperature = torch.as_tensor(temperature, dtype=torch.float32).reshape(-1, 1)
        self.warpers = LogitsProcessorList(
            ([TopKLogitsWarper(top_k)] if top_k else []) + ([TopPLogitsWarper(top_p)] if top_p < 1.0 else [])
        )
        # a redraw passes its own key (spg.generation.redraw: derived from the document and the attempt)
        self.key = int(torch.randint(0, 2**62, ()).item()) if key is None else key

    @classmethod
    def for_model(cls, temperature: float | Sequence[float], config: GenerationConfig,
                  key: int | None = None) -> PositionalSampling:
        """The sampling ``generate`` would do for a model with this generation config: its ``top_k`` and ``top_p``,
        else transformers' defaults (spg's settings name only a temperature; other warpers are not applied)."""
        top_k = DEFAULT_TOP_K if config.top_k is None else config.top_k
        return cls(temperature, top_k, DEFAULT_TOP_P if config.top_p is None else config.top_p, key)

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        self.temperature = self.temperature.to(scores.device, scores.dtype)  # once: a copy per step would sync
        scores = scores.div(self.temperature)
        for warper in self.warpers:  # not the list's own call, which reads each one's signature every time
            scores = warper(input_ids, scores)
        generator = torch.Generator(device=scores.device)
        generator.manual_seed(self.key + input_ids.shape[1])  # the position this call chooses the token of
        uniform = torch.rand(scores.shape, generator=generator, device=scores.device, dtype=scores.dtype)
        # −log(−log u) is standard Gumbel; in place, as it runs once per position each forward checks
        return scores.sub_(uniform.log_().neg_().log_())

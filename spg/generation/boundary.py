"""Structure decisions sampled at their own temperature (``boundary_temperature``; not in the paper).

At the paper's temperature (0.1) decoding is all but greedy, and greedy decoding never stops a small model: after
each closing tag the SPG SmolLM2 model gives the next claim's ``<dep>`` about 0.65 and ``<eot>`` about 0.07,
at every claim boundary alike (teacher-forced on dev documents; docs/generation.md), so the argmax is always
"one more claim" and every output runs into the token budget. Sampling the *structure decision* (the token
after a claim ends: another dependent, a new tree, or the end) at a temperature near 1 draws the number of
claims and trees from the model's own distribution, while the claims' text keeps the low temperature.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import torch
from transformers import LogitsProcessor


class BoundaryTemperature(LogitsProcessor):
    """Rows whose last token ends a claim (one of ``boundaries``) are sampled at ``temperature`` instead of the
    temperature the rest of the pipeline applies to them (``base``: one per row, or one for all).

    Place it before spg's sampler (spg.generation.sampling): a boundary row's scores are multiplied by
    base / temperature, so after the sampler's division by base they stand at 1 / temperature.
    """

    def __init__(self, temperature: float, boundaries: Iterable[int], base: float | Sequence[float]):
        if temperature <= 0:
            raise ValueError(f"boundary temperature must be positive, got {temperature}")
        self.temperature = temperature
        self.boundaries = torch.tensor(sorted(set(boundaries)), dtype=torch.long)
        self.base = torch.as_tensor(base, dtype=torch.float32).reshape(-1)

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        # moved once: a host-to-device copy per step would make the host wait for the device
        self.boundaries = self.boundaries.to(input_ids.device)
        self.base = self.base.to(scores.device, scores.dtype)
        at_boundary = torch.isin(input_ids[:, -1], self.boundaries)
        factor = self.base.unsqueeze(1) / self.temperature
        return torch.where(at_boundary.unsqueeze(1), scores * factor, scores)

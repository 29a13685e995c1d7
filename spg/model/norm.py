"""The scale of the hidden states the auxiliary losses read (a deviation from the paper, ``aux_state_norm``).

The pointer's I/√d initialisation (§3.1) gives logits of order one only for states whose coordinates have
unit scale, as in scaled dot-product attention. A backbone's final-norm states need not: SmolLM2-135M's have
norm ≈ 50 at d = 576 (RMS ≈ 2 per coordinate), so the initial pointer logits are 94 ± 13, the softmax of
Eq. 2 saturates, and L_struct's gradient is ~100× L_LM's (docs/training.md, "Why Stage I broke"). Likewise
the scope radius ρ of Eq. 4 is a length in the backbone's own hidden-state units.

``aux_state_norm: rms`` divides each state by its root-mean-square over the hidden dimension (a parameter-free
RMSNorm) before the pointer and the scope loss read it, so both see unit-scale coordinates whatever the
backbone; ``none`` reads the states as they are (the paper).
"""

from __future__ import annotations

import torch

from spg.model.config import STATE_NORMS


def unit_rms(states: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """``states`` [..., d] scaled to unit root-mean-square over the last dimension (computed in float32)."""
    x = states.float()
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def aux_states(states: torch.Tensor, norm: str) -> torch.Tensor:
    """The states the pointer and the scope loss read under the ``aux_state_norm`` setting ``norm``."""
    if norm == "rms":
        return unit_rms(states)
    if norm == "none":
        return states
    raise ValueError(f"aux_state_norm must be one of {STATE_NORMS}, got {norm!r}")

"""The language-modelling term and the Stage I objective (paper Eq. 6). Every function returns per-example values."""

from __future__ import annotations

import torch
import torch.nn.functional as F


def lm_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Next-token cross-entropy per example, averaged over its labelled tokens (−100 = ignored) → [B]."""
    shift_logits = logits[:, :-1].float()
    shift_labels = labels[:, 1:]
    nll = F.cross_entropy(shift_logits.transpose(1, 2), shift_labels, ignore_index=-100, reduction="none")
    counted = (shift_labels != -100).sum(-1)
    return nll.sum(-1) / counted.clamp(min=1)


def per_target_token(per_claim: torch.Tensor, claims: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """A per-example mean over dependent claims re-expressed as a sum over them per target token → [B].

    ``aux_reduction: token`` (a deviation from Eq. 3/4, which average over dependents): L_LM averages over
    the ~500–1,000 target tokens of an example, L_struct over its ~10 dependents, so at γ = 1 a pointer
    decision weighs as much as ~50–100 tokens, and on SmolLM2 L_struct's gradient is 8× L_LM's on the LoRA
    weights and 12× on the tag rows. Sharing L_LM's denominator makes γ the weight of one pointer decision
    relative to one next-token prediction, which means the same on every backbone and corpus.
    """
    tokens = (labels[:, 1:] != -100).sum(-1)
    return per_claim * claims / tokens.clamp(min=1)


def warmup_factor(step: int, total_steps: int, warmup_ratio: float) -> float:
    """The auxiliary weights' ramp: γ and η grow linearly from 0 to their value over the first
    ``warmup_ratio`` of training (``aux_warmup_ratio``; the paper: 0, full weight from the first step)."""
    span = warmup_ratio * total_steps
    return 1.0 if span <= 0 else min(1.0, step / span)


def stage1_loss(
    lm: torch.Tensor, struct: torch.Tensor, scope: torch.Tensor, gamma: float, eta: float
) -> torch.Tensor:
    """Eq. 6: L = L_LM + γ·L_struct + η·L_scope."""
    return lm + gamma * struct + eta * scope

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


def stage1_loss(
    lm: torch.Tensor, struct: torch.Tensor, scope: torch.Tensor, gamma: float, eta: float
) -> torch.Tensor:
    """Eq. 6: L = L_LM + γ·L_struct + η·L_scope."""
    return lm + gamma * struct + eta * scope

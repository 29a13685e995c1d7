"""How much each Stage I loss term moves the backbone at the start of training (docs/training.md, "Why Stage I
broke"): the measurement tests/test_diagnostics.py repeats. Test support, not part of spg: no command needs it.

Under Adam, what a term does to a parameter depends on its share of that parameter's gradient, so the
quantity that says whether the auxiliary terms swamp L_LM is the norm of each term's weighted gradient on
the backbone's trainable weights (LoRA and the structure-tag rows), measured on the same batch.
:func:`term_gradient_norms` backpropagates each weighted term on its own (γ·L_struct and η·L_scope reduced as
the run's ``aux_reduction`` reduces them) and reports the norms by parameter group.
"""

from __future__ import annotations

import math

import torch

from spg.model.losses import per_target_token
from spg.model.spg_model import SPGModel

GROUPS = ("lora", "tag_rows", "pointer")


def _group(name: str) -> str | None:
    if "lora_" in name:
        return "lora"
    if "trainable_tokens" in name:
        return "tag_rows"
    if name.startswith("pointer."):
        return "pointer"
    return None


def term_gradient_norms(
    model: SPGModel, batch: dict[str, torch.Tensor], gamma: float, eta: float, aux_reduction: str = "claim",
    terms: tuple[str, ...] = ("lm", "struct", "scope"),
) -> dict[str, dict[str, float]]:
    """``{"lm" | "struct" | "scope": {"lora" | "tag_rows" | "pointer" | "backbone": gradient norm}}`` of
    L_LM, γ·L_struct and η·L_scope on ``batch``; ``backbone`` is LoRA and tag rows together. Only the ``terms``
    asked for are backpropagated: each is a backward pass through the whole model."""
    model.train()
    out = model(**batch)
    labels = batch["labels"]

    def reduce(per_example: torch.Tensor) -> torch.Tensor:
        if aux_reduction == "token":
            return per_target_token(per_example, out.pointer_total, labels).mean()
        has_dep = (out.pointer_total > 0).float()
        return (per_example * has_dep).sum() / has_dep.sum().clamp(min=1)

    weighted = {"lm": out.lm_loss.mean(), "struct": gamma * reduce(out.struct_loss), "scope": eta * reduce(out.scope_loss)}
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad and _group(n)]
    norms = {}
    for key in terms:
        term = weighted[key]
        grads = torch.autograd.grad(term, [p for _, p in named], retain_graph=True, allow_unused=True)
        squares = dict.fromkeys(GROUPS, 0.0)
        for (name, _), grad in zip(named, grads, strict=True):
            if grad is not None:
                squares[_group(name)] += float(grad.float().pow(2).sum())
        squares["backbone"] = squares["lora"] + squares["tag_rows"]
        norms[key] = {group: math.sqrt(value) for group, value in squares.items()}
    return norms

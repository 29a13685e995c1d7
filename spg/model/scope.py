"""Hierarchical scope regularisation (paper §3.2, Eq. 4).

z_i is the mean of the hidden states of claim i's text (the tokens between its tags); a dependent
claim is pulled to within radius r(v_i) = ρ·λ^(d(v_i)−1) of its parent, d = depth with root = 1.
"""

from __future__ import annotations

import torch


def claim_means(hidden: torch.Tensor, starts: torch.Tensor, ends: torch.Tensor) -> torch.Tensor:
    """z of Eq. 4: mean of hidden [B, T, d] over each span [start, end) → [B, C, d] (empty spans give 0)."""
    t = torch.arange(hidden.shape[1], device=hidden.device)
    inside = (t >= starts.unsqueeze(-1)) & (t < ends.unsqueeze(-1))  # [B, C, T]
    weights = inside.float() / inside.sum(-1, keepdim=True).clamp(min=1)
    return weights @ hidden.float()


def scope_radius(depths: torch.Tensor, rho: float, lam: float) -> torch.Tensor:
    """r(v) = ρ·λ^(d(v)−1) (Eq. 4)."""
    return rho * lam ** (depths.float() - 1)


def scope_loss(z: torch.Tensor, parents: torch.Tensor, depths: torch.Tensor, rho: float, lam: float) -> torch.Tensor:
    """Eq. 4 per example: mean over dependents of max(0, ‖z_i − z_pa(i)‖₂ − r(v_i))²; 0 with no dependents."""
    is_dep = parents >= 0
    z_parent = z.gather(1, parents.clamp(min=0).unsqueeze(-1).expand_as(z))
    excess = (z - z_parent).norm(dim=-1) - scope_radius(depths, rho, lam)
    hinge = excess.clamp(min=0).pow(2).masked_fill(~is_dep, 0.0)
    return hinge.sum(-1) / is_dep.sum(-1).clamp(min=1)

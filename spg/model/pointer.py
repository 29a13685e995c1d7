"""Pointer-based parent selection (paper §3.1, Eq. 2) and the structure consistency loss (Eq. 3).

Claims are indexed in serialisation order. For dependent claim i the candidates A(i) are the claims
before it in the same tree; the score of candidate j is the bilinear form h_<dep>(i)ᵀ W_dep h_end(j)
of the hidden state at i's opening ``<dep>`` and the one at j's closing tag. Because candidates
always precede the claim, every greedy choice yields a forest: argmax is the exact best forest.

Where the query is read is the key ``pointer_query`` (a deviation when not ``open``). The paper's ``open`` asks at
the dependent's opening ``<dep>``, before its text exists: the pointer must *plan* the attachment. ``close`` asks at
the dependent's own closing tag, after its text (and its "of claim N") has been written: the pointer then resolves
the attachment the model has written, and the forest shown to users agrees with the text. The candidates are the
same earlier claims either way. docs/training.md has the measurements that motivated it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import torch
from safetensors.torch import load_file
from torch import nn

from spg.model.config import POINTER_QUERIES
from spg.model.norm import aux_states

if TYPE_CHECKING:
    from spg.model.config import SPGConfig


class PointerHead(nn.Module):
    """W_dep ∈ R^{d×d}, initialised to I/√d so the first scores are a scaled dot product (§3.1).

    ``state_norm`` (:mod:`spg.model.norm`) is applied to both states before the bilinear form; it has no
    parameters, so it is a property of the model (saved in ``spg_config.json``), not of the weights.
    """

    def __init__(self, hidden_size: int, state_norm: str = "none", query: str = "open"):
        super().__init__()
        if query not in POINTER_QUERIES:
            raise ValueError(f"pointer_query must be one of {POINTER_QUERIES}, got {query!r}")
        self.weight = nn.Parameter(torch.eye(hidden_size) / math.sqrt(hidden_size))
        self.state_norm = state_norm
        self.query = query  # like state_norm: a property of the model, saved in spg_config.json

    @classmethod
    def load(cls, path: Path, hidden_size: int, config: SPGConfig, trainable: bool = False) -> PointerHead:
        """The head saved at ``path`` (an artefact's ``pointer_head.safetensors``) of the model ``config`` describes,
        on an LM whose hidden states are ``hidden_size`` wide."""
        pointer = cls(hidden_size, config.aux_state_norm, config.pointer_query)
        pointer.load_state_dict(load_file(path))
        pointer.requires_grad_(trainable)
        return pointer

    def forward(self, h_dep: torch.Tensor, h_end: torch.Tensor) -> torch.Tensor:
        """Eq. 2 logits: ``h_dep`` [..., n, d] against ``h_end`` [..., m, d] → [..., n, m]."""
        w = self.weight
        h_dep, h_end = aux_states(h_dep, self.state_norm), aux_states(h_end, self.state_norm)
        return (h_dep.to(w.dtype) @ w) @ h_end.to(w.dtype).transpose(-1, -2)


def candidate_mask(trees: torch.Tensor, claim_mask: torch.Tensor) -> torch.Tensor:
    """A(i) of Eq. 2 as a [B, C, C] mask: j < i, same tree, both real claims."""
    n = trees.shape[-1]
    earlier = torch.ones(n, n, dtype=torch.bool, device=trees.device).tril(-1)
    same_tree = trees.unsqueeze(-1) == trees.unsqueeze(-2)
    real = claim_mask.unsqueeze(-1) & claim_mask.unsqueeze(-2)
    return earlier & same_tree & real


def gather_positions(hidden: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """hidden [B, T, d], positions [B, C] → [B, C, d] (padding positions point at 0 and are masked later)."""
    return hidden.gather(1, positions.clamp(min=0).unsqueeze(-1).expand(-1, -1, hidden.shape[-1]))


def pointer_logits(
    head: PointerHead, hidden: torch.Tensor, open_pos: torch.Tensor, close_pos: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    """Masked Eq. 2 logits [B, C, C]: row i scores claim i's query state (its ``<dep>``, or its closing tag under
    ``pointer_query: close``) against every claim's closing tag."""
    queries = open_pos if head.query == "open" else close_pos
    scores = head(gather_positions(hidden, queries), gather_positions(hidden, close_pos)).float()
    return scores.masked_fill(~mask, float("-inf"))


def structure_loss(logits: torch.Tensor, parents: torch.Tensor) -> torch.Tensor:
    """Eq. 3 per example: mean over dependents of −log Pr(j*|i) under the masked softmax; 0 with no dependents.

    ``parents`` [B, C] holds the gold parent's claim index, −1 for roots and padding.
    """
    is_dep = parents >= 0
    log_probs = logits.masked_fill(~is_dep.unsqueeze(-1), 0.0).log_softmax(-1)
    nll = -log_probs.gather(-1, parents.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    nll = nll.masked_fill(~is_dep, 0.0)
    return nll.sum(-1) / is_dep.sum(-1).clamp(min=1)


def greedy_parents(logits: torch.Tensor) -> torch.Tensor:
    """Argmax parent per claim [B, C]; −1 where a claim has no candidate (roots, padding)."""
    if logits.shape[-1] == 0:  # no claims at all: argmax has nothing to reduce over
        return logits.new_full(logits.shape[:-1], -1, dtype=torch.long)
    has_candidate = torch.isfinite(logits).any(-1)
    return logits.argmax(-1).masked_fill(~has_candidate, -1)


def pointer_hits(logits: torch.Tensor, parents: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Teacher-forced pointer accuracy as (correct, dependents) counts per example."""
    is_dep = parents >= 0
    correct = (greedy_parents(logits) == parents) & is_dep
    return correct.sum(-1), is_dep.sum(-1)

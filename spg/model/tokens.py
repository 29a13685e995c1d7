"""The six structure tokens as single special tokens (appendix "Model Configuration").

New rows of the input embedding (and of an untied output embedding) start at the mean of the
existing rows, as in the paper; they are trained through PEFT ``trainable_token_indices`` (see
:func:`spg.model.spg_model.lora_config`) so only those rows are updated and saved with the adapter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from transformers import PreTrainedTokenizerBase

if TYPE_CHECKING:  # transformers' model code (modeling_utils: 1-2 s of imports) only where a model is built
    from transformers import PreTrainedModel

from spg.linearize import STRUCTURE_TOKENS


def structure_token_ids(tokenizer: PreTrainedTokenizerBase) -> dict[str, int]:
    """Tag → token id; raises if a tag is missing or is not a single token."""
    ids = {}
    for tag in STRUCTURE_TOKENS:
        encoded = tokenizer.encode(tag, add_special_tokens=False)
        if len(encoded) != 1:
            raise ValueError(f"structure token {tag!r} is not a single token in this tokenizer (got {encoded}); "
                             "call spg.model.tokens.add_structure_tokens first")
        ids[tag] = encoded[0]
    return ids


def add_structure_tokens(tokenizer: PreTrainedTokenizerBase, model: PreTrainedModel) -> dict[str, int]:
    """Add the tags to ``tokenizer`` and ``model`` (embedding rows = mean of the existing rows); return their ids.

    Idempotent: a tokenizer that already has the tags only gets the embedding matrix checked.
    """
    tokenizer.add_tokens(list(STRUCTURE_TOKENS), special_tokens=True)
    ids = structure_token_ids(tokenizer)
    old_rows = model.get_input_embeddings().weight.shape[0]
    # Never shrink: some checkpoints pad the embedding matrix beyond the tokenizer's length.
    if len(tokenizer) > old_rows:
        model.resize_token_embeddings(len(tokenizer), mean_resizing=False)
    new_rows = sorted(i for i in ids.values() if i >= old_rows)
    if new_rows:
        _init_rows_to_mean(model, new_rows, old_rows)
    return ids


@torch.no_grad()
def _init_rows_to_mean(model: PreTrainedModel, rows: list[int], old_rows: int) -> None:
    modules = [model.get_input_embeddings()]
    output = model.get_output_embeddings()
    if output is not None and output.weight is not modules[0].weight:
        modules.append(output)
    for module in modules:
        weight = module.weight
        weight[rows] = weight[:old_rows].float().mean(0).to(weight.dtype)

"""What benchmarks share: where they find the shared data (``$SPG_DATA_DIR`` or ``../shared/data`` beside the repo),
and the models they measure (a real backbone, or a randomly initialised one of a paper model's shape)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
SETS = REPO / "benchmarks" / "sets"  # the labelled and written sets the scripts score (sets/README.md)

# Shapes of the paper's backbone, for measuring its cost without its weights (random values, the embedded
# model's tokenizer; Llama-3-8B's own 128k vocabulary would add 0.6 B parameters).
SHAPES = {
    "llama3-8b": dict(
        hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
        num_key_value_heads=8, max_position_embeddings=8192, rope_theta=500000.0, tie_word_embeddings=False,
    ),
}


def shared_file(relative: str) -> Path:
    path = Path(os.environ.get("SPG_DATA_DIR", REPO.parent / "shared" / "data")) / relative
    if not path.is_file():
        sys.stderr.write(f"error: shared data file missing: {path} (set SPG_DATA_DIR)\n")
        raise SystemExit(2)
    return path


def shared_records(relative: str = "uspto/patents.jsonl") -> list:
    """Every record of a shared data file, as :class:`spg.data.Record`."""
    from spg.data import load_records

    return list(load_records(shared_file(relative)))


def base_model(name: str, shape: str | None, dtype: torch.dtype, device: torch.device):
    """(model, tokenizer) on ``device``: the backbone ``name``, or with ``shape`` a random model of that shape that
    uses ``name``'s tokenizer (built on the device in ``dtype``: an 8B model never exists in float32)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    from spg.model.backbone import load_backbone

    model, tokenizer = load_backbone(name, dtype)
    if shape is None:
        return model.to(device), tokenizer
    config = LlamaConfig(vocab_size=len(tokenizer), pad_token_id=tokenizer.pad_token_id, **SHAPES[shape])
    default = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device(device):
            torch.manual_seed(0)
            model = LlamaForCausalLM(config)
    finally:
        torch.set_default_dtype(default)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model.eval(), tokenizer

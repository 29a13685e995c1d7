"""What benchmarks share: where they find the shared data (``$SPG_DATA_DIR`` or ``../shared/data`` beside the repo),
and the models they measure (a real backbone, or a randomly initialised one of a paper model's shape)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import NoReturn

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


def bad(message: str) -> NoReturn:
    """Bad input: one line on stderr, exit 2."""
    sys.stderr.write(f"error: {message}\n")
    raise SystemExit(2)


def jsonl_rows(path: Path) -> list[tuple[int, dict]]:
    """(line number, JSON object) of each line of a JSON Lines file that is not blank; one line and exit 2 where a
    line is not a JSON object."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        bad(f"{path}: cannot be read as UTF-8 text ({error.__class__.__name__})")
    rows = []
    for line_no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            bad(f"{path} line {line_no}: not valid JSON ({error.msg})")
        if not isinstance(row, dict):
            bad(f"{path} line {line_no}: expected a JSON object")
        rows.append((line_no, row))
    return rows


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

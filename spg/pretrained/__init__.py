"""Trained SPG models shipped inside the package, each with its model card (README.md) beside the weights.

``spg-smollm2`` is SPG (Stage I + LPO) on the embedded SmolLM2-135M-Instruct, trained by
``spg reproduce --config configs/repro/smollm2.yaml`` (docs/reproduction-smollm2.md). Its base model is the
embedded GGUF, so it loads offline.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
SHIPPED = {"spg-smollm2": "spg-smollm2/lpo"}  # name -> what `--model NAME` loads (spg.model.config.shipped_path)
DEFAULT_MODEL = "spg-smollm2"


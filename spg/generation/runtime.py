"""How the decoding model runs: the ``runtime`` setting of ``spg generate`` (docs/generation.md, "CPU decoding").

* ``torch`` — the transformers model as loaded (on CUDA: bfloat16 and the compiled step).
* ``onnx`` — the same model exported once to ONNX (float32) and run by ONNX Runtime on the CPU
  (:mod:`spg.generation.onnx_model`); any transformers causal LM that onnxruntime-genai's model builder exports
  (Llama, Mistral, Qwen, Phi, Gemma, ...). Needs the ``cpu`` extra (``pip install 'spg[cpu]'``).
* ``auto`` — ``onnx`` on a float32 CPU for the models with a ready form in the cache (the artefacts on the embedded
  backbone, spg.model.ready: what a laptop runs) decoding one document at a time (the main job) when ONNX Runtime
  is installed; ``torch`` everywhere else (CUDA unchanged; batches of documents, which PyTorch decodes together; a
  large model is not exported behind the user's back). On the 2-core CPU the export decodes the
  same greedy tokens as float32 PyTorch, about 1.5x as fast (benchmarks/cpu_decoding.py).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from spg.generation.config import RUNTIMES
from spg.model.spg_model import SPGModel

if TYPE_CHECKING:  # transformers' model code (modeling_utils: 1-2 s of imports) only where a model is built
    from transformers import PreTrainedModel


def onnx_available() -> bool:
    return all(importlib.util.find_spec(m) is not None for m in ("onnxruntime", "onnxruntime_genai"))


def resolve_runtime(setting: str, device: torch.device, dtype: torch.dtype, has_ready_form: bool = False,
                    rows: int = 1) -> str:
    """The runtime ``setting`` means on ``device`` in ``dtype`` for a model that has a ready form in the cache or not
    (spg.model.ready: the artefacts on the embedded backbone), decoding batches of ``rows`` documents: ``auto`` is
    ``onnx`` for those on a float32 CPU, one document at a time, when ONNX Runtime is installed, ``torch`` otherwise
    (the ONNX model decodes a batch row by row: at batch 4 PyTorch's batched step was 1.4-2x faster); ``onnx`` off a
    float32 CPU, or without ONNX Runtime, is a ValueError saying why."""
    if setting not in RUNTIMES:
        raise ValueError(f"runtime must be one of {', '.join(RUNTIMES)}, got {setting!r}")
    cpu_fp32 = device.type == "cpu" and dtype == torch.float32
    if setting == "auto":
        return "onnx" if has_ready_form and cpu_fp32 and rows == 1 and onnx_available() else "torch"
    if setting == "onnx" and not cpu_fp32:
        raise ValueError(f"runtime onnx runs float32 models on the CPU, not {dtype} on {device}")
    if setting == "onnx" and not onnx_available():
        raise ValueError("runtime onnx needs onnxruntime and onnxruntime-genai: pip install 'spg[cpu]'")
    return setting


def load_ready_onnx(model: str | Path, root: Path, weights: str = "float32") -> SPGModel:
    """An SPG artefact with a ready form (in ``root``) on ONNX Runtime, exported once (``weights``: the
    ``onnx_weights`` setting)."""
    from spg.generation.onnx_model import load_ready_onnx as load

    return load(model, root, weights)


def onnx_lm(lm: PreTrainedModel, hf_dir: str | Path) -> PreTrainedModel:
    """``lm`` (whose weights are those saved in ``hf_dir``) as an ONNX Runtime model, exported once."""
    from spg.generation.onnx_model import OnnxCausalLM, onnx_model_dir

    fast = OnnxCausalLM(lm.config, onnx_model_dir(hf_dir))
    fast.generation_config = lm.generation_config
    return fast
